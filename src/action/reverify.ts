import { statusOf } from '../github/client.js'
import type { WorkflowRunListed } from '../github/actions-runs.js'
import type { GitHubPort } from '../github/port.js'
import { failed, ok, type Result } from '../util/result.js'

/**
 * Reviewing a pull request again, for the bot (`/council rerun`, a change of the base rubric): by
 * re-running its own latest review run, never by starting one on the default branch. A re-run
 * keeps the run's event, ref and commit (`pull_request`, `refs/pull/N/merge`), so its jobs get the
 * pull request's cache scope and read-only token; a run started on the default branch that checks
 * out the pull request would run its code with the default branch's (docs/security.md).
 */

/** Runs whose re-run stays in the pull request's scope: what the review workflows run on. */
const PULL_REQUEST_EVENTS: ReadonlySet<string> = new Set(['pull_request', 'pull_request_target'])

/** GitHub re-runs a run only this many days after it was first created. */
const RERUN_DAYS = 30

export type ReverifyProblem =
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

/**
 * Re-runs the newest run of `workflow` (a file in .github/workflows) on `pr`'s head commit that ran
 * on a pull request event for it. A fork's runs list no pull request: such a run counts only when
 * it ran on the pull request's own head repository and branch, for another pull request (from
 * another fork, into any base) can share the commit and would otherwise be re-run instead, or keep
 * this one from being re-run. A run that lists other pull requests does not count. What could not
 * be done comes back as a problem whose message names the cause and what to do.
 */
export async function reverify(
  github: GitHubPort,
  workflow: string,
  pr: PullRequestHead
): Promise<Reverification> {
  const at = `#${pr.number} at ${pr.headSha.slice(0, 7)}`
  let runs
  try {
    runs = await github.workflowRunsAt(workflow, pr.headSha)
  } catch (error) {
    const status = statusOf(error)
    const said = messageOf(error)
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
  const eligible = runs.filter(r => PULL_REQUEST_EVENTS.has(r.event))
  // A fork's runs list no pull request: those of its head repository and branch at this commit
  // are its own (a deleted fork's name no repository, and match on the branch alone).
  const run =
    eligible.find(r => r.pullRequests.includes(pr.number)) ??
    eligible.find(
      r =>
        r.pullRequests.length === 0 &&
        r.headRepository === pr.headRepository &&
        r.headBranch === pr.headRef
    )
  if (run === undefined) {
    return problem(
      'no-run',
      `${workflow} has no run on pull_request for ${at} to re-run: ${NEW_RUN}. (Nothing is started on the default branch instead: the pull request's code would run there with its ref, cache and token.)`
    )
  }
  return rerun(github, workflow, run, at)
}

/** Run `run` again, or what stopped it, named for `at` (`#12 at 4f2a9c1`). */
async function rerun(
  github: GitHubPort,
  workflow: string,
  run: WorkflowRunListed,
  at: string
): Promise<Reverification> {
  try {
    await github.rerunWorkflowRun(run.id)
  } catch (error) {
    const status = statusOf(error)
    const said = messageOf(error)
    if (
      status === 403 &&
      ((run.status ?? 'completed') !== 'completed' || /already running/i.test(said))
    ) {
      return problem(
        'running',
        `the review of ${at} is still running (${run.htmlUrl}), and GitHub re-runs only finished runs: once it has finished, comment \`/council rerun\` on the pull request`
      )
    }
    if (status === 403 && (/over a month ago/i.test(said) || olderThanRerunWindow(run.createdAt))) {
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
  return ok({ runUrl: run.htmlUrl })
}

function problem(kind: ReverifyProblem, message: string): Reverification {
  return failed({ kind, message })
}

function olderThanRerunWindow(createdAt: string): boolean {
  const created = Date.parse(createdAt)
  return Number.isFinite(created) && Date.now() - created > RERUN_DAYS * 86_400_000
}

/** GitHub's own words: Octokit adds ` - ` and the documentation URL after them. */
function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.replace(/ - https?:\/\/\S+$/, '').split('\n', 1)[0] ?? ''
}
