import { z } from 'zod'
import type { Evaluation } from '../engine/evaluation.js'
import type { HistoryEntry } from '../engine/history.js'
import { SealedJudgementSchema, type SealedJudgement } from '../engine/judgement-cache.js'
import { summaryLine } from './summary.js'

const Entry = z.object({
  iteration: z.int().positive(),
  commit: z.string().regex(/^[0-9a-f]{7,64}$/),
  verdict: z.enum(['PASS', 'FAIL', 'UNCLEAR']),
  summary: z.string().max(500),
  rubricHash: z.string().max(64),
  reasons: z.array(z.string().max(64)).max(20),
  note: z.string().max(500).optional()
})
const Login = z.string().regex(/^[A-Za-z0-9-]{1,39}(\[bot\])?$/)
const Commit = z.string().regex(/^[0-9a-f]{40,64}$/)
/** Each part is read on its own: one that does not check is dropped, the others kept. */
const State = z.object({
  v: z.literal(1),
  history: z.array(Entry).max(500).catch([]),
  judgement: SealedJudgementSchema.optional().catch(undefined),
  accepted: z
    .object({
      commit: Commit,
      by: Login,
      reason: z.string().max(500),
      commentId: z.int().positive()
    })
    .optional()
    .catch(undefined),
  rerun: z.object({ commit: Commit, by: Login }).optional().catch(undefined)
})

/**
 * What the sticky comment remembers between runs. Everything in it can be edited by a person with
 * write access, so it is only ever a hint: the history is shown as untrusted text, a judgement is
 * reused only when its seal holds, an acceptance counts only once the command comment it names is
 * checked through the API, and a rerun request can only make the judges be asked again.
 */
export interface CommentState {
  readonly history: readonly HistoryEntry[]
  /** The judges' answers of the last judged iteration (the verdict cache). */
  readonly judgement?: SealedJudgement
  /** The latest `/council accept`: for `commit` only. */
  readonly accepted?: StoredAcceptance
  /** `/council rerun` was asked for `commit`: the next run asks the judges again. */
  readonly rerun?: { readonly commit: string; readonly by: string }
}

export interface StoredAcceptance {
  readonly commit: string
  readonly by: string
  readonly reason: string
  /** The `/council accept` comment, read again through the API before the acceptance counts. */
  readonly commentId: number
}

/** The most iterations kept; older ones are dropped so the comment stays small. */
export const MAX_HISTORY = 100

const STATE_OPEN = '<!-- rubric-council-state:'
const STATE_CLOSE = ' -->'

/**
 * The history, hidden at the end of the comment as base64 JSON (base64 so that no text in it can
 * end the HTML comment). Anything unreadable is treated as no history, never as an error.
 */
export function readState(body: string): CommentState {
  const start = body.lastIndexOf(STATE_OPEN)
  if (start === -1) return { history: [] }
  const end = body.indexOf(STATE_CLOSE, start)
  if (end === -1) return { history: [] }
  try {
    const json: unknown = JSON.parse(
      Buffer.from(body.slice(start + STATE_OPEN.length, end), 'base64').toString('utf8')
    )
    const parsed = State.safeParse(json)
    if (!parsed.success) return { history: [] }
    const { history, judgement, accepted, rerun } = parsed.data
    return {
      history,
      ...(judgement && { judgement }),
      ...(accepted && { accepted }),
      ...(rerun && { rerun })
    }
  } catch {
    return { history: [] }
  }
}

export function writeState(state: CommentState): string {
  const json = { v: 1, ...state, history: state.history.slice(-MAX_HISTORY) }
  return `${STATE_OPEN}${Buffer.from(JSON.stringify(json)).toString('base64')}${STATE_CLOSE}`
}

/** The state block alone, replaced in a comment's body (or added when it has none). */
export function replaceState(body: string, state: CommentState): string {
  const start = body.lastIndexOf(STATE_OPEN)
  const end = start === -1 ? -1 : body.indexOf(STATE_CLOSE, start)
  return end === -1
    ? `${body}\n${writeState(state)}\n`
    : body.slice(0, start) + writeState(state) + body.slice(end + STATE_CLOSE.length)
}

/** What a run adds to the history: the evaluation of `commit`, in one line. */
export function historyEntry(evaluation: Evaluation, commit: string, note?: string): HistoryEntry {
  return {
    iteration: evaluation.iteration,
    commit,
    verdict: evaluation.verdict.verdict,
    summary: summaryLine(evaluation),
    rubricHash: evaluation.rubric.hash ?? '',
    reasons: evaluation.verdict.reasons.map(r => r.code),
    ...(note !== undefined && { note })
  }
}

/** An iteration that records something about the previous one (an acceptance), without a run. */
export function historyEntryNoted(
  previous: HistoryEntry,
  iteration: number,
  note: string
): HistoryEntry {
  return { ...previous, iteration, note: note.slice(0, 500) }
}
