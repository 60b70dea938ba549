import { GCP_KEY_ID, GCP_PRIVATE_KEY, keyBodies } from './private-keys.js'
import { ASSIGN, matching, NAME, SECRET_NAME, type SecretPattern } from './secret-pattern.js'
import {
  CREDENTIAL_WORDS,
  isIdentifierChain,
  isPlaceholder,
  isSettingWord,
  isUnquotedSecret,
  lastWord,
  looksLikePassword,
  looksRandom,
  mixesClasses,
  namesAnotherSecret
} from './secret-values.js'

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
export const PATTERNS: readonly SecretPattern[] = [
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
export const SECRET_FILE_PATTERNS: readonly SecretPattern[] = [
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
