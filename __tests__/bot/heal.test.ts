import { describe, expect, it } from 'vitest'
import {
  healingSummary,
  latestOf,
  lookedAt,
  notHealedOf,
  providersOf,
  unclearRubrics,
  type Looked
} from '../../src/bot/heal.js'
import type { HistoryEntry } from '../../src/engine/history.js'
import type { ListedCheckRun } from '../../src/github/check-run.js'
import { CHECK_RUN_MARK } from '../../src/publish/plan.js'

/** Healing's decisions, from data alone (src/bot/heal.ts; whether a verdict heals: engine/heal.ts). */

const HEAD = 'c0ffee0123456789'
const pr = (number: number) => ({
  number,
  headSha: HEAD,
  headRepository: 'o/r',
  headRef: 'feature',
  baseRef: 'main',
  defaultBranch: 'main'
})
const check = (id: number, change: Partial<ListedCheckRun> = {}): ListedCheckRun => ({
  id,
  name: 'Rubric Council',
  appSlug: 'github-actions',
  htmlUrl: '',
  externalId: CHECK_RUN_MARK,
  status: 'completed',
  conclusion: 'action_required',
  title: 'UNCLEAR: rate_limited',
  ...change
})
const entry = (verdict: HistoryEntry['verdict'], reasons: string[]): HistoryEntry => ({
  iteration: 1,
  commit: HEAD,
  verdict,
  summary: verdict,
  rubricHash: 'aaaaaaaaaaaa',
  reasons
})
const seen = (number: number) => ({ pr: pr(number), name: 'rubric-council', others: [] })

describe('what healing looks at', () => {
  it('our newest check run, never one another app or job created', () => {
    const runs = [check(5, { externalId: '' }), check(3), check(4)]
    expect(latestOf(runs)?.id).toBe(4)
    expect(latestOf([check(9, { externalId: '' })])).toBeUndefined()
  })

  it('with several rubrics, those whose latest verdict on the head is UNCLEAR', () => {
    const memory = (verdict: HistoryEntry['verdict'], commit = HEAD) => ({
      history: [{ ...entry(verdict, []), commit }]
    })
    const state = {
      history: [],
      rubrics: {
        'rubric-council / api': memory('UNCLEAR'),
        'rubric-council / docs': memory('PASS'),
        'rubric-council / old': memory('UNCLEAR', 'beef')
      }
    }
    expect(unclearRubrics(state, HEAD)).toEqual(['rubric-council / api'])
  })

  it('heals an UNCLEAR outage the comment records, and says why it leaves others alone', () => {
    const outage = { history: [entry('UNCLEAR', ['rate_limited'])] }
    const healed = lookedAt(seen(1), check(1), { state: outage })
    expect(healed.decision).toEqual({ heal: true, value: { reasons: ['rate_limited'], count: 1 } })
    const passed = lookedAt(seen(2), check(2, { conclusion: 'success', title: 'PASS' }))
    const split = lookedAt(seen(3), check(3), {
      state: { history: [entry('UNCLEAR', ['judge_disagreement'])] }
    })
    expect(notHealedOf([healed, passed, split])).toEqual([
      '#3 (judge_disagreement: not a provider outage)'
    ])
  })
})

describe('providersOf', () => {
  it('each provider of the council once', () => {
    expect(
      providersOf(['openai:gpt-5.4-nano', 'openai:gpt-5.4', 'anthropic:claude-haiku-4-5'])
    ).toEqual({
      ok: true,
      value: ['openai', 'anthropic']
    })
  })

  it('none to probe without a member', () => {
    expect(providersOf([])).toEqual({
      ok: false,
      problem: expect.stringContaining('no judge to ask') as string
    })
  })
})

describe('healingSummary', () => {
  it('counts the open and UNCLEAR pull requests, and lists at most ten of each', () => {
    const looked: Looked[] = Array.from({ length: 13 }, (_, i) =>
      lookedAt(seen(i + 1), check(i + 1), { state: { history: [entry('UNCLEAR', ['timeout'])] } })
    )
    const summary = healingSummary({
      cron: '*/30 * * * *',
      looked,
      healed: ['#1 (timeout; re-run 1 of 3 for c0ffee0: url)'],
      leftAlone: looked.slice(1).map(l => `#${String(l.pr.number)} (over heal-limit: 1 a run)`),
      warned: []
    }).split('\n')
    expect(summary[0]).toBe(
      'Rubric Council: healing (schedule "*/30 * * * *"): 13 open pull requests, 13 with an UNCLEAR check; re-verified 1, left 12 alone'
    )
    expect(summary[1]).toBe(
      '- re-verified after a provider outage: #1 (timeout; re-run 1 of 3 for c0ffee0: url)'
    )
    expect(summary[2]).toMatch(/^- left alone: #2 .*#11 \(over heal-limit: 1 a run\), and 2 more$/)
    expect(summary).toHaveLength(3)
  })
})
