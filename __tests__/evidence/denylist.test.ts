import { describe, expect, it } from 'vitest'
import { denylistRule, excludedBy } from '../../src/evidence/denylist.js'

describe('denylistRule', () => {
  it.each([
    // Environment files.
    ['.env', '.env'],
    ['deploy/.env', '.env'],
    ['.env.production', '.env.*'],
    ['.env.local', '.env.*'],
    ['prod.env', '*.env'],
    ['config/production.env', '*.env'],
    // Keys, keystores and certificates with their keys.
    ['config/server.pem', '*.pem'],
    ['tls/private.key', '*.key'],
    ['ios/AuthKey_ABC123.p8', '*.p8'],
    ['certs/client.p12', '*.p12'],
    ['certs/client.pfx', '*.pfx'],
    ['android/release.jks', '*.jks'],
    ['android/release.keystore', '*.keystore'],
    ['keys/deploy.ppk', '*.ppk'],
    ['id_rsa', 'id_rsa*'],
    ['home/.ssh/id_rsa.pub', 'id_rsa*'],
    ['id_dsa', 'id_dsa*'],
    ['keys/id_ecdsa', 'id_ecdsa*'],
    ['keys/id_ecdsa_sk', 'id_ecdsa*'],
    ['id_ed25519_deploy', 'id_ed25519*'],
    ['vpn/office.ovpn', '*.ovpn'],
    // The files tools read their tokens and passwords from.
    ['.npmrc', '.npmrc'],
    ['packages/a/.npmrc', '.npmrc'],
    ['.pypirc', '.pypirc'],
    ['.netrc', '.netrc'],
    ['_netrc', '_netrc'],
    ['.git-credentials', '.git-credentials'],
    ['.dockercfg', '.dockercfg'],
    ['.docker/config.json', '.docker/config.json'],
    ['home/.docker/config.json', '.docker/config.json'],
    ['.pgpass', '.pgpass'],
    ['web/.htpasswd', '.htpasswd'],
    ['.vault-token', '.vault-token'],
    ['deploy/kubeconfig', 'kubeconfig'],
    ['deploy/kubeconfig.yaml', 'kubeconfig.yaml'],
    ['.kube/config', '.kube/config'],
    ['home/.kube/config', '.kube/config'],
    ['.aws/credentials', '.aws/credentials'],
    ['ci/.aws/credentials', '.aws/credentials'],
    // Credentials and secrets as data.
    ['credentials', 'credentials'],
    ['gcp/credentials.json', 'credentials.json'],
    ['credentials.yml', 'credentials.yml'],
    ['config/credentials.yaml', 'credentials.yaml'],
    ['maven/credentials.xml', 'credentials.xml'],
    ['credentials.ini', 'credentials.ini'],
    ['credentials.toml', 'credentials.toml'],
    ['aws/credentials.csv', 'credentials.csv'],
    ['credentials.txt', 'credentials.txt'],
    ['secrets.json', 'secrets.json'],
    ['charts/app/secrets.json', 'secrets.json'],
    ['secrets.yml', 'secrets.yml'],
    ['secrets.yaml', 'secrets.yaml'],
    ['secrets.toml', 'secrets.toml'],
    ['secrets.ini', 'secrets.ini'],
    ['secrets.txt', 'secrets.txt'],
    ['secrets.prod.yaml', 'secrets.*.yaml'],
    ['deploy/secrets.enc.json', 'secrets.*.json'],
    ['secrets/prod.json', 'secrets/**/*.json'],
    ['config/secrets/db.yaml', 'secrets/**/*.yaml'],
    ['secrets/api/token.txt', 'secrets/**/*.txt'],
    ['.secrets/ci.env', '.secrets/**/*.env'],
    // Terraform's inputs and state.
    ['terraform.tfvars', '*.tfvars'],
    ['envs/prod.auto.tfvars', '*.tfvars'],
    ['terraform.tfvars.json', '*.tfvars.json'],
    ['terraform.tfstate', '*.tfstate'],
    ['infra/terraform.tfstate.backup', '*.tfstate.backup']
  ])('%s is denylisted by %s', (path, rule) => {
    expect(denylistRule(path)).toBe(rule)
  })

  it.each([
    ['.ENV', '.env'],
    ['Deploy/.Env.Local', '.env.*'],
    ['config/PROD.ENV', '*.env'],
    ['certs/SERVER.PEM', '*.pem'],
    ['ID_RSA', 'id_rsa*'],
    ['Secrets.YML', 'secrets.yml'],
    ['Config/Secrets/DB.Yaml', 'secrets/**/*.yaml'],
    ['CREDENTIALS.JSON', 'credentials.json'],
    ['Terraform.TFVARS', '*.tfvars'],
    ['HOME/.KUBE/CONFIG', '.kube/config'],
    ['.Docker/Config.JSON', '.docker/config.json']
  ])('matches case-insensitively: %s', (path, rule) => {
    expect(denylistRule(path)).toBe(rule)
  })

  it.each([
    // Code is reviewed whatever its name says; a secret in it is redacted by content.
    'src/secrets.ts',
    'lib/credentials.js',
    'app/secrets.py',
    'credentials.go',
    'secret_store.rb',
    'src/Secrets.TSX',
    'internal/secrets/secrets.go',
    'src/secrets/index.ts',
    'config/secrets/loader.rb',
    'infra/secrets.tf',
    'scripts/credentials.sh',
    'tools/id_rsa.py',
    'id_ed25519_parser.rs',
    'src/kubeconfig.ts',
    'config/.env.js',
    '.envrc',
    'src/credentials_test.go',
    // CI runs workflows: one named like a secrets file is code all the same.
    '.github/workflows/secrets.yml',
    '.github/workflows/credentials.yaml',
    // Names that only look alike, and documents about secrets.
    'src/env.ts',
    'docs/environment.md',
    'src/keyboard.ts',
    'src/keys.ts',
    'config.json',
    'kube/config',
    'docker/config.json',
    'my-secrets.md',
    'docs/secrets.md',
    'secrets/README.md',
    'credentials.md',
    'src/pem.ts',
    'id_rsa_parser/readme.md',
    'environment.yml',
    'secretsmanager.json',
    'credentials-schema.graphql'
  ])('%s is reviewed', path => {
    expect(denylistRule(path)).toBeUndefined()
  })

  it('judges the name, and directories only for the path forms and secrets/', () => {
    expect(denylistRule('.env/readme.md')).toBeUndefined()
    expect(denylistRule('secrets.d/readme.md')).toBeUndefined()
    expect(denylistRule('secrets.d/prod.json')).toBeUndefined()
    expect(denylistRule('mysecrets/prod.json')).toBeUndefined()
  })
})

describe('excludedBy', () => {
  it('matches a glob without a slash against the name at any depth', () => {
    expect(excludedBy('a/b/c/snapshot.snap', ['*.snap'])).toBe('*.snap')
    expect(excludedBy('top.snap', ['*.snap'])).toBe('*.snap')
    expect(excludedBy('a/b/c.ts', ['*.snap'])).toBeUndefined()
  })

  it('matches a glob without a slash against directory names too, like .gitignore', () => {
    expect(excludedBy('test/fixtures/big.json', ['fixtures'])).toBe('fixtures')
    expect(excludedBy('fixtures.ts', ['fixtures'])).toBeUndefined()
    expect(excludedBy('src/fixtures', ['fixtures/'])).toBeUndefined()
    expect(excludedBy('src/fixtures/x.json', ['fixtures/'])).toBe('fixtures/')
  })

  it('anchors a glob with a slash at the root, and a directory covers what is under it', () => {
    expect(excludedBy('docs/api/index.md', ['docs/api'])).toBe('docs/api')
    expect(excludedBy('docs/api/index.md', ['/docs/api/'])).toBe('/docs/api/')
    expect(excludedBy('site/docs/api/index.md', ['docs/api'])).toBeUndefined()
    expect(excludedBy('src/gen/a/b.gen.ts', ['src/**/*.gen.ts'])).toBe('src/**/*.gen.ts')
    expect(excludedBy('src/x.gen.ts', ['src/*.gen.ts'])).toBe('src/*.gen.ts')
    expect(excludedBy('src/a/x.gen.ts', ['src/*.gen.ts'])).toBeUndefined()
  })

  it('never takes a folder named like a file for the file a wildcard names', () => {
    // Code in a folder named like a document is code: `*.md` names documents.
    expect(excludedBy('pages/api/leak.md/index.ts', ['*.md'])).toBeUndefined()
    expect(excludedBy('src/notes.md/backdoor.ts', ['**/*.md'])).toBeUndefined()
    expect(excludedBy('docs/a.md/run.ts', ['docs/*.md'])).toBeUndefined()
    expect(excludedBy('docs/a.md', ['docs/*.md'])).toBe('docs/*.md')
    // A file's name with an extension names that file only: a lockfile's name on a folder of
    // code (`require('./package-lock.json')` runs its index.js) hides nothing.
    expect(excludedBy('src/package-lock.json/index.js', ['package-lock.json'])).toBeUndefined()
    expect(excludedBy('CHANGELOG.md/run.ts', ['CHANGELOG.md'])).toBeUndefined()
    expect(excludedBy('web/package-lock.json', ['package-lock.json'])).toBe('package-lock.json')
    expect(excludedBy('CHANGELOG.md', ['CHANGELOG.md'])).toBe('CHANGELOG.md')
    expect(excludedBy('.github/x/a.yml', ['.github'])).toBe('.github')
    // A folder with a dot in its name is named with a trailing slash.
    expect(excludedBy('docs/v1.2/index.md', ['v1.2'])).toBeUndefined()
    expect(excludedBy('docs/v1.2/index.md', ['v1.2/'])).toBe('v1.2/')
    // A folder is still excluded by its plain name, by a trailing slash, or by `/**`.
    expect(excludedBy('a/node_modules/x.js', ['**/node_modules'])).toBe('**/node_modules')
    expect(excludedBy('build-out/app.js', ['build-*/'])).toBe('build-*/')
    expect(excludedBy('vendor/lib/a.js', ['vendor/**'])).toBe('vendor/**')
  })

  it('returns the first matching glob, as written, and ignores empty ones', () => {
    expect(excludedBy('dist/app.js', ['', '  ', 'dist/**', 'dist'])).toBe('dist/**')
    expect(excludedBy('dist/app.js', [])).toBeUndefined()
  })

  it('is case-sensitive, as git paths are', () => {
    expect(excludedBy('Docs/a.md', ['docs/**'])).toBeUndefined()
  })
})
