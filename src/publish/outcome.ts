import { EXIT_CODE } from '../verdict/outcome.js'
import type { ExitCode, ReasonCode, Verdict } from '../verdict/types.js'

/** The action's `fail-on` input: which verdicts fail the step. */
export const FAIL_ON = ['unclear', 'fail', 'never'] as const
export type FailOn = (typeof FAIL_ON)[number]

/** The check run's conclusion; `success` only for PASS. */
export type Conclusion = 'success' | 'failure' | 'action_required' | 'neutral'

/** What a verdict means for the workflow: the step's result and the check run's conclusion. */
export interface Outcome {
  /** Whether the step fails; then it exits with `exitCode`. */
  readonly stepFails: boolean
  readonly exitCode: ExitCode
  readonly conclusion: Conclusion
}

/**
 * Reasons that are not the judges' uncertainty but a check that could not be done as configured:
 * an unusable rubric or input, or a pull request that changed what runs the check. `fail-on:
 * fail` does not tolerate them, and their check run never concludes `neutral` (which a required
 * check takes for passing), whatever `fail-on` says.
 */
const NOT_TOLERATED: ReadonlySet<ReasonCode> = new Set<ReasonCode>([
  'invalid_rubric',
  'invalid_input',
  'workflow_modified'
])

/**
 * The one table from a verdict and `fail-on` to the step result and the check run's conclusion
 * (docs/verdict.md#the-step-result-and-the-check-run). Every place that ends a step or concludes
 * a check run asks it.
 *
 * | verdict                      | step fails under  | conclusion                                  |
 * | ---------------------------- | ----------------- | ------------------------------------------- |
 * | PASS                         | never             | success                                     |
 * | FAIL                         | unclear, fail     | failure                                     |
 * | UNCLEAR, not tolerated       | unclear, fail     | action_required                             |
 * | UNCLEAR, judges' uncertainty | unclear           | action_required (unclear), else neutral     |
 * | any, accepted by a maintainer | never            | success                                     |
 *
 * `accepted`: a maintainer accepted this verdict for this commit (`/council accept`, checked
 * through the API); the verdict and its exit code stay what they are.
 */
export function outcomeOf(verdict: Verdict, failOn: FailOn, accepted = false): Outcome {
  if (accepted) {
    return { stepFails: false, exitCode: EXIT_CODE[verdict.verdict], conclusion: 'success' }
  }
  if (verdict.verdict === 'PASS') {
    return { stepFails: false, exitCode: EXIT_CODE.PASS, conclusion: 'success' }
  }
  const blocking = failOn !== 'never'
  if (verdict.verdict === 'FAIL') {
    return { stepFails: blocking, exitCode: EXIT_CODE.FAIL, conclusion: 'failure' }
  }
  const strict = verdict.reasons.some(r => NOT_TOLERATED.has(r.code))
  return {
    stepFails: blocking && (failOn === 'unclear' || strict),
    exitCode: EXIT_CODE.UNCLEAR,
    conclusion: strict || failOn === 'unclear' ? 'action_required' : 'neutral'
  }
}
