import { dirname, isAbsolute, relative, sep } from 'node:path'

/**
 * The files that make up this check's machinery in the repository under review: its workflows,
 * its local actions, and, when the action itself runs from the repository (`uses: ./`), the
 * action's own files (action.yml beside the bundle's folder, and that folder). On `pull_request`
 * all of these come from the pull request, so a pull request that changes them could change how
 * it is judged.
 */
export function machineryOf(workspace: string, bundleDir: string): (path: string) => boolean {
  const inWorkspace = (dir: string): string | undefined => {
    const rel = relative(workspace, dir).split(sep).join('/')
    return rel.startsWith('..') || isAbsolute(rel) ? undefined : rel
  }
  const prefix = (rel: string): string => (rel === '' ? '' : `${rel}/`)
  const actionRoot = inWorkspace(dirname(bundleDir))
  const bundle = inWorkspace(bundleDir)
  const files =
    actionRoot === undefined
      ? []
      : ['action.yml', 'action.yaml'].map(name => `${prefix(actionRoot)}${name}`)
  const folders = [
    '.github/workflows/',
    '.github/actions/',
    ...(bundle === undefined ? [] : [prefix(bundle)])
  ]
  return path =>
    files.includes(path) || folders.some(folder => folder !== '' && path.startsWith(folder))
}
