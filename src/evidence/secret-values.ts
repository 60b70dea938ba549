import { posix } from 'node:path'
import type { ScanContext } from './secret-pattern.js'

/** What a matched value looks like: a credential, or code, a setting, a placeholder. */

/**
 * The last word of a setting's name that says its value is a credential: `API_TOKEN`,
 * `//registry.npmjs.org/:_authToken`, `_auth`, `DB_PASSWORD`, `clientSecret`, `SIGNING_KEY`.
 * Not `monkey` or `keyfile`: the name is split into words first (see `lastWord`).
 */
export const CREDENTIAL_WORDS = new Set([
  'password',
  'passwd',
  'passphrase',
  'pass',
  'pwd',
  'secret',
  'token',
  'authtoken',
  'auth',
  'key',
  'apikey',
  'credential',
  'credentials',
  'creds',
  'cookie',
  'salt'
])

/** `//registry.npmjs.org/:_authToken` → `token`; `SIGNING_KEY` → `key`; `apiKey` → `key`. */
export function lastWord(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/).filter(word => word !== '')
  return (words.at(-1) ?? '').toLowerCase()
}

/** Values that say something other than a secret: keywords, numbers, paths, placeholders. */
export function isSettingWord(value: string): boolean {
  return (
    /^(?:true|false|yes|no|on|off|null|nil|none|undefined)$/i.test(value) ||
    /^[0-9][0-9_.]*$/.test(value) ||
    /^(?:\.{1,2}\/|\/|~\/)/.test(value) ||
    /^[$%<{]|\$\{|\{\{/.test(value) ||
    /^(.)\1*$/.test(value)
  )
}

/**
 * A chain of identifiers (`process.env.TOKEN`, `config.auth`): code that names where a value
 * comes from. A plain word (`hunter2`) may be the password itself, so it is not one.
 */
export function isIdentifierChain(value: string): boolean {
  return /^[A-Za-z_$][\w$]*(?:(?:\.|\?\.|::|->)[A-Za-z_$][\w$]*)+[!?]?$/.test(value)
}

/**
 * A value that may be a password: letters with digits or symbols, and none of what a setting
 * names instead (a path or file name, an option, a URL or host, an identifier chain, a
 * placeholder, a number).
 */
export function looksLikePassword(value: string): boolean {
  if (isSettingWord(value) || isIdentifierChain(value) || value.startsWith('-')) return false
  // `hook.sh`, `app.internal`, `https://…`, `lib/x.js`, `dev@example.com`: where something is.
  if (/^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$/.test(value)) return false
  if (/^[\w-]+(?:\.[A-Za-z][\w-]{0,9})+$|:\/\/|\//.test(value)) return false
  return /[A-Za-z]/.test(value) && /[0-9!@#%^*+~?]/.test(value)
}

/** `${DB_PASSWORD}`, `{{ token }}`, `<your-key>`, `********`: a slot for a secret, not one. */
export function isPlaceholder(value: string): boolean {
  return /^[$<%{]/.test(value) || /^(.)\1*$/.test(value)
}

/** Words that say what belongs in a field rather than being its value. */
const PLACEHOLDER_WORDS = new Set([
  'changeme',
  'change-me',
  'change_me',
  'password',
  'placeholder',
  'redacted',
  'required',
  'optional',
  'undefined'
])

/**
 * Whether an unquoted value (`password: VALUE`) is a literal secret. Never a placeholder (`$X`,
 * `${{ … }}`, `<your-password>`, `{{ x }}`, `%(pw)s`, `!vault`, `*alias`), a path, a number, a
 * keyword or a word like `changeme`; shorter than 8 characters it is too likely a word as well.
 * In configuration files any other value is a literal. Elsewhere the same text may be code —
 * `password: string`, `token: Token`, `secret: process.env.SECRET`, `apiKey: config.apiKey`,
 * `token: Optional[str]`, `password = newPassword` — so only a value that cannot be code is a
 * secret: `hunter2-super-secret`, `p@ssw0rd!x`.
 */
export function isUnquotedSecret(value: string, { config }: ScanContext): boolean {
  const bare = value.replace(/=+$/, '')
  // A value ending in `:` is the next key (`password: token: …` in a one-line map).
  if (value.length < 8 || !/^[A-Za-z0-9_]/.test(value) || value.endsWith(':')) return false
  if (/\$\{|\$\(|\{\{|%\(|<%/.test(value)) return false
  if (/^[0-9][0-9_.]*$/.test(bare) || /^(.)\1*$/.test(bare)) return false
  const lower = bare.toLowerCase()
  if (PLACEHOLDER_WORDS.has(lower) || /^your[_-]|[_-]here$/.test(lower)) return false
  return config || !looksLikeCode(value)
}

/**
 * An identifier or a chain of them (`a.b`, `a?.b`, `a::b`, `a->b`), possibly ending in `!` or
 * `?` (`process.env.KEY!`, `String?`); or anything with brackets or operators: a call, an index,
 * a generic or union type.
 */
function looksLikeCode(value: string): boolean {
  return (
    /^[A-Za-z_$][\w$]*(?:(?:\.|\?\.|!\.|::|->)[A-Za-z_$][\w$]*)*[!?]?$/.test(value) ||
    /[()[\]{}<>|&]|\?\?|=>/.test(value)
  )
}

/**
 * Helm charts name the Kubernetes Secret to read with `existingSecret: my-release-db`: a
 * reference, not a secret. The name's start is before the match, so look back a little.
 */
export function namesAnotherSecret(match: RegExpExecArray): boolean {
  const before = match.input.slice(Math.max(0, match.index - 40), match.index)
  return /existing[\w-]*$/i.test(before)
}

/** At least two of lower case, upper case and digits. */
export function mixesClasses(value: string): boolean {
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/].filter(c => c.test(value)).length
  return classes >= 2 && !/^(.)\1*$/.test(value)
}

/**
 * Random enough to be a key rather than a name: hex (with dashes, as in UUIDs) holding digits
 * and letters, or base64 mixing lower case, upper case and digits; and not a short pattern
 * repeated (`abc123abc123…`). A camel-case identifier has no digits; a constant's name no lower
 * case.
 */
export function looksRandom(value: string): boolean {
  if (new Set(value).size < 8) return false
  const digits = /[0-9]/.test(value)
  if (/^[0-9a-f_-]+$/i.test(value)) return digits && /[a-f]/i.test(value)
  return digits && /[a-z]/.test(value) && /[A-Z]/.test(value)
}

/** File names whose unquoted values are literals (see `isConfigFile`). */
const CONFIG_NAMES = new Set([
  'dockerfile',
  'containerfile',
  'makefile',
  'gnumakefile',
  '.envrc',
  '.bashrc',
  '.zshrc',
  '.profile'
])
const CONFIG_EXTENSIONS = new Set([
  '.yml',
  '.yaml',
  '.ini',
  '.cfg',
  '.conf',
  '.cnf',
  '.properties',
  '.toml',
  '.env',
  '.sh',
  '.bash',
  '.zsh',
  '.ksh',
  '.bat',
  '.cmd',
  '.mk',
  '.dockerfile'
])

/**
 * Whether `path` is configuration, a shell script or a Dockerfile: where `password: hunter2-x`
 * or `TOKEN=abc123xyz` holds a literal. In source code the same line names a variable or a type.
 */
export function isConfigFile(path: string): boolean {
  const name = posix.basename(path.toLowerCase())
  return CONFIG_NAMES.has(name) || CONFIG_EXTENSIONS.has(posix.extname(name))
}
