import { z } from 'zod'
import type { Recommendation } from '../council/types.js'
import type { Evaluation } from '../engine/evaluation.js'
import type { HistoryEntry } from '../engine/history.js'
import { formatExcerpt } from '../gates/excerpt.js'
import type { GateResult, GateStatus } from '../gates/types.js'
import { worstFirst, worstVerdict, type RubricOutcome } from '../publish/rubrics.js'
import { reasonSentence } from '../sentences/reasons.js'
import { metOf, summaryLine } from '../report/summary.js'
import { failed, ok, type Result } from '../util/result.js'
import type { VerdictKind } from '../verdict/types.js'

// The doer → checker loop as data (docs/agent-loop.md): what an iteration records, what the loop
// does next, and how an iteration is shown collapsed. Pure; `run.ts` runs the iterations.

export const SESSION_SCHEMA = 'rubric-council/loop-session@1'

/** The CLI's own folder in a repository, from its root: git-ignored, by itself and by `init`. */
export const LOCAL_FOLDER = '.rubric-council'

/** Where the sessions live, from the repository's root. */
export const SESSIONS_DIR = `${LOCAL_FOLDER}/sessions`

/** A session id: one path segment that cannot be `.` or `..` nor climb out of `SESSIONS_DIR`. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/

/** What ran and how it ended, for the doer or a gate: the output is an excerpt, already masked. */
export interface CommandRecord {
  readonly command: string
  readonly verdict: GateStatus
  readonly exit_code: number | null
  readonly detail: string | null
  readonly output: string
}

/** One iteration: the doer, then the check, as `state.json` keeps it. */
export interface IterationRecord {
  readonly iteration: number
  readonly doer: CommandRecord
  readonly gates: readonly CommandRecord[]
  /** `2/3 must  1/2 nice`: the parts the rubric has; empty for a rubric of gates only. */
  readonly criteria_summary: string
  readonly verdict: VerdictKind
  /** What the loop made of the verdict: ACCEPT ends it, TERMINATE stops it, RETRY goes on. */
  readonly decision: Recommendation
  /** The verdict's reasons, in the words `check` says them. */
  readonly reasons: readonly string[]
  /** The feedback file's Markdown, handed to the next iteration's doer. */
  readonly feedback: string
  readonly rubric_hash: string | null
  /** In a repository of several rubrics, each rubric's part, worst first; absent for one rubric. */
  readonly rubrics?: readonly RubricIterationRecord[]
  readonly at: string
}

/** One rubric's part of an iteration that checked several (docs/rubric.md#several-rubrics). */
export interface RubricIterationRecord {
  readonly name: string
  readonly check_run: string
  readonly path: string
  /** NOT_APPLICABLE: no changed file matched its `paths`, so nothing was asked of it. */
  readonly verdict: VerdictKind | 'NOT_APPLICABLE'
  readonly decision: Recommendation | null
  readonly criteria_summary: string
  readonly rubric_hash: string | null
}

/**
 * How a session ended: `running` while it runs (or when its process was killed); `stopped` when a
 * check could not run; `interrupted` by Ctrl-C or SIGTERM, its finished iterations kept.
 */
export type SessionOutcome =
  'running' | 'accepted' | 'terminated' | 'exhausted' | 'stopped' | 'interrupted'

export interface SessionState {
  readonly schema: typeof SESSION_SCHEMA
  readonly session: string
  readonly doer: string
  /** The rubric read each iteration, from the repository's root. */
  readonly rubric_path: string
  /**
   * Where it is read: `base` (at the merge base, as the required check reads it: an edit of the
   * working tree's changes nothing), `head` (the working tree's), or `session` (its own rubric).
   */
  readonly rubric_source: 'base' | 'head' | 'session'
  /** The checker sugar the rubric was materialised from; null for a rubric file. */
  readonly checker: string | null
  readonly max_iterations: number
  readonly started_at: string
  readonly outcome: SessionOutcome
  readonly history: readonly IterationRecord[]
}

/** A new session's state, before its first iteration. */
export function newSessionState(session: {
  readonly id: string
  readonly doer: string
  readonly rubricPath: string
  readonly rubricSource: SessionState['rubric_source']
  /** The checker sugar the session's rubric is made of, if it is. */
  readonly checker: string | undefined
  readonly maxIterations: number
  readonly startedAt: Date
}): SessionState {
  return {
    schema: SESSION_SCHEMA,
    session: session.id,
    doer: session.doer,
    rubric_path: session.rubricPath,
    rubric_source: session.rubricSource,
    checker: session.checker ?? null,
    max_iterations: session.maxIterations,
    started_at: session.startedAt.toISOString(),
    outcome: 'running',
    history: []
  }
}

/** Why `id` is not a session id, in words; undefined when it is one. */
export function sessionIdProblem(id: string): string | undefined {
  return SESSION_ID.test(id)
    ? undefined
    : `"${id}" is not a session id (letters, digits, ".", "_" and "-", as rubric-council sessions lists them)`
}

/** A new session's id: when it started (UTC, sortable), and a random suffix. */
export function sessionId(startedAt: Date, random: string): string {
  const stamp = startedAt.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
  return `${stamp}-${random}`
}

/** What the loop does after an iteration's check, and the exit code it ends with. */
export type LoopStep =
  | { readonly next: 'retry' }
  | {
      readonly next: 'end'
      readonly outcome: Exclude<SessionOutcome, 'running' | 'stopped' | 'interrupted'>
    }

export function loopStep(
  decision: Recommendation,
  iteration: number,
  maxIterations: number
): LoopStep {
  if (decision === 'ACCEPT') return { next: 'end', outcome: 'accepted' }
  if (decision === 'TERMINATE') return { next: 'end', outcome: 'terminated' }
  return iteration >= maxIterations ? { next: 'end', outcome: 'exhausted' } : { next: 'retry' }
}

/** ACCEPT exits 0; TERMINATE and running out of iterations exit 1. */
export function loopExitCode(outcome: SessionOutcome): 0 | 1 {
  return outcome === 'accepted' ? 0 : 1
}

/** What an evaluation's gate (or the doer, run as one) recorded. */
export function commandRecord(result: GateResult): CommandRecord {
  return {
    command: result.command,
    verdict: result.status,
    exit_code: result.exitCode,
    detail: result.detail ?? null,
    output: formatExcerpt(result.output)
  }
}

/** `2/3 must  1/2 nice`, the parts the rubric has. */
export function criteriaSummary(evaluation: Evaluation): string {
  const { verdict, rubric } = evaluation
  const must = verdict.criteria.filter(c => c.required)
  const nice = verdict.criteria.filter(c => !c.required)
  return [
    ...(rubric.counts.must > 0 ? [`${metOf(must, rubric.counts.must)} must`] : []),
    ...(rubric.counts.nice > 0 ? [`${metOf(nice, rubric.counts.nice)} nice`] : [])
  ].join('  ')
}

/** The record of an iteration: the doer's run, the check's evaluation and its feedback. */
export function iterationRecord(
  iteration: number,
  doer: GateResult,
  evaluation: Evaluation,
  feedback: string,
  at: Date
): IterationRecord {
  const { verdict } = evaluation
  return {
    iteration,
    doer: commandRecord(doer),
    gates: evaluation.gates.map(commandRecord),
    criteria_summary: criteriaSummary(evaluation),
    verdict: verdict.verdict,
    decision: verdict.recommendation,
    reasons: verdict.reasons.map(r => reasonSentence(r, 'terminal')),
    feedback,
    rubric_hash: evaluation.rubric.hash ?? null,
    at: at.toISOString()
  }
}

/**
 * What the loop makes of several rubrics' checks: TERMINATE when the judges of any recommend it,
 * ACCEPT when those of every rubric that applies accept (a change no rubric applies to is accepted,
 * as every required check then succeeds "not applicable"), else RETRY.
 */
export function combinedDecision(decisions: readonly Recommendation[]): Recommendation {
  if (decisions.includes('TERMINATE')) return 'TERMINATE'
  return decisions.every(d => d === 'ACCEPT') ? 'ACCEPT' : 'RETRY'
}

/**
 * The record of an iteration that checked several rubrics: the gates of all, the worst verdict,
 * the decision of all together, the reasons each under its check run's name, and each rubric's
 * own part.
 */
export function rubricsIterationRecord(
  iteration: number,
  doer: GateResult,
  outcomes: readonly RubricOutcome[],
  feedback: string,
  at: Date
): IterationRecord {
  const sorted = worstFirst(outcomes)
  const judged = sorted.flatMap(o => (o.evaluation ? [{ ...o, evaluation: o.evaluation }] : []))
  return {
    iteration,
    doer: commandRecord(doer),
    gates: judged.flatMap(o => o.evaluation.gates.map(commandRecord)),
    criteria_summary: judged
      .map(o =>
        [o.name, o.evaluation.verdict.verdict, criteriaSummary(o.evaluation)]
          .filter(part => part !== '')
          .join(' ')
      )
      .join(', '),
    verdict: worstVerdict(outcomes),
    decision: combinedDecision(judged.map(o => o.evaluation.verdict.recommendation)),
    reasons: judged.flatMap(o =>
      o.evaluation.verdict.reasons.map(r => `${o.checkName}: ${reasonSentence(r, 'terminal')}`)
    ),
    feedback,
    rubric_hash: null,
    rubrics: sorted.map(o => ({
      name: o.name,
      check_run: o.checkName,
      path: o.path,
      verdict: o.evaluation?.verdict.verdict ?? 'NOT_APPLICABLE',
      decision: o.evaluation?.verdict.recommendation ?? null,
      criteria_summary: o.evaluation ? criteriaSummary(o.evaluation) : '',
      rubric_hash: o.evaluation?.rubric.hash ?? null
    })),
    at: at.toISOString()
  }
}

/**
 * What the next iteration's judges are told of this one: its verdict, rubric hash, summary line
 * and, as feedback, the reasons. The loop has no commit of its own (the doer may commit or not).
 */
export function loopHistoryEntry(
  iteration: number,
  evaluation: Evaluation,
  at: Date
): HistoryEntry {
  const { verdict } = evaluation
  return {
    iteration,
    commit: '',
    verdict: verdict.verdict,
    summary: summaryLine(evaluation),
    rubricHash: evaluation.rubric.hash ?? '',
    reasons: verdict.reasons.map(r => r.code),
    ...(verdict.reasons.length > 0 && {
      feedback: verdict.reasons.map(r => reasonSentence(r, 'terminal')).join('; ')
    }),
    at: at.toISOString()
  }
}

/** The collapsed line of an iteration: `iter 2  check  PASS  3/3 must  1/2 nice  gates:2/2`. */
export function collapsedLine(
  record: Pick<IterationRecord, 'iteration' | 'verdict' | 'criteria_summary'> & {
    readonly gates: readonly Pick<CommandRecord, 'verdict'>[]
  }
): string {
  const passed = record.gates.filter(g => g.verdict === 'pass').length
  return [
    `iter ${record.iteration}`,
    'check',
    record.verdict,
    ...(record.criteria_summary === '' ? [] : [record.criteria_summary]),
    ...(record.gates.length > 0 ? [`gates:${passed}/${record.gates.length}`] : [])
  ].join('  ')
}

/** What `sessions` and `rubric` read back of a state file: what they show, checked. */
const StoredState = z.object({
  schema: z.literal(SESSION_SCHEMA),
  rubric_path: z.string(),
  // Absent in the states of earlier versions, which read the working tree's.
  rubric_source: z.enum(['base', 'head', 'session']).default('head'),
  outcome: z.enum(['running', 'accepted', 'terminated', 'exhausted', 'stopped', 'interrupted']),
  history: z.array(
    z.object({
      iteration: z.int().positive(),
      verdict: z.enum(['PASS', 'FAIL', 'UNCLEAR']),
      criteria_summary: z.string(),
      gates: z.array(z.object({ verdict: z.enum(['pass', 'fail', 'error', 'timeout']) }))
    })
  )
})

export type StoredSession = z.infer<typeof StoredState>

/** A session's state file, as far as `sessions` and `rubric` read it; why not, in words. */
export function readSessionState(text: string): Result<StoredSession> {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return failed('state.json is not JSON')
  }
  const parsed = StoredState.safeParse(json)
  return parsed.success ? ok(parsed.data) : failed(`state.json is not a ${SESSION_SCHEMA} state`)
}

/** One session in `rubric-council sessions`: its id, how it ended, and its last check collapsed. */
export function sessionLine(id: string, state: Result<StoredSession>): string {
  if (!state.ok) return `${id}  unreadable: ${state.problem}`
  const last = state.value.history.at(-1)
  const check = last === undefined ? 'no check yet' : collapsedLine(last)
  return `${id}  ${state.value.outcome}  ${check}  rubric ${state.value.rubric_path}`
}
