import { describe, expect, it } from 'vitest'
import type {
  CouncilFailure,
  CouncilOutcome,
  Finding,
  JudgeAnswer,
  JudgeRun
} from '../src/council/types.js'
import type { GateResult, GateStatus } from '../src/gates/types.js'
import type { Rubric } from '../src/rubric/types.js'
import { reasonSentence } from '../src/sentences/reasons.js'
import { decide, invalidVerdict, mustHavesInDoubt } from '../src/verdict/decide.js'
import { medianOf } from '../src/verdict/score.js'
import type { Verdict } from '../src/verdict/types.js'
import { lines, parse } from './helpers/rubric.js'

// A rubric with two checklist must-haves, a nice-to-have, one score-range criterion with a
// minimum, and one dimension, so that each number below can be worked out by hand.
const RUBRIC = parse(
  lines(
    '---',
    'dimensions: { accuracy: 1 }',
    'criteria:',
    '  - id: ranked',
    '    description: Results are ranked',
    '    weight: 2',
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

type Grades = Partial<Record<'a' | 'b' | 'n', 'PASS' | 'FAIL'>> & { ranked?: number }

interface AnswerSpec {
  readonly grades?: Grades
  readonly accuracy?: number
  readonly findings?: readonly Finding['severity'][]
  readonly verdict?: JudgeAnswer['verdict']
}

function answer(spec: AnswerSpec = {}, rubric: Rubric = RUBRIC): JudgeAnswer {
  const grades: Grades = { a: 'PASS', b: 'PASS', n: 'PASS', ranked: 8, ...spec.grades }
  return {
    findings: (spec.findings ?? []).map(severity => ({
      severity,
      title: `${severity} issue`,
      evidence: 'seen'
    })),
    criteria: rubric.criteria.map(c =>
      c.scoreRanges
        ? { id: c.id, score: grades.ranked ?? 8, reasoning: `${c.id} scored` }
        : { id: c.id, verdict: grades[c.id as 'a'] ?? 'PASS', reasoning: `${c.id} judged` }
    ),
    dimensions: rubric.dimensions.map(d => ({
      name: d.name,
      score: d.name === 'accuracy' ? (spec.accuracy ?? 9) : 9,
      reasoning: `${d.name} scored`
    })),
    verdict: spec.verdict ?? 'ACCEPT',
    feedback: ''
  }
}

function ok(judge: string, spec: AnswerSpec = {}, rubric: Rubric = RUBRIC): JudgeRun {
  return { judge, sample: 1, latencyMs: 10, status: 'ok', answer: answer(spec, rubric) }
}

function failed(judge: string, failure: CouncilFailure): JudgeRun {
  return {
    judge,
    sample: 1,
    latencyMs: 10,
    status: 'failed',
    failure,
    message: `${failure} happened`
  }
}

function council(runs: JudgeRun[], quorum = Math.floor(runs.length / 2) + 1): CouncilOutcome {
  return { runs, quorum }
}

function gate(status: GateStatus, command = 'make'): GateResult {
  return {
    command,
    status,
    exitCode: status === 'pass' ? 0 : status === 'fail' ? 1 : null,
    durationMs: 5,
    output: { head: '', tail: '', elidedBytes: 0, totalBytes: 0 }
  }
}

const three = (specs: [AnswerSpec, AnswerSpec, AnswerSpec]): CouncilOutcome =>
  council(specs.map((s, i) => ok(`openai:j${i + 1}`, s)))

function codes(verdict: Verdict): string[] {
  return verdict.reasons.map(r => r.code)
}

/** The first reason as the action says it (src/sentences/reasons.ts). */
function said(verdict: Verdict): string | undefined {
  const reason = verdict.reasons[0]
  return reason && reasonSentence(reason, 'action')
}

describe('row 1: an unusable rubric or input', () => {
  it.each(['invalid_rubric', 'invalid_input'] as const)('%s is UNCLEAR with exit code 2', code => {
    const verdict =
      code === 'invalid_rubric' ? invalidVerdict(code, 2) : invalidVerdict(code, 'bad input')
    expect([verdict.verdict, verdict.exitCode, codes(verdict), verdict.recommendation]).toEqual([
      'UNCLEAR',
      2,
      [code],
      'RETRY'
    ])
  })
})

describe('row 2: gates', () => {
  it.each(['fail', 'error', 'timeout'] as const)(
    'a gate that ends %s makes it FAIL, whatever the judges say',
    status => {
      const verdict = decide({
        rubric: RUBRIC,
        gates: [gate('pass'), gate(status, 'npm test')],
        council: three([{}, {}, {}])
      })
      expect([verdict.verdict, verdict.exitCode, codes(verdict)]).toEqual([
        'FAIL',
        1,
        ['gate_failed']
      ])
      expect(said(verdict)).toMatch(/^1 of 2 gates did not pass: "npm test" \(/)
    }
  )

  it('names the gates that did not pass, with what a reader needs of each, not their output', () => {
    const errored = { ...gate('error', 'npm ci'), detail: 'could not start bash: ENOENT' }
    const verdict = decide({
      rubric: RUBRIC,
      gates: [gate('pass'), gate('fail', 'npm test'), errored]
    })
    expect(verdict.reasons).toEqual([
      {
        code: 'gate_failed',
        failed: [
          { command: 'npm test', status: 'fail', exitCode: 1 },
          {
            command: 'npm ci',
            status: 'error',
            exitCode: null,
            detail: 'could not start bash: ENOENT'
          }
        ],
        of: 3
      }
    ])
    expect(said(verdict)).toBe(
      '2 of 3 gates did not pass: "npm test" (exit 1), "npm ci" (could not start bash: ENOENT)'
    )
  })

  it('a gates-only rubric skips the council: PASS iff every gate passes', () => {
    const gatesOnly = parse(lines('## Gates', '- `a`', '- `b`'))
    expect(decide({ rubric: gatesOnly, gates: [gate('pass'), gate('pass')] })).toMatchObject({
      verdict: 'PASS',
      exitCode: 0,
      reasons: [],
      recommendation: 'ACCEPT',
      score: null,
      confidence: null
    })
    expect(decide({ rubric: gatesOnly, gates: [gate('pass'), gate('fail')] }).verdict).toBe('FAIL')
  })
})

describe('row 3: the council is needed but unavailable', () => {
  it('is UNCLEAR when valid answers fall short of the quorum, naming the cause', () => {
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: council(
        [ok('openai:a'), failed('anthropic:b', 'rate_limited'), failed('google:c', 'rate_limited')],
        2
      )
    })
    expect([verdict.verdict, verdict.exitCode, codes(verdict)]).toEqual([
      'UNCLEAR',
      2,
      ['rate_limited']
    ])
    expect(said(verdict)).toBe(
      'the council is unavailable: 1 valid answer of 3, quorum 2: anthropic:b: rate_limited happened; google:c: rate_limited happened. ' +
        'The providers are rate limiting, not judging the pull request: run the job again later, raise the provider’s limits, or lower samples.'
    )
  })

  it('grades nothing from the answers short of the quorum, but keeps them judge by judge', () => {
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: council([ok('openai:a'), failed('anthropic:b', 'timeout')], 2)
    })
    expect(verdict).toMatchObject({
      verdict: 'UNCLEAR',
      score: null,
      criteriaScore: null,
      dimensionsScore: null,
      confidence: null,
      accuracyCeilingApplied: false
    })
    expect(verdict.criteria.length).toBeGreaterThan(0)
    for (const criterion of verdict.criteria) {
      expect(criterion).toMatchObject({ status: 'UNGRADED', score: null })
      expect(criterion.median).toBeUndefined()
      expect(criterion.votes.map(v => v.judge)).toEqual(['openai:a'])
    }
    for (const dimension of verdict.dimensions) {
      expect(dimension.median).toBeNull()
      expect(dimension.scores.map(s => s.judge)).toEqual(['openai:a'])
    }
  })

  it('names the most frequent failure, and breaks ties by precedence', () => {
    const cause = (runs: JudgeRun[]): string[] =>
      codes(decide({ rubric: RUBRIC, gates: [], council: council(runs, 3) }))
    expect(
      cause([failed('a', 'invalid_output'), failed('b', 'invalid_output'), failed('c', 'timeout')])
    ).toEqual(['invalid_output'])
    expect(cause([failed('a', 'provider_error'), failed('b', 'timeout')])).toEqual(['timeout'])
  })

  it('a prompt too large for the judges’ windows recommends TERMINATE: asking again will not help', () => {
    const overflow = decide({
      rubric: RUBRIC,
      gates: [],
      council: council([failed('a', 'context_overflow'), failed('b', 'context_overflow')], 2)
    })
    expect([overflow.verdict, codes(overflow), overflow.recommendation]).toEqual([
      'UNCLEAR',
      ['context_overflow'],
      'TERMINATE'
    ])
    // A cut answer may not be cut on the next try: the loop tries again.
    const cut = decide({
      rubric: RUBRIC,
      gates: [],
      council: council([failed('a', 'answer_cut'), failed('b', 'answer_cut')], 2)
    })
    expect([cut.verdict, codes(cut), cut.recommendation]).toEqual([
      'UNCLEAR',
      ['answer_cut'],
      'RETRY'
    ])
  })

  it.each([
    ['no council at all', undefined],
    ['a council with no members', council([], 1)]
  ])('%s is missing_credentials', (_, outcome) => {
    const verdict = decide({ rubric: RUBRIC, gates: [], ...(outcome && { council: outcome }) })
    expect([verdict.verdict, codes(verdict)]).toEqual(['UNCLEAR', ['missing_credentials']])
  })
})

describe('row 4: hard failures', () => {
  it('a must-have failed by a majority is criterion_failed', () => {
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: three([{ grades: { a: 'FAIL' } }, { grades: { a: 'FAIL' } }, {}])
    })
    expect([verdict.verdict, codes(verdict)]).toEqual(['FAIL', ['criterion_failed']])
    // A criterion scores by its status: disagreement enters the confidence, never the score.
    expect(verdict.criteria.find(c => c.id === 'a')).toMatchObject({
      status: 'FAIL',
      score: 0,
      tally: { pass: 1, fail: 2, abstain: 0 }
    })
  })

  it('a nice-to-have failed by everyone does not block', () => {
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: three([
        { grades: { n: 'FAIL' } },
        { grades: { n: 'FAIL' } },
        { grades: { n: 'FAIL' } }
      ])
    })
    expect(verdict.verdict).toBe('PASS')
    expect(verdict.criteria.find(c => c.id === 'n')?.status).toBe('FAIL')
  })

  it('a median below required_min_score is min_score, with the median of an even count', () => {
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: council(
        [ok('j1', { grades: { ranked: 5 } }), ok('j2', { grades: { ranked: 6 } })],
        2
      )
    })
    expect([verdict.verdict, codes(verdict)]).toEqual(['FAIL', ['min_score']])
    expect(said(verdict)).toBe('ranked scored 5.5, below its minimum of 6')
    expect(verdict.criteria.find(c => c.id === 'ranked')).toMatchObject({
      status: 'FAIL',
      median: 5.5,
      score: 0.55
    })
  })

  it('a median equal to the minimum passes it', () => {
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: three([
        { grades: { ranked: 6 } },
        { grades: { ranked: 6 } },
        { grades: { ranked: 9 } }
      ])
    })
    expect(verdict.criteria.find(c => c.id === 'ranked')?.status).toBe('PASS')
    expect(codes(verdict)).not.toContain('min_score')
  })

  it('a blocking majority is blocking_issue; a blocking minority only lowers confidence', () => {
    const majority = decide({
      rubric: RUBRIC,
      gates: [],
      council: three([{ findings: ['critical'] }, { findings: ['major', 'minor'] }, {}])
    })
    expect([majority.verdict, codes(majority), majority.blocking]).toEqual([
      'FAIL',
      ['blocking_issue'],
      { judges: 2, of: 3 }
    ])

    const minority = decide({
      rubric: RUBRIC,
      gates: [],
      council: three([{ findings: ['critical'] }, {}, {}])
    })
    expect(minority.verdict).toBe('PASS')
    expect(minority.confidence).toBeCloseTo((1 + 1 + 1 + 1 + 2 / 3) / 5, 10)
    expect(minority.findings).toEqual([
      { severity: 'critical', title: 'critical issue', evidence: 'seen', judge: 'openai:j1' }
    ])
  })

  it('minor and info findings never block', () => {
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: three([{ findings: ['minor'] }, { findings: ['info'] }, { findings: ['minor'] }])
    })
    expect(verdict.verdict).toBe('PASS')
    expect(verdict.blocking).toEqual({ judges: 0, of: 3 })
  })

  it('with blocking: any, one judge blocking fails the PR', () => {
    const strict = parse(lines('---', 'blocking: any', '---', '## Criteria', '- a: A'))
    const runs = [
      ok('j1', { findings: ['major'] }, strict),
      ok('j2', {}, strict),
      ok('j3', {}, strict)
    ]
    const verdict = decide({ rubric: strict, gates: [], council: council(runs) })
    expect([verdict.verdict, codes(verdict)]).toEqual(['FAIL', ['blocking_issue']])
    expect(said(verdict)).toBe(
      '1 of 3 judges reported a blocking (critical or major) finding (the rubric fails on any)'
    )
  })

  it('a TERMINATE majority fails with recommendation TERMINATE', () => {
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: three([{ verdict: 'TERMINATE' }, { verdict: 'TERMINATE' }, {}])
    })
    expect([verdict.verdict, codes(verdict), verdict.recommendation]).toEqual([
      'FAIL',
      ['terminate'],
      'TERMINATE'
    ])
  })

  it('names every hard failure that applies', () => {
    const spec: AnswerSpec = {
      grades: { b: 'FAIL', ranked: 2 },
      findings: ['critical'],
      verdict: 'TERMINATE'
    }
    const verdict = decide({ rubric: RUBRIC, gates: [], council: three([spec, spec, {}]) })
    expect(codes(verdict)).toEqual(['criterion_failed', 'min_score', 'blocking_issue', 'terminate'])
    expect(verdict.recommendation).toBe('TERMINATE')
  })

  it('other FAILs recommend RETRY', () => {
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: three([{ grades: { a: 'FAIL' } }, { grades: { a: 'FAIL' } }, {}])
    })
    expect(verdict.recommendation).toBe('RETRY')
  })
})

describe('row 5: coverage', () => {
  it('below min_coverage is UNCLEAR incomplete_coverage; equal is enough', () => {
    const below = decide({ rubric: RUBRIC, gates: [], council: three([{}, {}, {}]), coverage: 0.9 })
    expect([below.verdict, codes(below)]).toEqual(['UNCLEAR', ['incomplete_coverage']])
    expect(said(below)).toBe(
      'the judges saw 90% of the reviewable changed files; the rubric needs 100%. ' +
        'The coverage receipt lists what was left out: raise max-evidence-tokens, exclude generated files, or lower min_coverage'
    )
    expect(
      decide({ rubric: RUBRIC, gates: [], council: three([{}, {}, {}]), coverage: 1 }).verdict
    ).toBe('PASS')
  })

  it('comes after the hard failures', () => {
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: three([{ grades: { a: 'FAIL' } }, { grades: { a: 'FAIL' } }, {}]),
      coverage: 0.1
    })
    expect(codes(verdict)).toEqual(['criterion_failed'])
  })
})

describe('row 6: a split must-have', () => {
  it('a tie between two judges is SPLIT and UNCLEAR judge_disagreement', () => {
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: council([ok('j1', { grades: { a: 'FAIL' } }), ok('j2')], 2)
    })
    expect([verdict.verdict, codes(verdict)]).toEqual(['UNCLEAR', ['judge_disagreement']])
    expect(said(verdict)).toBe('judges are split on must-have criterion: a (1 PASS, 1 FAIL)')
    expect(verdict.criteria.find(c => c.id === 'a')).toMatchObject({ status: 'SPLIT', score: 0.5 })
  })

  it('a split nice-to-have does not make it UNCLEAR', () => {
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: council([ok('j1', { grades: { n: 'FAIL' } }), ok('j2')], 2)
    })
    expect(verdict.criteria.find(c => c.id === 'n')?.status).toBe('SPLIT')
    expect(codes(verdict)).not.toContain('judge_disagreement')
  })

  it('a must-have no valid answer graded is never passed over', () => {
    const partial: JudgeAnswer = {
      ...answer(),
      criteria: answer().criteria.filter(c => c.id !== 'b')
    }
    const runs: JudgeRun[] = [1, 2, 3].map(i => ({
      judge: `j${i}`,
      sample: 1,
      latencyMs: 1,
      status: 'ok',
      answer: partial
    }))
    const verdict = decide({ rubric: RUBRIC, gates: [], council: council(runs) })
    expect([verdict.verdict, codes(verdict)]).toEqual(['UNCLEAR', ['judge_disagreement']])
    expect(said(verdict)).toBe('no judge graded must-have criterion: b')
    expect(verdict.criteria.find(c => c.id === 'b')?.status).toBe('UNGRADED')
  })
})

describe('row 7: agreement', () => {
  it('agreement below the confidence threshold is UNCLEAR low_agreement', () => {
    // a 2–1, ranked 6 / 10 / 10 (spread 4), accuracy 9 / 1 / 9 (spread 8): each majority is
    // clear and the score high, but the judges disagree a lot.
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: three([
        { grades: { ranked: 6, a: 'FAIL' }, accuracy: 9 },
        { grades: { ranked: 10 }, accuracy: 1 },
        { grades: { ranked: 10 }, accuracy: 9 }
      ])
    })
    // Items: a 2/3, b 1, ranked 1 − 4/10, accuracy 1 − 8/10, blocks 1.
    expect(verdict.confidence).toBeCloseTo((2 / 3 + 1 + 0.6 + 0.2 + 1) / 5, 10)
    expect(verdict.score).toBeGreaterThan(0.8)
    expect([verdict.verdict, codes(verdict)]).toEqual(['UNCLEAR', ['low_agreement']])
    expect(said(verdict)).toBe('judge agreement 0.69 is below the threshold 0.7')
  })

  it('one answer has no measurable agreement: null, and not applied', () => {
    const verdict = decide({ rubric: RUBRIC, gates: [], council: council([ok('solo')], 1) })
    expect(verdict.confidence).toBeNull()
    expect(verdict.verdict).toBe('PASS')
  })
})

describe('rows 8–10: the score', () => {
  // With all must-haves passing, C = (1·1 + 1·1 + 2·ranked/10) / 4 (the nice-to-have has weight 0),
  // D = accuracy / 10, S = (C + D) / 2.
  function scored(ranked: number, accuracy: number, thresholds = ''): Verdict {
    const rubric = thresholds
      ? parse(
          RUBRIC.text.replace(
            'dimensions: { accuracy: 1 }',
            `dimensions: { accuracy: 1 }\nthresholds: ${thresholds}`
          )
        )
      : RUBRIC
    const spec = { grades: { ranked }, accuracy }
    return decide({
      rubric,
      gates: [],
      council: council([ok('j1', spec, rubric), ok('j2', spec, rubric), ok('j3', spec, rubric)])
    })
  }

  it('computes C, D and S as docs/verdict.md says', () => {
    const verdict = scored(8, 9)
    expect(verdict.criteriaScore).toBeCloseTo((1 + 1 + 2 * 0.8) / 4, 10)
    expect(verdict.dimensionsScore).toBeCloseTo(0.9, 10)
    expect(verdict.score).toBeCloseTo((0.9 + 0.9) / 2, 10)
    expect([verdict.verdict, verdict.exitCode, codes(verdict), verdict.recommendation]).toEqual([
      'PASS',
      0,
      [],
      'ACCEPT'
    ])
    expect(verdict.confidence).toBe(1)
  })

  it('S below thresholds.fail is FAIL low_score', () => {
    // Accuracy 7 avoids the ceiling; S = ((1 + 1 + 1.2) / 4 + 0.7) / 2 = 0.75 against fail 0.8.
    const verdict = scored(6, 7, '{ pass: 0.9, fail: 0.8 }')
    expect(verdict.score).toBeCloseTo(0.75, 10)
    expect([verdict.verdict, codes(verdict)]).toEqual(['FAIL', ['low_score']])
    expect(said(verdict)).toBe('score 0.75 is below the fail threshold 0.8')
  })

  it('a score that is not a number never reads as a pass', () => {
    // Criterion weights past what the schema allows (MAX_WEIGHT) overflow: C is Infinity /
    // Infinity, NaN, which is below no threshold and above no ceiling. The right S is capped at
    // 0.1 by accuracy 1: a FAIL.
    const rubric: Rubric = {
      ...RUBRIC,
      criteria: RUBRIC.criteria.map(c => (c.required ? { ...c, weight: 1e308 } : c))
    }
    const spec = { grades: { ranked: 10 }, accuracy: 1 }
    const verdict = decide({
      rubric,
      gates: [],
      council: council([ok('j1', spec, rubric), ok('j2', spec, rubric), ok('j3', spec, rubric)])
    })
    expect([verdict.verdict, codes(verdict)]).toEqual(['FAIL', ['low_score']])
  })

  it('S between fail and pass is UNCLEAR borderline', () => {
    const verdict = scored(6, 7)
    expect([verdict.verdict, codes(verdict)]).toEqual(['UNCLEAR', ['borderline']])
    expect(said(verdict)).toBe('score 0.75 is between the fail (0.6) and pass (0.8) thresholds')
  })

  it('with thresholds equal there is no borderline band', () => {
    expect(scored(6, 7, '{ pass: 0.75, fail: 0.75 }').verdict).toBe('PASS')
    expect(scored(6, 7, '{ pass: 0.76, fail: 0.76 }').verdict).toBe('FAIL')
  })
})

describe('the accuracy ceiling (ADR-016)', () => {
  it.each([
    // median accuracy, expected cap; the criteria score is 1 throughout.
    [4, 0.4, true],
    [4.5, 0.4, true],
    [5, 0.7, true],
    [6.5, 0.7, true],
    [7, null, false]
  ])('median accuracy %s caps S at %s', (accuracy, cap, applied) => {
    const rubric = parse(
      lines('---', 'dimensions: { accuracy: 1 }', '---', '## Criteria', '- a: A')
    )
    const runs =
      accuracy === 4.5
        ? [ok('j1', { accuracy: 4 }, rubric), ok('j2', { accuracy: 5 }, rubric)]
        : accuracy === 6.5
          ? [ok('j1', { accuracy: 6 }, rubric), ok('j2', { accuracy: 7 }, rubric)]
          : [ok('j1', { accuracy }, rubric), ok('j2', { accuracy }, rubric)]
    const verdict = decide({ rubric, gates: [], council: council(runs, 2) })
    const raw = (1 + accuracy / 10) / 2
    expect(verdict.accuracyCeilingApplied).toBe(applied)
    expect(verdict.score).toBeCloseTo(cap === null ? raw : Math.min(raw, cap), 10)
  })

  it('is not applied when turned off', () => {
    const rubric = parse(
      lines(
        '---',
        'dimensions: { accuracy: 1 }',
        'accuracy_ceiling: false',
        '---',
        '## Criteria',
        '- a: A'
      )
    )
    const verdict = decide({
      rubric,
      gates: [],
      council: council([ok('j1', { accuracy: 2 }, rubric)], 1)
    })
    expect(verdict.accuracyCeilingApplied).toBe(false)
    expect(verdict.score).toBeCloseTo((1 + 0.2) / 2, 10)
  })
})

describe('weights and missing parts', () => {
  it('criteria of weight 0 stay out of C; with no weight left, C is null and S is D alone', () => {
    const rubric = parse(
      lines(
        '---',
        'criteria: [{ id: a, weight: 0 }]',
        'dimensions: { clarity: 1 }',
        '---',
        '## Criteria',
        '- a: A'
      )
    )
    const verdict = decide({
      rubric,
      gates: [],
      council: council([ok('j1', {}, rubric), ok('j2', {}, rubric)], 2)
    })
    expect(verdict.criteriaScore).toBeNull()
    expect(verdict.score).toBeCloseTo(0.9, 10)
  })

  it('a rubric with nothing to score has no score, and is judged on the other rows', () => {
    const rubric = parse(
      lines(
        '---',
        'criteria: [{ id: a, weight: 0 }]',
        'dimensions: false',
        '---',
        '## Criteria',
        '- a: A'
      )
    )
    const verdict = decide({
      rubric,
      gates: [],
      council: council([ok('j1', {}, rubric), ok('j2', {}, rubric)], 2)
    })
    expect([verdict.score, verdict.verdict]).toEqual([null, 'PASS'])
  })

  it('a dimension no judge scored is left out of D', () => {
    const rubric = parse(
      lines('---', 'dimensions: { accuracy: 3, clarity: 1 }', '---', '## Criteria', '- a: A')
    )
    const partial = (): JudgeAnswer => ({
      ...answer({}, rubric),
      dimensions: [{ name: 'accuracy', score: 8, reasoning: 'r' }]
    })
    const runs: JudgeRun[] = ['j1', 'j2'].map(judge => ({
      judge,
      sample: 1,
      latencyMs: 1,
      status: 'ok',
      answer: partial()
    }))
    const verdict = decide({ rubric, gates: [], council: council(runs, 2) })
    expect(verdict.dimensions.find(d => d.name === 'clarity')?.median).toBeNull()
    expect(verdict.dimensionsScore).toBeCloseTo(0.8, 10)
  })

  it('score_weights mix D and C', () => {
    const rubric = parse(
      lines(
        '---',
        'dimensions: { accuracy: 1 }',
        'score_weights: { dimensions: 3, criteria: 1 }',
        '---',
        '## Criteria',
        '- a: A'
      )
    )
    const verdict = decide({
      rubric,
      gates: [],
      council: council([ok('j1', { accuracy: 8 }, rubric)], 1)
    })
    expect(verdict.score).toBeCloseTo((3 * 0.8 + 1) / 4, 10)
  })

  it('labels judges with their sample when members are asked more than once', () => {
    const runs: JudgeRun[] = [1, 2].map(sample => ({ ...ok('openai:m'), sample }))
    const verdict = decide({ rubric: RUBRIC, gates: [], council: council(runs, 2) })
    expect(verdict.criteria[0]?.votes.map(v => v.judge)).toEqual(['openai:m#1', 'openai:m#2'])
  })
})

describe('never green by accident', () => {
  it('no combination of failing machinery is PASS', () => {
    const failures: CouncilFailure[] = [
      'missing_credentials',
      'rejected_credentials',
      'rate_limited',
      'timeout',
      'provider_error',
      'invalid_output'
    ]
    for (const failure of failures) {
      for (const valid of [0, 1]) {
        const runs = [
          ...Array.from({ length: valid }, (_, i) => ok(`ok${i}`)),
          failed('x', failure),
          failed('y', failure)
        ]
        const verdict = decide({ rubric: RUBRIC, gates: [], council: council(runs, 2) })
        expect(verdict.verdict).not.toBe('PASS')
        expect(verdict.reasons.length).toBeGreaterThan(0)
      }
    }
  })
})

describe('medianOf', () => {
  it('takes the middle value, or the mean of the two middle values', () => {
    expect([medianOf([]), medianOf([3]), medianOf([9, 1, 5]), medianOf([1, 2, 3, 10])]).toEqual([
      null,
      3,
      5,
      2.5
    ])
  })
})

describe('samples, then judges: the votes of docs/verdict.md', () => {
  const sample = (judge: string, n: number, spec: AnswerSpec = {}): JudgeRun => ({
    ...ok(judge, spec),
    sample: n
  })

  it('combines each judge’s samples first: a judge whose samples tie abstains', () => {
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: council(
        [
          sample('openai:j1', 1, { grades: { a: 'FAIL' } }),
          sample('openai:j1', 2),
          sample('anthropic:j2', 1),
          sample('anthropic:j2', 2)
        ],
        3
      )
    })
    // j1 is undecided on a; j2 passes it: one vote to none, a PASS.
    expect(verdict.criteria.find(c => c.id === 'a')).toMatchObject({
      status: 'PASS',
      score: 1,
      tally: { pass: 1, fail: 0, abstain: 1 }
    })
    expect(verdict.verdict).toBe('PASS')
    // Every answer's vote stays visible, sample by sample.
    expect(verdict.criteria.find(c => c.id === 'a')?.votes.map(v => v.judge)).toEqual([
      'openai:j1#1',
      'openai:j1#2',
      'anthropic:j2#1',
      'anthropic:j2#2'
    ])
  })

  const extra = (run: JudgeRun, criteria: string[], reserve = true): JudgeRun => ({
    ...run,
    extra: { criteria, reserve }
  })

  it('one judge × 2 samples that disagree on a must-have is SPLIT: another sample of it never settles it, a reserve’s vote counts', () => {
    const runs = [sample('openai:j1', 1, { grades: { a: 'FAIL' } }), sample('openai:j1', 2)]
    const split = decide({ rubric: RUBRIC, gates: [], council: council(runs, 2) })
    expect([split.verdict, codes(split)]).toEqual(['UNCLEAR', ['judge_disagreement']])
    expect(mustHavesInDoubt(RUBRIC, council(runs, 2))).toEqual(['a'])

    // A third sample of the same judge, even marked as an extra vote, repeats a voter: not counted.
    const repeat = extra(sample('openai:j1', 3), ['a'], false)
    const still = decide({ rubric: RUBRIC, gates: [], council: council([...runs, repeat], 2) })
    expect([still.verdict, codes(still)]).toEqual(['UNCLEAR', ['judge_disagreement']])
    expect(still.criteria.find(c => c.id === 'a')?.extraVotes).toBeUndefined()

    const reserve = extra(ok('anthropic:r'), ['a'])
    const settled = decide({ rubric: RUBRIC, gates: [], council: council([...runs, reserve], 2) })
    expect(settled.verdict).toBe('PASS')
    expect(settled.criteria.find(c => c.id === 'a')).toMatchObject({
      status: 'PASS',
      score: 1,
      tally: { pass: 1, fail: 0, abstain: 1 },
      extraVotes: [{ judge: 'anthropic:r (reserve)', verdict: 'PASS' }]
    })
    // One vote to none, with an abstention: not unanimous, no lead of two; another is wanted.
    expect(mustHavesInDoubt(RUBRIC, council([...runs, reserve], 2))).toEqual(['a'])
  })

  it('an extra vote counts only on the must-haves it was asked for, and once per judge', () => {
    const runs = [
      ok('openai:j1', { grades: { a: 'FAIL', n: 'FAIL' } }),
      ok('anthropic:j2'),
      extra(ok('google:j3', { grades: { a: 'PASS', b: 'FAIL', n: 'PASS' } }), ['a']),
      // The same reserve again: its second answer is no second vote.
      extra(ok('google:j3', { grades: { a: 'FAIL' } }), ['a'])
    ]
    const verdict = decide({ rubric: RUBRIC, gates: [], council: council(runs, 2) })
    // a was asked for and the reserve's PASS settles it; b was not, so its FAIL there does not
    // count; n is a nice-to-have: it stays SPLIT.
    expect(Object.fromEntries(verdict.criteria.map(c => [c.id, c.status]))).toEqual({
      a: 'PASS',
      b: 'PASS',
      n: 'SPLIT',
      ranked: 'PASS'
    })
    expect(verdict.criteria.find(c => c.id === 'a')?.tally).toEqual({
      pass: 2,
      fail: 1,
      abstain: 0
    })
    expect(verdict.verdict).toBe('PASS')
  })

  it('an extra vote that fails leaves the criterion SPLIT', () => {
    const runs = [ok('openai:j1', { grades: { a: 'FAIL' } }), ok('anthropic:j2')]
    const broken = extra(failed('google:r', 'timeout'), ['a'])
    const verdict = decide({ rubric: RUBRIC, gates: [], council: council([...runs, broken], 2) })
    expect([verdict.verdict, codes(verdict)]).toEqual(['UNCLEAR', ['judge_disagreement']])
  })

  it('a score is the median of each judge’s samples, then of the judges', () => {
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: council(
        [
          sample('openai:j1', 1, { grades: { ranked: 2 } }),
          sample('openai:j1', 2, { grades: { ranked: 4 } }),
          sample('anthropic:j2', 1, { grades: { ranked: 9 } }),
          sample('anthropic:j2', 2, { grades: { ranked: 9 } }),
          sample('google:j3', 1, { grades: { ranked: 8 } }),
          sample('google:j3', 2, { grades: { ranked: 6 } })
        ],
        4
      )
    })
    // Judges: 3, 9, 7; their median 7 (the median of all six answers would be 7 as well, but the
    // spread for the confidence is between judges: 9 − 3).
    expect(verdict.criteria.find(c => c.id === 'ranked')).toMatchObject({ median: 7, spread: 6 })
  })

  it('a judge blocks when most of its samples report a blocking finding', () => {
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: council(
        [
          sample('openai:j1', 1, { findings: ['major'] }),
          sample('openai:j1', 2, { findings: ['major'] }),
          sample('anthropic:j2', 1, { findings: ['major'] }),
          sample('anthropic:j2', 2),
          sample('google:j3', 1),
          sample('google:j3', 2)
        ],
        4
      )
    })
    // j1 blocks, j2 is undecided, j3 does not: one of the two decided judges, not a majority.
    expect(verdict.blocking).toEqual({ judges: 1, of: 3 })
    expect(codes(verdict)).not.toContain('blocking_issue')
  })
})

describe('waivers: a maintainer waives one must-have for one commit', () => {
  const by = { by: 'octocat', reason: 'tracked in #12' }
  const failsA = three([{ grades: { a: 'FAIL' } }, { grades: { a: 'FAIL' } }, {}])

  it('a waived must-have that FAILED is WAIVED, keeps its votes, and no longer fails the verdict', () => {
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: failsA,
      waived: [{ criterion: 'a', ...by }]
    })
    expect([verdict.verdict, codes(verdict)]).toEqual(['PASS', []])
    const a = verdict.criteria.find(c => c.id === 'a')
    expect(a).toMatchObject({ status: 'WAIVED', waived: by, tally: { pass: 1, fail: 2 } })
    expect(a?.votes).toHaveLength(3)
    // Left out of the criteria score: b passed (weight 1), ranked scored 8/10 (weight 2), the
    // nice-to-have weighs 0; with a counted as FAIL it would be (0 + 1 + 1.6) / 4.
    expect(verdict.criteriaScore).toBeCloseTo((1 + 2 * 0.8) / 3)
  })

  it('a SPLIT must-have waived is no longer judge_disagreement', () => {
    const split = council([ok('j1', { grades: { b: 'FAIL' } }), ok('j2')], 2)
    expect(codes(decide({ rubric: RUBRIC, gates: [], council: split }))).toEqual([
      'judge_disagreement'
    ])
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: split,
      waived: [{ criterion: 'b', ...by }]
    })
    expect(verdict.criteria.find(c => c.id === 'b')?.status).toBe('WAIVED')
    expect(verdict.verdict).toBe('PASS')
  })

  it('waiving one must-have does not pass a pull request that fails another', () => {
    const verdict = decide({
      rubric: RUBRIC,
      gates: [],
      council: three([
        { grades: { a: 'FAIL', b: 'FAIL' } },
        { grades: { a: 'FAIL', b: 'FAIL' } },
        {}
      ]),
      waived: [{ criterion: 'a', ...by }]
    })
    expect([verdict.verdict, verdict.reasons[0]]).toEqual([
      'FAIL',
      { code: 'criterion_failed', criteria: ['b'] }
    ])
  })

  it('a waiver never passes a failed gate, and a passed must-have or a nice-to-have is left as it is', () => {
    const gated = decide({
      rubric: RUBRIC,
      gates: [gate('fail')],
      council: failsA,
      waived: [{ criterion: 'a', ...by }]
    })
    expect(codes(gated)).toEqual(['gate_failed'])
    const others = decide({
      rubric: RUBRIC,
      gates: [],
      council: three([{ grades: { n: 'FAIL' } }, { grades: { n: 'FAIL' } }, {}]),
      waived: [
        { criterion: 'b', ...by },
        { criterion: 'n', ...by }
      ]
    })
    expect(others.criteria.map(c => [c.id, c.status])).toEqual([
      ['ranked', 'PASS'],
      ['a', 'PASS'],
      ['b', 'PASS'],
      ['n', 'FAIL']
    ])
  })
})
