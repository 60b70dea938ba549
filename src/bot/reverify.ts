import type { WorkflowRunListed } from '../github/actions-runs.js'
import { failed, ok, type Result } from '../util/result.js'

/**
 * Reviewing a pull request again, for the bot (`/council rerun`, a change of the base rubric): by
 * re-running its own latest review run, never by starting one on the default branch (which run,
 * and what GitHub's refusals mean, decided here; action/reverify.ts asks). A re-run
 * keeps the run's event, ref and commit (`pull_request`, `refs/pull/N/merge`), so its jobs get the
 * pull request's cache scope and read-only token; a run started on the default branch that checks
 * out the pull request would run its code with the default branch's (docs/security.md).
 */

/** Runs whose re-run stays in the pull request's scope: what the review workflows run on. */
const PULL_REQUEST_EVENTS: ReadonlySet<string> = new Set(['pull_request', 'pull_request_target'])

/** GitHub re-runs a run only this many days after it was first created. */
const RERUN_DAYS = 30

type ReverifyProblem =
  /** No such workflow file on the default branch (404). */
  | 'no-workflow'
  /** The token may not read or re-run runs (403): no `actions: write`. */
  | 'permission'
  /** No run of the workflow for this pull request at its head commit. */
  | 'no-run'
  /** The run has not finished, and GitHub re-runs only finished runs. */
  | 'running'
  /** The run is more than 30 days old. */
  | 'too-old'
  /** GitHub refuses to re-run it for another reason it names (e.g. re-run 50 times already). */
  | 'refused'
  /** Anything else: a 5xx the retries did not get past, a network failure. */
  | 'failed'

/** What stopped a re-run: its kind, and a message that names the cause and what to do. */
interface ReverifyFailure {
  readonly kind: ReverifyProblem
  readonly message: string
}

/** The URL of the run started again, or what stopped it. */
export type Reverification = Result<{ readonly runUrl: string }, ReverifyFailure>

/** Problems that hold for every pull request alike: one is enough to stop asking for the rest. */
export const SHARED_PROBLEMS: ReadonlySet<ReverifyProblem> = new Set(['no-workflow', 'permission'])

const NEW_RUN =
  'push a commit to the pull request, or close and reopen it, and GitHub starts a new review'

/** A pull request's head, as the bot knows it: what tells its runs from others' at that commit. */
export interface PullRequestHead {
  readonly number: number
  readonly headSha: string
  /** `owner/repo` of its head ('' when GitHub does not say), and its branch there. */
  readonly headRepository: string
  readonly headRef: string
}

/** What GitHub answered when asked: its status, and its own words (`messageOf`). */
export interface Refusal {
  readonly status: number | undefined
  readonly said: string
}

/** Why the runs of `workflow` could not be listed, from what GitHub answered. */
export function unlisted(workflow: string, refusal: Refusal): ReverifyFailure {
  const { status, said } = refusal
  if (status === 404) {
    return problem(
      'no-workflow',
      `${workflow} is not a workflow in .github/workflows (404): set the bot's review-workflow input to the workflow that runs on pull_request (rubric-council.yml in the split layout, rubric-council-gates.yml in the fork layout)`
    )
  }
  if (status === 403) {
    return problem(
      'permission',
      `cannot read the runs of ${workflow} (403: ${said}): give the bot's job "actions: write"`
    )
  }
  return problem('failed', `cannot read the runs of ${workflow}: ${said}`)
}

/**
 * The run to re-run among `runs` of `workflow` on `pr`'s head commit: the newest that ran on a
 * pull request event for it. A fork's runs list no pull request: such a run counts only when it
 * ran on the pull request's own head repository and branch, for another pull request (from
 * another fork, into any base) can share the commit and would otherwise be re-run instead, or keep
 * this one from being re-run. A run that lists other pull requests does not count.
 */
export function runToRerun(
  workflow: string,
  runs: readonly WorkflowRunListed[],
  pr: PullRequestHead
): Result<WorkflowRunListed, ReverifyFailure> {
  const eligible = runs.filter(r => PULL_REQUEST_EVENTS.has(r.event))
  // A deleted fork's runs name no repository, and match on the branch alone.
  const run =
    eligible.find(r => r.pullRequests.includes(pr.number)) ??
    eligible.find(
      r =>
        r.pullRequests.length === 0 &&
        r.headRepository === pr.headRepository &&
        r.headBranch === pr.headRef
    )
  if (run !== undefined) return ok(run)
  return failed(
    problem(
      'no-run',
      `${workflow} has no run on pull_request for ${headOf(pr)} to re-run: ${NEW_RUN}. (Nothing is started on the default branch instead: the pull request's code would run there with its ref, cache and token.)`
    )
  )
}

/** `#12 at 4f2a9c1`: the pull request and its head, as the messages name them. */
export function headOf(pr: PullRequestHead): string {
  return `#${pr.number} at ${pr.headSha.slice(0, 7)}`
}

/** Why `run` (of `workflow`, for `at`) was not re-run, from what GitHub answered; `now` in epoch ms. */
export function notRerun(
  workflow: string,
  run: WorkflowRunListed,
  at: string,
  refusal: Refusal,
  now: number
): ReverifyFailure {
  const { status, said } = refusal
  if (
    status === 403 &&
    ((run.status ?? 'completed') !== 'completed' || /already running/i.test(said))
  ) {
    return problem(
      'running',
      `the review of ${at} is still running (${run.htmlUrl}), and GitHub re-runs only finished runs: once it has finished, comment \`/council rerun\` on the pull request`
    )
  }
  if (
    status === 403 &&
    (/over a month ago/i.test(said) || olderThanRerunWindow(run.createdAt, now))
  ) {
    return problem(
      'too-old',
      `the review run of ${at} (${run.htmlUrl}) started on ${run.createdAt.slice(0, 10)}, and GitHub re-runs a run only within ${RERUN_DAYS} days: ${NEW_RUN}`
    )
  }
  if (status === 403 && /cannot be (?:retried|re-?run)/i.test(said)) {
    return problem(
      'refused',
      `GitHub will not re-run the review run of ${at} (${run.htmlUrl}; 403: ${said}): ${NEW_RUN}`
    )
  }
  if (status === 403) {
    return problem(
      'permission',
      `cannot re-run ${workflow} (403: ${said}): give the bot's job "actions: write"`
    )
  }
  if (status === 404) {
    return problem('no-run', `the review run of ${at} (${run.htmlUrl}) is gone (404): ${NEW_RUN}`)
  }
  return problem('failed', `cannot re-run ${run.htmlUrl}: ${said}`)
}

function problem(kind: ReverifyProblem, message: string): ReverifyFailure {
  return { kind, message }
}

function olderThanRerunWindow(createdAt: string, now: number): boolean {
  const created = Date.parse(createdAt)
  return Number.isFinite(created) && now - created > RERUN_DAYS * 86_400_000
}

/** GitHub's own words: Octokit adds ` - ` and the documentation URL after them. */
export function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.replace(/ - https?:\/\/\S+$/, '').split('\n', 1)[0] ?? ''
}
