import { lstat } from 'node:fs/promises'
import { join, relative, resolve, sep } from 'node:path'
import { checkoutProblem } from '../evidence/git.js'
import { readRecord } from '../gates/record.js'
import { readRunContext } from '../github/event.js'
import type { GitHubPort } from '../github/port.js'
import {
  checkoutOf,
  labelEventSkip,
  RECORDED_NEEDS_TOKEN,
  rubricOutside,
  supersededSkip,
  type Prepared
} from '../engine/run-preparation.js'
import { InputError, type ActionInputs } from '../inputs/action-inputs.js'
import { baseRefOf, repositoryRubricPath } from '../engine/pull-request-rubric.js'
import { rubricsFolder } from '../rubric/defaults.js'
import { defaultRecordPath } from '../rubric/calibration-record.js'

/** Where the action works: the checkout, the rubric's directory, and its own temp folder. */
export interface ActionDirs {
  readonly workspace: string
  /** `working-directory` inside the workspace: the rubric path and the gates start here. */
  readonly cwd: string
  /** The JSON report goes here. */
  readonly tempDir: string
}

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
  const label = labelEventSkip(context, inputs.skip.label)
  if (label !== undefined) return label
  const repoPath = repositoryRubricPath(inputs)
  const base = await github?.baseFiles({
    ref: baseRefOf(context.pr),
    number: context.pr.number,
    main: repoPath,
    folder: rubricsFolder(repoPath),
    record: repositoryRubricPath({ ...inputs, rubric: defaultRecordPath(inputs.rubric) })
  })
  const head = context.trigger === undefined ? base?.head : undefined
  const superseded = supersededSkip(context, head)
  if (superseded !== undefined) return superseded
  if (inputs.gates === 'recorded' && !github)
    return { kind: 'invalid', message: RECORDED_NEEDS_TOKEN }
  // workflow_run: the workspace is the base branch, and the evidence comes from git objects,
  // fetched by commit.
  if (context.trigger !== undefined) return { kind: 'ready', run: context, checkout: 'base', base }
  const checkout = checkoutOf(
    context.event,
    await checkoutProblem(dirs.workspace, context.pr.headSha, context.event, context.pr.number)
  )
  if (typeof checkout === 'object') return { kind: 'invalid', message: checkout.invalid }
  const rubricPath = await rubricPathProblem(dirs, inputs)
  if (rubricPath !== undefined) return { kind: 'invalid', message: rubricPath }
  return { kind: 'ready', run: context, checkout, base }
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
  const outside = rubricOutside(dirs.workspace, full, inputs.rubric)
  if (outside !== undefined) return outside
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
