import { posix } from 'node:path'

/** A path as the rules see it: lower-cased, with its name and the name's last extension. */
interface FileName {
  /** The whole path, `/`-separated. */
  readonly path: string
  readonly name: string
  /** `.json` for `secrets.prod.json`; `''` for `credentials` and `.npmrc`. */
  readonly ext: string
}

/** The rule's text (shown in the coverage receipt as the reason) when `file` falls under it. */
type DenyRule = (file: FileName) => string | undefined

const exactly =
  (expected: string): DenyRule =>
  ({ name }) =>
    name === expected ? expected : undefined
const startsWith =
  (prefix: string): DenyRule =>
  ({ name }) =>
    name.startsWith(prefix) ? `${prefix}*` : undefined
const endsWith =
  (suffix: string): DenyRule =>
  ({ name }) =>
    name.endsWith(suffix) ? `*${suffix}` : undefined
/** `dir/file` at the root or under any directory. */
const pathEndsWith =
  (tail: string): DenyRule =>
  ({ path }) =>
    path === tail || path.endsWith(`/${tail}`) ? tail : undefined

/**
 * The formats secrets are kept in as data. Only these: a rule naming a file by a word
 * (`secrets`, `credentials`) must never catch the code that handles them, which is what a pull
 * request would hide from the judges by naming it so.
 */
const DATA_FORMATS = new Set([
  '.json',
  '.yml',
  '.yaml',
  '.toml',
  '.ini',
  '.env',
  '.txt',
  '.xml',
  '.csv',
  '.properties',
  '.conf',
  '.cfg'
])

/** `secrets.json`, `secrets.prod.yaml`, `secrets.enc.yaml` (sops): `stem`, then a data format. */
const dataFile =
  (stem: string): DenyRule =>
  ({ name, ext }) => {
    if (!DATA_FORMATS.has(ext)) return undefined
    if (name === `${stem}${ext}`) return name
    return name.startsWith(`${stem}.`) ? `${stem}.*${ext}` : undefined
  }

/** Data files anywhere under a directory named `dir` (at any depth): `config/secrets/db.yaml`. */
const dataUnder =
  (dir: string): DenyRule =>
  ({ path, ext }) =>
    DATA_FORMATS.has(ext) && (path.startsWith(`${dir}/`) || path.includes(`/${dir}/`))
      ? `${dir}/**/*${ext}`
      : undefined

/**
 * The extensions of code: a file with one is the pull request's code, read as code whatever its
 * name (`src/secrets.ts`, `lib/credentials.js`, `id_rsa.py`, `.env.js`), and a secret inside it
 * is redacted by content (src/evidence/redact.ts). None of the secret files below has one.
 */
const CODE_EXTENSIONS = new Set([
  '.ts',
  '.tsx',
  '.mts',
  '.cts',
  '.js',
  '.jsx',
  '.mjs',
  '.cjs',
  '.vue',
  '.svelte',
  '.py',
  '.rb',
  '.go',
  '.rs',
  '.java',
  '.kt',
  '.kts',
  '.scala',
  '.groovy',
  '.gradle',
  '.swift',
  '.m',
  '.mm',
  '.c',
  '.h',
  '.cc',
  '.cpp',
  '.cxx',
  '.hpp',
  '.cs',
  '.fs',
  '.vb',
  '.php',
  '.pl',
  '.pm',
  '.lua',
  '.r',
  '.jl',
  '.dart',
  '.ex',
  '.exs',
  '.erl',
  '.hs',
  '.ml',
  '.clj',
  '.zig',
  '.nim',
  '.sh',
  '.bash',
  '.zsh',
  '.ps1',
  '.sql',
  '.tf',
  '.hcl'
])

/**
 * Secret files: the usual homes of credentials and keys, and nothing else. Their values are
 * withheld, never the files: one is shown to the judges with every value that looks like a
 * credential redacted (src/evidence/redact.ts, `RedactionPolicy`), whatever the configuration
 * says, and one whose content is binary is not sent and counts against coverage. Checked on the lower-cased name (or path), so
 * `config/Prod.PEM` and `deploy/.ENV.production` are caught too. The path forms come first so the
 * receipt names the most specific rule.
 */
const RULES: readonly DenyRule[] = [
  pathEndsWith('.kube/config'),
  pathEndsWith('.aws/credentials'),
  pathEndsWith('.docker/config.json'),
  dataUnder('secrets'),
  dataUnder('.secrets'),
  // Environment files: `.env`, `.env.production`, `prod.env`. Not `.envrc`: direnv runs it, so
  // it is code (its secrets are redacted by content).
  exactly('.env'),
  startsWith('.env.'),
  endsWith('.env'),
  // Keys and certificates with their private keys.
  endsWith('.pem'),
  endsWith('.key'),
  endsWith('.p8'),
  endsWith('.p12'),
  endsWith('.pfx'),
  endsWith('.jks'),
  endsWith('.keystore'),
  endsWith('.ppk'),
  startsWith('id_rsa'),
  startsWith('id_dsa'),
  startsWith('id_ecdsa'),
  startsWith('id_ed25519'),
  endsWith('.ovpn'),
  // Tokens and passwords of tools, in the files the tools read them from.
  exactly('.npmrc'),
  exactly('.pypirc'),
  exactly('.netrc'),
  exactly('_netrc'),
  exactly('.git-credentials'),
  exactly('.dockercfg'),
  exactly('.pgpass'),
  exactly('.htpasswd'),
  exactly('.vault-token'),
  exactly('kubeconfig'),
  dataFile('kubeconfig'),
  exactly('credentials'),
  dataFile('credentials'),
  dataFile('secrets'),
  // Terraform writes every secret it manages into its state, and variables files hold inputs.
  endsWith('.tfvars'),
  endsWith('.tfvars.json'),
  endsWith('.tfstate'),
  endsWith('.tfstate.backup')
]

/** The built-in denylist rule `path` (repository-relative, `/`-separated) falls under, if any. */
export function denylistRule(path: string): string | undefined {
  const lower = path.toLowerCase()
  const name = posix.basename(lower)
  const ext = posix.extname(name)
  // Workflows and actions are code that CI runs, whatever they are called: a workflow named
  // `secrets.yml` is reviewed.
  if (CODE_EXTENSIONS.has(ext) || lower.startsWith('.github/')) return undefined
  const file = { path: lower, name, ext }
  for (const rule of RULES) {
    const text = rule(file)
    if (text !== undefined) return text
  }
  return undefined
}

/** A glob's wildcard characters. */
const WILDCARD = /[*?[{]/
/**
 * A file's name with an extension: a dot after its first character (`package-lock.json`, not
 * `.github`). A folder with a dot in its name (`conf.d`, `v1.2`) is named with a trailing `/`.
 */
const FILE_NAME = /^.+\.[^.]+$/

/**
 * The first user `exclude` (or `skip-paths`) glob that matches `path`, if any, with a meaning close
 * to .gitignore's:
 *
 * - a glob without a slash matches at any depth: `*.snap` excludes `a/b/x.snap`;
 * - a glob with a slash matches from the repository root (a leading `/` is allowed);
 * - a glob whose last part is a plain name (`fixtures`, `docs/api`, `.github`), or that ends in
 *   `/`, names a directory too, and everything under it is excluded: `fixtures` excludes
 *   `test/fixtures/big.json`, `docs/api/` excludes `docs/api/index.md`;
 * - a glob whose last part has a wildcard (`*.md`, `docs/*.md`, `vendor/**`), or is a file's name
 *   with an extension (`package-lock.json`, `CHANGELOG.md`), names files only, unlike .gitignore:
 *   `*.md` does not exclude `pages/notes.md/index.ts`, nor `package-lock.json`
 *   `src/package-lock.json/index.js`, code that a folder named like a document or a lockfile would
 *   otherwise hide from the judges (`require('./package-lock.json')` runs that index.js);
 * - `**` matches across directories, `*` and `?` only within one name.
 *
 * Matching is case-sensitive, as paths in git are, and (as `path.matchesGlob`) `*` does not match a
 * leading dot: write `.*.json` or the name itself for dotfiles.
 */
export function excludedBy(path: string, globs: readonly string[]): string | undefined {
  const segments = path.split('/')
  return globs.find(glob => matchesExclude(segments, glob.trim()))
}

function matchesExclude(segments: readonly string[], glob: string): boolean {
  if (glob === '' || glob === '/') return false
  const directory = glob.endsWith('/')
  const bare = glob.replace(/\/$/, '')
  const last = bare.slice(bare.lastIndexOf('/') + 1)
  const filesOnly = !directory && (WILDCARD.test(last) || FILE_NAME.test(last))
  if (!bare.includes('/')) {
    // A trailing slash means "a directory of that name", so only the directories on the path.
    const names = directory ? segments.slice(0, -1) : filesOnly ? segments.slice(-1) : segments
    return names.some(name => posix.matchesGlob(name, bare))
  }
  const pattern = bare.replace(/^\//, '')
  if (filesOnly) return posix.matchesGlob(segments.join('/'), pattern)
  // The path itself, or any directory containing it.
  for (let end = segments.length; end > 0; end--) {
    if (posix.matchesGlob(segments.slice(0, end).join('/'), pattern)) return true
  }
  return false
}
