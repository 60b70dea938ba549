import { describe, expect, it } from 'vitest'
import type { Council, CouncilRequest, JudgeRun } from '../../src/council/types.js'
import { conveneCouncil } from '../../src/engine/evaluate.js'
import { issuedProviderKeys } from '../../src/council/providers/index.js'
import {
  cachingCouncil,
  judgementDigest,
  MAX_SEALED_CHARS,
  sealingKey,
  type SealedJudgement
} from '../../src/engine/judgement-cache.js'
import { gateResult, judgeRun, SEARCH_RUBRIC } from '../helpers/evaluation.js'
import { RANKING_EVIDENCE } from '../helpers/evidence.js'
import { lines, parse } from '../helpers/rubric.js'

const EVIDENCE = RANKING_EVIDENCE

const REQUEST: CouncilRequest = {
  rubric: SEARCH_RUBRIC,
  gates: [gateResult('pytest', 'pass', 'took 1.2 s')],
  evidence: EVIDENCE,
  iteration: 1,
  earlier: []
}

/** Judges that count their calls, answering `runs`; the reserve `r` answers `extra`. */
function counted(runs: JudgeRun[], extra?: JudgeRun): Council & { calls: number } {
  const council = {
    calls: 0,
    configuration: () => 'members: a, b; reserve: r',
    convene: () => {
      council.calls++
      return Promise.resolve({ runs, quorum: 2 })
    },
    reserves: () => ['r'],
    extraVote: () => {
      council.calls++
      return Promise.resolve(extra)
    }
  }
  return council
}

const KEY = sealingKey(['sk-one-4f9a2c7e1b8d3a6f', 'sk-two-9e8d7c6b5a4f3e2d'])

describe('judgementDigest', () => {
  const base = judgementDigest(REQUEST, 'c')

  it('is the same for the same judgement, whatever the iteration or history', () => {
    const later: CouncilRequest = {
      ...REQUEST,
      iteration: 7,
      earlier: [{ iteration: 1, commit: 'abc1234', verdict: 'PASS', summary: '' }]
    }
    expect(judgementDigest(later, 'c')).toBe(base)
  })

  it.each([
    ['the evidence', { ...REQUEST, evidence: { ...EVIDENCE, diff: `${EVIDENCE.diff}y` } }, 'c'],
    ['a gate result', { ...REQUEST, gates: [gateResult('pytest', 'fail')] }, 'c'],
    // The judges see the gates' output: a new warning is something new to judge.
    ['a gate’s output', { ...REQUEST, gates: [gateResult('pytest', 'pass', 'took 9.9 s')] }, 'c'],
    ['the rubric', { ...REQUEST, rubric: parse(lines('## Criteria', '- a: Else')) }, 'c'],
    ['the council', REQUEST, 'd']
  ] as const)('changes with %s', (_, request, council) => {
    expect(judgementDigest(request, council)).not.toBe(base)
  })
})

describe('cachingCouncil', () => {
  const runs = [
    judgeRun(SEARCH_RUBRIC, { judge: 'a' }),
    judgeRun(SEARCH_RUBRIC, { judge: 'b', fail: ['edge-cases'] })
  ]
  const tie = judgeRun(SEARCH_RUBRIC, { judge: 'r', fail: ['edge-cases'] })

  async function judgeOnce(council: Council): Promise<SealedJudgement> {
    const first = cachingCouncil(council, { key: KEY, iteration: 1 })
    await conveneCouncil(first, REQUEST)
    const { sealed } = first.result()
    if (!sealed) throw new Error('nothing sealed')
    return sealed
  }

  it('replays the same outcome, extra votes included, with no call and nothing spent', async () => {
    const council = counted(runs, tie)
    const sealed = await judgeOnce(council)
    // Two judges split on a must-have: one extra vote, the reserve's; then 1–2 and no one left.
    expect(council.calls).toBe(2)
    const fresh = await conveneCouncil(counted(runs, tie), REQUEST)
    const again = cachingCouncil(council, { key: KEY, previous: sealed, iteration: 2 })
    const replayed = await conveneCouncil(again, REQUEST)
    expect(council.calls).toBe(2)
    expect(replayed.runs.map(r => [r.judge, r.status, r.extra])).toEqual(
      fresh.runs.map(r => [r.judge, r.status, r.extra])
    )
    expect(replayed.runs.at(-1)?.extra).toEqual({ criteria: ['edge-cases'], reserve: true })
    expect(replayed.runs.every(r => r.requests === 0 && r.costUsd === undefined)).toBe(true)
    expect(again.result()).toEqual({ reusedFrom: 1, sealed })
  })

  it.each([
    ['another digest', (s: SealedJudgement) => ({ ...s, digest: 'f'.repeat(64) })],
    ['another iteration', (s: SealedJudgement) => ({ ...s, iteration: 9 })],
    ['edited runs', (s: SealedJudgement) => ({ ...s, runs: `${s.runs.slice(0, -4)}AAA=` })],
    ['a forged seal', (s: SealedJudgement) => ({ ...s, seal: '0'.repeat(64) })]
  ])('asks again for %s', async (_, edit) => {
    const council = counted(runs)
    const sealed = await judgeOnce(council)
    const calls = council.calls
    const again = cachingCouncil(council, { key: KEY, previous: edit(sealed), iteration: 2 })
    await conveneCouncil(again, REQUEST)
    expect(council.calls).toBeGreaterThan(calls)
    expect(again.result().reusedFrom).toBeUndefined()
  })

  it('asks again when the provider keys changed (another seal key)', async () => {
    const council = counted(runs)
    const sealed = await judgeOnce(council)
    const calls = council.calls
    const again = cachingCouncil(council, {
      key: sealingKey(['sk-rotated-0c1d2e3f4a5b6c7d']),
      previous: sealed,
      iteration: 2
    })
    await conveneCouncil(again, REQUEST)
    expect(council.calls).toBeGreaterThan(calls)
  })

  it('keeps nothing without a key, or when a judge failed', async () => {
    const none = cachingCouncil(counted(runs), { key: undefined, iteration: 1 })
    await conveneCouncil(none, REQUEST)
    expect(none.result()).toEqual({})
    const failed: JudgeRun = {
      judge: 'c',
      sample: 1,
      latencyMs: 5,
      status: 'failed',
      failure: 'timeout',
      message: 'timed out'
    }
    const partial = cachingCouncil(counted([...runs, failed]), { key: KEY, iteration: 1 })
    await conveneCouncil(partial, REQUEST)
    expect(partial.result()).toEqual({})
  })

  it('keeps nothing too big for the comment', async () => {
    let n = 0
    // Text that does not compress: each judge's reasoning different and random.
    const noise = (): string =>
      Array.from({ length: 300 }, () => ((n++ * 2654435761) % 4294967296).toString(36)).join(' ')
    const big = Array.from({ length: 12 }, (_, i) =>
      judgeRun(SEARCH_RUBRIC, { judge: `j${i}`, reasoning: noise })
    )
    const council = cachingCouncil(counted(big), { key: KEY, iteration: 1 })
    await conveneCouncil(council, REQUEST)
    expect(council.result()).toEqual({})
    expect(MAX_SEALED_CHARS).toBeLessThan(65_536 / 2)
  })
})

describe('sealingKey', () => {
  it('is none for keys someone could guess, so nothing is cached that a comment edit could forge', () => {
    // Placeholders seen in workflows that point a provider at a proxy or a local model.
    for (const keys of [
      [],
      ['ollama'],
      ['sk-1234'],
      ['x'.repeat(40)],
      ['sk-proj-aaaaaaaaaaaaaaaa']
    ]) {
      expect(sealingKey(keys)).toBeUndefined()
    }
  })

  it('is derived from the real keys only, so a placeholder beside one changes nothing', () => {
    const real = 'sk-proj-Zq81mVx0Lr5tYw2Kp9Hc'
    expect(sealingKey([real])).toEqual(sealingKey([real, 'sk-1234']))
    expect(sealingKey([real])).not.toEqual(sealingKey(['sk-ant-api03-Gh7Jk2Lm9Np4Qr']))
  })
})

describe('issuedProviderKeys', () => {
  it('takes the keys of providers that issue them, never a local endpoint’s placeholder', () => {
    expect(
      issuedProviderKeys({
        OPENAI_API_KEY: ' sk-proj-Zq81mVx0Lr5tYw2Kp9Hc ',
        OLLAMA_API_KEY: 'ollama-0123456789abcdefghij',
        OPENAI_COMPATIBLE_API_KEY: 'compatible-0123456789abcdef',
        ANTHROPIC_API_KEY: ''
      })
    ).toEqual(['sk-proj-Zq81mVx0Lr5tYw2Kp9Hc'])
  })
})
