import {
  branchPushed,
  notReverified,
  pendingCheck,
  reverified,
  reverifying,
  rubricChange,
  type BranchPush,
  type RubricChange
} from '../bot/rubric-push.js'
import { SHARED_PROBLEMS } from '../bot/reverify.js'
import type { Payload } from '../github/payload.js'
import type { GitHubPort, OpenPullRequest } from '../github/port.js'
import { CHECK_RUN_MARK } from '../publish/plan.js'
import { mapBounded } from '../util/pool.js'
import { failed, ok, type Result } from '../util/result.js'
import type { ActionInputs } from '../inputs/action-inputs.js'
import type { ActionIO } from './io.js'
import { reverify } from './reverify.js'
import { rubricFilesAt } from './rubric.js'
import { repositoryRubricPath } from '../engine/pull-request-rubric.js'

/** How many pull requests are re-verified at once when the base rubric changes. */
const REVERIFY_WIDTH = 4

/** What the bot's `push` job has: the API, its inputs and log. */
interface PushContext {
  readonly github: GitHubPort
  readonly inputs: ActionInputs
  readonly io: ActionIO
}

/**
 * A push to a branch: when it changes the rubric, every open pull request based on that branch is
 * reviewed again by re-running its own latest review run (in its pull request's scope, see
 * bot/reverify.ts), and its check marked pending meanwhile. Re-run first, pending second: a pull
 * request that could not be re-run keeps the verdict already posted rather than pending for ever.
 */
export async function rubricPushed(context: PushContext, payload: Payload<'push'>): Promise<void> {
  const { github, inputs, io } = context
  const push = branchPushed(payload)
  if (!push.ok) {
    io.notice(`Rubric Council: ${push.problem}`)
    return
  }
  const change = await changeOf(github, repositoryRubricPath(inputs), push.value)
  if (!change.ok) {
    io.info(`Rubric Council: ${change.problem.line}`)
    return
  }
  const pulls = await github.openPullRequests(push.value.branch)
  io.info(`Rubric Council: ${reverifying(push.value.branch, change.value, pulls.length)}`)
  // With several rubrics each has its check run, which the review marks pending itself.
  const pending = change.value.several
    ? undefined
    : pendingCheck(inputs.checkName, push.value, change.value)
  const rerun = await reverifyAll(context, pulls, pending)
  io.info(`Rubric Council: ${reverified(inputs.reviewWorkflow, rerun, pulls.length)}`)
}

/**
 * What `push` changed of the rubric at `main` and the rubrics in the folder beside it
 * (docs/rubric.md#several-rubrics), each read at both commits, and whether the branch has several
 * now; otherwise the log's line that none changed.
 */
async function changeOf(
  github: GitHubPort,
  main: string,
  push: BranchPush
): Promise<Result<RubricChange & { readonly several: boolean }, { readonly line: string }>> {
  const { before, after } = push
  const listed = await Promise.all([
    rubricFilesAt(github, main, before),
    rubricFilesAt(github, main, after)
  ])
  const paths = [main, ...new Set(listed.flat())]
  const versions = await Promise.all(
    paths.map(async p => [await github.fileAt(p, before), await github.fileAt(p, after)] as const)
  )
  const change = rubricChange(main, paths, versions, push.branch)
  if (!change.ok) return failed({ line: change.problem })
  return ok({ ...change.value, several: listed[1].length > 0 })
}

/**
 * Re-runs the review of each of `pulls`, a few at a time, and marks its check `pending`
 * (undefined when each rubric's review marks its own). A problem every pull request shares stops
 * the rest; the others are named in one warning. How many were re-run.
 */
async function reverifyAll(
  context: PushContext,
  pulls: readonly OpenPullRequest[],
  pending: ReturnType<typeof pendingCheck> | undefined
): Promise<number> {
  const { github, inputs, io } = context
  let marking = pending
  let stopped: string | undefined
  const problems: string[] = []
  const done = await mapBounded(pulls, REVERIFY_WIDTH, async pr => {
    if (stopped !== undefined) return false
    const outcome = await reverify(github, inputs.reviewWorkflow, pr)
    if (!outcome.ok) {
      if (SHARED_PROBLEMS.has(outcome.problem.kind)) stopped ??= outcome.problem.message
      else problems.push(outcome.problem.message)
      return false
    }
    if (marking) {
      const { name, title, summary } = marking
      const started = await github.startCheckRun(
        { headSha: pr.headSha, name, externalId: CHECK_RUN_MARK },
        { title, summary }
      )
      if (!started.ok) {
        // No permission for one is no permission for any: say it once.
        marking = undefined
        io.warning(
          `Rubric Council: cannot mark the checks pending (${started.problem}); give the workflow "checks: write"`
        )
      }
    }
    return true
  })
  if (stopped !== undefined) {
    io.warning(`Rubric Council: ${stopped}; the verdicts already posted are left as they are`)
  }
  if (problems.length > 0) io.warning(`Rubric Council: ${notReverified(problems)}`)
  return done.filter(Boolean).length
}
