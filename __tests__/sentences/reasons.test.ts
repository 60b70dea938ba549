import { describe, expect, it } from 'vitest'
import type { JudgeRun } from '../../src/council/types.js'
import { AUDIENCES, nextStep, reasonSentence, type Audience } from '../../src/sentences/reasons.js'
import { decide, invalidVerdict, type VerdictInput } from '../../src/verdict/decide.js'
import {
  REASON_CODES,
  type Reason,
  type ReasonCode,
  type Verdict,
  type VerdictKind
} from '../../src/verdict/types.js'
import { gateResult, judgeRun, SEARCH_RUBRIC } from '../helpers/evaluation.js'
import { EXAMPLE_REASONS } from '../helpers/reasons.js'
import { lines, parse } from '../helpers/rubric.js'

/** A verdict of `kind` with `reasons`, in that order. */
function verdictOf(kind: VerdictKind, ...reasons: Reason[]): Verdict {
  return { ...invalidVerdict('invalid_input', 'unused'), verdict: kind, reasons }
}

/** A verdict of `kind` with the example reason of each of `codes`. */
function exampleOf(kind: VerdictKind, ...codes: ReasonCode[]): Verdict {
  return verdictOf(kind, ...codes.map(code => EXAMPLE_REASONS[code]))
}

const UNAVAILABLE =
  'the council is unavailable: 1 valid answer of 3, quorum 2: anthropic:b: no answer within 30 s; google:c: 429 Too Many Requests.'

const REFUSED_REASON =
  'the council is unavailable: 0 valid answers of 1, quorum 1: openai:gpt-5.4-mini: the provider rejected OPENAI_API_KEY (401): Incorrect API key provided.'

/**
 * What each example reason (__tests__/helpers/reasons.ts) says, in the action's words; where a
 * terminal reads it otherwise, `terminal` says how.
 */
const REASONS: Readonly<Record<ReasonCode, string | Readonly<Record<Audience, string>>>> = {
  invalid_rubric: 'the rubric has 2 problems; fix them and run again',
  invalid_input: 'fail-on must be one of unclear, fail, never',
  gate_failed: '2 of 3 gates did not pass: "npm test" (exit 1), "npm run lint" (timed out)',
  missing_credentials: {
    action: `${UNAVAILABLE} Set a provider API key (e.g. OPENAI_API_KEY) in the workflow’s env.`,
    terminal: `${UNAVAILABLE} Set OPENAI_API_KEY (or ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, OPENROUTER_API_KEY) in your environment.`
  },
  rejected_credentials: {
    action: `${REFUSED_REASON} A provider refused the API key it was given, so re-running will not help: replace the repository secret the message names with a current key allowed to use the model.`,
    terminal: `${REFUSED_REASON} A provider refused the API key it was given, so re-running will not help: put a current key allowed to use the model in the variable the message names.`
  },
  rate_limited: `${UNAVAILABLE} The providers are rate limiting, not judging the pull request: run the job again later, raise the provider’s limits, or lower samples.`,
  timeout: `${UNAVAILABLE} The judges did not answer in time: run the job again, or raise the rubric’s council.timeout or lower max-evidence-tokens.`,
  provider_error: `${UNAVAILABLE} The providers failed, not the pull request: run the job again; if it persists, check the model names and the providers’ status.`,
  invalid_output: `${UNAVAILABLE} The judges’ answers did not fit the rubric’s schema: run the job again, or use models with structured-output support.`,
  answer_cut: `${UNAVAILABLE} The judges’ answers were cut at the cap on their length (each message names it): raise that judge’s \`max_output_tokens\` in \`council.models\`, or lower its \`reasoning\`.`,
  context_overflow: `${UNAVAILABLE} The prompt does not fit a judge’s context window (each message names the judge, its window and the prompt’s size), so re-running will not help: lower \`max-evidence-tokens\`, or give the judge a larger window (\`council.models: [{ model, window }]\`, set to what its server allows).`,
  criterion_failed: 'must-have criteria failed by a majority of judges: a, b',
  min_score: 'ranked scored 5.5, below its minimum of 6',
  blocking_issue: '2 of 3 judges reported a blocking (critical or major) finding',
  terminate: '2 of 3 judges recommend TERMINATE: the approach is fundamentally broken',
  workflow_modified:
    'the pull request changes what runs this check: .github/workflows/review.yml. On pull_request the workflow comes from the pull request itself, so the check cannot vouch for it. A maintainer should review these changes: merge them on that review (an administrator can bypass the required check), or land them on the base branch first in a pull request of their own',
  incomplete_coverage:
    'the judges saw 50% of the reviewable changed files; the rubric needs 80%. The coverage receipt lists what was left out: raise max-evidence-tokens, exclude generated files, or lower min_coverage',
  judge_disagreement: 'judges are split on must-have criterion: a (1 PASS, 1 FAIL)',
  low_agreement: 'judge agreement 0.69 is below the threshold 0.7',
  low_score: 'score 0.75 is below the fail threshold 0.8',
  borderline: 'score 0.85 is between the fail (0.8) and pass (0.9) thresholds'
}

const AGAIN_PR = 'and push; the check runs again on every push.'
const AGAIN_LOCAL = 'and run `rubric-council check` again.'
const RERUN =
  'comment `/council rerun` to ask the judges again (anyone with write access to the repository may).'
const FRESH =
  'comment `/council rerun` for a fresh judgement (anyone with write access to the repository may), or a maintainer who has read the report may comment `/council accept <reason>`.'
const RESERVE =
  "A model in the rubric's `council.reserve` casts the deciding vote on such a split (docs/verdict.md)."
const FRESH_LOCAL =
  'read their reasons and run `rubric-council check` again for a fresh judgement; more judges or `samples` make this rarer.'

/** The next step for each example reason, on a pull request (`action`) and in a `terminal`. */
/** How a shortfall's next step starts, for the example's facts: who answered, and why the others did not. */
const SHORT =
  'Only 1 of 3 judges answered (the quorum is 2): timed out (anthropic:b); rate-limited (google:c).'

const STEPS: Readonly<Record<ReasonCode, Readonly<Record<Audience, string>>>> = {
  invalid_rubric: {
    action:
      'A maintainer fixes the rubric on the base branch (or here, with `rubric-source: head`); each problem below names its line. Then comment `/council rerun`.',
    terminal:
      'Fix the rubric (each problem below names its line; `rubric-council validate` checks it) and run `rubric-council check` again.'
  },
  invalid_input: {
    action:
      "A maintainer fixes the workflow's inputs to the action (the reason below names the value), then comments `/council rerun`.",
    terminal: 'Fix the options named below and run `rubric-council check` again.'
  },
  gate_failed: {
    action: `Fix the gates that failed (the report shows their output) ${AGAIN_PR}`,
    terminal: `Fix the gates that failed (the report shows their output) ${AGAIN_LOCAL}`
  },
  missing_credentials: {
    action: `${SHORT} A maintainer adds the missing keys as repository secrets and passes them in the workflow's \`env\` (or names only judges with a key), then comments \`/council rerun\`. Pull requests from forks get no secrets on \`pull_request\`: use the fork layout (\`rubric-council init --forks\`).`,
    terminal: `${SHORT} Set the missing keys in your environment, or name only judges whose key you have (\`--models\` or the rubric’s \`council.models\`), and run \`rubric-council check\` again.`
  },
  rejected_credentials: {
    action:
      'No judge answered: the provider refused the key in `OPENAI_API_KEY` (openai:gpt-5.4-mini). A maintainer replaces the repository secret `OPENAI_API_KEY` with a current key allowed to use the model, then comments `/council rerun`.',
    terminal:
      'No judge answered: the provider refused the key in `OPENAI_API_KEY` (openai:gpt-5.4-mini). Replace the key in `OPENAI_API_KEY` with a current one allowed to use the model, and run `rubric-council check` again.'
  },
  rate_limited: {
    action: `${SHORT} The providers rate-limited the judges; the pull request is not at fault: ${RERUN}`,
    terminal: `${SHORT} The providers rate-limited the judges; your change is not at fault: wait a little and run \`rubric-council check\` again, or lower \`samples\`.`
  },
  timeout: {
    action: `${SHORT} The judges did not answer in time; the pull request is not at fault: ${RERUN}`,
    terminal: `${SHORT} The judges did not answer in time; your change is not at fault: run \`rubric-council check\` again, or raise the rubric's \`council.timeout\`.`
  },
  provider_error: {
    action: `${SHORT} The providers failed, not the pull request: ${RERUN}`,
    terminal: `${SHORT} The providers failed, not your change: run \`rubric-council check\` again.`
  },
  invalid_output: {
    action: `${SHORT} The judges' answers did not fit the rubric's schema; the pull request is not at fault: ${RERUN.slice(0, -1)}. If it happens again, a maintainer picks a model with structured-output support.`,
    terminal: `${SHORT} The judges' answers did not fit the rubric's schema: run \`rubric-council check\` again; if it happens again, pick another model (\`--models\`).`
  },
  answer_cut: {
    action: `${SHORT} The judges' answers were cut at the cap on their length, not for anything in the pull request: raise the judge's \`max_output_tokens\` in the rubric's \`council.models\`, or lower its \`reasoning\`.`,
    terminal: `${SHORT} The judges' answers were cut at the cap on their length, not for anything in the pull request: raise the judge's \`max_output_tokens\` in the rubric's \`council.models\`, or lower its \`reasoning\`.`
  },
  context_overflow: {
    action: `${SHORT} The prompt does not fit a judge's context window, so asking again will not help: a maintainer lowers \`max-evidence-tokens\` in the workflow, or gives the judge a larger window (\`council.models: [{ model, window }]\`).`,
    terminal: `${SHORT} The prompt does not fit a judge's context window: lower \`max-evidence-tokens\`, or give the judge a larger window (\`council.models: [{ model, window }]\` in the rubric), then run \`rubric-council check\` again.`
  },
  criterion_failed: {
    action: `Fix the must-have criteria that failed (each shows the judges' reasons) ${AGAIN_PR}`,
    terminal: `Fix the must-have criteria that failed (each shows the judges' reasons) ${AGAIN_LOCAL}`
  },
  min_score: {
    action: `Improve the criteria scored below their minimum (each shows the judges' reasons) ${AGAIN_PR}`,
    terminal: `Improve the criteria scored below their minimum (each shows the judges' reasons) ${AGAIN_LOCAL}`
  },
  blocking_issue: {
    action: `Fix the critical and major findings (listed under Findings) ${AGAIN_PR}`,
    terminal: `Fix the critical and major findings (the full report lists them) ${AGAIN_LOCAL}`
  },
  terminate: {
    action: `The judges consider the approach fundamentally broken: read their findings, rework the change ${AGAIN_PR}`,
    terminal: `The judges consider the approach fundamentally broken: read their findings (in the full report), rework the change ${AGAIN_LOCAL}`
  },
  workflow_modified: {
    action:
      'This pull request changes the workflow or action that runs this check, so the check cannot vouch for it: a maintainer reviews that change and, if it is right, comments `/council accept <reason>`.',
    terminal:
      'The change touches the workflow or action that runs this check: have a maintainer review it, since the check cannot vouch for its own machinery.'
  },
  incomplete_coverage: {
    action:
      'The judges saw too little of the change (the Coverage section lists what was left out): make the pull request smaller and push, or a maintainer raises `max-evidence-tokens`, excludes generated files or lowers `min_coverage`, then comments `/council rerun`.',
    terminal:
      'The judges saw too little of the change: exclude generated files or lower `min_coverage` in the rubric, or check a smaller change; then run `rubric-council check` again.'
  },
  judge_disagreement: {
    action: `The judges are split on a must-have: ${FRESH} ${RESERVE}`,
    terminal: `The judges are split on a must-have: read their reasons and run \`rubric-council check\` again for a fresh judgement. ${RESERVE}`
  },
  low_agreement: {
    action: `The judges disagree too much to decide: ${FRESH}`,
    terminal: `The judges disagree too much to decide: ${FRESH_LOCAL}`
  },
  low_score: {
    action: `Improve what the judges scored lowest (the dimensions and criteria show it) ${AGAIN_PR}`,
    terminal: `Improve what the judges scored lowest (the dimensions and criteria show it) ${AGAIN_LOCAL}`
  },
  borderline: {
    action:
      'The score is between the fail and pass thresholds: improve the weakest parts and push, comment `/council rerun` for a fresh judgement (anyone with write access to the repository may), or a maintainer who has read the report may comment `/council accept <reason>`.',
    terminal:
      'The score is between the fail and pass thresholds: improve what the judges scored lowest and run `rubric-council check` again.'
  }
}

const CASES = REASON_CODES.flatMap(code => AUDIENCES.map(audience => [code, audience] as const))

describe('every reason code, for every audience', () => {
  it('has its sentence and its next step', () => {
    // The lists above are keyed by ReasonCode, so a code without them fails the type check;
    // this says the decision table's list and theirs are the same.
    expect([...REASON_CODES].sort()).toEqual(Object.keys(REASONS).sort())
    expect([...REASON_CODES].sort()).toEqual(Object.keys(STEPS).sort())
  })

  it.each(CASES)('%s, for the %s', (code, audience) => {
    const expected = REASONS[code]
    expect(reasonSentence(EXAMPLE_REASONS[code], audience)).toBe(
      typeof expected === 'string' ? expected : expected[audience]
    )
    const kind = code === 'gate_failed' ? 'FAIL' : 'UNCLEAR'
    expect(nextStep(exampleOf(kind, code), audience)).toBe(STEPS[code][audience])
  })

  it('never names a pull request command, or a push, in a terminal', () => {
    for (const code of REASON_CODES) {
      const local = nextStep(exampleOf('UNCLEAR', code), 'terminal') ?? ''
      expect(local).not.toContain('/council')
      expect(local).not.toMatch(/\bpush\b/)
    }
  })
})

describe('the next step', () => {
  it('says nothing for PASS', () => {
    for (const audience of AUDIENCES) expect(nextStep(verdictOf('PASS'), audience)).toBeUndefined()
  })

  it('takes the most important reason, in the decision table’s order, not the list’s', () => {
    const verdict = exampleOf('FAIL', 'terminate', 'blocking_issue', 'criterion_failed')
    expect(nextStep(verdict, 'action')).toBe(STEPS.criterion_failed.action)
    expect(nextStep(exampleOf('FAIL', 'blocking_issue', 'terminate'), 'terminal')).toBe(
      STEPS.blocking_issue.terminal
    )
  })
})

/** The verdict of the search rubric's two gates and nothing else, with `input`'s facts. */
function searchVerdict(input: Partial<VerdictInput> = {}): Verdict {
  return decide({ rubric: SEARCH_RUBRIC, gates: [], ...input })
}

describe('the facts a sentence is made precise with', () => {
  it('names the one gate that failed, to run it where the author can see why', () => {
    const one = searchVerdict({
      gates: [gateResult('pytest tests/test_search.py', 'fail'), gateResult('ruff', 'pass')]
    })
    expect(nextStep(one, 'action')).toBe(
      'Run `pytest tests/test_search.py` locally to see why it failed, fix it and push; the check runs again on every push.'
    )
    expect(nextStep(one, 'terminal')).toBe(
      'Run `pytest tests/test_search.py` to see why it failed, fix it and run `rubric-council check` again.'
    )
  })

  it('names no gate when two failed, or when its command does not read well inline', () => {
    const two = searchVerdict({
      gates: [gateResult('pytest', 'fail'), gateResult('ruff check src/search/', 'timeout')]
    })
    expect(nextStep(two, 'action')).toBe(STEPS.gate_failed.action)
    const fenced = searchVerdict({ gates: [gateResult('echo "`x`"; exit 1', 'fail')] })
    expect(nextStep(fenced, 'action')).toBe(STEPS.gate_failed.action)
    const long = searchVerdict({ gates: [gateResult(`make ${'x'.repeat(80)}`, 'fail')] })
    expect(nextStep(long, 'terminal')).toBe(STEPS.gate_failed.terminal)
  })

  it('tells an unreadable diff from too little coverage', () => {
    const unread = searchVerdict({ evidenceProblem: 'base commit abc is not in the repository' })
    expect(reasonSentence(unread.reasons[0] ?? EXAMPLE_REASONS.invalid_rubric, 'action')).toBe(
      'the judges were not asked: base commit abc is not in the repository'
    )
    expect(nextStep(unread, 'action')).toBe(
      'The diff could not be read, so the judges were not asked (the reason below says why): if the cause was temporary, comment `/council rerun`; otherwise a maintainer fixes the checkout (docs/troubleshooting.md).'
    )
    expect(nextStep(unread, 'terminal')).toBe(
      'The diff could not be read (the reason below says why): check that `--base` names a branch or commit this clone has, then run `rubric-council check` again.'
    )
    const gatesOnly = decide({
      rubric: parse(lines('## Gates', '- `make`')),
      gates: [gateResult('make', 'pass')],
      evidenceProblem: 'no pull request in this run',
      machineryChecked: true
    })
    expect(gatesOnly.reasons.map(r => reasonSentence(r, 'action'))).toEqual([
      'the changed files could not be read: no pull request in this run'
    ])
  })

  it('does not ask for a rerun only when every provider error was a rejected request', () => {
    const failed = (judge: string, rejected: boolean): JudgeRun => ({
      judge,
      sample: 1,
      latencyMs: 100,
      status: 'failed',
      failure: 'provider_error',
      message: '404 unknown model',
      ...(rejected && { rejected: true })
    })
    const rejected = searchVerdict({
      council: { runs: [failed('openai:a', true), failed('openai:b', true)], quorum: 2 }
    })
    const pr = nextStep(rejected, 'action')
    expect(pr).toContain('asking again will not help')
    expect(pr).toContain('model names (`provider:model`)')
    expect(pr).not.toContain('/council rerun')
    expect(reasonSentence(rejected.reasons[0] ?? EXAMPLE_REASONS.invalid_rubric, 'action')).toBe(
      'the council is unavailable: 0 valid answers of 2, quorum 2: openai:a: 404 unknown model; openai:b: 404 unknown model. ' +
        'The providers rejected the requests themselves, so re-running will not help: check the model names against the providers’ model lists; if the message names the schema or a parameter, please report it.'
    )
    const mixed = searchVerdict({
      council: { runs: [failed('openai:a', true), failed('openai:b', false)], quorum: 2 }
    })
    expect(nextStep(mixed, 'action')).toBe(
      `No judge answered: failed at the provider (openai:a and openai:b). ${STEPS.provider_error.action.split('. ').slice(1).join('. ')}`
    )
  })

  it('says where a key is set when no judge could be formed', () => {
    const none = searchVerdict()
    const [reason] = none.reasons
    expect(reason?.code).toBe('missing_credentials')
    expect(reason && reasonSentence(reason, 'action')).toBe(
      'the council is unavailable: 0 valid answers of 0, quorum 1: no judge could be formed; set an API key for a provider or name models. ' +
        'Set a provider API key (e.g. OPENAI_API_KEY) in the workflow’s env.'
    )
    expect(reason && reasonSentence(reason, 'terminal')).toBe(
      'the council is unavailable: 0 valid answers of 0, quorum 1: no judge could be formed: no provider API key is set. ' +
        'Set OPENAI_API_KEY (or ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, OPENROUTER_API_KEY) in your environment.'
    )
  })

  it('names the real cause of a council short of quorum: no key, a refused key, judges not asked', () => {
    const none = searchVerdict()
    expect(nextStep(none, 'terminal')).toBe(
      'No provider API key is set, so no judge could be asked: set one in your environment (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, …) and run `rubric-council check` again.'
    )
    const run = (judge: string, outcome: 'ok' | 'unset' | 'refused'): JudgeRun =>
      outcome === 'ok'
        ? judgeRun(SEARCH_RUBRIC, { judge })
        : {
            judge,
            sample: 1,
            latencyMs: 0,
            status: 'failed',
            ...(outcome === 'refused'
              ? {
                  failure: 'rejected_credentials' as const,
                  message: 'the provider rejected ANTHROPIC_API_KEY (401)',
                  rejected: true as const
                }
              : {
                  failure: 'missing_credentials' as const,
                  message: 'GOOGLE_GENERATIVE_AI_API_KEY is not set; this judge was not asked'
                })
          }
    const refused = searchVerdict({
      council: { runs: [run('anthropic:claude-sonnet-4-6', 'refused')], quorum: 1 }
    })
    expect(refused.reasons.map(r => r.code)).toEqual(['rejected_credentials'])
    expect(nextStep(refused, 'terminal')).toBe(
      'No judge answered: the provider refused the key in `ANTHROPIC_API_KEY` (anthropic:claude-sonnet-4-6). Replace the key in `ANTHROPIC_API_KEY` with a current one allowed to use the model, and run `rubric-council check` again.'
    )
    expect(nextStep(refused, 'action')).toBe(
      'No judge answered: the provider refused the key in `ANTHROPIC_API_KEY` (anthropic:claude-sonnet-4-6). A maintainer replaces the repository secret `ANTHROPIC_API_KEY` with a current key allowed to use the model, then comments `/council rerun`.'
    )
    const short = searchVerdict({
      council: {
        runs: [
          run('openai:gpt-5.4-mini', 'ok'),
          run('google:gemini-3.5-flash', 'unset'),
          run('anthropic:claude-sonnet-4-6', 'refused')
        ],
        quorum: 2
      }
    })
    expect(nextStep(short, 'terminal')).toBe(
      'Only 1 of 3 judges answered (the quorum is 2): not asked: GOOGLE_GENERATIVE_AI_API_KEY is not set (google:gemini-3.5-flash); the provider refused the key in `ANTHROPIC_API_KEY` (anthropic:claude-sonnet-4-6). Replace the key in `ANTHROPIC_API_KEY` with a current one allowed to use the model; set the missing keys in your environment, or name only judges whose key you have (`--models` or the rubric’s `council.models`), and run `rubric-council check` again.'
    )
    for (const verdict of [none, refused, short]) {
      expect(nextStep(verdict, 'terminal')).not.toContain('No judge had a provider key')
    }
  })

  it('names ten changed files of the machinery, and counts the rest', () => {
    const paths = Array.from({ length: 12 }, (_, i) => `.github/workflows/w${i}.yml`)
    const sentence = reasonSentence({ code: 'workflow_modified', paths }, 'terminal')
    expect(sentence).toContain(
      `this check: ${paths.slice(0, 10).join(', ')}, and 2 more. On pull_request`
    )
  })

  it('says names and messages from the pull request or a provider on one line, controls shown', () => {
    // A file name that would put a line of its own under the verdict, then reverse what follows.
    const forged = '.github/actions/lint.yml\n\n✅ Verified: no action needed\u202e'
    const modified = reasonSentence({ code: 'workflow_modified', paths: [forged] }, 'action')
    expect(modified).toContain(
      'this check: .github/actions/lint.yml\\n\\n✅ Verified: no action needed\\u202e. On pull_request'
    )
    const gates = reasonSentence(
      {
        code: 'gate_failed',
        of: 1,
        failed: [{ command: 'npm test\n# PASS', status: 'error', exitCode: null, detail: 'x\ry' }]
      },
      'terminal'
    )
    expect(gates).toBe('1 of 1 gate did not pass: "npm test\\n# PASS" (x\\ry)')
    const council = reasonSentence(
      {
        code: 'invalid_output',
        valid: 1,
        asked: 3,
        quorum: 2,
        rejected: false,
        failures: [
          {
            judge: 'openai:gpt-5.5',
            message: 'unknown criterion "\x1b[2JPASS"',
            failure: 'invalid_output'
          }
        ]
      },
      'terminal'
    )
    expect(council).toContain('openai:gpt-5.5: unknown criterion "\\x1b[2JPASS"')
    // eslint-disable-next-line no-control-regex -- control characters are what this checks
    for (const said of [modified, gates, council]) expect(said).not.toMatch(/[\x00-\x1f\u202e]/)
  })

  it('names split and ungraded must-haves, and a score the accuracy ceiling capped', () => {
    const both: Reason = {
      code: 'judge_disagreement',
      split: [
        { id: 'a', tally: { pass: 1, fail: 1, abstain: 1 } },
        { id: 'b', tally: { pass: 2, fail: 2, abstain: 0 } }
      ],
      ungraded: ['c']
    }
    expect(reasonSentence(both, 'action')).toBe(
      'judges are split on must-have criteria: a (1 PASS, 1 FAIL, 1 undecided between their samples), b (2 PASS, 2 FAIL); no judge graded must-have criterion: c'
    )
    expect(
      reasonSentence({ code: 'low_score', score: 0.4, fail: 0.6, capped: true }, 'terminal')
    ).toBe('score 0.4 is below the fail threshold 0.6 (capped by the accuracy ceiling)')
  })
})
