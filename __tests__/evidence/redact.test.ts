import { generateKeyPairSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { isConfigFile, redactPatch, secretKinds } from '../../src/evidence/redact.js'
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
  it.each(SECRETS)(
    'catches a $kind and leaves none of it in the output',
    ({ kind, line, value }) => {
      const closing = line.endsWith('"')
        ? '"'
        : line.endsWith("'")
          ? "'"
          : line.endsWith('`')
            ? '`'
            : ''
      const secretLine = line.startsWith('-----') ? line : `${line}${value}${closing}`
      const patch = newFile('src/config.ts', [
        'import x from "y"',
        secretLine,
        line.startsWith('-----') ? value : 'done()'
      ])
      const result = redactPatch(patch)
      expect(result.hunks).toBe(1)
      expect(result.kinds).toContain(kind)
      expect(result.patch).not.toContain(value)
      expect(result.patch).toContain(
        `@@ -0,0 +1,3 @@\n[hunk redacted by rubric-council: it looks like it contains a secret (`
      )
      // The file header survives: the judges still see which file it was.
      expect(result.patch.startsWith('diff --git a/src/config.ts b/src/config.ts\n')).toBe(true)
      expect(result.patch.endsWith(')]\n')).toBe(true)
    }
  )

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
    expect(redactPatch(patch)).toEqual({ patch, hunks: 0, kinds: [] })
  })

  it('redacts only the hunks with secrets, scanning removed and context lines too', () => {
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
    expect(result.hunks).toBe(1)
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
        '@@ -10,3 +10,2 @@',
        '[hunk redacted by rubric-council: it looks like it contains a secret (AWS access key, Stripe key)]',
        '@@ -20,2 +19,2 @@',
        '-x = 1',
        '+x = 2',
        ''
      ].join('\n')
    )
  })

  it('drops the old line shown after a hunk header when it holds the secret', () => {
    const key = 'AKIA' + 'QQQQQQQQQQQQQQQQ'
    const patch = `diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -5,1 +5,1 @@ KEY = "${key}"\n-x\n+y\n`
    const result = redactPatch(patch)
    expect(result.patch).not.toContain(key)
    expect(result.patch).toContain('@@ -5,1 +5,1 @@\n[hunk redacted')
  })

  it('leaves a patch without hunks (rename, mode change) as it is', () => {
    const patch = 'diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n'
    expect(redactPatch(patch)).toEqual({ patch, hunks: 0, kinds: [] })
  })

  it('secretKinds lists each kind once, in a fixed order', () => {
    const text = `${'AKIA' + 'ABCDEFGHIJKLMNOP'} ${'AKIA' + 'ABCDEFGHIJKLMNOQ'} password="abcdefgh1"`
    expect(secretKinds(text)).toEqual(['AWS access key', 'password or secret assignment'])
  })
})

/** Asserts that the one hunk of `patch` was redacted, naming `kind`, and that `value` is gone. */
function expectRedacted(patch: string, kind: string, value: string): void {
  expect(patch).toContain(value)
  const result = redactPatch(patch)
  expect(result.hunks).toBe(1)
  expect(result.kinds).toContain(kind)
  expect(result.patch).not.toContain(value)
  expect(result.patch).toMatch(
    /^@@ [^\n]+ @@\n\[hunk redacted by rubric-council: it looks like it contains a secret \([^\n]+\)\]\n$/m
  )
}

function expectKept(patch: string): void {
  expect(redactPatch(patch)).toEqual({ patch, hunks: 0, kinds: [] })
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
  it.each([
    ['src/db.ts', "const url = 'postgres://user:pass@host/db'", 'user:pass@host'],
    [
      'scripts/fetch.sh',
      'curl -fsSL https://user:secret@example.com/artifact.tgz',
      'user:secret@example'
    ],
    [
      '.github/workflows/ci.yml',
      '      MONGO_URL: mongodb+srv://u:p@cluster0.example.net/app',
      'u:p@cluster0'
    ],
    ['config/app.properties', 'db.url=jdbc:mysql://admin:hunter2@db:3306/app', 'admin:hunter2@db'],
    ['docker-compose.yml', '      REDIS_URL: redis://:s3cret-pw@cache:6379/0', ':s3cret-pw@cache']
  ])('catches %s: %s', (path, line, value) => {
    expectRedacted(newFile(path, ['before', line, 'after']), 'password in URL', value)
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
    const lines = [
      'GOOGLE_CREDENTIALS: |',
      '  {',
      '    "type": "service_account",',
      '    "project_id": "acme-prod",',
      '    "private_key": "-----BEGIN PRIVATE',
      `  KEY-----\\n${keyLine}`,
      `  ${keyLine}\\n-----END PRIVATE KEY-----\\n",`,
      '    "client_email": "deployer@acme-prod.iam.gserviceaccount.com"',
      '  }'
    ]
    expectRedacted(newFile('deploy/values.yaml', lines), 'GCP service account key', keyLine)
  })

  it('catches the key file as an escaped string in code', () => {
    const line = `const credentials = "{\\"type\\": \\"service_account\\", \\"private_key\\": \\"${keyLine}\\"}"`
    expectRedacted(
      newFile('test/gcp.ts', ['before', line, 'after']),
      'GCP service account key',
      keyLine
    )
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
    expectRedacted(patch, 'private key', body[0] ?? 'missing')
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

describe('redactPatch: long random values under secret names', () => {
  const base64 = 'q8Zt3Lw9' + 'XvB2nK7pR4sY6dF1hJ0mC5eG'
  const hex = '9f86d081' + '884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'

  it.each([
    ['src/oauth.ts', `const CLIENT_SECRET = '${base64}'`, base64],
    ['.github/workflows/release.yml', `          NPM_TOKEN: npm_${base64}`, base64],
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
    'a'
  ])('finds nothing in a 1 MB line of %j, in code and in configuration', unit => {
    const line = fill(unit)
    for (const path of ['src/big.ts', 'config/big.yaml']) {
      const patch = newFile(path, [line])
      expect(redactPatch(patch)).toEqual({ patch, hunks: 0, kinds: [] })
    }
  })

  it('still finds a secret at the end of a megabyte of near misses', () => {
    const patch = newFile('config/big.yaml', [
      fill('password: a '),
      'password: hunter2-super-secret'
    ])
    expect(redactPatch(patch).kinds).toEqual(['password or secret assignment'])
  })
})
