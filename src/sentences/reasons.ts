import type { CouncilFailure } from '../council/types.js'
import { escapeName } from '../evidence/content.js'
import {
  REASON_CODES,
  type CouncilShortfall,
  type FailedGate,
  type Reason,
  type ReasonCode,
  type ReasonOf,
  type Tally,
  type Verdict
} from '../verdict/types.js'

/*
 * The words said to users about a verdict, by reason code and audience. Below both report/ and
 * publish/, which say them, so that neither folder imports the other's.
 */

/**
 * Who reads the words: `action`, on a pull request (the comment, the check run, the job summary,
 * the step's log), where the `/council` commands and a push start a new run; `terminal`, the user
 * of the CLI, who runs `rubric-council check` again.
 */
export const AUDIENCES = ['action', 'terminal'] as const
export type Audience = (typeof AUDIENCES)[number]

/** A sentence about a reason of one code, from its facts, in the words of one audience. */
type Say<C extends ReasonCode> = (reason: ReasonOf<C>, audience: Audience) => string

interface Sentences<C extends ReasonCode> {
  /** What decided the verdict, with its facts: the reason's line in every report. */
  readonly reason: Say<C>
  /**
   * The one thing a person should do next about it. Commands, file names and settings are in
   * backtick code spans (the Markdown report renders them as code; a terminal shows them as
   * they are).
   */
  readonly next: Say<C>
}

/** The sentence of a reason, for `audience`. Pure. */
export function reasonSentence(reason: Reason, audience: Audience): string {
  return sentencesOf(reason).reason(reason, audience)
}

/**
 * What to do next about a FAIL or UNCLEAR, in a sentence: about its most important reason (the
 * first in the decision table's order); none for PASS. Pure.
 */
export function nextStep(verdict: Verdict, audience: Audience): string | undefined {
  if (verdict.verdict === 'PASS') return undefined
  const rank = (r: Reason): number => REASON_CODES.indexOf(r.code)
  const first = [...verdict.reasons].sort((a, b) => rank(a) - rank(b))[0]
  return first === undefined ? undefined : sentencesOf(first).next(first, audience)
}

/** The table's entry for a reason's code, typed for that reason. */
function sentencesOf<C extends ReasonCode>(reason: ReasonOf<C>): Sentences<C> {
  return SENTENCES[reason.code]
}

/**
 * Why the council did not wait for a call (src/verdict/settled.ts): the answers in hand had
 * settled the verdict, for the reasons `settledBy`, whatever the call would have answered.
 */
export function cancelledSentence(settledBy: readonly string[]): string {
  const codes = settledBy.length > 0 ? ` (${settledBy.map(c => `\`${c}\``).join(', ')})` : ''
  return `cancelled, not failed: the answers in hand already decided the verdict${codes}, and no answer of this call could change it; its request was aborted, so nothing more is billed where the provider stops on disconnect`
}

/** Why no judge was asked though the rubric has criteria (`Evaluation.judgesNotAsked`). */
export const JUDGES_NOT_ASKED: Readonly<Record<'gate_failed', string>> = {
  gate_failed:
    'The judges were not asked: a gate failed, which decides FAIL whatever they would say, and `judge-after-failed-gate` is `false`, so no provider was billed. Set it to `true` for their feedback on the rest of the rubric.'
}

/** `1 PASS, 1 FAIL`, and the abstentions, of the judges' votes on a checklist criterion. */
export function describeTally(t: Tally): string {
  const parts = [`${t.pass} PASS`, `${t.fail} FAIL`]
  if (t.abstain > 0) parts.push(`${t.abstain} undecided between their samples`)
  return parts.join(', ')
}

/** Two decimals at most, no trailing zeros: 0.74, 0.8, 7.5. */
export function formatNumber(value: number): string {
  return String(Math.round(value * 100) / 100)
}

const AGAIN: Readonly<Record<Audience, string>> = {
  action: 'push; the check runs again on every push',
  terminal: 'run `rubric-council check` again'
}

const WRITE_ACCESS = '(anyone with write access to the repository may)'
const RERUN = `comment \`/council rerun\` to ask the judges again ${WRITE_ACCESS}`
const FRESH = `comment \`/council rerun\` for a fresh judgement ${WRITE_ACCESS}`
const RESERVE =
  "A model in the rubric's `council.reserve` casts the deciding vote on such a split (docs/verdict.md)."
const ACCEPT = 'a maintainer who has read the report may comment `/council accept <reason>`'

/** Work on the change (`what` starts with the verb), then push, or run the check again. */
function work<C extends ReasonCode>(what: Say<C>): Say<C> {
  return (reason, audience) => `${what(reason, audience)} and ${AGAIN[audience]}.`
}

/** The judges could not settle it: ask again, or, on a pull request, accept it knowingly. */
function unsettled<C extends ReasonCode>(what: string): Say<C> {
  return (_, audience) =>
    audience === 'action'
      ? `${what}: ${FRESH}, or ${ACCEPT}.`
      : `${what}: read their reasons and run \`rubric-council check\` again for a fresh judgement; more judges or \`samples\` make this rarer.`
}

/** A command is named in a step only when it reads well inline: one short line, no backtick. */
function nameable(command: string): boolean {
  return command.length <= 80 && !/[`\r\n]/.test(command)
}

function plural(count: number, one: string, many: string): string {
  return count === 1 ? one : many
}

function ceilingNote(capped: boolean): string {
  return capped ? ' (capped by the accuracy ceiling)' : ''
}

function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`
}

function describeGate(gate: FailedGate): string {
  switch (gate.status) {
    case 'fail':
      return gate.exitCode === null ? 'failed' : `exit ${gate.exitCode}`
    case 'timeout':
      return 'timed out'
    case 'error':
      return gate.detail === undefined ? 'could not run' : escapeName(gate.detail)
    case 'pass':
      return 'passed'
  }
}

/** What to do about each cause of row 3: the pull request is not at fault for any of them. */
const SHORTFALL_ADVICE: Readonly<Record<CouncilFailure, string>> = {
  missing_credentials: 'Set a provider API key (e.g. OPENAI_API_KEY) in the workflow’s env.',
  rejected_credentials:
    'A provider refused the API key it was given, so re-running will not help: replace the repository secret the message names with a current key allowed to use the model.',
  rate_limited:
    'The providers are rate limiting, not judging the pull request: run the job again later, raise the provider’s limits, or lower samples.',
  timeout:
    'The judges did not answer in time: run the job again, or raise the rubric’s council.timeout or lower max-evidence-tokens.',
  provider_error:
    'The providers failed, not the pull request: run the job again; if it persists, check the model names and the providers’ status.',
  invalid_output:
    'The judges’ answers did not fit the rubric’s schema: run the job again, or use models with structured-output support.'
}

/** In a terminal the keys come from the user's environment; there is no workflow to edit. */
const TERMINAL_CREDENTIALS: Readonly<
  Record<'missing_credentials' | 'rejected_credentials', string>
> = {
  missing_credentials:
    'Set OPENAI_API_KEY (or ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, OPENROUTER_API_KEY) in your environment.',
  rejected_credentials:
    'A provider refused the API key it was given, so re-running will not help: put a current key allowed to use the model in the variable the message names.'
}

/** A request the providers rejected as such will be rejected again: no "run the job again". */
const REJECTED_ADVICE =
  'The providers rejected the requests themselves, so re-running will not help: check the model names against the providers’ model lists; if the message names the schema or a parameter, please report it.'

/** Row 3's reason, the same for each cause but for the advice. */
function shortfall(code: CouncilFailure, facts: CouncilShortfall, audience: Audience): string {
  const { valid, asked, quorum, failures } = facts
  const detail =
    failures.length > 0
      ? `: ${failures.map(f => `${escapeName(f.judge)}: ${escapeName(f.message)}`).join('; ')}`
      : audience === 'terminal'
        ? ': no judge could be formed: no provider API key is set'
        : ': no judge could be formed; set an API key for a provider or name models'
  const advice =
    code === 'provider_error' && facts.rejected
      ? REJECTED_ADVICE
      : audience === 'terminal' &&
          (code === 'missing_credentials' || code === 'rejected_credentials')
        ? TERMINAL_CREDENTIALS[code]
        : SHORTFALL_ADVICE[code]
  return `the council is unavailable: ${valid} valid answer${valid === 1 ? '' : 's'} of ${asked}, quorum ${quorum}${detail}. ${advice}`
}

const FORK_SECRETS =
  'Pull requests from forks get no secrets on `pull_request`: use the fork layout (`rubric-council init --forks`).'

/** When no judge could be formed at all: no key for any provider reached the run. */
const NO_JUDGE: Readonly<Record<Audience, string>> = {
  action: `No provider API key reached the workflow, so no judge could be asked: a maintainer adds one as a repository secret (\`OPENAI_API_KEY\`, \`ANTHROPIC_API_KEY\`, …), passes it in the workflow's \`env\`, then comments \`/council rerun\`. ${FORK_SECRETS}`,
  terminal:
    'No provider API key is set, so no judge could be asked: set one in your environment (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, …) and run `rubric-council check` again.'
}

/** What kept a call from answering, after the judges it names. */
const UNANSWERED: Readonly<Record<Exclude<CouncilFailure, 'missing_credentials'>, string>> = {
  rejected_credentials: 'its key refused by the provider',
  rate_limited: 'rate-limited',
  timeout: 'timed out',
  provider_error: 'failed at the provider',
  invalid_output: 'answered outside the schema'
}

/** `a`, `a and b`, `a, b and c`. */
function inProse(items: readonly string[]): string {
  return items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`
}

/**
 * Why the calls that gave no valid answer gave none, grouped by cause: a key the provider refused
 * (naming its variable), a judge not asked (its own message says why: a key not set), or the
 * failure's word.
 */
function whyUnanswered(failures: CouncilShortfall['failures']): string {
  const groups = new Map<string, string[]>()
  const add = (cause: string, judge: string): void => {
    const judges = groups.get(cause) ?? []
    if (!judges.includes(judge)) judges.push(judge)
    groups.set(cause, judges)
  }
  for (const f of failures) {
    if (f.keyRejected !== undefined)
      add(`the provider refused the key in \`${f.keyRejected}\``, f.judge)
    // Not asked: the council's message says why (`OPENAI_API_KEY is not set; this judge was not asked`).
    else if (f.failure === 'missing_credentials')
      add(`not asked: ${f.message.split(';')[0] ?? ''}`, f.judge)
    // A retired model: the message names its date and what to use instead.
    else if (f.notAsked)
      add(`not asked: ${f.message.replace(/; this judge was not asked$/, '')}`, f.judge)
    else add(UNANSWERED[f.failure], f.judge)
  }
  return [...groups].map(([cause, judges]) => `${cause} (${inProse(judges)})`).join('; ')
}

/**
 * A next step for a council short of its quorum: how many answered of how many and why the others
 * did not, then what to do about the cause (`what`). When no judge could be formed at all, the
 * only cause is that no provider key is set.
 */
function shortfallStep<C extends CouncilFailure>(what: Say<C>): Say<C> {
  return (reason, audience) => {
    const { valid, asked, quorum, failures } = reason
    if (asked === 0) return NO_JUDGE[audience]
    const lead =
      valid === 0
        ? `No judge answered`
        : `Only ${valid} of ${asked} judges answered (the quorum is ${quorum})`
    const why = failures.length > 0 ? `: ${whyUnanswered(failures)}` : ''
    return `${lead}${why}. ${what(reason, audience)}`
  }
}

/**
 * What to do about the keys of a council short of its quorum: replace those the providers refused
 * (naming their variables), set those missing; then run again.
 */
function keySteps({ failures }: CouncilShortfall, audience: Audience): string {
  const refused = [...new Set(failures.flatMap(f => f.keyRejected ?? []))]
  const missing = refused.length === 0 || failures.some(f => f.failure === 'missing_credentials')
  const keys = refused.map(k => `\`${k}\``).join(' and ')
  const many = refused.length > 1
  if (audience === 'action') {
    const steps = [
      ...(refused.length > 0
        ? [
            `replaces the repository ${many ? 'secrets' : 'secret'} ${keys} with ${many ? 'current keys' : 'a current key'} allowed to use the model`
          ]
        : []),
      ...(missing
        ? [
            "adds the missing keys as repository secrets and passes them in the workflow's `env` (or names only judges with a key)"
          ]
        : [])
    ]
    return `A maintainer ${steps.join(' and ')}, then comments \`/council rerun\`.${missing ? ` ${FORK_SECRETS}` : ''}`
  }
  const steps = [
    ...(refused.length > 0
      ? [
          `replace the ${many ? 'keys' : 'key'} in ${keys} with ${many ? 'current ones' : 'a current one'} allowed to use the model`
        ]
      : []),
    ...(missing
      ? [
          'set the missing keys in your environment, or name only judges whose key you have (`--models` or the rubric’s `council.models`)'
        ]
      : [])
  ]
  const said = steps.join('; ')
  return `${said.charAt(0).toUpperCase()}${said.slice(1)}, and run \`rubric-council check\` again.`
}

/** Every reason code's sentences; a code without them does not typecheck. */
const SENTENCES: { readonly [C in ReasonCode]: Sentences<C> } = {
  invalid_rubric: {
    reason: ({ problems }) =>
      `the rubric has ${problems} ${plural(problems, 'problem', 'problems')}; fix ${plural(problems, 'it', 'them')} and run again`,
    next: (_, audience) =>
      audience === 'action'
        ? 'A maintainer fixes the rubric on the base branch (or here, with `rubric-source: head`); each problem below names its line. Then comment `/council rerun`.'
        : 'Fix the rubric (each problem below names its line; `rubric-council validate` checks it) and run `rubric-council check` again.'
  },
  invalid_input: {
    reason: ({ problem }) => problem,
    next: (_, audience) =>
      audience === 'action'
        ? "A maintainer fixes the workflow's inputs to the action (the reason below names the value), then comments `/council rerun`."
        : 'Fix the options named below and run `rubric-council check` again.'
  },
  gate_failed: {
    reason: ({ failed, of }) =>
      `${failed.length} of ${of} ${plural(of, 'gate', 'gates')} did not pass: ` +
      failed.map(g => `"${escapeName(g.command)}" (${describeGate(g)})`).join(', '),
    next: work(({ failed }, audience) => {
      const only = failed.length === 1 ? failed[0]?.command : undefined
      return only === undefined || !nameable(only)
        ? 'Fix the gates that failed (the report shows their output)'
        : `Run \`${only}\`${audience === 'action' ? ' locally' : ''} to see why it failed, fix it`
    })
  },
  missing_credentials: {
    reason: (facts, audience) => shortfall('missing_credentials', facts, audience),
    next: shortfallStep(keySteps)
  },
  rejected_credentials: {
    reason: (facts, audience) => shortfall('rejected_credentials', facts, audience),
    next: shortfallStep(keySteps)
  },
  rate_limited: {
    reason: (facts, audience) => shortfall('rate_limited', facts, audience),
    next: shortfallStep((_, audience) =>
      audience === 'action'
        ? `The providers rate-limited the judges; the pull request is not at fault: ${RERUN}.`
        : 'The providers rate-limited the judges; your change is not at fault: wait a little and run `rubric-council check` again, or lower `samples`.'
    )
  },
  timeout: {
    reason: (facts, audience) => shortfall('timeout', facts, audience),
    next: shortfallStep((_, audience) =>
      audience === 'action'
        ? `The judges did not answer in time; the pull request is not at fault: ${RERUN}.`
        : "The judges did not answer in time; your change is not at fault: run `rubric-council check` again, or raise the rubric's `council.timeout`."
    )
  },
  provider_error: {
    reason: (facts, audience) => shortfall('provider_error', facts, audience),
    next: shortfallStep(({ rejected }, audience) =>
      rejected
        ? audience === 'action'
          ? 'The providers rejected the requests themselves, so asking again will not help: a maintainer checks the model names (`provider:model`) in the rubric or the workflow.'
          : 'The providers rejected the requests themselves: check the model names (`provider:model`) in the rubric or `--models`, then run `rubric-council check` again.'
        : audience === 'action'
          ? `The providers failed, not the pull request: ${RERUN}.`
          : 'The providers failed, not your change: run `rubric-council check` again.'
    )
  },
  invalid_output: {
    reason: (facts, audience) => shortfall('invalid_output', facts, audience),
    next: shortfallStep((_, audience) =>
      audience === 'action'
        ? `The judges' answers did not fit the rubric's schema; the pull request is not at fault: ${RERUN}. If it happens again, a maintainer picks a model with structured-output support.`
        : "The judges' answers did not fit the rubric's schema: run `rubric-council check` again; if it happens again, pick another model (`--models`)."
    )
  },
  criterion_failed: {
    reason: ({ criteria }) =>
      `must-have ${plural(criteria.length, 'criterion', 'criteria')} failed by a majority of judges: ${criteria.join(', ')}`,
    next: work(() => "Fix the must-have criteria that failed (each shows the judges' reasons)")
  },
  min_score: {
    reason: ({ criteria }) =>
      criteria
        .map(c => `${c.id} scored ${formatNumber(c.median)}, below its minimum of ${c.minimum}`)
        .join('; '),
    next: work(
      () => "Improve the criteria scored below their minimum (each shows the judges' reasons)"
    )
  },
  blocking_issue: {
    reason: ({ judges, of, rule }) =>
      `${judges} of ${of} judges reported a blocking (critical or major) finding` +
      (rule === 'any' ? ' (the rubric fails on any)' : ''),
    next: work(
      (_, audience) =>
        `Fix the critical and major findings (${audience === 'action' ? 'listed under Findings' : 'the full report lists them'})`
    )
  },
  terminate: {
    reason: ({ judges, of }) =>
      `${judges} of ${of} judges recommend TERMINATE: the approach is fundamentally broken`,
    next: work(
      (_, audience) =>
        `The judges consider the approach fundamentally broken: read their findings${audience === 'terminal' ? ' (in the full report)' : ''}, rework the change`
    )
  },
  workflow_modified: {
    reason: ({ paths }) => {
      // Names from the pull request: one line each, controls and bidirectional marks escaped.
      const shown =
        paths.slice(0, 10).map(escapeName).join(', ') +
        (paths.length > 10 ? `, and ${paths.length - 10} more` : '')
      return (
        `the pull request changes what runs this check: ${shown}. On pull_request the workflow comes from the pull request itself, so the check cannot vouch for it. ` +
        'A maintainer should review these changes: merge them on that review (an administrator can bypass the required check), or land them on the base branch first in a pull request of their own'
      )
    },
    next: (_, audience) =>
      audience === 'action'
        ? 'This pull request changes the workflow or action that runs this check, so the check cannot vouch for it: a maintainer reviews that change and, if it is right, comments `/council accept <reason>`.'
        : 'The change touches the workflow or action that runs this check: have a maintainer review it, since the check cannot vouch for its own machinery.'
  },
  incomplete_coverage: {
    reason: facts =>
      facts.cause === 'unread'
        ? facts.judged
          ? `the judges were not asked: ${facts.problem}`
          : `the changed files could not be read: ${facts.problem}`
        : `the judges saw ${percent(facts.coverage)} of the reviewable changed files; the rubric needs ${percent(facts.minimum)}. ` +
          'The coverage receipt lists what was left out: raise max-evidence-tokens, exclude generated files, or lower min_coverage',
    next: ({ cause }, audience) =>
      cause === 'unread'
        ? audience === 'action'
          ? 'The diff could not be read, so the judges were not asked (the reason below says why): if the cause was temporary, comment `/council rerun`; otherwise a maintainer fixes the checkout (docs/troubleshooting.md).'
          : 'The diff could not be read (the reason below says why): check that `--base` names a branch or commit this clone has, then run `rubric-council check` again.'
        : audience === 'action'
          ? 'The judges saw too little of the change (the Coverage section lists what was left out): make the pull request smaller and push, or a maintainer raises `max-evidence-tokens`, excludes generated files or lowers `min_coverage`, then comments `/council rerun`.'
          : 'The judges saw too little of the change: exclude generated files or lower `min_coverage` in the rubric, or check a smaller change; then run `rubric-council check` again.'
  },
  judge_disagreement: {
    reason: ({ split, ungraded }) =>
      [
        ...(split.length === 0
          ? []
          : [
              `judges are split on must-have ${plural(split.length, 'criterion', 'criteria')}: ` +
                split.map(c => `${c.id} (${describeTally(c.tally)})`).join(', ')
            ]),
        ...(ungraded.length === 0
          ? []
          : [
              `no judge graded must-have ${plural(ungraded.length, 'criterion', 'criteria')}: ${ungraded.join(', ')}`
            ])
      ].join('; '),
    next: (_, audience) =>
      audience === 'action'
        ? `The judges are split on a must-have: ${FRESH}, or ${ACCEPT}. ${RESERVE}`
        : `The judges are split on a must-have: read their reasons and run \`rubric-council check\` again for a fresh judgement. ${RESERVE}`
  },
  low_agreement: {
    reason: ({ confidence, threshold }) =>
      `judge agreement ${formatNumber(confidence)} is below the threshold ${formatNumber(threshold)}`,
    next: unsettled('The judges disagree too much to decide')
  },
  low_score: {
    reason: ({ score, fail, capped }) =>
      `score ${formatNumber(score)} is below the fail threshold ${formatNumber(fail)}${ceilingNote(capped)}`,
    next: work(() => 'Improve what the judges scored lowest (the dimensions and criteria show it)')
  },
  borderline: {
    reason: ({ score, fail, pass, capped }) =>
      `score ${formatNumber(score)} is between the fail (${formatNumber(fail)}) and pass (${formatNumber(pass)}) thresholds${ceilingNote(capped)}`,
    next: (_, audience) =>
      audience === 'action'
        ? `The score is between the fail and pass thresholds: improve the weakest parts and push, ${FRESH}, or ${ACCEPT}.`
        : 'The score is between the fail and pass thresholds: improve what the judges scored lowest and run `rubric-council check` again.'
  }
}
