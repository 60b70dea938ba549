import type { FailOn } from './inputs.js'
import type { Verdict } from './verdict/types.js'

/**
 * Whether the step fails (`fail-on`, docs/verdict.md#the-step-result). A rubric or input that cannot be used fails it under
 * any setting but `never`: `fail-on: fail` tolerates judges' uncertainty, not a broken gate.
 */
export function stepFails(verdict: Verdict, failOn: FailOn): boolean {
  if (failOn === 'never' || verdict.verdict === 'PASS') return false
  if (failOn === 'unclear' || verdict.verdict === 'FAIL') return true
  return verdict.reasons.some(r => r.code === 'invalid_rubric' || r.code === 'invalid_input')
}
