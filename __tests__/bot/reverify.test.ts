import { describe, expect, it } from 'vitest'
import { messageOf, notRerun, runToRerun, unlisted } from '../../src/bot/reverify.js'
import type { WorkflowRunListed } from '../../src/github/actions-runs.js'

/** Which run the bot re-runs, and what GitHub's refusals mean (src/bot/reverify.ts). */

const PR = { number: 7, headSha: 'c0ffee0123456789', headRepository: 'o/r', headRef: 'feature' }
const run = (change: Partial<WorkflowRunListed>): WorkflowRunListed => ({
  id: 1,
  event: 'pull_request',
  status: 'completed',
  createdAt: '2026-12-01T00:00:00Z',
  htmlUrl: 'https://github.com/o/r/actions/runs/1',
  pullRequests: [7],
  headRepository: 'o/r',
  headBranch: 'feature',
  ...change
})
const NOW = Date.parse('2026-12-04T00:00:00Z')

describe('runToRerun', () => {
  it('takes the pull request’s own run on a pull request event', () => {
    const runs = [run({ id: 1, event: 'push' }), run({ id: 2, pullRequests: [8] }), run({ id: 3 })]
    const chosen = runToRerun('rubric-council.yml', runs, PR)
    expect(chosen.ok && chosen.value.id).toBe(3)
  })

  it('attack: of a fork’s runs (which list no pull request), only its own head’s', () => {
    const fork = { ...PR, headRepository: 'fork/r' }
    const runs = [
      run({ id: 1, pullRequests: [], headRepository: 'other-fork/r' }),
      run({ id: 2, pullRequests: [], headRepository: 'fork/r' })
    ]
    const chosen = runToRerun('rubric-council.yml', runs, fork)
    expect(chosen.ok && chosen.value.id).toBe(2)
  })

  it('starts nothing elsewhere when there is no run of its own, and says what to do', () => {
    const none = runToRerun('rubric-council.yml', [run({ event: 'workflow_dispatch' })], PR)
    expect(none).toEqual({
      ok: false,
      problem: {
        kind: 'no-run',
        message: expect.stringMatching(
          /^rubric-council.yml has no run on pull_request for #7 at c0ffee0 to re-run: push a commit/
        ) as string
      }
    })
  })
})

describe('what GitHub’s answers mean', () => {
  it('listing: no workflow (404), no permission (403), anything else', () => {
    expect([404, 403, 502].map(status => unlisted('x.yml', { status, said: 'Bad' }).kind)).toEqual([
      'no-workflow',
      'permission',
      'failed'
    ])
  })

  it('re-running: still running, too old, refused, no permission, gone', () => {
    const kind = (said: string, change: Partial<WorkflowRunListed> = {}, status = 403) =>
      notRerun('x.yml', run(change), '#7 at c0ffee0', { status, said }, NOW).kind
    expect([
      kind('This workflow is already running'),
      kind('Forbidden', { status: 'in_progress' }),
      kind('Unable to retry this workflow run because it was created over a month ago'),
      kind('Forbidden', { createdAt: '2026-10-01T00:00:00Z' }),
      kind('This workflow run cannot be retried'),
      kind('Resource not accessible by integration'),
      kind('Not Found', {}, 404),
      kind('Server Error', {}, 500)
    ]).toEqual([
      'running',
      'running',
      'too-old',
      'too-old',
      'refused',
      'permission',
      'no-run',
      'failed'
    ])
  })

  it('quotes GitHub’s own words, without the documentation link, on one line', () => {
    expect(messageOf(new Error('Not Found - https://docs.github.com/rest/actions'))).toBe(
      'Not Found'
    )
    expect(messageOf(new Error('Bad gateway\n<html>…</html>'))).toBe('Bad gateway')
  })
})
