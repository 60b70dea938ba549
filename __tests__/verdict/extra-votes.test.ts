import { describe, expect, it } from 'vitest'
import type { CouncilFailure, JudgeRun } from '../../src/council/types.js'
import { mustHavesInDoubt, needsVote, nextVoter } from '../../src/verdict/extra-votes.js'
import { judgeRun } from '../helpers/evaluation.js'
import { lines, parse } from '../helpers/rubric.js'

const RUBRIC = parse(lines('## Criteria', '- a: A', '- b: B', '## Nice to Have', '- n: N'))

const voted = (judge: string, fail: string[] = []): JudgeRun => judgeRun(RUBRIC, { judge, fail })

function failed(judge: string, failure: CouncilFailure, more: Partial<JudgeRun> = {}): JudgeRun {
  return {
    judge,
    sample: 1,
    latencyMs: 1,
    status: 'failed',
    failure,
    message: 'no answer',
    ...more
  } as JudgeRun
}

describe('when a must-have needs another vote', () => {
  it.each([
    [{ pass: 3, fail: 0, abstain: 0 }, false, 'unanimous'],
    [{ pass: 1, fail: 0, abstain: 0 }, false, 'a single vote, unanimous'],
    [{ pass: 2, fail: 1, abstain: 0 }, true, 'a lead of one: one more vote could tie it'],
    [{ pass: 3, fail: 1, abstain: 0 }, false, 'a lead of two: one more vote cannot take it away'],
    [{ pass: 1, fail: 3, abstain: 0 }, false, 'a lead of two for FAIL'],
    [{ pass: 2, fail: 2, abstain: 0 }, true, 'a tie'],
    [{ pass: 3, fail: 2, abstain: 0 }, true, 'a lead of one after extra votes'],
    [{ pass: 1, fail: 0, abstain: 1 }, true, 'a judge undecided between its samples'],
    [{ pass: 0, fail: 0, abstain: 1 }, true, 'no vote cast'],
    [{ pass: 2, fail: 0, abstain: 1 }, false, 'a lead of two beside an abstention']
  ])('%o: %s (%s)', (tally, expected) => {
    expect(needsVote(tally)).toBe(expected)
  })

  it('asks about the must-haves in doubt only, never a nice-to-have, and none short of the quorum', () => {
    const runs = [voted('x:1', ['a', 'n']), voted('x:2'), voted('x:3', ['n'])]
    expect(mustHavesInDoubt(RUBRIC, { runs, quorum: 2 })).toEqual(['a'])
    expect(mustHavesInDoubt(RUBRIC, { runs, quorum: 4 })).toEqual([])
    // The extra vote counted on a: 3–1, settled.
    const extra = { ...voted('x:r'), extra: { criteria: ['a'], reserve: true } }
    expect(mustHavesInDoubt(RUBRIC, { runs: [...runs, extra], quorum: 2 })).toEqual([])
  })
})

describe('who casts the next extra vote', () => {
  const members = [voted('openai:a'), voted('anthropic:b', ['a'])]

  it('the reserves in order, each once, whatever their extra call gave', () => {
    const reserves = ['google:r1', 'openai:r2']
    expect(nextVoter({ runs: members, quorum: 1 }, reserves)).toEqual({
      judge: 'google:r1',
      reserve: true
    })
    const r1Failed = {
      ...failed('google:r1', 'timeout'),
      extra: { criteria: ['a'], reserve: true }
    }
    expect(nextVoter({ runs: [...members, r1Failed], quorum: 1 }, reserves)).toEqual({
      judge: 'openai:r2',
      reserve: true
    })
    const r2 = { ...voted('openai:r2'), extra: { criteria: ['a'], reserve: true } }
    expect(nextVoter({ runs: [...members, r1Failed, r2], quorum: 1 }, reserves)).toBeUndefined()
  })

  it('never a member that answered, not even as a reserve named again', () => {
    expect(nextVoter({ runs: members, quorum: 1 }, ['openai:a'])).toBeUndefined()
    expect(nextVoter({ runs: members, quorum: 1 }, [])).toBeUndefined()
  })

  it('after the reserves, a member whose call gave unreadable output or a provider error; not one that timed out, was rate-limited, had no key or was rejected', () => {
    const runs = [
      ...members,
      failed('x:slow', 'timeout'),
      failed('x:limited', 'rate_limited'),
      failed('x:keyless', 'missing_credentials'),
      failed('x:rejected', 'provider_error', { rejected: true }),
      failed('x:retired', 'provider_error', { rejected: true, notAsked: true }),
      failed('x:garbled', 'invalid_output'),
      failed('x:flaky', 'provider_error')
    ]
    expect(nextVoter({ runs, quorum: 1 }, ['google:r'])).toEqual({
      judge: 'google:r',
      reserve: true
    })
    const reserve = { ...voted('google:r'), extra: { criteria: ['a'], reserve: true } }
    expect(nextVoter({ runs: [...runs, reserve], quorum: 1 }, ['google:r'])).toEqual({
      judge: 'x:garbled',
      reserve: false
    })
    const garbled = { ...voted('x:garbled'), extra: { criteria: ['a'], reserve: false } }
    expect(nextVoter({ runs: [...runs, reserve, garbled], quorum: 1 }, ['google:r'])).toEqual({
      judge: 'x:flaky',
      reserve: false
    })
  })
})
