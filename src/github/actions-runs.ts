import type { GitHub } from './client.js'
import { statusOf } from './client.js'
import type { Repo } from './comment.js'

/**
 * Workflow runs and their jobs, through the REST API: how the trusted side of the split layout
 * checks what the untrusted gates job reported against what GitHub recorded for it.
 */

export type ActionsProblem =
  /** 403: the token lacks `actions: read` (or the repository is out of its reach). */
  | 'permission'
  /** 404: no such run, attempt or artifact in this repository, or not visible to the token. */
  | 'not-found'
  /** 410: the artifact outlived its retention period and its files are gone. */
  | 'expired'
  /** The artifact's download is bigger than allowed. */
  | 'too-large'
  /** GitHub or its blob storage answered something other than the artifact's zip. */
  | 'download'

/** A read through the Actions API that failed, in words that say what to change. */
export class ActionsError extends Error {
  override readonly name = 'ActionsError'
  readonly problem: ActionsProblem
  /** The HTTP status behind it, when there was one. */
  readonly status: number | undefined

  constructor(problem: ActionsProblem, message: string, status?: number, options?: ErrorOptions) {
    super(message, options)
    this.problem = problem
    this.status = status
  }
}

export interface RunJob {
  readonly name: string
  /** `queued`, `in_progress`, `completed`, `waiting`, `requested` or `pending`. */
  readonly status: string
  /** `success`, `failure`, `cancelled`, `skipped`…; null until the job completes. */
  readonly conclusion: string | null
}

export type RunWhere = Repo & { readonly runId: number }

/**
 * The jobs of a workflow run, every page: of its latest attempt, or of `attempt`
 * (`GET …/actions/runs/{run_id}/jobs?filter=latest` or `…/attempts/{attempt_number}/jobs`).
 */
export async function runJobs(
  github: GitHub,
  where: RunWhere & { readonly attempt?: number }
): Promise<RunJob[]> {
  try {
    const jobs =
      where.attempt === undefined
        ? await github.paginate(github.rest.actions.listJobsForWorkflowRun, {
            owner: where.owner,
            repo: where.repo,
            run_id: where.runId,
            filter: 'latest',
            per_page: 100
          })
        : await github.paginate(github.rest.actions.listJobsForWorkflowRunAttempt, {
            owner: where.owner,
            repo: where.repo,
            run_id: where.runId,
            attempt_number: where.attempt,
            per_page: 100
          })
    return jobs.map(job => ({ name: job.name, status: job.status, conclusion: job.conclusion }))
  } catch (error) {
    const what =
      where.attempt === undefined
        ? `the jobs of workflow run ${where.runId}`
        : `the jobs of attempt ${where.attempt} of workflow run ${where.runId}`
    throw actionsError(error, what, where)
  }
}

/**
 * An Octokit error on an Actions read as an ActionsError when its status has a meaning here
 * (403, 404, 410); anything else (a 5xx the retries did not get past, a rate limit) unchanged.
 */
export function actionsError(error: unknown, what: string, where: Repo): unknown {
  const status = statusOf(error)
  const said = error instanceof Error ? firstLine(error.message) : String(error)
  const repository = `${where.owner}/${where.repo}`
  if (status === 403 && !/rate limit/i.test(said)) {
    return new ActionsError(
      'permission',
      `no permission to read ${what} in ${repository} (403: ${said}): the token needs the ` +
        '`actions: read` permission; add it to the `permissions:` of the job that reads it',
      status,
      { cause: error }
    )
  }
  if (status === 404) {
    return new ActionsError(
      'not-found',
      `${what} was not found in ${repository} (404): it does not exist there, or the token cannot see it`,
      status,
      { cause: error }
    )
  }
  if (status === 410) {
    return new ActionsError(
      'expired',
      `${what} in ${repository} has expired (410): GitHub deleted its files after the ` +
        'retention period; re-run the workflow that made it',
      status,
      { cause: error }
    )
  }
  return error
}

/** Octokit's message is GitHub's, then ` - ` and the documentation URL: GitHub's part. */
function firstLine(message: string): string {
  return message.replace(/ - https?:\/\/\S+$/, '').split('\n', 1)[0] ?? ''
}

/** A run of a workflow, as the bot picks the one to re-run. */
export interface WorkflowRunListed {
  readonly id: number
  readonly event: string
  /** `queued`, `in_progress`, `completed`…; null while GitHub has not said. */
  readonly status: string | null
  /** When the run was first created (re-runs keep it): GitHub re-runs a run only for 30 days. */
  readonly createdAt: string
  readonly htmlUrl: string
  /**
   * The numbers of the pull requests GitHub associates with the run. Empty for a pull request
   * from a fork: GitHub lists only pull requests whose head is in the base repository.
   */
  readonly pullRequests: readonly number[]
  /** Where the commit it ran on came from (`owner/repo`; '' when GitHub does not say). */
  readonly headRepository: string
  readonly headBranch: string
}

/** A head repository's `owner/repo`: GitHub sends none for a fork that was deleted. */
export function fullName(repo: { readonly full_name: string } | null): string {
  return repo?.full_name ?? ''
}

/**
 * The runs of workflow `workflow` (its file name) on the commit `headSha`, newest first: one
 * page of 100 (`GET …/actions/workflows/{workflow_id}/runs?head_sha=`), more than one commit
 * plausibly has. A 404 means no such workflow file on the default branch.
 */
export async function workflowRunsAt(
  github: GitHub,
  where: Repo & { readonly workflow: string; readonly headSha: string }
): Promise<WorkflowRunListed[]> {
  const { data } = await github.rest.actions.listWorkflowRuns({
    owner: where.owner,
    repo: where.repo,
    workflow_id: where.workflow,
    head_sha: where.headSha,
    per_page: 100
  })
  return data.workflow_runs
    .map(run => ({
      id: run.id,
      event: run.event,
      status: run.status ?? null,
      createdAt: run.created_at,
      htmlUrl: run.html_url,
      pullRequests: (run.pull_requests ?? []).map(pr => pr.number),
      headRepository: fullName(run.head_repository),
      headBranch: run.head_branch ?? ''
    }))
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || b.id - a.id)
}

/**
 * Every job of a run again, as its next attempt (`POST …/actions/runs/{run_id}/rerun`): with the
 * run's own event, commit, ref and token, whoever asks.
 */
export async function rerunWorkflowRun(github: GitHub, where: RunWhere): Promise<void> {
  await github.rest.actions.reRunWorkflow({
    owner: where.owner,
    repo: where.repo,
    run_id: where.runId
  })
}
