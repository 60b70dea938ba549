/**
 * What a release's tree holds: the files a job that `uses:` the action reads, and nothing else.
 * scripts/release.ts builds the tree its tags name from these; `init` (pin-facts.ts) recognises a
 * release of the commit it runs from by them. The source, the docs, the tests and the CLI's own
 * bundle (dist/cli/) stay on the development branch, which a job never downloads once it pins a
 * release.
 */

/** The action and its gates sub-action: each `action.yml`, whose `runs:` names its bundle. */
export const RELEASE_ACTIONS: readonly string[] = ['action.yml', 'gates/action.yml']

/** Our licence, and the third-party licences of what each bundle compiles in (scripts/bundle.mjs). */
export const RELEASE_LICENCES: readonly string[] = [
  'LICENSE',
  'dist/licenses.txt',
  'gates/dist/licenses.txt'
]

/**
 * Whether `path` (from the repository's root, with `/`) is in a release's tree: the actions, their
 * bundles and the chunks the bundles load (dist/ but for the CLI's dist/cli/, gates/dist/), the
 * licences.
 */
export function inReleaseTree(path: string): boolean {
  return (
    RELEASE_ACTIONS.includes(path) ||
    RELEASE_LICENCES.includes(path) ||
    (path.startsWith('dist/') && !path.startsWith('dist/cli/')) ||
    path.startsWith('gates/dist/')
  )
}
