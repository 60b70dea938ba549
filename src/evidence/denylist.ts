import { posix } from 'node:path'

interface DenyRule {
  /** Shown in the coverage receipt as the reason. */
  readonly rule: string
  readonly matches: (name: string, path: string) => boolean
}

const exactly =
  (expected: string) =>
  (name: string): boolean =>
    name === expected
const startsWith =
  (prefix: string) =>
  (name: string): boolean =>
    name.startsWith(prefix)
const endsWith =
  (suffix: string) =>
  (name: string): boolean =>
    name.endsWith(suffix)
/** `dir/file` at the root or under any directory. */
const pathEndsWith =
  (tail: string) =>
  (_name: string, path: string): boolean =>
    path === tail || path.endsWith(`/${tail}`)

/**
 * Files whose content is never sent to the judges, whatever the configuration says: the usual
 * homes of credentials and keys. Checked on the lower-cased basename (or the two path forms), so
 * `config/Prod.PEM` and `deploy/.ENV.production` are caught too. The path forms come first so the
 * receipt names the most specific rule.
 */
const RULES: readonly DenyRule[] = [
  { rule: '.kube/config', matches: pathEndsWith('.kube/config') },
  { rule: '.aws/credentials', matches: pathEndsWith('.aws/credentials') },
  { rule: '.docker/config.json', matches: pathEndsWith('.docker/config.json') },
  { rule: '.env*', matches: startsWith('.env') },
  { rule: '*.pem', matches: endsWith('.pem') },
  { rule: '*.key', matches: endsWith('.key') },
  { rule: 'id_rsa*', matches: startsWith('id_rsa') },
  { rule: 'id_dsa*', matches: startsWith('id_dsa') },
  { rule: 'id_ecdsa*', matches: startsWith('id_ecdsa') },
  { rule: 'id_ed25519*', matches: startsWith('id_ed25519') },
  { rule: '.npmrc', matches: exactly('.npmrc') },
  { rule: '.pypirc', matches: exactly('.pypirc') },
  { rule: '.netrc', matches: exactly('.netrc') },
  { rule: '*.p12', matches: endsWith('.p12') },
  { rule: '*.pfx', matches: endsWith('.pfx') },
  { rule: '*.jks', matches: endsWith('.jks') },
  { rule: '*.keystore', matches: endsWith('.keystore') },
  { rule: 'kubeconfig', matches: exactly('kubeconfig') },
  { rule: 'secrets.*', matches: startsWith('secrets.') },
  { rule: 'credentials', matches: exactly('credentials') },
  { rule: 'credentials.*', matches: startsWith('credentials.') },
  { rule: '.git-credentials', matches: exactly('.git-credentials') }
]

/** The built-in denylist rule `path` (repository-relative, `/`-separated) falls under, if any. */
export function denylistRule(path: string): string | undefined {
  const lower = path.toLowerCase()
  const name = posix.basename(lower)
  return RULES.find(rule => rule.matches(name, lower))?.rule
}

/**
 * The first user `exclude` glob that matches `path`, if any, with .gitignore-like meaning:
 *
 * - a glob without a slash matches the file's name, or the name of any directory on its path, at
 *   any depth: `*.snap` excludes `a/b/x.snap`, `fixtures` excludes `test/fixtures/big.json`;
 * - a glob with a slash matches from the repository root (a leading `/` is allowed); when it
 *   names a directory, everything under it is excluded: `docs/api` and `docs/api/` both exclude
 *   `docs/api/index.md`;
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
  if (!glob.replace(/\/$/, '').includes('/')) {
    const pattern = glob.replace(/\/$/, '')
    // A trailing slash means "a directory of that name", so only the directories on the path.
    const names = glob.endsWith('/') ? segments.slice(0, -1) : segments
    return names.some(name => posix.matchesGlob(name, pattern))
  }
  const pattern = glob.replace(/^\//, '').replace(/\/$/, '')
  // The path itself, or any directory containing it.
  for (let end = segments.length; end > 0; end--) {
    if (posix.matchesGlob(segments.slice(0, end).join('/'), pattern)) return true
  }
  return false
}
