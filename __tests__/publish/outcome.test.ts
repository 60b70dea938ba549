import { describe, expect, it } from 'vitest'
import { invalidVerdict } from '../../src/verdict/decide.js'
import { outcomeOf, type FailOn } from '../../src/publish/outcome.js'
import type { ReasonCode, Verdict, VerdictKind } from '../../src/verdict/types.js'
import { EXAMPLE_REASONS } from '../helpers/reasons.js'

/** A verdict of `kind` for one reason, as decide() would give it. */
function verdictOf(kind: VerdictKind, code?: ReasonCode): Verdict {
  const base = invalidVerdict('invalid_input', 'x')
  return {
    ...base,
    verdict: kind,
    exitCode: kind === 'PASS' ? 0 : kind === 'FAIL' ? 1 : 2,
    reasons: code === undefined ? [] : [EXAMPLE_REASONS[code]]
  }
}

type Row = readonly [VerdictKind, ReasonCode | undefined, FailOn, boolean, 0 | 1 | 2, string]

/**
 * Every reason code, by the verdict it comes with and whether `fail-on: fail` may tolerate it. A
 * `Record` over `ReasonCode`, so a new code that is not sorted here fails the type check.
 */
const CLASS: Readonly<Record<ReasonCode, 'fail' | 'strict' | 'tolerable'>> = {
  gate_failed: 'fail',
  criterion_failed: 'fail',
  min_score: 'fail',
  blocking_issue: 'fail',
  terminate: 'fail',
  low_score: 'fail',
  // Not the judges' uncertainty: a check that could not be done as configured.
  invalid_rubric: 'strict',
  invalid_input: 'strict',
  workflow_modified: 'strict',
  missing_credentials: 'tolerable',
  rejected_credentials: 'tolerable',
  rate_limited: 'tolerable',
  timeout: 'tolerable',
  provider_error: 'tolerable',
  invalid_output: 'tolerable',
  answer_cut: 'tolerable',
  context_overflow: 'tolerable',
  incomplete_coverage: 'tolerable',
  judge_disagreement: 'tolerable',
  low_agreement: 'tolerable',
  borderline: 'tolerable'
}
const codes = (kind: 'fail' | 'strict' | 'tolerable'): ReasonCode[] =>
  (Object.keys(CLASS) as ReasonCode[]).filter(code => CLASS[code] === kind)

/**
 * The table of docs/verdict.md, written out row by row (not computed the way the code does):
 * verdict, reason, fail-on → step fails, exit code, check-run conclusion.
 */
const TABLE: readonly Row[] = [
  ...(['unclear', 'fail', 'never'] as const).map(
    failOn => ['PASS', undefined, failOn, false, 0, 'success'] as const
  ),
  ...codes('fail').flatMap(code => [
    ['FAIL', code, 'unclear', true, 1, 'failure'] as const,
    ['FAIL', code, 'fail', true, 1, 'failure'] as const,
    ['FAIL', code, 'never', false, 1, 'failure'] as const
  ]),
  ...codes('strict').flatMap(code => [
    ['UNCLEAR', code, 'unclear', true, 2, 'action_required'] as const,
    ['UNCLEAR', code, 'fail', true, 2, 'action_required'] as const,
    ['UNCLEAR', code, 'never', false, 2, 'action_required'] as const
  ]),
  ...codes('tolerable').flatMap(code => [
    ['UNCLEAR', code, 'unclear', true, 2, 'action_required'] as const,
    ['UNCLEAR', code, 'fail', false, 2, 'neutral'] as const,
    ['UNCLEAR', code, 'never', false, 2, 'neutral'] as const
  ])
]

describe('the outcome table: fail-on × verdict × reason', () => {
  it.each(TABLE.map(row => [row.slice(0, 3).join(' · '), row] as const))(
    '%s',
    (_, [kind, code, failOn, stepFails, exitCode, conclusion]) => {
      expect(outcomeOf(verdictOf(kind, code), failOn)).toEqual({ stepFails, exitCode, conclusion })
    }
  )

  it('never concludes success or neutral when a strict reason comes with a tolerable one', () => {
    const both: Verdict = {
      ...verdictOf('UNCLEAR', 'incomplete_coverage'),
      reasons: [EXAMPLE_REASONS.incomplete_coverage, EXAMPLE_REASONS.workflow_modified]
    }
    expect(outcomeOf(both, 'fail')).toEqual({
      stepFails: true,
      exitCode: 2,
      conclusion: 'action_required'
    })
  })
})
