import { dirname, isAbsolute, relative, sep } from 'node:path'

/**
 * The workflow this run belongs to, from `GITHUB_WORKFLOW_REF`
 * (`owner/repo/.github/workflows/x.yml@ref`). `central` when that repository is not the one under
 * review (`GITHUB_REPOSITORY`): a workflow an organisation ruleset requires ("Require workflows to
 * pass before merging"), which GitHub runs from the ref of the central repository the ruleset
 * pins, whatever the pull request changes.
 *
 * The runner sets both variables and a workflow cannot overwrite them ("You can't overwrite the
 * value of the default environment variables named GITHUB_* and RUNNER_*",
 * https://docs.github.com/en/actions/reference/variables-reference). So a pull request cannot
 * pretend its own workflow is a central one: to set an `env:` at all it must change its workflow,
 * and even then these two keep the runner's values.
 */
export interface RunningWorkflow {
  /** owner/name of the repository that holds the workflow file. */
  readonly repository: string
  /** The file in that repository, e.g. `.github/workflows/rubric-council.yml`. */
  readonly path: string
  /** The ref it was read at: `refs/heads/main`, `refs/tags/v1`, `refs/pull/7/merge`, … */
  readonly ref: string
  readonly central: boolean
}

/**
 * The running workflow, or undefined when `workflowRef` is unset or not of the runner's form; then
 * the workflow counts as the repository's own (the stricter reading). Repository names compare
 * without case, as GitHub's do.
 */
export function runningWorkflow(
  workflowRef: string | undefined,
  repository: string | undefined
): RunningWorkflow | undefined {
  const match = /^([^/@]+\/[^/@]+)\/([^@]+)@(.+)$/.exec(workflowRef ?? '')
  if (!match) return undefined
  const [, holder = '', path = '', ref = ''] = match
  const central =
    repository !== undefined &&
    repository !== '' &&
    holder.toLowerCase() !== repository.toLowerCase()
  return { repository: holder, path, ref, central }
}

/**
 * The files that make up this check's machinery in the repository under review: its workflows,
 * its local actions, and, when the action itself runs from the repository (`uses: ./`), the
 * action's own files (action.yml beside the bundle's folder, and that folder). On `pull_request`
 * all of these come from the pull request, so a pull request that changes them could change how
 * it is judged.
 *
 * Under a central workflow (`workflow.central`) the repository's `.github/workflows/` are not the
 * machinery: GitHub reads that workflow from the central repository, and a local reusable workflow
 * it calls (`uses: ./.github/workflows/…`) comes "from the same commit as the caller workflow"
 * (https://github.blog/changelog/2022-01-25-github-actions-reusable-workflows-can-be-referenced-locally), so again from
 * the central repository. What still counts, because it is read from the checkout of the pull
 * request: `.github/actions/` (a `uses: ./.github/actions/…` step resolves against the workspace,
 * which is the pull request's code) and the action's own files when run with `uses: ./`.
 */
export function machineryOf(
  workspace: string,
  bundleDir: string,
  workflow?: RunningWorkflow
): (path: string) => boolean {
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
    ...(workflow?.central === true ? [] : ['.github/workflows/']),
    '.github/actions/',
    ...(bundle === undefined ? [] : [prefix(bundle)])
  ]
  return path =>
    files.includes(path) || folders.some(folder => folder !== '' && path.startsWith(folder))
}
