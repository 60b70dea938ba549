import { escapeName } from '../evidence/content.js'
import {
  REASON_CODES,
  type FailedGate,
  type Reason,
  type ReasonCode,
  type ReasonOf,
  type Tally,
  type Verdict
} from '../verdict/types.js'
import { keySteps, shortfall, shortfallStep } from './council.js'

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
export type Say<C extends ReasonCode> = (reason: ReasonOf<C>, audience: Audience) => string

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
  answer_cut: {
    reason: (facts, audience) => shortfall('answer_cut', facts, audience),
    next: shortfallStep(
      () =>
        "The judges' answers were cut at the cap on their length, not for anything in the pull request: raise the judge's `max_output_tokens` in the rubric's `council.models`, or lower its `reasoning`."
    )
  },
  context_overflow: {
    reason: (facts, audience) => shortfall('context_overflow', facts, audience),
    next: shortfallStep((_, audience) =>
      audience === 'action'
        ? "The prompt does not fit a judge's context window, so asking again will not help: a maintainer lowers `max-evidence-tokens` in the workflow, or gives the judge a larger window (`council.models: [{ model, window }]`)."
        : "The prompt does not fit a judge's context window: lower `max-evidence-tokens`, or give the judge a larger window (`council.models: [{ model, window }]` in the rubric), then run `rubric-council check` again."
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
