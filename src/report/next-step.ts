import type { Evaluation } from '../engine/evaluation.js'
import type { ReasonCode, Verdict } from '../verdict/types.js'

/**
 * Where the verdict is read: on a pull request (comment, check run, job summary), where the
 * `/council` commands and a push start a new run; or in a terminal, where the user runs the CLI.
 */
export type StepAudience = 'pull-request' | 'local'

/** Facts from outside the verdict that make a step more precise; each may be absent. */
export interface StepContext {
  /** The command of the only gate that did not pass, when exactly one failed. */
  readonly failedGate?: string
  /** The diff could not be read, so the judges were never asked. */
  readonly diffUnread?: boolean
  /** Every provider error was a rejection of the request itself: asking again will not help. */
  readonly rejected?: boolean
}

/**
 * The decision table's order (docs/verdict.md): when a verdict has several reasons, the first of
 * them in this order names the step.
 */
export const STEP_ORDER: readonly ReasonCode[] = [
  'invalid_rubric',
  'invalid_input',
  'gate_failed',
  'missing_credentials',
  'rate_limited',
  'timeout',
  'provider_error',
  'invalid_output',
  'criterion_failed',
  'min_score',
  'blocking_issue',
  'terminate',
  'workflow_modified',
  'incomplete_coverage',
  'judge_disagreement',
  'low_agreement',
  'low_score',
  'borderline'
]

/**
 * The one thing a person should do next about a FAIL or UNCLEAR, in a sentence; none for PASS.
 * Commands, file names and settings are in backtick code spans (the Markdown report renders them
 * as code; a terminal shows them as they are). Pure.
 */
export function nextStep(
  verdict: Verdict,
  where: StepAudience,
  context: StepContext = {}
): string | undefined {
  if (verdict.verdict === 'PASS') return undefined
  const codes = new Set(verdict.reasons.map(r => r.code))
  const first = STEP_ORDER.find(code => codes.has(code))
  return first === undefined ? undefined : STEPS[first](where, context)
}

/** The facts of `StepContext`, drawn from an evaluation. */
export function stepContext(evaluation: Evaluation): StepContext {
  const failed = evaluation.gates.filter(g => g.status !== 'pass')
  const only = failed.length === 1 ? failed[0]?.command : undefined
  const providerErrors = (evaluation.council?.runs ?? []).flatMap(r =>
    r.status === 'failed' && r.failure === 'provider_error' ? [r] : []
  )
  return {
    ...(only !== undefined && nameable(only) && { failedGate: only }),
    ...(evaluation.evidence === undefined && { diffUnread: true }),
    ...(providerErrors.length > 0 &&
      providerErrors.every(r => r.rejected === true) && { rejected: true })
  }
}

/** A command is named in the step only when it reads well inline: one short line, no backtick. */
function nameable(command: string): boolean {
  return command.length <= 80 && !/[`\r\n]/.test(command)
}

const AGAIN = {
  'pull-request': 'push; the check runs again on every push',
  local: 'run `rubric-council check` again'
} as const

const WRITE_ACCESS = '(anyone with write access to the repository may)'
const RERUN = `comment \`/council rerun\` to ask the judges again ${WRITE_ACCESS}`
const FRESH = `comment \`/council rerun\` for a fresh judgement ${WRITE_ACCESS}`
const ACCEPT = 'a maintainer who has read the report may comment `/council accept <reason>`'

type Step = (where: StepAudience, context: StepContext) => string

/** Work on the change (`what` starts with the verb), then push, or locally run the check again. */
function work(what: (where: StepAudience) => string): Step {
  return where => `${what(where)} and ${AGAIN[where]}.`
}

/** The judges could not settle it: ask again, or, on a pull request, accept it knowingly. */
function unsettled(what: string): Step {
  return where =>
    where === 'pull-request'
      ? `${what}: ${FRESH}, or ${ACCEPT}.`
      : `${what}: read their reasons and run \`rubric-council check\` again for a fresh judgement; more judges or \`samples\` make this rarer.`
}

const STEPS: Readonly<Record<ReasonCode, Step>> = {
  invalid_rubric: where =>
    where === 'pull-request'
      ? 'A maintainer fixes the rubric on the base branch (or here, with `rubric-source: head`); each problem below names its line. Then comment `/council rerun`.'
      : 'Fix the rubric (each problem below names its line; `rubric-council validate` checks it) and run `rubric-council check` again.',
  invalid_input: where =>
    where === 'pull-request'
      ? "A maintainer fixes the workflow's inputs to the action (the reason below names the value), then comments `/council rerun`."
      : 'Fix the options named below and run `rubric-council check` again.',
  gate_failed: (where, { failedGate }) =>
    work(() =>
      failedGate === undefined
        ? 'Fix the gates that failed (the report shows their output)'
        : `Run \`${failedGate}\`${where === 'pull-request' ? ' locally' : ''} to see why it failed, fix it`
    )(where, {}),
  missing_credentials: where =>
    where === 'pull-request'
      ? "No judge had a provider key: a maintainer adds one as a repository secret (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, …), passes it in the workflow's `env`, then comments `/council rerun`. Pull requests from forks get no secrets on `pull_request`: use the fork layout (`rubric-council init --forks`)."
      : 'No judge had a provider key: set one in your environment (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, …) and run `rubric-council check` again.',
  rate_limited: where =>
    where === 'pull-request'
      ? `The providers rate-limited the judges; the pull request is not at fault: ${RERUN}.`
      : 'The providers rate-limited the judges; your change is not at fault: wait a little and run `rubric-council check` again, or lower `samples`.',
  timeout: where =>
    where === 'pull-request'
      ? `The judges did not answer in time; the pull request is not at fault: ${RERUN}.`
      : "The judges did not answer in time; your change is not at fault: run `rubric-council check` again, or raise the rubric's `council.timeout`.",
  provider_error: (where, { rejected }) =>
    rejected === true
      ? where === 'pull-request'
        ? 'The providers rejected the requests themselves, so asking again will not help: a maintainer checks the model names (`provider:model`) in the rubric or the workflow.'
        : 'The providers rejected the requests themselves: check the model names (`provider:model`) in the rubric or `--models`, then run `rubric-council check` again.'
      : where === 'pull-request'
        ? `The providers failed, not the pull request: ${RERUN}.`
        : 'The providers failed, not your change: run `rubric-council check` again.',
  invalid_output: where =>
    where === 'pull-request'
      ? `The judges' answers did not fit the rubric's schema; the pull request is not at fault: ${RERUN}. If it happens again, a maintainer picks a model with structured-output support.`
      : "The judges' answers did not fit the rubric's schema: run `rubric-council check` again; if it happens again, pick another model (`--models`).",
  criterion_failed: work(
    () => "Fix the must-have criteria that failed (each shows the judges' reasons)"
  ),
  min_score: work(
    () => "Improve the criteria scored below their minimum (each shows the judges' reasons)"
  ),
  blocking_issue: work(
    where =>
      `Fix the critical and major findings (${where === 'pull-request' ? 'listed under Findings' : '`--markdown -` lists them'})`
  ),
  terminate: work(
    where =>
      `The judges consider the approach fundamentally broken: read their findings${where === 'local' ? ' (`--markdown -`)' : ''}, rework the change`
  ),
  workflow_modified: where =>
    where === 'pull-request'
      ? 'This pull request changes the workflow or action that runs this check, so the check cannot vouch for it: a maintainer reviews that change and, if it is right, comments `/council accept <reason>`.'
      : 'The change touches the workflow or action that runs this check: have a maintainer review it, since the check cannot vouch for its own machinery.',
  incomplete_coverage: (where, { diffUnread }) =>
    diffUnread === true
      ? where === 'pull-request'
        ? 'The diff could not be read, so the judges were not asked (the reason below says why): if the cause was temporary, comment `/council rerun`; otherwise a maintainer fixes the checkout (docs/troubleshooting.md).'
        : 'The diff could not be read (the reason below says why): check that `--base` names a branch or commit this clone has, then run `rubric-council check` again.'
      : where === 'pull-request'
        ? 'The judges saw too little of the change (the Coverage section lists what was left out): make the pull request smaller and push, or a maintainer raises `max-evidence-tokens`, excludes generated files or lowers `min_coverage`, then comments `/council rerun`.'
        : 'The judges saw too little of the change: exclude generated files or lower `min_coverage` in the rubric, or check a smaller change; then run `rubric-council check` again.',
  judge_disagreement: unsettled('The judges are split on a must-have'),
  low_agreement: unsettled('The judges disagree too much to decide'),
  low_score: work(
    () => 'Improve what the judges scored lowest (the dimensions and criteria show it)'
  ),
  borderline: where =>
    where === 'pull-request'
      ? `The score is between the fail and pass thresholds: improve the weakest parts and push, ${FRESH}, or ${ACCEPT}.`
      : 'The score is between the fail and pass thresholds: improve what the judges scored lowest and run `rubric-council check` again.'
}
