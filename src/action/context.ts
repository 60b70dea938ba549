import { lstat } from 'node:fs/promises'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import { checkoutProblem } from '../evidence/git.js'
import { readRecord } from '../gates/record.js'
import { LABEL_ACTIONS, readRunContext, type PullRequestRun } from '../github/event.js'
import type { GitHubPort } from '../github/port.js'
import { parseRubric } from '../rubric/parse.js'
import { InputError, type ActionInputs } from './inputs.js'
import type { RubricChoice } from '../engine/rubric-choice.js'
import type { BaseFiles } from '../github/base-files.js'
import { rubricsFolder } from '../rubric/defaults.js'
import { baseRef, repositoryRubricPath } from './rubric.js'

/** Where the action works: the checkout, the rubric's directory, and its own temp folder. */
export interface ActionDirs {
  readonly workspace: string
  /** `working-directory` inside the workspace: the rubric path and the gates start here. */
  readonly cwd: string
  /** The JSON report goes here. */
  readonly tempDir: string
}

/**
 * What the working tree is. `pull-request`: the pull request, which the gates may run on. `base`:
 * not the pull request (the base branch that workflow_run and pull_request_target check out), on
 * which no gate may run; the evidence comes from the pull request's commits, fetched as git
 * objects by commit, either way.
 */
export type Checkout = 'pull-request' | 'base'

/** The run a review can start from, or why there is none. */
export type Prepared =
  | {
      readonly kind: 'ready'
      readonly run: PullRequestRun
      readonly checkout: Checkout
      /** The base's rubric files as read with the pull request's head; none without a token. */
      readonly base: BaseFiles | undefined
    }
  /** A pull request event with nothing to review (e.g. closed): end quietly, saying so. */
  | { readonly kind: 'skip'; readonly message: string }
  /** Something the workflow must fix: UNCLEAR `invalid_input`, with this message. */
  | { readonly kind: 'invalid'; readonly message: string }

/**
 * The pull request this run reviews, once it is known what the checkout is (see `Checkout`) and
 * that the rubric path is one the base branch controls. Whether gates would have to run on a
 * checkout that is not the pull request is decided once the rubric is read: `gatesHereProblem`.
 */
export async function prepareRun(
  env: NodeJS.ProcessEnv,
  inputs: ActionInputs,
  dirs: ActionDirs,
  github: GitHubPort | undefined
): Promise<Prepared> {
  const context = await readRunContext({
    eventName: env.GITHUB_EVENT_NAME,
    eventPath: env.GITHUB_EVENT_PATH,
    repository: env.GITHUB_REPOSITORY,
    pullRequestInput: inputs.pullRequest,
    getPullRequest: async (_owner, _repo, number) => {
      if (!github) throw new InputError('github-token', '', 'a token to read the pull request with')
      return github.pullRequest(number)
    },
    recordedPullRequest: async (runId, attempt) => {
      const text = await github?.recordingRun(runId, attempt, inputs.gatesJob).recordText()
      const read = text === undefined ? undefined : readRecord(text)
      return read?.ok ? read.value.pullRequest : undefined
    }
  })
  if (context.kind === 'skip') return context
  if (context.kind === 'unsupported') return { kind: 'invalid', message: context.message }
  if ((LABEL_ACTIONS as readonly string[]).includes(context.action)) {
    const label = context.label ?? ''
    if (inputs.skip.label === '' || label !== inputs.skip.label) {
      return {
        kind: 'skip',
        message: `nothing to review for ${context.event}.${context.action} of "${label}": only the skip-label input's label (${inputs.skip.label === '' ? 'none is set' : `"${inputs.skip.label}"`}) starts a run`
      }
    }
  }
  const base = await github?.baseFiles({
    ref: baseRef(context.pr),
    number: context.pr.number,
    main: repositoryRubricPath(inputs),
    folder: rubricsFolder(repositoryRubricPath(inputs))
  })
  const head = context.trigger === undefined ? base?.head : undefined
  if (head !== undefined && head !== context.pr.headSha) {
    // No concurrency group cancels a superseded review (a pull request's own workflow could join
    // the group): the review of the newer commit decides, and this one costs nothing.
    return {
      kind: 'skip',
      message: `pull request #${context.pr.number} is now at ${head.slice(0, 7)}, not at ${context.pr.headSha.slice(0, 7)}: the review of the newer commit decides`
    }
  }
  if (inputs.gates === 'recorded' && !github) {
    return {
      kind: 'invalid',
      message:
        'gates: recorded reads the gate results through the API: give the action a github-token with actions: read'
    }
  }
  // workflow_run: the workspace is the base branch, and the evidence comes from git objects,
  // fetched by commit.
  if (context.trigger !== undefined) return { kind: 'ready', run: context, checkout: 'base', base }
  const checkout = await checkoutProblem(
    dirs.workspace,
    context.pr.headSha,
    context.event,
    context.pr.number
  )
  // pull_request_target checks out the base branch by default: the pull request is then graded
  // from its commits as data, never checked out, if no gate has to run here. Elsewhere the gates
  // would run on other code than the pull request the verdict is posted on.
  if (checkout !== undefined && context.event !== 'pull_request_target') {
    return { kind: 'invalid', message: checkout }
  }
  const rubricPath = await rubricPathProblem(dirs, inputs)
  if (rubricPath !== undefined) return { kind: 'invalid', message: rubricPath }
  return {
    kind: 'ready',
    run: context,
    checkout: checkout === undefined ? 'pull-request' : 'base',
    base
  }
}

/**
 * The pull request's head now; undefined without a token or when it cannot be read (then nothing
 * is withheld on its account).
 */
export async function headNow(
  github: GitHubPort | undefined,
  number: number
): Promise<string | undefined> {
  try {
    return (await github?.pullRequest(number))?.headSha
  } catch {
    return undefined
  }
}

/**
 * Why this run may not go on with the rubric it chose: `gates: run`, a rubric with gates, and a
 * checkout that is not the pull request, where the gates would run on the base branch's code (and
 * on pull_request_target beside the secrets). The one place this is decided: only once the base's
 * rubric is read is it known whether it has gates. A rubric that does not parse has none to run;
 * the evaluation reports it.
 */
export function gatesHereProblem(
  run: PullRequestRun,
  checkout: Checkout,
  choice: RubricChoice,
  inputs: ActionInputs
): string | undefined {
  if (checkout === 'pull-request' || inputs.gates === 'recorded') return undefined
  const parsed = choice.rubric.ok ? parseRubric(choice.rubric.value) : undefined
  const gates = parsed?.ok === true ? parsed.value.gates.length : 0
  if (gates === 0) return undefined
  if (run.trigger !== undefined) {
    return 'on workflow_run the gates ran in the triggering run: set gates: recorded (docs/security.md, the fork layout)'
  }
  const count = `${gates} gate${gates === 1 ? '' : 's'}`
  return (
    `the rubric has ${count} to run, and on ${run.event} the checkout is the base branch, not the pull request: ` +
    'the gates would run on other code, in a job that holds the secrets. Run them on pull_request in a job without ' +
    'secrets: the split layout (`rubric-council init`), or for pull requests from forks the fork layout ' +
    '(`rubric-council init --forks`); this one-workflow layout (`rubric-council init --target`) is for rubrics ' +
    'without gates (docs/security.md)'
  )
}

/**
 * The `rubric` input must name a file inside the workspace, and not a symlink: a pull request
 * could otherwise point it at a file of its choosing outside what the base branch controls.
 */
async function rubricPathProblem(
  dirs: ActionDirs,
  inputs: ActionInputs
): Promise<string | undefined> {
  if (inputs.checker !== undefined) return undefined
  const full = resolve(dirs.cwd, inputs.rubric)
  const inside = relative(dirs.workspace, full)
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    return `the rubric "${inputs.rubric}" is outside the workspace (${dirs.workspace}); give a path inside the repository`
  }
  const link = await symbolicLinkOn(dirs.workspace, full)
  return link === undefined
    ? undefined
    : `the rubric "${inputs.rubric}" is reached through the symbolic link ${link}; give the path of the file itself`
}

/**
 * The first symbolic link on the way from `workspace` down to `path` (the file itself included),
 * relative to the workspace; undefined when there is none. A file of the checkout reached through
 * one could be any file on the runner.
 */
export async function symbolicLinkOn(workspace: string, path: string): Promise<string | undefined> {
  const parts = relative(workspace, path).split(sep)
  for (let i = 1; i <= parts.length; i++) {
    const stat = await lstat(join(workspace, ...parts.slice(0, i))).catch(() => undefined)
    if (stat?.isSymbolicLink()) return parts.slice(0, i).join('/')
  }
  return undefined
}
