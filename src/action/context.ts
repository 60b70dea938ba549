import { lstat } from 'node:fs/promises'
import { isAbsolute, relative, resolve } from 'node:path'
import { checkoutProblem } from '../evidence/git.js'
import { readRecord } from '../gates/record.js'
import { readRunContext, type PullRequestRun } from '../github/event.js'
import type { GitHubPort } from '../github/port.js'
import { InputError, type ActionInputs } from './inputs.js'

/** Where the action works: the checkout, the rubric's directory, and its own temp folder. */
export interface ActionDirs {
  readonly workspace: string
  /** `working-directory` inside the workspace: the rubric path and the gates start here. */
  readonly cwd: string
  /** The JSON report goes here. */
  readonly tempDir: string
}

/** The run a review can start from, or why there is none. */
export type Prepared =
  | { readonly kind: 'ready'; readonly run: PullRequestRun }
  /** A pull request event with nothing to review (e.g. closed): end quietly, saying so. */
  | { readonly kind: 'skip'; readonly message: string }
  /** Something the workflow must fix: UNCLEAR `invalid_input`, with this message. */
  | { readonly kind: 'invalid'; readonly message: string }

/**
 * The pull request this run reviews, once it is known that the checkout is that pull request and
 * that the rubric path is one the base branch controls.
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
      return read?.ok ? read.record.pullRequest : undefined
    }
  })
  if (context.kind === 'skip') return context
  if (context.kind === 'unsupported') return { kind: 'invalid', message: context.message }
  if (inputs.gates === 'recorded' && !github) {
    return {
      kind: 'invalid',
      message:
        'gates: recorded reads the gate results through the API: give the action a github-token with actions: read'
    }
  }
  if (context.trigger !== undefined) {
    // workflow_run: the workspace is the base branch, and no gate runs here; the evidence comes
    // from git objects, fetched by commit.
    return inputs.gates === 'recorded'
      ? { kind: 'ready', run: context }
      : {
          kind: 'invalid',
          message:
            'on workflow_run the gates ran in the triggering run: set gates: recorded (docs/security.md, the fork layout)'
        }
  }
  // The gates run on the working tree and the verdict is posted on the head commit: they must be
  // the same pull request.
  const checkout = await checkoutProblem(
    dirs.workspace,
    context.pr.headSha,
    context.event,
    context.pr.number
  )
  if (checkout !== undefined) return { kind: 'invalid', message: checkout }
  const rubricPath = await rubricPathProblem(dirs, inputs)
  if (rubricPath !== undefined) return { kind: 'invalid', message: rubricPath }
  return { kind: 'ready', run: context }
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
  const stat = await lstat(full).catch(() => undefined)
  return stat?.isSymbolicLink()
    ? `the rubric "${inputs.rubric}" is a symbolic link; give the path of the file itself`
    : undefined
}
