import { failed, ok, type Result } from '../util/result.js'
import { statusOf, type GitHub } from './client.js'

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
 * A GitHub login: letters, digits and single hyphens, at most 39, neither first nor last a hyphen
 * (GitHub's sign-up rule); a GitHub App's account is its slug followed by `[bot]`.
 */
export function isLogin(login: string): boolean {
  return /^(?=.{1,39}(?:\[bot\])?$)[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?:\[bot\])?$/.test(login)
}

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
  where: Repo & { readonly issue: number; readonly marker: string },
  /** The login our comments are written by (`whoAmI`, read once a run). */
  me: () => Promise<string>
): Promise<IssueComment[]> {
  const [author, all] = await Promise.all([
    me(),
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

/** What the write did: a new comment, ours edited, or nothing to change. */
export interface CommentWritten {
  readonly action: 'created' | 'updated' | 'unchanged'
  readonly url: string
}

/** Updates our comment in place (creating it the first time), never re-posting; removes duplicates. */
export async function upsertComment(
  github: GitHub,
  where: Repo & { readonly issue: number },
  body: string,
  existing: readonly IssueComment[]
): Promise<Result<CommentWritten>> {
  const [ours, ...duplicates] = existing
  const repo = { owner: where.owner, repo: where.repo }
  try {
    let written: CommentWritten
    if (ours?.body === body) {
      written = { action: 'unchanged', url: ours.html_url }
    } else {
      const { data } = ours
        ? await github.rest.issues.updateComment({ ...repo, comment_id: ours.id, body })
        : await github.rest.issues.createComment({ ...repo, issue_number: where.issue, body })
      written = { action: ours ? 'updated' : 'created', url: data.html_url }
    }
    for (const duplicate of duplicates) {
      await github.rest.issues.deleteComment({ ...repo, comment_id: duplicate.id })
    }
    return ok(written)
  } catch (error) {
    return failed(describeFailure(error, 'comment on the pull request'))
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
