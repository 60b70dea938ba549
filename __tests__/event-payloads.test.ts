import { readFileSync } from 'node:fs'
import type { IssueCommentCreatedEvent, PushEvent } from '@octokit/webhooks-types'
import { describe, expect, it } from 'vitest'
import {
  NO_COMMIT,
  OWNER,
  REPO,
  issueCommentEvent,
  pushEvent,
  webhookExample
} from './helpers/action-run.js'

const BEFORE = '1f1bb8e2b5c1ce1a8d5f0e2d8f4a0e6b3c9d7a21'
const AFTER = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821'

function readPush(path: string): PushEvent {
  return JSON.parse(readFileSync(path, 'utf8')) as PushEvent
}

function readComment(path: string): IssueCommentCreatedEvent {
  return JSON.parse(readFileSync(path, 'utf8')) as IssueCommentCreatedEvent
}

describe('pushEvent', () => {
  it('writes a real branch push pointed at this repository', () => {
    const example = webhookExample('push', undefined, e => String(e.ref).startsWith('refs/heads/'))

    const payload = readPush(pushEvent({ ref: 'refs/heads/main', before: BEFORE, after: AFTER }))

    expect(payload).toMatchObject({
      ref: 'refs/heads/main',
      before: BEFORE,
      after: AFTER,
      created: false,
      deleted: false,
      head_commit: { id: AFTER },
      repository: { name: REPO, full_name: `${OWNER}/${REPO}`, owner: { login: OWNER } }
    })
    expect(payload.commits.map(c => c.id)).toEqual([AFTER])
    // Everything else is the example's, field for field.
    expect(Object.keys(payload).sort()).toEqual(Object.keys(example).sort())
    expect(payload.pusher).toEqual(example.pusher)
  })

  it('marks a new branch as created and a deleted one as deleted, with no head commit', () => {
    const created = readPush(
      pushEvent({ ref: 'refs/heads/feature', before: NO_COMMIT, after: AFTER })
    )
    const deleted = readPush(
      pushEvent({ ref: 'refs/heads/feature', before: AFTER, after: NO_COMMIT })
    )

    expect([created.created, created.deleted]).toEqual([true, false])
    expect([deleted.created, deleted.deleted, deleted.head_commit, deleted.commits]).toEqual([
      false,
      true,
      null,
      []
    ])
  })
})

describe('issueCommentEvent', () => {
  const user = { login: 'octocat', type: 'User' } as const

  it('writes a real issue_comment.created on a pull request, with `issue.pull_request`', () => {
    const payload = readComment(
      issueCommentEvent({ number: 7, body: '/council review', user, commentId: 2_000_000_042 })
    )

    expect(payload).toMatchObject({
      action: 'created',
      issue: {
        number: 7,
        html_url: `https://github.com/${OWNER}/${REPO}/pull/7`,
        pull_request: {
          url: `https://api.github.com/repos/${OWNER}/${REPO}/pulls/7`,
          merged_at: null
        }
      },
      comment: {
        id: 2_000_000_042,
        body: '/council review',
        user: { login: 'octocat', type: 'User' }
      },
      sender: { login: 'octocat', type: 'User' },
      repository: { full_name: `${OWNER}/${REPO}` }
    })
  })

  it('leaves `pull_request` out on a plain issue, and names a bot as a bot', () => {
    const payload = readComment(
      issueCommentEvent({
        number: 8,
        body: 'Thanks!',
        user: { login: 'rubric-council[bot]', type: 'Bot' },
        commentId: 2_000_000_043,
        onPullRequest: false
      })
    )

    expect('pull_request' in payload.issue).toBe(false)
    expect(payload.issue.html_url).toBe(`https://github.com/${OWNER}/${REPO}/issues/8`)
    expect(payload.comment.user).toMatchObject({ login: 'rubric-council[bot]', type: 'Bot' })
    expect(payload.sender).toMatchObject({ login: 'rubric-council[bot]', type: 'Bot' })
  })
})
