import { describe, expect, it } from 'vitest'
import { healDecision } from '../../src/engine/heal.js'
import type { HistoryEntry } from '../../src/engine/history.js'

/** Which UNCLEAR verdicts a re-run may heal (docs/pr-bot.md#healing). */

const HEAD = 'a'.repeat(40)
const UNCLEAR = { status: 'completed', conclusion: 'action_required', title: 'UNCLEAR: …' }
const entry = (reasons: string[], commit = HEAD): HistoryEntry => ({
  iteration: 1,
  commit,
  verdict: 'UNCLEAR',
  summary: '',
  rubricHash: '',
  reasons
})

describe('healDecision', () => {
  it.each([
    [['rate_limited'], true],
    [['provider_error'], true],
    [['timeout', 'judge_disagreement'], true],
    [['judge_disagreement'], false],
    [['rate_limited', 'gate_failed'], false],
    [['timeout', 'missing_credentials'], false],
    [['provider_error', 'incomplete_coverage'], false],
    [['rate_limited', 'workflow_modified'], false]
  ])('%j: healed %s', (reasons, healed) => {
    expect(healDecision(HEAD, UNCLEAR, [entry(reasons)], undefined).heal).toBe(healed)
  })

  it('names the reasons a re-run would give again', () => {
    expect(
      healDecision(HEAD, UNCLEAR, [entry(['rate_limited', 'gate_failed'])], undefined)
    ).toEqual({
      heal: false,
      why: { kind: 'lasting', reasons: ['rate_limited', 'gate_failed'], lasting: ['gate_failed'] }
    })
  })

  it.each([
    ['none', undefined],
    ['pending', { status: 'in_progress', conclusion: null, title: 'Reviewing…' }],
    ['accepted', { status: 'completed', conclusion: 'success', title: 'Accepted by @a: flaky' }],
    ['FAIL', { status: 'completed', conclusion: 'failure', title: 'FAIL: 1 criterion' }],
    ['neutral but not a verdict', { status: 'completed', conclusion: 'neutral', title: 'other' }]
  ])('a check that is not an UNCLEAR verdict (%s) is not healed', (_, check) => {
    expect(healDecision(HEAD, check, [entry(['rate_limited'])], undefined)).toEqual({
      heal: false,
      why: { kind: 'not-unclear' }
    })
  })

  it('reads the newest entry of the head commit only, and counts re-runs of that head only', () => {
    const older = entry(['rate_limited'], 'b'.repeat(40))
    expect(healDecision(HEAD, UNCLEAR, [older], undefined).heal).toBe(false)
    expect(
      healDecision(HEAD, UNCLEAR, [entry(['rate_limited'])], { commit: HEAD, count: 2 })
    ).toEqual({
      heal: true,
      value: { reasons: ['rate_limited'], count: 3 }
    })
    expect(
      healDecision(HEAD, UNCLEAR, [entry(['rate_limited'])], { commit: HEAD, count: 3 })
    ).toEqual({
      heal: false,
      why: { kind: 'enough', count: 3 }
    })
    expect(
      healDecision(HEAD, UNCLEAR, [entry(['rate_limited'])], { commit: 'b'.repeat(40), count: 3 })
        .heal
    ).toBe(true)
  })
})
