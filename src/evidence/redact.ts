import { posix } from 'node:path'

/** What a file's name says about how to read it (see `isConfigFile`). */
interface ScanContext {
  /** YAML, INI, shell and the like: an unquoted value there is a literal, not a variable. */
  readonly config: boolean
}

interface SecretPattern {
  /** Named in the redaction note and the coverage receipt. */
  readonly kind: string
  /** Whether `text` holds this kind of secret. Linear in the text's length (see `PATTERNS`). */
  readonly found: (text: string, context: ScanContext) => boolean
}

/** A match is a secret when `accept` (if any) agrees; `pattern` has the `g` flag, for `matchAll`. */
function matching(
  pattern: RegExp,
  accept?: (match: RegExpExecArray, context: ScanContext) => boolean
): SecretPattern['found'] {
  return (text, context) => {
    // Every match, not just the first: the first may be a placeholder and a later one real.
    // (matchAll works on a copy of the regex, so the shared `g` patterns keep no state.)
    for (const match of text.matchAll(pattern)) {
      if (accept === undefined || accept(match, context)) return true
    }
    return false
  }
}

/**
 * The names a secret is assigned to: `password`, `DB_PASSWD`, `client_secret`, `authToken`,
 * `api-key`, `SECRET_KEY`, `private_key`. The name only has to end with one of them, so
 * `secretary` and `tokenizer` are not names of secrets, and `AWS_SECRET_ACCESS_KEY` is not either
 * (`SECRET_NAME` below covers it).
 */
const NAME = String.raw`(?:password|passwd|secret|token|api[_-]?key|apikey|private[_-]?key)(?:[_-]?key)?`
/** Broader, for values that look random by themselves: any name ending in key, token, secret… */
const SECRET_NAME = String.raw`(?:secret|token|key|key[_-]?base|password|passwd|credentials?)`
/** `=`, `:`, `:=` (Go), `=>` (PHP, Ruby), after an optional closing quote of the name. */
const ASSIGN = String.raw`["']?[ \t]*(?::=|=>|[:=])[ \t]*`

/**
 * What a secret looks like. Provider keys have fixed prefixes and lengths; the lookbehinds keep
 * them from matching inside longer identifiers. Assignments need a secret-looking name and a
 * value that is neither code nor a placeholder (see `isUnquotedSecret` and `looksRandom`).
 *
 * Patches can be megabytes of the pull request's own choosing, so every pattern must take time
 * linear in the text: each starts at a literal or at a name, and no repeated part can match what
 * the next part (or the next start) needs, so a failed attempt gives up after one pass over its
 * own run. `__tests__/evidence/redact.test.ts` feeds the patterns megabyte lines built to make
 * them backtrack.
 */
const PATTERNS: readonly SecretPattern[] = [
  {
    kind: 'private key',
    found: matching(/-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g)
  },
  {
    // A key whose BEGIN line is not in the hunk: split over lines or strings, or only its body
    // changed. The body starts with the key's DER header, which differs from a certificate's:
    // RSA (PKCS#1 and #8, PSS), DSA, EC (SEC1 and PKCS#8), Ed25519/X25519, Ed448/X448, encrypted
    // PKCS#8, OpenSSH (`openssh-key-v1`) and PuTTY.
    kind: 'private key',
    found: matching(
      /MII[A-Za-z0-9+/]{3}IBA(?:DAN|DAL|DCC|AK)|MII[A-Za-z0-9+/]{5}BgkqhkiG9w0BBQ0|MI[GH][A-Za-z0-9+/]AgEAMB[AM]GByqGSM49AgEG|MH[A-Za-z0-9+/]CAQEE|MI[GH][A-Za-z0-9+/]AgEBB[DE]|MC4CAQAwBQYDK2V[uw]|ME[cY]CAQAwBQYDK2V[vx]|b3BlbnNzaC1rZXktdjE|PuTTY-User-Key-File-\d:/g
    )
  },
  {
    kind: 'AWS access key',
    found: matching(/(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])/g)
  },
  {
    // 40 base64 characters, after a name AWS uses for it: the environment variable, the
    // credentials file's key, `SecretAccessKey` in STS output, or `aws configure set`.
    kind: 'AWS secret key',
    found: matching(
      /(?:secret[_-]?access[_-]?key|aws[_-]?secret[_-]?key)["']?(?:[ \t]*(?::=|=>|[:=])[ \t]*|[ \t]+)["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi,
      // Random keys mix cases; `EXAMPLEKEYEXAMPLEKEY…` and hex digests do not.
      match => /[a-z]/.test(match[1] ?? '') && /[A-Z]/.test(match[1] ?? '')
    )
  },
  {
    kind: 'GitHub token',
    found: matching(/(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g)
  },
  {
    kind: 'Anthropic API key',
    found: matching(/(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g)
  },
  {
    kind: 'OpenAI API key',
    found: matching(
      /(?<![A-Za-z0-9_-])sk-(?!ant-)[A-Za-z0-9_-]{20,}/g,
      // Random keys hold digits; hyphenated words such as `sk-learn-contrib-project` do not.
      match => /[0-9]/.test(match[0])
    )
  },
  { kind: 'Slack token', found: matching(/(?<![A-Za-z0-9_-])xox[abprs]-[A-Za-z0-9-]{10,}/g) },
  {
    kind: 'Google API key',
    found: matching(/(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g)
  },
  {
    // A service account's key file: its type beside a private key with a value, on whatever
    // lines and however the key itself is split; or the key's 40-hex id, which appears nowhere
    // else. Quotes may be escaped, for the file pasted into a string.
    kind: 'GCP service account key',
    found: text =>
      (/\\?"type\\?"\s*:\s*\\?"service_account\\?"/.test(text) &&
        /\\?"private_key\\?"\s*:\s*\\?"(?![<${"\\])/.test(text)) ||
      /\\?"private_key_id\\?"\s*:\s*\\?"[0-9a-f]{40}\\?"/.test(text)
  },
  {
    kind: 'Stripe key',
    found: matching(/(?<![A-Za-z0-9_])[sr]k_live_[0-9A-Za-z]{16,}/g)
  },
  {
    kind: 'JWT',
    found: matching(/(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g)
  },
  {
    // Storage account keys in connection strings; Service Bus, Event Hubs and IoT Hub keys.
    kind: 'Azure access key',
    found: matching(
      /(?<![A-Za-z0-9])(?:AccountKey|SharedAccessKey)[ \t]*=[ \t]*([A-Za-z0-9+/]{20,}={0,2})/gi,
      match => mixesClasses(match[1] ?? '')
    )
  },
  {
    // RFC 6750's token characters. The value must mix letters with digits or cases, so prose
    // ("Bearer tokens are sent…") and `Bearer YOUR_ACCESS_TOKEN_HERE` are left alone; `Bearer
    // ${token}` never matches.
    kind: 'Bearer token',
    found: matching(/(?<![A-Za-z0-9_-])bearer[ \t]+([A-Za-z0-9._~+/-]{20,}=*)/gi, match =>
      mixesClasses(match[1] ?? '')
    )
  },
  {
    // Only when the base64 decodes to `user:password`: "Basic authentication" does not.
    kind: 'Basic auth credentials',
    found: matching(
      /(?<![A-Za-z0-9_-])basic[ \t]+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/gi,
      match =>
        /^[\x21-\x39\x3b-\x7e][\x20-\x7e]*:[\x20-\x7e]+$/.test(
          Buffer.from(match[1] ?? '', 'base64').toString('latin1')
        )
    )
  },
  {
    // `scheme://user:password@host`, found from its `://` (whatever the scheme: `postgres`,
    // `mongodb+srv`, `jdbc:mysql`). `git@github.com:org/repo`, `http://user@host` and
    // `https://host:443/` have no password. Neither user nor password can hold a `/`, so an
    // attempt stops before the next `://`: each character is looked at once or twice.
    kind: 'password in URL',
    found: matching(
      /:\/\/[^\s:@/?#"'`<>]*:([^\s@/?#"'`<>]+)@/g,
      // Not `${PASS}`, `{password}`, `%(pw)s` or `****`; but `u:p@` has a one-letter password.
      match => !/^(?:[$<{[]|%[({])/.test(match[1] ?? '') && !/^(.)\1+$/.test(match[1] ?? '')
    )
  },
  {
    // A quoted value: `password = "…"`, `"api_key": "…"`, `'token' => '…'`. It needs the quotes,
    // so `password: string` and `const tokenizer = new Tokenizer()` are left alone.
    kind: 'password or secret assignment',
    found: matching(
      new RegExp(String.raw`${NAME}["']?\s*(?::=|=>|[:=])\s*(["'\`])([^\s"'\`]{8,})\1`, 'gi'),
      match => !isPlaceholder(match[2] ?? '')
    )
  },
  {
    // An unquoted value, as YAML, INI, .properties and shell write them: `password: hunter2-…`,
    // `DB_PASSWORD=…`, `?api_key=…`. The value ends at a space, quote, `,`, `;`, `&` or `=`
    // (base64 padding aside): `password=password=…` is one name after another, not a value.
    kind: 'password or secret assignment',
    found: matching(
      new RegExp(String.raw`${NAME}${ASSIGN}([^\s"'\`,;&=]+={0,2})`, 'gi'),
      (match, context) => !namesAnotherSecret(match) && isUnquotedSecret(match[1] ?? '', context)
    )
  },
  {
    // XML, as in Maven's settings.xml: `<password>…</password>`.
    kind: 'password or secret assignment',
    found: matching(new RegExp(String.raw`${NAME}>([^<>\s]{8,})</`, 'gi'), match =>
      isUnquotedSecret(match[1] ?? '', { config: true })
    )
  },
  {
    // A long random-looking value, quoted or not, under any name ending in key, token, secret,
    // password or credentials: `CLIENT_SECRET=…`, `"signingKey": "…"`, `NPM_TOKEN: …`. A dot
    // ends no value, so `process.env.GITHUB_TOKEN_FOR_RELEASES` is not one.
    kind: 'high-entropy secret',
    found: matching(
      new RegExp(
        String.raw`${SECRET_NAME}${ASSIGN}["'\`]?([A-Za-z0-9+/][A-Za-z0-9+/_-]{23,}={0,2})(?![^\s"'\`,;)}\]&<])`,
        'gi'
      ),
      match => looksRandom(match[1] ?? '')
    )
  }
]

/** `${DB_PASSWORD}`, `{{ token }}`, `<your-key>`, `********`: a slot for a secret, not one. */
function isPlaceholder(value: string): boolean {
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
function isUnquotedSecret(value: string, { config }: ScanContext): boolean {
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
function namesAnotherSecret(match: RegExpExecArray): boolean {
  const before = match.input.slice(Math.max(0, match.index - 40), match.index)
  return /existing[\w-]*$/i.test(before)
}

/** At least two of lower case, upper case and digits. */
function mixesClasses(value: string): boolean {
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/].filter(c => c.test(value)).length
  return classes >= 2 && !/^(.)\1*$/.test(value)
}

/**
 * Random enough to be a key rather than a name: hex (with dashes, as in UUIDs) holding digits
 * and letters, or base64 mixing lower case, upper case and digits; and not a short pattern
 * repeated (`abc123abc123…`). A camel-case identifier has no digits; a constant's name no lower
 * case.
 */
function looksRandom(value: string): boolean {
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

/**
 * The kinds of secret `text` seems to hold, each once, in the order of `PATTERNS`. `path` is the
 * file the text is from: it tells how to read unquoted values (see `isConfigFile`).
 */
export function secretKinds(text: string, path = ''): string[] {
  const context = { config: isConfigFile(path) }
  const kinds = PATTERNS.filter(({ found }) => found(text, context)).map(({ kind }) => kind)
  return [...new Set(kinds)]
}

const HUNK_HEADER = /^(@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@)(.*)$/

/**
 * Replaces every hunk of a file's patch that looks like it holds a secret with a one-line note,
 * keeping its `@@` header. All lines of the hunk are scanned, context too: context is sent to the
 * judges as well, and a secret already in the repository must not travel further.
 */
export function redactPatch(patch: string): { patch: string; hunks: number; kinds: string[] } {
  const lines = patch.split('\n')
  const firstHunk = lines.findIndex(line => line.startsWith('@@'))
  if (firstHunk === -1) return { patch, hunks: 0, kinds: [] }

  const output = lines.slice(0, firstHunk)
  const path = patchPath(output)
  const kinds = new Set<string>()
  let hunks = 0
  let start = firstHunk
  while (start < lines.length) {
    let end = start + 1
    // Inside hunks only hunk headers start with `@@`: body lines start with ` +-\`.
    while (end < lines.length && !(lines[end] ?? '').startsWith('@@')) end++
    const header = lines[start] ?? ''
    const body = lines.slice(start + 1, end)
    // The text after the second `@@` is a line of the old file (the enclosing function): scanned too.
    const found = secretKinds([header, ...body].join('\n'), path)
    if (found.length === 0) {
      output.push(header, ...body)
    } else {
      hunks++
      for (const kind of found) kinds.add(kind)
      const trailing = body.at(-1) === '' && end === lines.length ? [''] : []
      output.push(
        bareHeader(header),
        `[hunk redacted by rubric-council: it looks like it contains a secret (${found.join(', ')})]`,
        ...trailing
      )
    }
    start = end
  }
  return { patch: output.join('\n'), hunks, kinds: [...kinds] }
}

/**
 * The file's path as the patch's header gives it (`+++ b/…`, or `--- a/…` for a deleted file),
 * prefix and quotes left on: only its name matters here.
 */
function patchPath(header: readonly string[]): string {
  const after = header.find(line => line.startsWith('+++ '))
  const before = header.find(line => line.startsWith('--- '))
  const line = after === undefined || after.startsWith('+++ /dev/null') ? before : after
  // Git quotes unusual names and ends a name holding a space with a tab.
  return (line ?? '').slice(4).trimEnd().replace(/"$/, '')
}

/** `@@ -1,3 +1,4 @@ const key = …` → `@@ -1,3 +1,4 @@`: the line ranges without the old text. */
function bareHeader(header: string): string {
  return HUNK_HEADER.exec(header)?.[1] ?? '@@'
}
