import { describe, expect, it } from 'vitest'
import type { JudgeRun } from '../../src/council/types.js'
import { nextStep, STEP_ORDER, stepContext } from '../../src/report/next-step.js'
import { invalidVerdict } from '../../src/verdict/decide.js'
import type { ReasonCode, Verdict, VerdictKind } from '../../src/verdict/types.js'
import { evaluationOf, gateResult, SEARCH_RUBRIC } from '../helpers/evaluation.js'
import { RANKING_EVIDENCE } from '../helpers/evidence.js'

/** A verdict of `kind` with `codes` as its reasons, in that order. */
function verdictOf(kind: VerdictKind, ...codes: ReasonCode[]): Verdict {
  return {
    ...invalidVerdict('invalid_input', 'unused'),
    verdict: kind,
    reasons: codes.map(code => ({ code, message: `${code} happened` }))
  }
}

const AGAIN_PR = 'and push; the check runs again on every push.'
const AGAIN_LOCAL = 'and run `rubric-council check` again.'
const RERUN =
  'comment `/council rerun` to ask the judges again (anyone with write access to the repository may).'
const FRESH =
  'comment `/council rerun` for a fresh judgement (anyone with write access to the repository may), or a maintainer who has read the report may comment `/council accept <reason>`.'
const FRESH_LOCAL =
  'read their reasons and run `rubric-council check` again for a fresh judgement; more judges or `samples` make this rarer.'

/** What a reader sees for each reason, on a pull request and locally, without extra context. */
const EXPECTED: Readonly<Record<ReasonCode, { pr: string; local: string }>> = {
  invalid_rubric: {
    pr: 'A maintainer fixes the rubric on the base branch (or here, with `rubric-source: head`); each problem below names its line. Then comment `/council rerun`.',
    local:
      'Fix the rubric (each problem below names its line; `rubric-council validate` checks it) and run `rubric-council check` again.'
  },
  invalid_input: {
    pr: "A maintainer fixes the workflow's inputs to the action (the reason below names the value), then comments `/council rerun`.",
    local: 'Fix the options named below and run `rubric-council check` again.'
  },
  gate_failed: {
    pr: `Fix the gates that failed (the report shows their output) ${AGAIN_PR}`,
    local: `Fix the gates that failed (the report shows their output) ${AGAIN_LOCAL}`
  },
  missing_credentials: {
    pr: "No judge had a provider key: a maintainer adds one as a repository secret (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, …), passes it in the workflow's `env`, then comments `/council rerun`. Pull requests from forks get no secrets on `pull_request`: use the fork layout (`rubric-council init --forks`).",
    local:
      'No judge had a provider key: set one in your environment (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, …) and run `rubric-council check` again.'
  },
  rate_limited: {
    pr: `The providers rate-limited the judges; the pull request is not at fault: ${RERUN}`,
    local:
      'The providers rate-limited the judges; your change is not at fault: wait a little and run `rubric-council check` again, or lower `samples`.'
  },
  timeout: {
    pr: `The judges did not answer in time; the pull request is not at fault: ${RERUN}`,
    local:
      "The judges did not answer in time; your change is not at fault: run `rubric-council check` again, or raise the rubric's `council.timeout`."
  },
  provider_error: {
    pr: `The providers failed, not the pull request: ${RERUN}`,
    local: 'The providers failed, not your change: run `rubric-council check` again.'
  },
  invalid_output: {
    pr: `The judges' answers did not fit the rubric's schema; the pull request is not at fault: ${RERUN.slice(0, -1)}. If it happens again, a maintainer picks a model with structured-output support.`,
    local:
      "The judges' answers did not fit the rubric's schema: run `rubric-council check` again; if it happens again, pick another model (`--models`)."
  },
  criterion_failed: {
    pr: `Fix the must-have criteria that failed (each shows the judges' reasons) ${AGAIN_PR}`,
    local: `Fix the must-have criteria that failed (each shows the judges' reasons) ${AGAIN_LOCAL}`
  },
  min_score: {
    pr: `Improve the criteria scored below their minimum (each shows the judges' reasons) ${AGAIN_PR}`,
    local: `Improve the criteria scored below their minimum (each shows the judges' reasons) ${AGAIN_LOCAL}`
  },
  blocking_issue: {
    pr: `Fix the critical and major findings (listed under Findings) ${AGAIN_PR}`,
    local: `Fix the critical and major findings (\`--markdown -\` lists them) ${AGAIN_LOCAL}`
  },
  terminate: {
    pr: `The judges consider the approach fundamentally broken: read their findings, rework the change ${AGAIN_PR}`,
    local: `The judges consider the approach fundamentally broken: read their findings (\`--markdown -\`), rework the change ${AGAIN_LOCAL}`
  },
  workflow_modified: {
    pr: 'This pull request changes the workflow or action that runs this check, so the check cannot vouch for it: a maintainer reviews that change and, if it is right, comments `/council accept <reason>`.',
    local:
      'The change touches the workflow or action that runs this check: have a maintainer review it, since the check cannot vouch for its own machinery.'
  },
  incomplete_coverage: {
    pr: 'The judges saw too little of the change (the Coverage section lists what was left out): make the pull request smaller and push, or a maintainer raises `max-evidence-tokens`, excludes generated files or lowers `min_coverage`, then comments `/council rerun`.',
    local:
      'The judges saw too little of the change: exclude generated files or lower `min_coverage` in the rubric, or check a smaller change; then run `rubric-council check` again.'
  },
  judge_disagreement: {
    pr: `The judges are split on a must-have: ${FRESH}`,
    local: `The judges are split on a must-have: ${FRESH_LOCAL}`
  },
  low_agreement: {
    pr: `The judges disagree too much to decide: ${FRESH}`,
    local: `The judges disagree too much to decide: ${FRESH_LOCAL}`
  },
  low_score: {
    pr: `Improve what the judges scored lowest (the dimensions and criteria show it) ${AGAIN_PR}`,
    local: `Improve what the judges scored lowest (the dimensions and criteria show it) ${AGAIN_LOCAL}`
  },
  borderline: {
    pr: 'The score is between the fail and pass thresholds: improve the weakest parts and push, comment `/council rerun` for a fresh judgement (anyone with write access to the repository may), or a maintainer who has read the report may comment `/council accept <reason>`.',
    local:
      'The score is between the fail and pass thresholds: improve what the judges scored lowest and run `rubric-council check` again.'
  }
}

const CODES = Object.keys(EXPECTED) as ReasonCode[]

describe('the next step', () => {
  it('orders every reason code, each once', () => {
    expect([...STEP_ORDER].sort()).toEqual([...CODES].sort())
  })

  it.each(CODES)('%s: one step on a pull request, another locally', code => {
    const verdict = verdictOf(code === 'gate_failed' ? 'FAIL' : 'UNCLEAR', code)
    expect(nextStep(verdict, 'pull-request')).toBe(EXPECTED[code].pr)
    expect(nextStep(verdict, 'local')).toBe(EXPECTED[code].local)
  })

  it('never names a pull request command, or a push, locally', () => {
    for (const code of CODES) {
      const local = nextStep(verdictOf('UNCLEAR', code), 'local') ?? ''
      expect(local).not.toContain('/council')
      expect(local).not.toMatch(/\bpush\b/)
    }
  })

  it('says nothing for PASS', () => {
    expect(nextStep(verdictOf('PASS'), 'pull-request')).toBeUndefined()
    expect(nextStep(verdictOf('PASS'), 'local')).toBeUndefined()
  })

  it('takes the most important reason, in the decision table’s order, not the list’s', () => {
    const verdict = verdictOf('FAIL', 'terminate', 'blocking_issue', 'criterion_failed')
    expect(nextStep(verdict, 'pull-request')).toBe(EXPECTED.criterion_failed.pr)
    expect(nextStep(verdictOf('FAIL', 'blocking_issue', 'terminate'), 'local')).toBe(
      EXPECTED.blocking_issue.local
    )
  })

  it('names the one gate that failed, to run it where the author can see why', () => {
    const verdict = verdictOf('FAIL', 'gate_failed')
    expect(nextStep(verdict, 'pull-request', { failedGate: 'npm test' })).toBe(
      'Run `npm test` locally to see why it failed, fix it and push; the check runs again on every push.'
    )
    expect(nextStep(verdict, 'local', { failedGate: 'npm test' })).toBe(
      'Run `npm test` to see why it failed, fix it and run `rubric-council check` again.'
    )
  })

  it('does not ask for a rerun when the providers rejected the requests themselves', () => {
    const verdict = verdictOf('UNCLEAR', 'provider_error')
    const pr = nextStep(verdict, 'pull-request', { rejected: true })
    expect(pr).toContain('asking again will not help')
    expect(pr).toContain('model names (`provider:model`)')
    expect(pr).not.toContain('/council rerun')
  })

  it('tells an unreadable diff from too little coverage', () => {
    const verdict = verdictOf('UNCLEAR', 'incomplete_coverage')
    expect(nextStep(verdict, 'pull-request', { diffUnread: true })).toBe(
      'The diff could not be read, so the judges were not asked (the reason below says why): if the cause was temporary, comment `/council rerun`; otherwise a maintainer fixes the checkout (docs/troubleshooting.md).'
    )
    expect(nextStep(verdict, 'local', { diffUnread: true })).toBe(
      'The diff could not be read (the reason below says why): check that `--base` names a branch or commit this clone has, then run `rubric-council check` again.'
    )
  })
})

describe('the facts a step is made precise with', () => {
  it('names a gate only when exactly one failed and its command reads well inline', () => {
    const one = evaluationOf(SEARCH_RUBRIC, [
      gateResult('pytest tests/test_search.py', 'fail'),
      gateResult('ruff check src/search/', 'pass')
    ])
    expect(stepContext(one).failedGate).toBe('pytest tests/test_search.py')
    const two = evaluationOf(SEARCH_RUBRIC, [
      gateResult('pytest tests/test_search.py', 'fail'),
      gateResult('ruff check src/search/', 'timeout')
    ])
    expect(stepContext(two).failedGate).toBeUndefined()
    const fenced = evaluationOf(SEARCH_RUBRIC, [gateResult('echo "`x`"; exit 1', 'fail')])
    expect(stepContext(fenced).failedGate).toBeUndefined()
  })

  it('knows the diff was not read when the evaluation has no evidence', () => {
    const evaluation = evaluationOf(SEARCH_RUBRIC, [gateResult('make', 'pass')])
    expect(stepContext(evaluation).diffUnread).toBe(true)
    expect(stepContext({ ...evaluation, evidence: RANKING_EVIDENCE }).diffUnread).toBeUndefined()
  })

  it('knows the providers rejected the requests only when every provider error was one', () => {
    const failed = (judge: string, rejected: boolean): JudgeRun => ({
      judge,
      sample: 1,
      latencyMs: 100,
      status: 'failed',
      failure: 'provider_error',
      message: '404 unknown model',
      ...(rejected && { rejected: true })
    })
    const withRuns = (runs: JudgeRun[]) =>
      stepContext(evaluationOf(SEARCH_RUBRIC, [], { runs, quorum: 2 }))
    expect(withRuns([failed('openai:a', true), failed('openai:b', true)]).rejected).toBe(true)
    expect(withRuns([failed('openai:a', true), failed('openai:b', false)]).rejected).toBeUndefined()
    expect(withRuns([]).rejected).toBeUndefined()
  })
})
