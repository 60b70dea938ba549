import type { CouncilShortfall, ReasonCode, ReasonOf } from '../../src/verdict/types.js'

const SHORTFALL: CouncilShortfall = {
  valid: 1,
  asked: 3,
  quorum: 2,
  failures: [
    { judge: 'anthropic:b', message: 'no answer within 30 s', failure: 'timeout' },
    { judge: 'google:c', message: '429 Too Many Requests', failure: 'rate_limited' }
  ],
  rejected: false
}

/**
 * One reason of each code, with plain facts; a code added to the decision table without an
 * example here does not typecheck.
 */
export const EXAMPLE_REASONS: { readonly [C in ReasonCode]: ReasonOf<C> } = {
  invalid_rubric: { code: 'invalid_rubric', problems: 2 },
  invalid_input: { code: 'invalid_input', problem: 'fail-on must be one of unclear, fail, never' },
  gate_failed: {
    code: 'gate_failed',
    failed: [
      { command: 'npm test', status: 'fail', exitCode: 1 },
      { command: 'npm run lint', status: 'timeout', exitCode: null }
    ],
    of: 3
  },
  missing_credentials: { code: 'missing_credentials', ...SHORTFALL },
  rejected_credentials: {
    code: 'rejected_credentials',
    valid: 0,
    asked: 1,
    quorum: 1,
    failures: [
      {
        judge: 'openai:gpt-5.4-mini',
        message: 'the provider rejected OPENAI_API_KEY (401): Incorrect API key provided',
        failure: 'rejected_credentials',
        keyRejected: 'OPENAI_API_KEY'
      }
    ],
    rejected: false
  },
  rate_limited: { code: 'rate_limited', ...SHORTFALL },
  timeout: { code: 'timeout', ...SHORTFALL },
  provider_error: { code: 'provider_error', ...SHORTFALL },
  invalid_output: { code: 'invalid_output', ...SHORTFALL },
  answer_cut: { code: 'answer_cut', ...SHORTFALL },
  context_overflow: { code: 'context_overflow', ...SHORTFALL },
  criterion_failed: { code: 'criterion_failed', criteria: ['a', 'b'] },
  min_score: { code: 'min_score', criteria: [{ id: 'ranked', median: 5.5, minimum: 6 }] },
  blocking_issue: { code: 'blocking_issue', judges: 2, of: 3, rule: 'majority' },
  terminate: { code: 'terminate', judges: 2, of: 3 },
  workflow_modified: { code: 'workflow_modified', paths: ['.github/workflows/review.yml'] },
  incomplete_coverage: {
    code: 'incomplete_coverage',
    cause: 'too_little',
    coverage: 0.5,
    minimum: 0.8
  },
  judge_disagreement: {
    code: 'judge_disagreement',
    split: [{ id: 'a', tally: { pass: 1, fail: 1, abstain: 0 } }],
    ungraded: []
  },
  low_agreement: { code: 'low_agreement', confidence: 0.69, threshold: 0.7 },
  low_score: { code: 'low_score', score: 0.75, fail: 0.8, capped: false },
  borderline: { code: 'borderline', score: 0.85, fail: 0.8, pass: 0.9, capped: false }
}
