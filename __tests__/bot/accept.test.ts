import { describe, expect, it } from 'vitest'
import {
  acceptanceOutput,
  acceptedComment,
  ownRubricNames,
  recordedCheckName,
  verdictOnHead,
  waivedComment,
  waiverRefused,
  type OnHead
} from '../../src/bot/accept.js'
import type { CommandComment } from '../../src/bot/commands.js'
import type { HistoryEntry } from '../../src/engine/history.js'
import type { IssueComment } from '../../src/github/comment.js'
import {
  commentMarker,
  readState,
  replaceState,
  MAX_WAIVERS,
  type CommentState
} from '../../src/publish/memory.js'

/** What `/council accept` and `/council waive` decide, from data alone (src/bot/accept.ts). */

const HEAD = 'c0ffee0123456789c0ffee0123456789c0ffee01'
const OLDER = 'dead0000000000000000000000000000000000be'

const entry = (commit: string, at: string, waivable?: string[]): HistoryEntry => ({
  iteration: 1,
  commit,
  verdict: 'FAIL',
  summary: 'FAIL: tested failed',
  rubricHash: 'aaaaaaaaaaaa',
  reasons: ['criterion_failed'],
  ...(waivable && { waivable }),
  at
})

function ours(state: CommentState): IssueComment {
  const body = replaceState(`${commentMarker('rubric-council')}\n\nThe report.\n`, state)
  return { id: 1, body, html_url: 'https://github.com/o/r/pull/7#issuecomment-1' }
}

const command = (writtenAt: string): CommandComment => ({
  number: 7,
  login: 'octo-maintainer',
  who: '@octo-maintainer',
  commentId: 42,
  writtenAt
})

function onHeadOf(state: CommentState): OnHead {
  const found = verdictOnHead(ours(state), HEAD, command('2026-12-04T12:00:00Z'), 'waive')
  if (!found.ok) throw new Error(found.problem.reply)
  return found.value
}

describe('verdictOnHead', () => {
  const state = { history: [entry(HEAD, '2026-12-04T11:00:00Z', ['tested'])] }

  it('finds the verdict on the head given before the command', () => {
    const found = verdictOnHead(ours(state), HEAD, command('2026-12-04T12:00:00Z'), 'accept')
    expect(found.ok && [found.value.head, found.value.last.verdict]).toEqual([HEAD, 'FAIL'])
  })

  it('attack: a verdict given after the command (a push in between) is not the one it is about', () => {
    const found = verdictOnHead(ours(state), HEAD, command('2026-12-04T10:00:00Z'), 'accept')
    expect(found).toEqual({
      ok: false,
      problem: {
        reply: expect.stringContaining('the pull request changed after your comment') as string,
        notice: '/council accept by @octo-maintainer not taken for c0ffee0: verdict_after_command'
      }
    })
  })

  it('says there is no verdict yet without our comment, or with one on another commit', () => {
    const none = verdictOnHead(undefined, HEAD, command('2026-12-04T12:00:00Z'), 'waive')
    expect(!none.ok && none.problem.notice).toBe(
      '/council waive by @octo-maintainer not taken for c0ffee0: no_verdict'
    )
    const older = { history: [entry(OLDER, '2026-12-04T11:00:00Z')] }
    const other = verdictOnHead(ours(older), HEAD, command('2026-12-04T12:00:00Z'), 'waive')
    expect(!other.ok && other.problem.reply).toBe(
      '@octo-maintainer there is no verdict on the head commit c0ffee0 yet to waive a must-have of; wait for the review to finish, then waive it.'
    )
  })
})

describe('which check runs an acceptance completes', () => {
  it('with several rubrics, those judged on the head whose names are this check’s own now', () => {
    const memory = (commit: string) => ({ history: [entry(commit, '2026-12-04T11:00:00Z')] })
    const rubrics = {
      'rubric-council / api': memory(HEAD),
      'rubric-council / docs': memory(OLDER),
      'someone-elses-check': memory(HEAD)
    }
    const own = new Set(['rubric-council / api', 'rubric-council / docs'])
    expect(ownRubricNames(rubrics, HEAD, own)).toEqual(['rubric-council / api'])
  })

  it('with one rubric, the recorded name only when the base gives that name now', () => {
    expect(recordedCheckName('rubric-council', 'rubric-council')).toEqual(['rubric-council'])
    expect(recordedCheckName('rubric-council (weak)', 'rubric-council')).toEqual([])
    expect(recordedCheckName(undefined, 'rubric-council')).toBeUndefined()
  })
})

describe('an acceptance', () => {
  const found = onHeadOf({ history: [entry(HEAD, '2026-12-04T11:00:00Z')] })

  it('says on the check run who accepted which verdict and why, its Markdown escaped', () => {
    const output = acceptanceOutput(found, 'octo-maintainer', 'flaky *judge*', '')
    expect(output.title).toBe('Accepted by @octo-maintainer: flaky *judge*')
    expect(output.summary).toContain(
      "@octo-maintainer accepted the council's verdict on c0ffee0 (FAIL: criterion_failed): flaky \\*judge\\*"
    )
    expect(output.summary).toContain(found.ours.html_url)
  })

  it('is noted in the comment’s history and kept with its command to check again', () => {
    const state = readState(acceptedComment(found, command('2026-12-04T12:00:00Z'), 'flaky', ''))
    expect(state.history.at(-1)?.note).toBe('accepted by @octo-maintainer: flaky')
    expect(state.accepted).toEqual({
      commit: HEAD,
      by: 'octo-maintainer',
      reason: 'flaky',
      commentId: 42
    })
  })
})

describe('a waiver', () => {
  const criteria = new Map([
    ['tested', true],
    ['tidy', false]
  ])
  const waive = (criterion: string, reason: string) =>
    waiverRefused('@m', { kind: 'waive', criterion, reason }, criteria)

  it('is refused before anything else is read for an unknown id, a nice-to-have or no reason', () => {
    expect(waive('testd', 'flaky')).toContain('is not a criterion of the base branch')
    expect(waive('tidy', 'flaky')).toContain('is a nice-to-have')
    expect(waive('tested', '')).toBe('@m say why: `/council waive tested <reason>`.')
    expect(waive('tested', 'flaky')).toBeUndefined()
  })

  const waiver = (criterion: string) => ({
    commit: HEAD,
    criterion,
    by: 'octo-maintainer',
    commentId: 42
  })

  it('is kept for the head and noted, when the must-have failed there', () => {
    const found = onHeadOf({ history: [entry(HEAD, '2026-12-04T11:00:00Z', ['tested'])] })
    const noted = waivedComment(found, waiver('tested'), 'flaky')
    if (!noted.ok) throw new Error(noted.problem.reply)
    expect(noted.value.note).toBe('waived tested by @octo-maintainer: flaky')
    expect(readState(noted.value.body).waivers).toEqual([waiver('tested')])
  })

  it('attack: a must-have that did not fail on the head is not waived', () => {
    const found = onHeadOf({ history: [entry(HEAD, '2026-12-04T11:00:00Z', ['tested'])] })
    const noted = waivedComment(found, waiver('documented'), 'flaky')
    expect(!noted.ok && noted.problem.reply).toContain(
      'did not fail or split on the head commit c0ffee0'
    )
  })

  it('attack: a head holds at most a few waivers, and an id too long to keep none', () => {
    const failed = Array.from({ length: MAX_WAIVERS + 1 }, (_, i) => `c${String(i)}`)
    const found = onHeadOf({
      history: [entry(HEAD, '2026-12-04T11:00:00Z', failed)],
      waivers: failed.slice(0, MAX_WAIVERS).map(waiver)
    })
    const more = waivedComment(found, waiver(failed.at(-1) ?? ''), 'flaky')
    expect(!more.ok && more.problem.reply).toContain(`already has ${String(MAX_WAIVERS)} waivers`)
    const long = waivedComment(found, waiver('x'.repeat(100)), 'flaky')
    expect(!long.ok && long.problem.reply).toContain('a criterion id longer than')
  })
})
