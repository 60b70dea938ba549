import { describe, expect, it } from 'vitest'
import {
  DEFAULT_THRESHOLDS,
  measureCalibration,
  type CalibrationInput,
  type CalibrationRun
} from '../../src/calibrate/measure.js'
import type { Expected } from '../../src/calibrate/set.js'
import { parseCalibrationSet } from '../../src/calibrate/set.js'

/** A case labelled `status` on criterion `x`, expected to get the verdict it implies. */
function labelled(i: number, status: Expected) {
  return {
    name: `case ${i}`,
    line: i + 2,
    column: 5,
    refs: { kind: 'range' as const, base: 'a', head: 'b' },
    base: 'a',
    head: 'b',
    expect: status,
    criteria: { x: status }
  }
}

function run(
  index: number,
  repeat: number,
  status: 'PASS' | 'FAIL' | 'SPLIT',
  votes: ('PASS' | 'FAIL')[] = []
): CalibrationRun {
  return {
    case: index,
    repeat,
    verdict: status === 'SPLIT' ? 'UNCLEAR' : status,
    criteria: [{ id: 'x', status, votes }],
    tokens: { input: 100, output: 10 },
    dollars: 0.01,
    unpriced: 0
  }
}

function input(
  statuses: readonly Expected[],
  runs: CalibrationRun[],
  repeat = 2
): CalibrationInput {
  return {
    set: 'set.yml',
    rubric: 'rubric.md',
    evidenceOrder: 'diff',
    cases: statuses.map((s, i) => labelled(i, s)),
    criteria: [{ id: 'x', required: true }],
    repeat,
    runs,
    interrupted: false,
    thresholds: DEFAULT_THRESHOLDS
  }
}

const SIX_FAIL_SIX_PASS: Expected[] = [
  'FAIL',
  'FAIL',
  'FAIL',
  'FAIL',
  'FAIL',
  'FAIL',
  'PASS',
  'PASS',
  'PASS',
  'PASS',
  'PASS',
  'PASS'
]

describe('measureCalibration', () => {
  it('counts precision and recall of FAIL over every run, and flip over cases', () => {
    // Every run right but: case 0 missed once (PASS), case 6 failed once (a false FAIL).
    const runs = SIX_FAIL_SIX_PASS.flatMap((s, i) => [run(i, 1, s), run(i, 2, s)])
    runs[0] = run(0, 1, 'PASS')
    runs[12] = run(6, 1, 'FAIL')
    const report = measureCalibration(input(SIX_FAIL_SIX_PASS, runs))
    const x = report.criteria[0]
    expect(x).toMatchObject({
      labelled: { pass: 6, fail: 6 },
      runs: { true_fail: 11, false_fail: 1, missed_fail: 1, true_pass: 11, undecided: 0 },
      precision: 11 / 12,
      recall: 11 / 12,
      flip: 2 / 12,
      recommendation: 'advise',
      reason: 'Flip 17% is above 10%: the same pull request gets different answers'
    })
    expect(report.verdicts).toEqual({
      runs: 24,
      accuracy: 22 / 24,
      false_pass: 1 / 24,
      false_fail: 1 / 24,
      unclear: 0,
      flip: 2 / 12
    })
    expect(report).toMatchObject({
      planned: 24,
      completed: 24,
      interrupted: 0,
      tokens: { input: 2400, output: 240 }
    })
    expect(report.dollars).toBeCloseTo(0.24)
  })

  it('blocks when precision, flip and the labels are all enough, and says with what figures', () => {
    const runs = SIX_FAIL_SIX_PASS.flatMap((s, i) => [run(i, 1, s), run(i, 2, s)])
    expect(measureCalibration(input(SIX_FAIL_SIX_PASS, runs)).criteria[0]).toMatchObject({
      precision: 1,
      recall: 1,
      flip: 0,
      recommendation: 'block',
      reason: 'Precision 100%, flip 0%, on 6 cases labelled PASS and 6 labelled FAIL'
    })
  })

  it('never calls a criterion that never said FAIL precise: precision is not measured', () => {
    const runs = SIX_FAIL_SIX_PASS.flatMap((_, i) => [run(i, 1, 'PASS'), run(i, 2, 'PASS')])
    expect(measureCalibration(input(SIX_FAIL_SIX_PASS, runs)).criteria[0]).toMatchObject({
      precision: null,
      recall: 0,
      recommendation: 'advise',
      reason:
        'The judges never answered FAIL in 24 labelled runs: precision is not measured, not perfect'
    })
  })

  it('counts a SPLIT on a FAIL case as a FAIL missed, never as one found', () => {
    const runs = SIX_FAIL_SIX_PASS.flatMap((s, i) => [
      run(i, 1, s === 'FAIL' ? 'SPLIT' : s),
      run(i, 2, s)
    ])
    const x = measureCalibration(input(SIX_FAIL_SIX_PASS, runs)).criteria[0]
    expect(x).toMatchObject({ recall: 0.5, precision: 1, flip: 0.5 })
    expect(x?.runs.missed_fail).toBe(6)
  })

  it('does not measure flip with one run a case, and wants enough cases of each kind', () => {
    const statuses: Expected[] = ['FAIL', 'PASS']
    const x = measureCalibration(input(statuses, [run(0, 1, 'FAIL'), run(1, 1, 'PASS')], 1))
      .criteria[0]
    expect(x).toMatchObject({ precision: 1, flip: null, recommendation: 'advise' })
    expect(x?.reason).toBe(
      'Flip is not measured with --repeat 1: repeat each case at least twice; 1 cases labelled PASS and 1 labelled FAIL; at least 5 of each are needed'
    )
  })

  it('measures agreement as the share of votes on their run’s majority side', () => {
    const report = measureCalibration(
      input(
        ['FAIL', 'PASS'],
        [run(0, 1, 'FAIL', ['FAIL', 'FAIL', 'PASS']), run(1, 1, 'PASS', ['PASS', 'PASS', 'PASS'])],
        1
      )
    )
    expect(report.criteria[0]?.agreement).toBeCloseTo(5 / 6)
  })

  it('implies PASS for the must-haves of a case expected to PASS, and nothing for a FAIL case', () => {
    const cases = [
      { ...labelled(0, 'PASS'), criteria: {} },
      { ...labelled(1, 'FAIL'), criteria: {} }
    ]
    const report = measureCalibration({
      ...input(['PASS', 'FAIL'], [run(0, 1, 'PASS'), run(1, 1, 'FAIL')]),
      cases,
      criteria: [
        { id: 'x', required: true },
        { id: 'nice', required: false }
      ]
    })
    expect(report.criteria.map(c => c.labelled)).toEqual([
      { pass: 1, fail: 0 },
      { pass: 0, fail: 0 }
    ])
  })

  it('never blocks on cases the judges never graded: a PASS case whose every run failed is not labelled', () => {
    // The provider failed on every run of the PASS cases (a 500, a missing key): UNGRADED.
    const ungraded = (index: number, repeat: number): CalibrationRun => ({
      ...run(index, repeat, 'PASS'),
      verdict: 'UNCLEAR',
      criteria: [{ id: 'x', status: 'UNGRADED', votes: [] }]
    })
    const runs = SIX_FAIL_SIX_PASS.flatMap((s, i) =>
      s === 'FAIL' ? [run(i, 1, 'FAIL'), run(i, 2, 'FAIL')] : [ungraded(i, 1), ungraded(i, 2)]
    )
    const x = measureCalibration(input(SIX_FAIL_SIX_PASS, runs)).criteria[0]
    expect(x).toMatchObject({
      labelled: { pass: 0, fail: 6 },
      runs: { true_fail: 12, undecided: 12, ungraded: 12 },
      precision: 1,
      recommendation: 'advise',
      reason:
        "12 runs ended without the judges grading it (each run's line says why): those runs measure nothing; 0 cases labelled PASS and 6 labelled FAIL; at least 5 of each are needed"
    })
  })

  it('does not block on flip measured on a few cases, as after Ctrl-C in the second pass', () => {
    const runs = SIX_FAIL_SIX_PASS.map((s, i) => run(i, 1, s))
    runs.push(run(0, 2, 'FAIL'))
    const x = measureCalibration({ ...input(SIX_FAIL_SIX_PASS, runs), interrupted: true })
      .criteria[0]
    expect(x).toMatchObject({ precision: 1, flip: 0, recommendation: 'advise' })
    expect(x?.reason).toBe(
      'Flip is measured on 1 of 12 cases: every case needs at least two completed runs'
    )
  })

  it('shows a decimal where whole percentages would read the same as the threshold', () => {
    // 26 FAILs found, 3 false: precision 89.7%, under 90%.
    const statuses: Expected[] = [
      ...Array<Expected>(26).fill('FAIL'),
      ...Array<Expected>(8).fill('PASS')
    ]
    const runs = statuses.flatMap((s, i) => [
      run(i, 1, i >= 31 ? 'FAIL' : s),
      run(i, 2, i >= 31 ? 'FAIL' : s)
    ])
    const x = measureCalibration(input(statuses, runs)).criteria[0]
    expect(x?.precision).toBeCloseTo(52 / 58)
    expect(x?.reason).toBe('Precision 89.7% is below 90%: a FAIL is wrong too often to block')
  })

  it('says how many runs an interruption left out; the shares are of those that completed', () => {
    const report = measureCalibration({
      ...input(['FAIL', 'PASS'], [run(0, 1, 'FAIL')], 3),
      interrupted: true
    })
    expect(report).toMatchObject({ planned: 6, completed: 1, interrupted: 5 })
    expect(report.verdicts.accuracy).toBe(1)
    expect(report.cases[1]?.verdicts).toEqual([])
  })
})

describe('parseCalibrationSet', () => {
  it('reads cases with base and head, or pull, and their labels', () => {
    const set = parseCalibrationSet(
      'cases:\n  - name: good\n    base: main\n    head: feature\n    expect: PASS\n  - pull: 12\n    expect: FAIL\n    criteria: { x: FAIL }\n',
      'set.yml',
      ['x']
    )
    expect(set).toEqual({
      ok: true,
      value: {
        path: 'set.yml',
        cases: [
          {
            name: 'good',
            line: 2,
            column: 5,
            refs: { kind: 'range', base: 'main', head: 'feature' },
            expect: 'PASS',
            criteria: {}
          },
          {
            name: '#12',
            line: 6,
            column: 5,
            refs: { kind: 'pull', number: 12 },
            expect: 'FAIL',
            criteria: { x: 'FAIL' }
          }
        ],
        unconfirmed: []
      }
    })
  })

  it('measures only the cases a person confirmed, and says where a confirmation is not true or false', () => {
    const text = [
      'cases:',
      '  - { base: a, head: b, expect: PASS, source: "waiver of x by @alice on #4", confirmed: false }',
      '  - { base: a, head: c, expect: FAIL, confirmed: true }',
      '  - { base: a, head: d, expect: PASS }',
      ''
    ].join('\n')
    const set = parseCalibrationSet(text, 'set.yml', ['x'])
    expect(set.ok && set.value.cases.map(c => c.name)).toEqual(['a..c', 'a..d'])
    expect(set.ok && set.value.unconfirmed).toEqual([
      {
        name: 'a..b',
        line: 2,
        column: 5,
        refs: { kind: 'range', base: 'a', head: 'b' },
        expect: 'PASS',
        criteria: {},
        source: 'waiver of x by @alice on #4'
      }
    ])
    const problems = (text: string) => {
      const parsed = parseCalibrationSet(text, 'set.yml', ['x'])
      return parsed.ok ? [] : parsed.problem.map(p => `${p.line}:${p.column} ${p.message}`)
    }
    expect(problems('cases:\n  - { base: a, head: b, expect: PASS, confirmed: "yes" }\n')).toEqual([
      '2:50 case 1: confirmed must be true (a person checked its labels) or false, got "yes"'
    ])
    expect(problems('cases:\n  - { base: a, head: b, expect: PASS, source: [a] }\n')).toEqual([
      '2:47 case 1: source must be text (quote a commit that YAML reads as a number), got a list'
    ])
    expect(problems('cases:\n  - { base: a, head: b, expect: PASS, confirmed: false }\n')).toEqual([
      "1:1 the one case is not confirmed: check each proposed case's labels, then set its confirmed: true"
    ])
  })

  it('says where each problem is: YAML, a missing list, a number where a commit is due, both refs kinds', () => {
    const problems = (text: string) => {
      const set = parseCalibrationSet(text, 'set.yml', ['x'])
      return set.ok ? [] : set.problem.map(p => `${p.line}:${p.column} ${p.message}`)
    }
    expect(problems('cases: [')).toHaveLength(1)
    expect(problems('cases: []\n')).toEqual([
      '1:8 the set needs "cases:", a list of at least one case, each with base and head (or pull) and expect'
    ])
    expect(problems('cases:\n  - { base: 1234567, head: b, expect: FAIL }\n')).toEqual([
      '2:13 case 1: base must be text (quote a commit that YAML reads as a number), got 1234567'
    ])
    expect(problems('cases:\n  - { base: a, head: b, pull: 3, expect: FAIL }\n')).toEqual([
      '2:31 case 1: give either pull or base and head, not both'
    ])
    expect(problems('cases:\n  - { head: b }\n')).toEqual([
      '2:5 case 1: needs base and head (refs or commits of this repository), or pull: N',
      '2:5 case 1: needs expect: PASS or FAIL, the verdict it should get'
    ])
  })
})
