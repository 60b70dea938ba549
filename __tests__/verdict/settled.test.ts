import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CouncilOutcome, Finding, JudgeAnswer, JudgeRun } from '../../src/council/types.js'
import type { GateResult } from '../../src/gates/types.js'
import type { Rubric } from '../../src/rubric/types.js'
import { decide, mustHavesInDoubt, nextVoter } from '../../src/verdict/decide.js'
import { settledVerdict } from '../../src/verdict/settled.js'
import { lines, parse } from '../helpers/rubric.js'

/** Two must-haves, a nice-to-have, a score criterion with a minimum and a dimension. */
function rubricWith(front: string[] = []): Rubric {
  return parse(
    lines(
      '---',
      ...front,
      'dimensions: { accuracy: 1 }',
      'criteria:',
      '  - id: ranked',
      '    description: Results are ranked',
      '    required_min_score: 6',
      '    score_ranges: { 0: Unranked, 6: Ranked }',
      '---',
      '## Criteria',
      '- a: First must-have',
      '- b: Second must-have',
      '## Nice to Have',
      '- n: A nice-to-have'
    )
  )
}

const RUBRIC = rubricWith()

interface Spec {
  readonly a?: 'PASS' | 'FAIL'
  readonly b?: 'PASS' | 'FAIL'
  readonly n?: 'PASS' | 'FAIL'
  readonly ranked?: number
  readonly accuracy?: number
  readonly findings?: readonly Finding['severity'][]
  readonly verdict?: JudgeAnswer['verdict']
}

function answerOf(spec: Spec): JudgeAnswer {
  return {
    findings: (spec.findings ?? []).map(severity => ({ severity, title: 't', evidence: 'e' })),
    criteria: [
      { id: 'a', verdict: spec.a ?? 'PASS', reasoning: 'r' },
      { id: 'b', verdict: spec.b ?? 'PASS', reasoning: 'r' },
      { id: 'n', verdict: spec.n ?? 'PASS', reasoning: 'r' },
      { id: 'ranked', score: spec.ranked ?? 8, reasoning: 'r' }
    ],
    dimensions: [{ name: 'accuracy', score: spec.accuracy ?? 8, reasoning: 'r' }],
    verdict: spec.verdict ?? 'ACCEPT',
    feedback: 'f'
  }
}

const ok = (judge: string, spec: Spec = {}, sample = 1): JudgeRun => ({
  judge,
  sample,
  latencyMs: 1,
  status: 'ok',
  answer: answerOf(spec)
})

const timedOut = (judge: string, sample = 1): JudgeRun => ({
  judge,
  sample,
  latencyMs: 1,
  status: 'failed',
  failure: 'timeout',
  message: 'timed out'
})

const output = { head: '', tail: '', elidedBytes: 0, totalBytes: 0 }
const PASSED: GateResult[] = [
  { command: 'npm test', status: 'pass', exitCode: 0, durationMs: 1, output }
]
const FAILED: GateResult[] = [
  { command: 'npm test', status: 'fail', exitCode: 1, durationMs: 1, output }
]

function settled(
  runs: JudgeRun[],
  pending: { judge: string; sample: number }[],
  options: { rubric?: Rubric; reserves?: string[]; gates?: GateResult[]; quorum?: number } = {}
) {
  const council = { runs, quorum: options.quorum ?? 2 }
  const input = { rubric: options.rubric ?? RUBRIC, gates: options.gates ?? PASSED, council }
  return settledVerdict(input, { pending, reserves: options.reserves ?? [] })
}

const codes = (verdict: { reasons: readonly { code: string }[] } | undefined) =>
  verdict?.reasons.map(r => r.code)

describe('a verdict settled before every judge has answered', () => {
  it('two of three judges fail a must-have: FAIL, without waiting for the third', () => {
    const verdict = settled([ok('x:1', { a: 'FAIL' }), ok('x:2', { a: 'FAIL' })], [pending('x:3')])
    expect(verdict?.verdict).toBe('FAIL')
    expect(codes(verdict)).toEqual(['criterion_failed'])
  })

  it('not while a reserve could still tie the must-have: the third PASS and a reserve PASS make it 2–2', () => {
    const runs = [ok('x:1', { a: 'FAIL' }), ok('x:2', { a: 'FAIL' })]
    expect(settled(runs, [pending('x:3')], { reserves: ['y:r'] })).toBeUndefined()
    // The completion that shows why: not FAIL.
    const completed = [
      ...runs,
      ok('x:3'),
      { ...ok('y:r'), extra: { criteria: ['a'], reserve: true } }
    ]
    expect(
      decide({ rubric: RUBRIC, gates: PASSED, council: { runs: completed, quorum: 2 } }).verdict
    ).toBe('UNCLEAR')
  })

  it('not while a member whose answer was unreadable could still cast an extra vote', () => {
    const garbled: JudgeRun = {
      judge: 'x:4',
      sample: 1,
      latencyMs: 1,
      status: 'failed',
      failure: 'invalid_output',
      message: 'not JSON'
    }
    const runs = [ok('x:1', { a: 'FAIL' }), ok('x:2', { a: 'FAIL' }), garbled]
    expect(settled(runs, [pending('x:3')])).toBeUndefined()
  })

  it('never a PASS, even when four of five judges approve everything', () => {
    const runs = ['x:1', 'x:2', 'x:3', 'x:4'].map(judge => ok(judge))
    expect(settled(runs, [pending('x:5')], { quorum: 3 })).toBeUndefined()
  })

  it('attack: two judges say PASS and the slow one would say FAIL with a blocking finding: no early PASS', () => {
    const strict = rubricWith(['blocking: any'])
    const runs = [ok('x:1'), ok('x:2')]
    expect(settled(runs, [pending('x:3')], { rubric: strict })).toBeUndefined()
    const slow = ok('x:3', { findings: ['critical'] })
    const full = decide({
      rubric: strict,
      gates: PASSED,
      council: { runs: [...runs, slow], quorum: 2 }
    })
    expect(full.verdict).toBe('FAIL')
  })

  it('not short of the quorum: one FAIL in hand, the others could all fail to answer', () => {
    const verdict = settled([ok('x:1', { a: 'FAIL' })], [pending('x:2'), pending('x:3')])
    expect(verdict).toBeUndefined()
  })

  it('not when the outstanding answers could take the majority: one FAIL and one PASS', () => {
    const verdict = settled([ok('x:1', { a: 'FAIL' }), ok('x:2')], [pending('x:3')])
    expect(verdict).toBeUndefined()
  })

  it('not when a FAIL stands on a judge whose other sample is still out: it could tie and abstain', () => {
    const runs = [ok('x:1', { a: 'FAIL' }), ok('x:2', { a: 'FAIL' }), ok('x:3', { a: 'FAIL' })]
    expect(settled(runs, [pending('x:3', 2), pending('x:1', 2)], { quorum: 2 })).toEqual(
      expect.objectContaining({ verdict: 'FAIL' })
    )
    const two = [ok('x:1', { a: 'FAIL' }), ok('x:2', { a: 'FAIL' }), ok('x:3')]
    expect(settled(two, [pending('x:1', 2)])).toBeUndefined()
  })

  it('a failed gate: FAIL at once, whatever the judges would say', () => {
    const verdict = settled([], [pending('x:1'), pending('x:2')], { gates: FAILED })
    expect(codes(verdict)).toEqual(['gate_failed'])
  })

  it('not when a maintainer waived the failed must-have', () => {
    const council = { runs: [ok('x:1', { a: 'FAIL' }), ok('x:2', { a: 'FAIL' })], quorum: 2 }
    const waived = [{ criterion: 'a', by: 'maintainer', reason: 'known' }]
    const input = { rubric: RUBRIC, gates: PASSED, council, waived }
    expect(settledVerdict(input, { pending: [pending('x:3')], reserves: [] })).toBeUndefined()
  })

  it('a score below its minimum for a majority, with the outstanding judge scoring 10: FAIL', () => {
    const runs = [ok('x:1', { ranked: 2 }), ok('x:2', { ranked: 3 })]
    expect(codes(settled(runs, [pending('x:3')]))).toEqual(['min_score'])
    expect(settled([ok('x:1', { ranked: 2 }), ok('x:2')], [pending('x:3')])).toBeUndefined()
  })
})

function pending(judge: string, sample = 1) {
  return { judge, sample }
}

// Every completion, drawn at random: each outstanding call answers anything or fails, then the
// engine's own extra-vote loop runs with answers drawn the same way. Whenever the answers in hand
// are called settled, the completed run must give the same verdict, and it is never PASS.
const answerArb: fc.Arbitrary<Spec> = fc.record({
  a: fc.constantFrom('PASS', 'FAIL'),
  b: fc.constantFrom('PASS', 'FAIL'),
  n: fc.constantFrom('PASS', 'FAIL'),
  ranked: fc.integer({ min: 0, max: 10 }),
  accuracy: fc.integer({ min: 1, max: 10 }),
  findings: fc.subarray<Finding['severity']>(['critical', 'major', 'minor']),
  verdict: fc.constantFrom('ACCEPT', 'RETRY', 'TERMINATE')
})
const callArb = fc.option(answerArb, { nil: undefined, freq: 4 })
const stateArb = fc.constantFrom('answered', 'answered', 'pending', 'failed')

describe('every completion of the outstanding calls gives the settled verdict', () => {
  it('holds over random councils, samples, reserves, extra votes, waivers and gates', () => {
    let settledRuns = 0
    let byJudges = 0
    fc.assert(
      fc.property(
        fc.record({
          judges: fc.constantFrom(3, 5),
          samples: fc.constantFrom(1, 2),
          blocking: fc.constantFrom('majority', 'any'),
          extraVotes: fc.integer({ min: 0, max: 2 }),
          reserves: fc.integer({ min: 0, max: 2 }),
          gateFails: fc.boolean(),
          waive: fc.boolean(),
          states: fc.array(stateArb, { minLength: 10, maxLength: 10 }),
          inHand: fc.array(answerArb, { minLength: 10, maxLength: 10 }),
          later: fc.array(callArb, { minLength: 10, maxLength: 10 }),
          extras: fc.array(callArb, { minLength: 2, maxLength: 2 })
        }),
        world => {
          const rubric = rubricWith([
            `blocking: ${world.blocking}`,
            `council: { max_extra_votes: ${world.extraVotes} }`
          ])
          const tasks = Array.from({ length: world.judges * world.samples }, (_, i) => ({
            judge: `x:${(i % world.judges) + 1}`,
            sample: Math.floor(i / world.judges) + 1
          }))
          const quorum = Math.floor(tasks.length / 2) + 1
          const gates = world.gateFails ? FAILED : PASSED
          const reserves = Array.from({ length: world.reserves }, (_, i) => `y:r${i + 1}`)
          const waived = world.waive ? [{ criterion: 'b', by: 'm', reason: 'r' }] : []
          const runs: JudgeRun[] = []
          const out: typeof tasks = []
          tasks.forEach((task, i) => {
            const state = world.states[i]
            if (state === 'pending') out.push(task)
            else if (state === 'failed') runs.push(timedOut(task.judge, task.sample))
            else runs.push(ok(task.judge, world.inHand[i], task.sample))
          })
          const input = { rubric, gates, waived, council: { runs, quorum } }
          const early = settledVerdict(input, { pending: out, reserves })
          if (early === undefined) return
          settledRuns++
          if (early.reasons[0]?.code !== 'gate_failed') byJudges++
          expect(early.verdict).not.toBe('PASS')
          let outcome: CouncilOutcome = {
            quorum,
            runs: [
              ...runs,
              ...out.map((task, i) => {
                const answer = world.later[i]
                return answer
                  ? ok(task.judge, answer, task.sample)
                  : timedOut(task.judge, task.sample)
              })
            ]
          }
          outcome = withExtraVotes(rubric, gates, outcome, reserves, world.extras)
          expect(decide({ ...input, council: outcome }).verdict).toBe(early.verdict)
        }
      ),
      { numRuns: 3000 }
    )
    // Not vacuous: many of the random councils were settled early, by the judges' answers too.
    expect(settledRuns).toBeGreaterThan(100)
    expect(byJudges).toBeGreaterThan(100)
  })
})

/** The engine's extra-vote loop (src/engine/evaluate.ts conveneCouncil), with the given answers. */
function withExtraVotes(
  rubric: Rubric,
  gates: readonly GateResult[],
  start: CouncilOutcome,
  reserves: readonly string[],
  answers: readonly (Spec | undefined)[]
): CouncilOutcome {
  let outcome = start
  const budget = gates.every(g => g.status === 'pass') ? rubric.council.maxExtraVotes : 0
  for (let round = 1; round <= budget; round++) {
    const criteria = mustHavesInDoubt(rubric, outcome)
    if (criteria.length === 0) break
    const voter = nextVoter(outcome, reserves)
    if (voter === undefined) break
    const answer = answers[round - 1]
    const run = answer ? ok(voter.judge, answer) : timedOut(voter.judge)
    const extra = { criteria, reserve: voter.reserve }
    outcome = { ...outcome, runs: [...outcome.runs, { ...run, extra }] }
  }
  return outcome
}
