import { describe, expect, it } from 'vitest'
import { denylistRule, excludedBy } from '../../src/evidence/denylist.js'

describe('denylistRule', () => {
  it.each([
    ['.env', '.env*'],
    ['.env.production', '.env*'],
    ['.envrc', '.env*'],
    ['config/server.pem', '*.pem'],
    ['tls/private.key', '*.key'],
    ['id_rsa', 'id_rsa*'],
    ['home/.ssh/id_rsa.pub', 'id_rsa*'],
    ['id_dsa', 'id_dsa*'],
    ['keys/id_ecdsa', 'id_ecdsa*'],
    ['id_ed25519_deploy', 'id_ed25519*'],
    ['.npmrc', '.npmrc'],
    ['packages/a/.npmrc', '.npmrc'],
    ['.pypirc', '.pypirc'],
    ['.netrc', '.netrc'],
    ['certs/client.p12', '*.p12'],
    ['certs/client.pfx', '*.pfx'],
    ['android/release.jks', '*.jks'],
    ['android/release.keystore', '*.keystore'],
    ['deploy/kubeconfig', 'kubeconfig'],
    ['.kube/config', '.kube/config'],
    ['home/.kube/config', '.kube/config'],
    ['secrets.yaml', 'secrets.*'],
    ['charts/app/secrets.json', 'secrets.*'],
    ['credentials', 'credentials'],
    ['gcp/credentials.json', 'credentials.*'],
    ['.aws/credentials', '.aws/credentials'],
    ['ci/.aws/credentials', '.aws/credentials'],
    ['.docker/config.json', '.docker/config.json'],
    ['.git-credentials', '.git-credentials']
  ])('%s is denylisted by %s', (path, rule) => {
    expect(denylistRule(path)).toBe(rule)
  })

  it.each([
    ['.ENV', '.env*'],
    ['Deploy/.Env.Local', '.env*'],
    ['certs/SERVER.PEM', '*.pem'],
    ['ID_RSA', 'id_rsa*'],
    ['Secrets.YML', 'secrets.*'],
    ['HOME/.KUBE/CONFIG', '.kube/config'],
    ['.Docker/Config.JSON', '.docker/config.json']
  ])('matches case-insensitively: %s', (path, rule) => {
    expect(denylistRule(path)).toBe(rule)
  })

  it.each([
    'src/env.ts',
    'docs/environment.md',
    'src/keyboard.ts',
    'src/keys.ts',
    'config.json',
    'kube/config',
    'docker/config.json',
    'src/credentials_test.go',
    'my-secrets.md',
    'src/pem.ts',
    'id_rsa_parser/readme.md'
  ])('%s is not denylisted', path => {
    expect(denylistRule(path)).toBeUndefined()
  })

  it('judges only the basename, not the directories above it', () => {
    expect(denylistRule('.env/readme.md')).toBeUndefined()
    expect(denylistRule('secrets.d/readme.md')).toBeUndefined()
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

  it('returns the first matching glob, as written, and ignores empty ones', () => {
    expect(excludedBy('dist/app.js', ['', '  ', 'dist/**', 'dist'])).toBe('dist/**')
    expect(excludedBy('dist/app.js', [])).toBeUndefined()
  })

  it('is case-sensitive, as git paths are', () => {
    expect(excludedBy('Docs/a.md', ['docs/**'])).toBeUndefined()
  })
})
