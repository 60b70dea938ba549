import { webhookExample, writeEvent } from './action-run.js'
import { runInProcess, type PullRequest } from './in-process.js'

/** Who wrote a comment, as the issue_comment payload names them. */
export interface Commenter {
  readonly login: string
  readonly type: string
}

/**
 * A comment written now on the pull request, and the issue_comment.created event (the real
 * payload of @octokit/webhooks-examples, made about this pull request) the bot hears of it by.
 */
export function written(pr: PullRequest, body: string, user: Commenter): string {
  const id = pr.github.addComment(pr.number, body, user)
  const example = webhookExample('issue_comment', 'created')
  const issue = example.issue as Record<string, unknown>
  return writeEvent({
    ...example,
    issue: { ...issue, number: pr.number, pull_request: { url: 'https://api.github.com/x' } },
    comment: {
      ...(example.comment as Record<string, unknown>),
      id,
      body,
      user,
      created_at: new Date().toISOString()
    }
  })
}

/** The bot's run on an issue_comment event. */
export const delivered = (pr: PullRequest, event: string) =>
  runInProcess(pr, { eventName: 'issue_comment', event, providers: {} })

/** A new comment on the pull request, and the bot's run on its event. */
export const commented = (pr: PullRequest, body: string, user: Commenter) =>
  delivered(pr, written(pr, body, user))
