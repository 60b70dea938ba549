import { describe, expect, it } from 'vitest'
import {
  collapsedLine,
  combinedDecision,
  iterationRecord,
  loopExitCode,
  loopHistoryEntry,
  loopStep,
  readSessionState,
  sessionId,
  sessionIdProblem,
  sessionLine
} from '../../src/loop/session.js'
import { renderFeedback } from '../../src/report/feedback.js'
import { evaluationOf, gateResult, judgeRun, SEARCH_RUBRIC } from '../helpers/evaluation.js'

const AT = new Date('2025-03-04T05:06:07.890Z')

/** The search rubric: 2 gates, 3 must-haves (one scored), 1 nice-to-have; three judges. */
function searchEvaluation(failGate: boolean, fail: readonly string[]) {
  const council = {
    quorum: 2,
    runs: ['a', 'b', 'c'].map(judge =>
      judgeRun(SEARCH_RUBRIC, {
        judge: `openai:${judge}`,
        fail,
        findings: [
          {
            severity: 'major' as const,
            title: 'Empty query crashes',
            path: 'src/search/api.py',
            line: 4,
            evidence: 'q[0]'
          }
        ],
        reasoning: id => `${id}: no empty-query branch in src/search/api.py`
      })
    )
  }
  return evaluationOf(
    SEARCH_RUBRIC,
    [
      gateResult('pytest tests/test_search.py', failGate ? 'fail' : 'pass', 'E   assert 0 == 1'),
      gateResult('ruff check src/search/', 'pass')
    ],
    council
  )
}

describe('the loop decides from the check’s recommendation', () => {
  it.each([
    ['ACCEPT', 1, 3, { next: 'end', outcome: 'accepted' }, 0],
    ['TERMINATE', 1, 3, { next: 'end', outcome: 'terminated' }, 1],
    ['RETRY', 1, 3, { next: 'retry' }, undefined],
    ['RETRY', 3, 3, { next: 'end', outcome: 'exhausted' }, 1],
    ['ACCEPT', 3, 3, { next: 'end', outcome: 'accepted' }, 0]
  ] as const)('%s at iteration %i of %i', (decision, iteration, max, step, code) => {
    const decided = loopStep(decision, iteration, max)
    expect(decided).toEqual(step)
    if (decided.next === 'end') expect(loopExitCode(decided.outcome)).toBe(code)
  })

  it.each([
    [['ACCEPT', 'ACCEPT'], 'ACCEPT'],
    [['ACCEPT', 'RETRY'], 'RETRY'],
    [['RETRY', 'TERMINATE', 'ACCEPT'], 'TERMINATE'],
    // No rubric applies to the change: every required check succeeds "not applicable".
    [[], 'ACCEPT']
  ] as const)('of several rubrics, %j decide %s', (decisions, decided) => {
    expect(combinedDecision(decisions)).toBe(decided)
  })
})

describe('an iteration, recorded and shown collapsed', () => {
  it('counts must-haves, nice-to-haves and gates as Scope’s TUI shows them', () => {
    const evaluation = searchEvaluation(true, ['edge-cases'])
    const doer = gateResult('./agent.sh', 'pass', 'edited src/search/api.py')
    const record = iterationRecord(2, doer, evaluation, 'feedback', AT)
    expect(collapsedLine(record)).toBe('iter 2  check  FAIL  2/3 must  1/1 nice  gates:1/2')
    expect(record).toMatchObject({
      iteration: 2,
      doer: { command: './agent.sh', verdict: 'pass', output: 'edited src/search/api.py' },
      gates: [
        { command: 'pytest tests/test_search.py', verdict: 'fail', exit_code: 1 },
        { command: 'ruff check src/search/', verdict: 'pass', exit_code: 0 }
      ],
      criteria_summary: '2/3 must  1/1 nice',
      verdict: 'FAIL',
      decision: 'RETRY',
      rubric_hash: SEARCH_RUBRIC.hash,
      at: '2025-03-04T05:06:07.890Z'
    })
  })

  it('tells the next judges the verdict, rubric hash and reasons, without a commit', () => {
    const entry = loopHistoryEntry(1, searchEvaluation(true, ['edge-cases']), AT)
    expect(entry).toMatchObject({ iteration: 1, commit: '', verdict: 'FAIL' })
    expect(entry.rubricHash).toBe(SEARCH_RUBRIC.hash)
    expect(entry.feedback).toBe('1 of 2 gates did not pass: "pytest tests/test_search.py" (exit 1)')
  })

  it('feeds back the failed gate’s output, the failed criterion with the judges’ reasons and the findings', () => {
    const feedback = renderFeedback(searchEvaluation(true, ['edge-cases']))
    expect(feedback).toMatch(/^# ❌ Rubric Council: FAIL at iteration 1\n/)
    expect(feedback).toContain('E   assert 0 == 1')
    expect(feedback).toContain('Must-have criteria not met')
    expect(feedback).toContain('edge-cases: no empty-query branch in src/search/api.py')
    expect(feedback).toContain('Empty query crashes')
    // Met criteria are not repeated to the doer.
    expect(feedback).not.toContain('<b>errors</b>')
  })
})

describe('sessions on disk', () => {
  it('names a session by when it started, and refuses any id that is not one path segment', () => {
    expect(sessionId(AT, 'a1b2c3')).toBe('20250304-050607-a1b2c3')
    expect(sessionIdProblem('20250304-050607-a1b2c3')).toBeUndefined()
    for (const id of ['..', '.', '../x', 'a/b', '/etc', '', '.hidden', 'a\\b', 'x\0']) {
      expect(sessionIdProblem(id), id).toMatch(/is not a session id/)
    }
  })

  it('lists a session by its last check, and one whose state cannot be read as such', () => {
    const state = {
      schema: 'rubric-council/loop-session@1',
      rubric_path: 'r.md',
      outcome: 'exhausted',
      history: [{ iteration: 3, verdict: 'FAIL', criteria_summary: '1/2 must', gates: [] }]
    }
    expect(sessionLine('s1', readSessionState(JSON.stringify(state)))).toBe(
      's1  exhausted  iter 3  check  FAIL  1/2 must  rubric r.md'
    )
    expect(sessionLine('s2', readSessionState('{'))).toBe('s2  unreadable: state.json is not JSON')
    expect(sessionLine('s3', readSessionState('{"outcome":"accepted"}'))).toBe(
      's3  unreadable: state.json is not a rubric-council/loop-session@1 state'
    )
  })
})
