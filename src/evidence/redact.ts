import { posix } from 'node:path'

/** What a file's name says about how to read it (see `isConfigFile`). */
interface ScanContext {
  /** YAML, INI, shell and the like: an unquoted value there is a literal, not a variable. */
  readonly config: boolean
}

/** Where a secret is in the scanned text: `text.slice(start, end)`. */
interface Span {
  readonly start: number
  readonly end: number
}

interface SecretPattern {
  /** Named in the redaction and the coverage receipt. */
  readonly kind: string
  /** Where `text` holds this kind of secret. Linear in the text's length (see `PATTERNS`). */
  readonly spans: (text: string, context: ScanContext) => Span[]
}

/**
 * Every match `accept` (if any) agrees to. The secret is the match's `secret` group when it has
 * one, else the whole match: for `name = value` only the value goes, so a reviewer still reads
 * what was assigned. `pattern` has the `g` flag, for `matchAll`.
 */
function matching(
  pattern: RegExp,
  accept?: (secret: string, match: RegExpExecArray, context: ScanContext) => boolean
): SecretPattern['spans'] {
  // The `d` flag gives the group's offsets. (matchAll works on a copy of the regex, so the
  // shared `g` patterns keep no state.)
  const indexed = new RegExp(pattern.source, `${pattern.flags}d`)
  return (text, context) => {
    const spans: Span[] = []
    // Every match, not just the first: the first may be a placeholder and a later one real.
    for (const match of text.matchAll(indexed)) {
      const [start, end] = match.indices?.groups?.secret ?? [
        match.index,
        match.index + match[0].length
      ]
      if (accept === undefined || accept(text.slice(start, end), match, context)) {
        spans.push({ start, end })
      }
    }
    return spans
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
 * A key file's `private_key` value, up to its closing quote (escaped or not, as its opening one
 * was): the key whole, however it is split over lines. Not a placeholder (`"<key>"`, `"${KEY}"`).
 * A `"` or `\"` ends every attempt, so none reads past the next one's start.
 */
const GCP_PRIVATE_KEY = matching(
  /\\?"private_key\\?"\s*:\s*\\?"(?<secret>(?![<${"\\])(?:[^"\\]|\\(?!"))+)\\?"/g
)
/** A key file's `private_key_id`: 40 hex digits that name the key and appear nowhere else. */
const GCP_KEY_ID = matching(/\\?"private_key_id\\?"\s*:\s*\\?"(?<secret>[0-9a-f]{40})\\?"/g)

/**
 * The bodies of private keys, each from a match of `start`: read from the match's end (`after`: a
 * BEGIN line) or from its start (`at`: the body's own first characters). A body that was read is
 * not read again for a later start inside it, so the text is read once, whatever the number of
 * starts.
 */
function keyBodies(start: RegExp, from: 'after' | 'at'): SecretPattern['spans'] {
  return text => {
    const spans: Span[] = []
    // A copy: `exec` keeps its place in `lastIndex`.
    const starts = new RegExp(start)
    for (let match = starts.exec(text); match !== null; match = starts.exec(text)) {
      const body =
        from === 'after'
          ? keyBody(text, match.index + match[0].length, true)
          : keyBody(text, match.index, false)
      if (body === undefined) continue
      spans.push(body)
      starts.lastIndex = Math.max(starts.lastIndex, body.end)
    }
    return spans
  }
}

/** Base64, with its padding. */
const BASE64_WORD = /[A-Za-z0-9+/]*=*/y
/**
 * What stands between the words of a key's body as files and code hold it: white space and line
 * breaks, quotes, commas, a `+` joining strings, and `\n` written in a string (or a `\` that ends
 * a shell line). Nothing else: a key has no code in it.
 */
const KEY_SEPARATORS = /(?:[ \t\r\n'"`,]|\\[nrt]?|\+(?![A-Za-z0-9+/]))*/y
/**
 * What follows a key's last, short line: the key's end (its END line, PuTTY's MAC, the end of the
 * text) or, where a diff replaces a key with another, the next key's first line.
 */
const KEY_AFTER_LAST = new RegExp(
  String.raw`${KEY_SEPARATORS.source}(?:-----|Private-MAC:|$|[A-Za-z0-9+/]{16})`,
  'y'
)
/** An encrypted PEM key's headers, between its BEGIN line and its body: not secret. */
const PEM_HEADER = /(?:Proc-Type|DEK-Info):[ \t]*[A-Za-z0-9,-]*/y
/** A key's lines are 64 or 76 characters but its last; an identifier is rarely 16. */
const KEY_LINE = 16

/** Where a sticky `pattern` matching at `at` ends; `at` when it does not match there. */
function matchEnd(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at
  return pattern.test(text) ? pattern.lastIndex : at
}

/** Whether the sticky `pattern` matches at `at`. */
function matchesAt(pattern: RegExp, text: string, at: number): boolean {
  pattern.lastIndex = at
  return pattern.test(text)
}

/**
 * The span of a key's body read from `at`: base64 words, each long as a key's line is, with only
 * `KEY_SEPARATORS` between them, and a shorter word (a key's last line) where `KEY_AFTER_LAST`
 * follows it. It ends at the first thing that is not such a word, so code on the BEGIN or END
 * line, or written between them, stays for the judges to read: a fake key hides no code but
 * base64 words of 16 characters or more (a long identifier at worst), and a short word before one.
 */
function keyBody(text: string, at: number, afterBegin: boolean): Span | undefined {
  let start: number | undefined
  let end = at
  let next = at
  for (;;) {
    next = matchEnd(KEY_SEPARATORS, text, next)
    const header = afterBegin && start === undefined ? matchEnd(PEM_HEADER, text, next) : next
    if (header > next) {
      next = header
      continue
    }
    const wordEnd = matchEnd(BASE64_WORD, text, next)
    const short = wordEnd - next < KEY_LINE
    if (wordEnd === next || (short && !matchesAt(KEY_AFTER_LAST, text, wordEnd))) break
    start ??= next
    end = wordEnd
    next = wordEnd
  }
  return start === undefined ? undefined : { start, end }
}

/**
 * What a secret looks like, and where it is. Provider keys have fixed prefixes and lengths; the
 * lookbehinds keep them from matching inside longer identifiers. Assignments need a
 * secret-looking name and a value that is neither code nor a placeholder (see `isUnquotedSecret`
 * and `looksRandom`); the span is the value alone.
 *
 * Patches can be megabytes of the pull request's own choosing, so every pattern must take time
 * linear in the text: each starts at a literal or at a name, and no repeated part can match what
 * the next part (or the next start) needs, so a failed attempt gives up after one pass over its
 * own run. A key's body is read on from its start once (see `keyBodies`).
 * `__tests__/evidence/redact.test.ts` feeds the patterns megabyte lines built to make them
 * backtrack.
 */
const PATTERNS: readonly SecretPattern[] = [
  {
    // The body after the BEGIN line. The BEGIN and END lines themselves are no secret: they stay,
    // and tell the reader a key was there.
    kind: 'private key',
    spans: keyBodies(/-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g, 'after')
  },
  {
    // A key whose BEGIN line is not in the hunk: split over lines or strings, or only its body
    // changed. The body starts with the key's DER header, which differs from a certificate's:
    // RSA (PKCS#1 and #8, PSS), DSA, EC (SEC1 and PKCS#8), Ed25519/X25519, Ed448/X448, encrypted
    // PKCS#8 and OpenSSH (`openssh-key-v1`).
    kind: 'private key',
    spans: keyBodies(
      /MII[A-Za-z0-9+/]{3}IBA(?:DAN|DAL|DCC|AK)|MII[A-Za-z0-9+/]{5}BgkqhkiG9w0BBQ0|MI[GH][A-Za-z0-9+/]AgEAMB[AM]GByqGSM49AgEG|MH[A-Za-z0-9+/]CAQEE|MI[GH][A-Za-z0-9+/]AgEBB[DE]|MC4CAQAwBQYDK2V[uw]|ME[cY]CAQAwBQYDK2V[vx]|b3BlbnNzaC1rZXktdjE/g,
      'at'
    )
  },
  {
    // A PuTTY key's private lines follow their count; its public lines are no secret.
    kind: 'private key',
    spans: keyBodies(/Private-Lines:[ \t]*\d+/g, 'after')
  },
  {
    kind: 'AWS access key',
    spans: matching(/(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])/g)
  },
  {
    // 40 base64 characters, after a name AWS uses for it: the environment variable, the
    // credentials file's key, `SecretAccessKey` in STS output, or `aws configure set`.
    kind: 'AWS secret key',
    spans: matching(
      /(?:secret[_-]?access[_-]?key|aws[_-]?secret[_-]?key)["']?(?:[ \t]*(?::=|=>|[:=])[ \t]*|[ \t]+)["']?(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi,
      // Random keys mix cases; `EXAMPLEKEYEXAMPLEKEY…` and hex digests do not.
      secret => /[a-z]/.test(secret) && /[A-Z]/.test(secret)
    )
  },
  {
    kind: 'GitHub token',
    spans: matching(/(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g)
  },
  {
    kind: 'Anthropic API key',
    spans: matching(/(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g)
  },
  {
    kind: 'OpenAI API key',
    spans: matching(
      /(?<![A-Za-z0-9_-])sk-(?!ant-)[A-Za-z0-9_-]{20,}/g,
      // Random keys hold digits; hyphenated words such as `sk-learn-contrib-project` do not.
      secret => /[0-9]/.test(secret)
    )
  },
  { kind: 'Slack token', spans: matching(/(?<![A-Za-z0-9_-])xox[abprs]-[A-Za-z0-9-]{10,}/g) },
  {
    kind: 'Google API key',
    spans: matching(/(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g)
  },
  {
    // A service account's key file: the value of its `private_key` when its type is in the text
    // too, on whatever lines and however the key itself is split; and the key's 40-hex id, which
    // appears nowhere else. Quotes may be escaped, for the file pasted into a string.
    kind: 'GCP service account key',
    spans: (text, context) => [
      ...(/\\?"type\\?"\s*:\s*\\?"service_account\\?"/.test(text)
        ? GCP_PRIVATE_KEY(text, context)
        : []),
      ...GCP_KEY_ID(text, context)
    ]
  },
  {
    kind: 'Stripe key',
    spans: matching(/(?<![A-Za-z0-9_])[sr]k_live_[0-9A-Za-z]{16,}/g)
  },
  {
    kind: 'npm token',
    spans: matching(/(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g)
  },
  {
    kind: 'PyPI token',
    spans: matching(/(?<![A-Za-z0-9_-])pypi-[A-Za-z0-9_-]{50,}/g)
  },
  {
    kind: 'JWT',
    spans: matching(/(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g)
  },
  {
    // Storage account keys in connection strings; Service Bus, Event Hubs and IoT Hub keys.
    kind: 'Azure access key',
    spans: matching(
      /(?<![A-Za-z0-9])(?:AccountKey|SharedAccessKey)[ \t]*=[ \t]*(?<secret>[A-Za-z0-9+/]{20,}={0,2})/gi,
      mixesClasses
    )
  },
  {
    // RFC 6750's token characters. The value must mix letters with digits or cases, so prose
    // ("Bearer tokens are sent…") and `Bearer YOUR_ACCESS_TOKEN_HERE` are left alone; `Bearer
    // ${token}` never matches.
    kind: 'Bearer token',
    spans: matching(
      /(?<![A-Za-z0-9_-])bearer[ \t]+(?<secret>[A-Za-z0-9._~+/-]{20,}=*)/gi,
      mixesClasses
    )
  },
  {
    // Only when the base64 decodes to `user:password`: "Basic authentication" does not.
    kind: 'Basic auth credentials',
    spans: matching(
      /(?<![A-Za-z0-9_-])basic[ \t]+(?<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/gi,
      secret =>
        /^[\x21-\x39\x3b-\x7e][\x20-\x7e]*:[\x20-\x7e]+$/.test(
          Buffer.from(secret, 'base64').toString('latin1')
        )
    )
  },
  {
    // `scheme://user:password@host`, found from its `://` (whatever the scheme: `postgres`,
    // `mongodb+srv`, `jdbc:mysql`); the password goes, the user and host stay.
    // `git@github.com:org/repo`, `http://user@host` and `https://host:443/` have no password.
    // Neither user nor password can hold a `/`, so an attempt stops before the next `://`: each
    // character is looked at once or twice.
    kind: 'password in URL',
    spans: matching(
      /:\/\/[^\s:@/?#"'`<>]*:(?<secret>[^\s@/?#"'`<>]+)@/g,
      // Not `${PASS}`, `{password}`, `%(pw)s` or `****`; but `u:p@` has a one-letter password.
      secret => !/^(?:[$<{[]|%[({])/.test(secret) && !/^(.)\1+$/.test(secret)
    )
  },
  {
    // A quoted value: `password = "…"`, `"api_key": "…"`, `'token' => '…'`. It needs the quotes,
    // so `password: string` and `const tokenizer = new Tokenizer()` are left alone.
    kind: 'password or secret assignment',
    spans: matching(
      new RegExp(
        String.raw`${NAME}["']?\s*(?::=|=>|[:=])\s*(["'\`])(?<secret>[^\s"'\`]{8,})\1`,
        'gi'
      ),
      secret => !isPlaceholder(secret)
    )
  },
  {
    // An unquoted value, as YAML, INI, .properties and shell write them: `password: hunter2-…`,
    // `DB_PASSWORD=…`, `?api_key=…`. The value ends at a space, quote, `,`, `;`, `&` or `=`
    // (base64 padding aside): `password=password=…` is one name after another, not a value.
    kind: 'password or secret assignment',
    spans: matching(
      new RegExp(String.raw`${NAME}${ASSIGN}(?<secret>[^\s"'\`,;&=]+={0,2})`, 'gi'),
      (secret, match, context) => !namesAnotherSecret(match) && isUnquotedSecret(secret, context)
    )
  },
  {
    // XML, as in Maven's settings.xml: `<password>…</password>`.
    kind: 'password or secret assignment',
    spans: matching(new RegExp(String.raw`${NAME}>(?<secret>[^<>\s]{8,})</`, 'gi'), secret =>
      isUnquotedSecret(secret, { config: true })
    )
  },
  {
    // A long random-looking value, quoted or not, under any name ending in key, token, secret,
    // password or credentials: `CLIENT_SECRET=…`, `"signingKey": "…"`, `NPM_TOKEN: …`. A dot
    // ends no value, so `process.env.GITHUB_TOKEN_FOR_RELEASES` is not one.
    kind: 'high-entropy secret',
    spans: matching(
      new RegExp(
        String.raw`${SECRET_NAME}${ASSIGN}["'\`]?(?<secret>[A-Za-z0-9+/][A-Za-z0-9+/_-]{23,}={0,2})(?![^\s"'\`,;)}\]&<])`,
        'gi'
      ),
      looksRandom
    )
  }
]

/**
 * The last word of a setting's name that says its value is a credential: `API_TOKEN`,
 * `//registry.npmjs.org/:_authToken`, `_auth`, `DB_PASSWORD`, `clientSecret`, `SIGNING_KEY`.
 * Not `monkey` or `keyfile`: the name is split into words first (see `lastWord`).
 */
const CREDENTIAL_WORDS = new Set([
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
function lastWord(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/).filter(word => word !== '')
  return (words.at(-1) ?? '').toLowerCase()
}

/** Values that say something other than a secret: keywords, numbers, paths, placeholders. */
function isSettingWord(value: string): boolean {
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
function isIdentifierChain(value: string): boolean {
  return /^[A-Za-z_$][\w$]*(?:(?:\.|\?\.|::|->)[A-Za-z_$][\w$]*)+[!?]?$/.test(value)
}

/**
 * A value that may be a password: letters with digits or symbols, and none of what a setting
 * names instead (a path or file name, an option, a URL or host, an identifier chain, a
 * placeholder, a number).
 */
function looksLikePassword(value: string): boolean {
  if (isSettingWord(value) || isIdentifierChain(value) || value.startsWith('-')) return false
  // `hook.sh`, `app.internal`, `https://…`, `lib/x.js`, `dev@example.com`: where something is.
  if (/^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$/.test(value)) return false
  if (/^[\w-]+(?:\.[A-Za-z][\w-]{0,9})+$|:\/\/|\//.test(value)) return false
  return /[A-Za-z]/.test(value) && /[0-9!@#%^*+~?]/.test(value)
}

/** Where a setting's name may start: not inside another name (see `SECRET_FILE_PATTERNS`). */
const SETTING_NAME = String.raw`(?<![\w.\-/@:])(?<name>(?:[\w.\-/@]|:(?=[\w.\-/@]))+)`

/**
 * What a secret file holds is there to be secret: on top of every pattern above, any value that looks like a credential goes, whatever it is
 * named or not named. What does not look like one stays, so the file's other lines are shown as
 * they are: `node-options=--require ./.env`, `registry=https://…`, `username = __token__`,
 * and code (`node() { … }`, `require('./x')`, `token = process.env.TOKEN`), which is what a pull
 * request would hide there. Each pattern starts at the start of a name, a line or a run of token
 * characters, so each character is looked at a bounded number of times.
 */
const SECRET_FILE_PATTERNS: readonly SecretPattern[] = [
  {
    // `API_TOKEN='…'`, `"client_secret": "…"`, `password = "correct horse"`: the whole quoted
    // value under a credential's name, however short, unless it is a placeholder.
    kind: 'credential setting',
    spans: matching(
      new RegExp(String.raw`${SETTING_NAME}${ASSIGN}(["'\`])(?<secret>[^"'\`\r\n]+)\2`, 'g'),
      (secret, match) =>
        CREDENTIAL_WORDS.has(lastWord(match.groups?.name ?? '')) && !isSettingWord(secret)
    )
  },
  {
    // `//registry.npmjs.org/:_authToken=…`, `_auth=…`, `API_TOKEN=…`, `password: …`: an unquoted
    // value under a credential's name. A value followed by code (`token = getToken()`) is code.
    kind: 'credential setting',
    spans: matching(
      new RegExp(
        String.raw`${SETTING_NAME}${ASSIGN}(?<secret>[^\s"'\`,;(){}\[\]<>|&=]+={0,2})(?<after>[^\s,;#]?)`,
        'g'
      ),
      (secret, match) =>
        match.groups?.after === '' &&
        CREDENTIAL_WORDS.has(lastWord(match.groups.name ?? '')) &&
        !isSettingWord(secret) &&
        !isIdentifierChain(secret)
    )
  },
  {
    // Any setting's one-word value that looks like a password: 8 characters or more, letters
    // with digits or symbols (`PLAIN=env-value-9f8e7d`, `pass: Tr0ub4dor&3`). What names a file,
    // an option, a place or a word stays: `BASH_ENV=hook.sh`, `NODE_OPTIONS=--require=./x.js`,
    // `registry=https://…`, `NODE_ENV=production`.
    kind: 'password-like value',
    spans: matching(
      new RegExp(String.raw`${SETTING_NAME}${ASSIGN}(["'\`])(?<secret>[^\s"'\`]{8,})\2`, 'g'),
      looksLikePassword
    )
  },
  {
    kind: 'password-like value',
    spans: matching(
      new RegExp(
        String.raw`${SETTING_NAME}${ASSIGN}(?<secret>[^\s"'\`,;(){}\[\]<>|&=]{8,}={0,2})(?<after>[^\s,;#]?)`,
        'g'
      ),
      (secret, match) => match.groups?.after === '' && looksLikePassword(secret)
    )
  },
  {
    // `.netrc`: `machine example.com login bot password s3cret`, the value after a space.
    kind: 'credential setting',
    spans: matching(
      /(?<![\w-])(?:password|passwd|account)[ \t]+(?<secret>[^\s=:&|?(){}[\];,'"`<>.][^\s;]*)/gi,
      secret => !isSettingWord(secret)
    )
  },
  {
    // `.pgpass`: `host:port:database:user:password`, the fifth field.
    kind: 'credential setting',
    spans: matching(
      /^(?:[^\s:\\]|\\.)*:(?:[^\s:\\]|\\.)*:(?:[^\s:\\]|\\.)*:(?:[^\s:\\]|\\.)*:(?<secret>\S+)$/gm
    )
  },
  {
    // `.htpasswd`: `user:$apr1$…`, `user:$2y$05$…`, `user:{SHA}…`.
    kind: 'password hash',
    spans: matching(/:(?<secret>\$(?:apr1|2[abxy]?|1|5|6)\$[^\s:]+|\{SHA\}[A-Za-z0-9+/]+=*)/g)
  },
  {
    // A long random-looking value anywhere, named or not: `SIGNING=…`, a certificate's body, a
    // key split in a way the key patterns do not know. Base64 or hex, 20 characters or more.
    kind: 'random-looking value',
    spans: matching(
      /(?<![A-Za-z0-9+/_-])(?<secret>[A-Za-z0-9+/_-]{20,}={0,2})(?![A-Za-z0-9+/_=-])/g,
      secret => looksRandom(secret.replace(/=+$/, ''))
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

/** A secret found: where it is, and what it looked like (in the order of `PATTERNS`). */
interface Secret extends Span {
  readonly kinds: readonly string[]
}

/** Every kind, each once, in the order of the patterns: the order kinds are named in. */
const KINDS = [...new Set([...PATTERNS, ...SECRET_FILE_PATTERNS].map(({ kind }) => kind))]

/**
 * How a file is read for secrets: as code (the default), where only what looks like a secret in
 * code goes; or as a secret file (a name on the denylist: `.env`, `.npmrc`, `*.key`…), where on
 * top of that every value that looks like a credential goes (see `SECRET_FILE_PATTERNS`).
 */
export type RedactionPolicy = 'code' | 'secret file'

function inOrder(kinds: ReadonlySet<string>): string[] {
  return KINDS.filter(kind => kinds.has(kind))
}

/**
 * Where `text` seems to hold secrets, in order, overlapping and touching spans merged into one.
 * `path` is the file the text is from: it tells how to read unquoted values (see
 * `isConfigFile`).
 */
export function findSecrets(text: string, path = '', policy: RedactionPolicy = 'code'): Secret[] {
  const secretFile = policy === 'secret file'
  // A secret file may hold code (a `.env` that node requires): configuration's reading would take
  // `token = load(key)` for a value. Its values are the secret-file patterns' to find, which
  // leave code alone.
  const context = { config: !secretFile && isConfigFile(path) }
  const patterns = secretFile ? [...PATTERNS, ...SECRET_FILE_PATTERNS] : PATTERNS
  const found = patterns
    .flatMap(({ kind, spans }) => spans(text, context).map(span => ({ ...span, kind })))
    .sort((a, b) => a.start - b.start)
  const merged: { start: number; end: number; kinds: Set<string> }[] = []
  for (const { start, end, kind } of found) {
    const last = merged.at(-1)
    if (last !== undefined && start <= last.end) {
      last.end = Math.max(last.end, end)
      last.kinds.add(kind)
    } else {
      merged.push({ start, end, kinds: new Set([kind]) })
    }
  }
  return merged.map(({ start, end, kinds }) => ({ start, end, kinds: inOrder(kinds) }))
}

/** `@@ -1,3 +1,4 @@`: a hunk header's line ranges, before the old line it may show. */
const HUNK_RANGES = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/

/** A line of a hunk: what marks its kind, kept as it is, and its text, which is scanned. */
interface HunkLine {
  readonly mark: string
  readonly text: string
}

/**
 * A body line's mark is its first character (` `, `+`, `-`, `\`). A header's is its line ranges:
 * the text after them is a line of the old file (the enclosing function), scanned like the rest.
 */
function hunkLine(line: string, header: boolean): HunkLine {
  const mark = header ? (HUNK_RANGES.exec(line)?.[0] ?? '@@') : line.slice(0, 1)
  return { mark, text: line.slice(mark.length) }
}

/**
 * Replaces each secret in a file's patch with `[redacted: kind]`, and nothing else: the code
 * around a secret, on its line and in its hunk, is still shown, so a secret cannot hide code from
 * the judges. Every line of each hunk is scanned, context and removed lines too (context is sent
 * as well, and a secret already in the repository must not travel further), joined without their
 * marks so that a secret over several lines (a key's body) is found whole. A secret over several
 * lines leaves each of its lines in place, with its mark and `[redacted: kind]` for its part of
 * the secret, so the hunk's line counts stay true. A secret file's patch (`policy`) loses every
 * value that looks like a credential as well.
 */
export function redactPatch(
  patch: string,
  policy: RedactionPolicy = 'code'
): { patch: string; secrets: number; kinds: string[] } {
  const lines = patch.split('\n')
  const firstHunk = lines.findIndex(line => line.startsWith('@@'))
  if (firstHunk === -1) return { patch, secrets: 0, kinds: [] }

  const output = lines.slice(0, firstHunk)
  const path = patchPath(output)
  const kinds = new Set<string>()
  let secrets = 0
  let start = firstHunk
  while (start < lines.length) {
    let end = start + 1
    // Inside hunks only hunk headers start with `@@`: body lines start with ` +-\`.
    while (end < lines.length && !(lines[end] ?? '').startsWith('@@')) end++
    const hunk = lines.slice(start, end).map((line, i) => hunkLine(line, i === 0))
    const found = findSecrets(hunk.map(line => line.text).join('\n'), path, policy)
    secrets += found.length
    for (const secret of found) for (const kind of secret.kinds) kinds.add(kind)
    output.push(...redactLines(hunk, found))
    start = end
  }
  return { patch: output.join('\n'), secrets, kinds: inOrder(kinds) }
}

/**
 * The lines with each secret's part of them replaced by `[redacted: kind]`, naming the secret's
 * first kind: the most specific (`token: "ghp_…"` is a GitHub token before it is an assignment).
 * `secrets` are spans of the lines' texts joined with `\n`, in order and apart.
 */
function redactLines(lines: readonly HunkLine[], secrets: readonly Secret[]): string[] {
  let next = 0
  let lineStart = 0
  return lines.map(({ mark, text }) => {
    const offset = lineStart
    const lineEnd = offset + text.length
    lineStart = lineEnd + 1
    let shown = ''
    let at = offset
    for (let secret = secrets[next]; secret !== undefined && secret.start < lineEnd;) {
      if (secret.end > at) {
        const before = text.slice(at - offset, Math.max(secret.start, at) - offset)
        shown += `${before}[redacted: ${secret.kinds[0] ?? 'secret'}]`
        at = Math.min(secret.end, lineEnd)
      }
      // A secret that goes on past this line is redacted on the next one too.
      if (secret.end > lineEnd) break
      secret = secrets[++next]
    }
    return mark + shown + text.slice(at - offset)
  })
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
