import type { GitHub } from './client.js'
import { statusOf } from './client.js'

export interface Repo {
  readonly owner: string
  readonly repo: string
}

export interface IssueComment {
  readonly id: number
  readonly body: string
  readonly html_url: string
}

/** GITHUB_TOKEN's comments are written by this account; a PAT's by its user (see `whoAmI`). */
export const ACTIONS_BOT = 'github-actions[bot]'

/**
 * The login our comments are written by: the token's user, or, for the workflow token (which may
 * not read /user), the Actions bot.
 */
export async function whoAmI(github: GitHub): Promise<string> {
  try {
    const { data } = await github.rest.users.getAuthenticated()
    return data.login
  } catch (error) {
    const status = statusOf(error)
    if (status === 403 || status === 401) return ACTIONS_BOT
    throw error
  }
}

/**
 * Our comment on the pull request, found by the hidden marker on its first line and by its
 * author (so nobody else's comment can pose as ours), paging through all comments. Later
 * matches are duplicates, left by concurrent runs. Who we are and the comments are read at once.
 */
export async function findComments(
  github: GitHub,
  where: Repo & { readonly issue: number; readonly marker: string }
): Promise<IssueComment[]> {
  const [author, all] = await Promise.all([
    whoAmI(github),
    github.paginate(github.rest.issues.listComments, {
      owner: where.owner,
      repo: where.repo,
      issue_number: where.issue,
      per_page: 100
    })
  ])
  return all
    .filter(c => c.user?.login === author && (c.body ?? '').split('\n', 1)[0] === where.marker)
    .map(c => ({ id: c.id, body: c.body ?? '', html_url: c.html_url }))
}

export type CommentOutcome =
  | { readonly action: 'created' | 'updated' | 'unchanged'; readonly url: string }
  | { readonly action: 'failed'; readonly reason: string }

/** Updates our comment in place (creating it the first time), never re-posting; removes duplicates. */
export async function upsertComment(
  github: GitHub,
  where: Repo & { readonly issue: number },
  body: string,
  existing: readonly IssueComment[]
): Promise<CommentOutcome> {
  const [ours, ...duplicates] = existing
  try {
    let outcome: CommentOutcome
    if (!ours) {
      const { data } = await github.rest.issues.createComment({
        owner: where.owner,
        repo: where.repo,
        issue_number: where.issue,
        body
      })
      outcome = { action: 'created', url: data.html_url }
    } else if (ours.body === body) {
      outcome = { action: 'unchanged', url: ours.html_url }
    } else {
      const { data } = await github.rest.issues.updateComment({
        owner: where.owner,
        repo: where.repo,
        comment_id: ours.id,
        body
      })
      outcome = { action: 'updated', url: data.html_url }
    }
    for (const duplicate of duplicates) {
      await github.rest.issues.deleteComment({
        owner: where.owner,
        repo: where.repo,
        comment_id: duplicate.id
      })
    }
    return outcome
  } catch (error) {
    return { action: 'failed', reason: describeFailure(error, 'comment on the pull request') }
  }
}

/** Why a write failed, in words that say what to change. */
export function describeFailure(error: unknown, what: string): string {
  const status = statusOf(error)
  if (status === 403 || status === 404) {
    return (
      `no permission to ${what} (${status}): a fork's pull_request run or a read-only token; ` +
      'the verdict stands and the full report is in the job summary'
    )
  }
  return `could not ${what}: ${error instanceof Error ? error.message : String(error)}`
}
