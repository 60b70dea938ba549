import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parsePayload, type EventName } from '../../src/github/payload.js'
import { issueCommentEvent } from '../helpers/action-run.js'

/**
 * The event payloads the action and the bot act on, read once into their types: every real
 * payload of @octokit/webhooks-examples parses (the compiler checks the schemas against
 * @octokit/webhooks-types; these are GitHub's own deliveries), and one that cannot be read says
 * which field holds what.
 */

const EXAMPLES = JSON.parse(
  readFileSync(
    join(
      import.meta.dirname,
      '../../node_modules/@octokit/webhooks-examples/api.github.com/index.json'
    ),
    'utf8'
  )
) as { name: string; examples: Record<string, unknown>[] }[]

function examplesOf(name: string): Record<string, unknown>[] {
  const examples = EXAMPLES.find(e => e.name === name)?.examples ?? []
  expect(examples.length).toBeGreaterThan(0)
  return examples
}

describe('parsePayload', () => {
  const events: [EventName, string][] = [
    ['issue_comment', 'issue_comment'],
    ['push', 'push'],
    ['pull_request', 'pull_request'],
    ['pull_request_target', 'pull_request'],
    ['workflow_dispatch', 'workflow_dispatch'],
    ['workflow_run', 'workflow_run']
  ]
  it.each(events)('reads every real %s payload', (event, name) => {
    const problems = examplesOf(name).flatMap(example => {
      const parsed = parsePayload(event, example)
      return parsed.ok ? [] : [parsed.problem]
    })
    expect(problems).toEqual([])
  })

  it('reads a comment on a pull request with who wrote it and when, and one on an issue without', () => {
    const comment = (onPullRequest: boolean) => {
      const path = issueCommentEvent({
        number: 7,
        body: '/council rerun',
        user: { login: 'octo-maintainer', type: 'User' },
        commentId: 2_000_000_042,
        onPullRequest
      })
      return parsePayload('issue_comment', JSON.parse(readFileSync(path, 'utf8')))
    }
    const onPull = comment(true)
    if (!onPull.ok) throw new Error(onPull.problem)
    const { action, issue, comment: given } = onPull.value
    expect([action, issue.number, issue.pull_request === undefined]).toEqual(['created', 7, false])
    expect(given).toEqual({
      id: 2_000_000_042,
      body: '/council rerun',
      created_at: given.created_at,
      user: { login: 'octo-maintainer', type: 'User' }
    })
    expect(Date.parse(given.created_at)).not.toBeNaN()
    const onIssue = comment(false)
    expect(onIssue.ok && onIssue.value.issue.pull_request).toBeUndefined()
  })

  it('names a sender as an actor, a GitHub App as a bot', () => {
    const [example] = examplesOf('workflow_run')
    const asBot = { ...example, sender: { login: 'rubric-council[bot]', type: 'Bot' } }
    const read = parsePayload('workflow_run', asBot)
    expect(read.ok && read.value.sender).toEqual({ login: 'rubric-council[bot]', bot: true })
    const unnamed = parsePayload('workflow_run', { ...example, sender: { id: 1 } })
    expect(unnamed.ok && unnamed.value.sender).toBeUndefined()
  })

  it('takes a workflow run that does not say its attempt (GitHub Enterprise Server) for the first', () => {
    const [example] = examplesOf('workflow_run')
    const run = { ...(example?.workflow_run as Record<string, unknown>) }
    delete run.run_attempt
    const read = parsePayload('workflow_run', { ...example, workflow_run: run })
    expect(read.ok && read.value.workflow_run.run_attempt).toBe(1)
  })

  it('says which field of an unreadable payload holds what', () => {
    const [example] = examplesOf('push')
    const problem = (read: ReturnType<typeof parsePayload>): string => (read.ok ? '' : read.problem)
    expect(problem(parsePayload('push', { ...example, after: 42 }))).toMatch(
      /^the push event payload cannot be read: after holds 42 \(.*expected string.*\)$/
    )
    expect(problem(parsePayload('issue_comment', 'not json'))).toMatch(
      /^the issue_comment event payload cannot be read: the payload holds "not json" \(/
    )
    const long = parsePayload('push', {
      ...example,
      ref: 'x'.repeat(500),
      before: ['y'.repeat(500)]
    })
    expect(long.ok ? '' : long.problem).toMatch(/before holds \["y{70,80}…/)
  })

  it('reads a schedule payload, which no webhook sends, whatever the runner wrote', () => {
    expect(parsePayload('schedule', { schedule: '*/30 * * * *', workflow: 'x.yml' })).toEqual({
      ok: true,
      value: { schedule: '*/30 * * * *' }
    })
    expect(parsePayload('schedule', undefined)).toEqual({ ok: true, value: {} })
  })
})
