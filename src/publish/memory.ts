import type { Acceptance, Evaluation } from '../engine/evaluation.js'
import type { HistoryEntry } from '../engine/history.js'
import { acceptanceNote, COMMENT_LIMIT, renderMarkdown } from '../report/markdown.js'
import { summaryLine } from '../report/summary.js'
import { failed, ok, type Result } from '../util/result.js'
import {
  MAX_WAIVABLE,
  MAX_WAIVER_ID,
  replaceState,
  STATE_BUDGET,
  writeState,
  type CommentState
} from './memory-state.js'

/**
 * The sticky comment's memory: how our comments are found again, what the hidden state holds and
 * how it is read, written and kept under GitHub's 65,536 characters, the history entries, the
 * acceptance and the notes the bot adds without a review, and the comment itself.
 */

export {
  askRerun,
  keptByReview,
  markHeal,
  MAX_HISTORY,
  memoryOf,
  mergeHistories,
  mergeStates,
  noteAcceptance,
  noteWaiver,
  otherWaivers,
  readState,
  replaceState,
  STATE_BUDGET,
  writeState,
  MAX_WAIVER_ID,
  MAX_WAIVERS,
  type CommentState,
  type RubricMemory,
  type StoredAcceptance,
  type StoredHeal,
  type StoredWaiver
} from './memory-state.js'

/** The check's name, and so its comment's marker, unless `check-name` says otherwise. */
export const DEFAULT_CHECK_NAME = 'rubric-council'

/**
 * Room a review leaves in the comment for what the bot adds later without rendering the report
 * again (an acceptance's note, a history entry, the acceptance itself).
 */
const NOTES_RESERVE = 8_000

/**
 * The hidden first line that finds our comment again: one comment per pull request and check
 * name. Characters that could end the HTML comment are replaced.
 */
export function commentMarker(checkName: string): string {
  return `<!-- rubric-council:${checkName.replace(/-->|[\r\n]/g, '_')} -->`
}

/**
 * The hidden first line of the bot's reply refusing a command from `login`: finding it again is
 * how a pull request's refusals to one person stay at one. GitHub keeps the replies, and only our
 * account can write one that `comments` returns as ours.
 */
export function refusalMarker(login: string): string {
  return `<!-- rubric-council-refused:${login.replace(/[^A-Za-z0-9[\]-]/g, '_')} -->`
}

/**
 * The sticky comment: the marker, the alert about other check runs of the check's name (`alert`,
 * Markdown; '' for none), the report (with the iteration history), and the history with what else
 * the bot remembers (`kept`: the sealed judgement, an acceptance) as hidden state. The state has a
 * budget of its own, and room is left for the notes the bot adds later, so the comment is never
 * over `limit` (GitHub's 65,536 characters), whatever the number of iterations.
 */
export function renderComment(
  evaluation: Evaluation,
  checkName: string,
  kept: Omit<CommentState, 'history'> = {},
  limit = COMMENT_LIMIT,
  alert = ''
): string {
  const marker = `${commentMarker(checkName)}\n${alertBlock(alert)}`
  const reserve = Math.min(NOTES_RESERVE, Math.floor(limit / 8))
  const budget = Math.min(STATE_BUDGET, Math.floor(limit * 0.65))
  const state = `\n${writeState({ ...kept, history: evaluation.history ?? [] }, budget)}\n`
  const report = renderMarkdown(evaluation, {
    budget: limit - marker.length - state.length - reserve,
    nextStep: 'action'
  })
  return marker + report + state
}

/** What a run adds to the history: the evaluation of `commit`, in one line, recorded `at`. */
export function historyEntry(
  evaluation: Evaluation,
  commit: string,
  note: string | undefined,
  at: Date
): HistoryEntry {
  const waivable = evaluation.verdict.criteria
    .filter(c => c.required && ['FAIL', 'SPLIT', 'WAIVED'].includes(c.status))
    .map(c => c.id)
    .filter(id => id.length <= MAX_WAIVER_ID)
    .slice(0, MAX_WAIVABLE)
  return {
    iteration: evaluation.iteration,
    commit,
    verdict: evaluation.verdict.verdict,
    summary: summaryLine(evaluation),
    rubricHash: evaluation.rubric.hash ?? '',
    reasons: evaluation.verdict.reasons.map(r => r.code),
    ...(waivable.length > 0 && { waivable }),
    ...(note !== undefined && { note }),
    at: at.toISOString()
  }
}

/**
 * An iteration that records something about the previous one (an acceptance), without a run: the
 * verdict and the time it was recorded stay those of `previous`.
 */
export function historyEntryNoted(
  previous: HistoryEntry,
  iteration: number,
  note: string
): HistoryEntry {
  return { ...previous, iteration, note: note.slice(0, 500) }
}

/** The history's note for a review the bot re-ran because the provider answers again. */
const HEAL_NOTE = 're-verified after a provider outage'

/**
 * Why this iteration ran when it is not a new push: a rerun asked for, a re-run after a provider
 * outage, the base branch's rubric changed, or the same commit judged again.
 */
export function iterationNote(
  prior: readonly HistoryEntry[],
  head: string,
  rubricHash: string | undefined,
  asked: { readonly rerun?: CommentState['rerun']; readonly healed?: boolean },
  reusedFrom: number | undefined
): string | undefined {
  if (asked.rerun) return `/council rerun by @${asked.rerun.by}`
  if (asked.healed === true) return HEAL_NOTE
  const last = prior.at(-1)
  if (last?.commit !== head) return undefined
  if (rubricHash !== undefined && last.rubricHash !== '' && last.rubricHash !== rubricHash) {
    return `base rubric changed (${last.rubricHash} → ${rubricHash})`
  }
  return reusedFrom === undefined
    ? 'same commit again'
    : `answers reused from iteration ${reusedFrom}`
}

/** Why a `/council accept` has no verdict to accept. */
export type AcceptProblem =
  /** The newest verdict is not about the pull request's head commit (a push since, or none yet). */
  | 'no_verdict'
  /**
   * The verdict on the head was recorded after the command was written: the one its author read
   * was about an earlier head (a push between the command and now).
   */
  | 'verdict_after_command'

/**
 * The verdict a `/council accept` written at `commandAt` accepts, when the pull request is at
 * `head`: the newest in the history, if it is about `head` and was recorded before the command.
 * So a push made after the command, however quickly its review ran, is never accepted.
 */
export function verdictToAccept(
  history: readonly HistoryEntry[],
  head: string,
  commandAt: string | undefined
): Result<HistoryEntry, AcceptProblem> {
  const last = history.at(-1)
  if (last?.commit !== head) return failed('no_verdict')
  const recorded = Date.parse(last.at ?? '')
  const written = Date.parse(commandAt ?? '')
  // Unknown times prove nothing: refused, as the later of the two would be.
  if (!(recorded <= written)) return failed('verdict_after_command')
  return ok(last)
}

const NOTE_OPEN = '<!-- rubric-council-note -->'
const NOTE_CLOSE = '<!-- /rubric-council-note -->'
const ALERT_OPEN = '<!-- rubric-council-alert -->'
const ALERT_CLOSE = '<!-- /rubric-council-alert -->'

/** The alert about other check runs as the comment holds it, so it can be replaced; '' for none. */
function alertBlock(alert: string): string {
  return alert === '' ? '' : `${ALERT_OPEN}\n${alert}${ALERT_CLOSE}\n`
}

/**
 * The top of a comment: its marker line, the acceptance's note and the alert (each with its
 * delimiters, '' when absent), and the rest (the report and the state).
 */
function commentTop(body: string): {
  readonly marker: string
  readonly note: string
  readonly alert: string
  readonly rest: string
} {
  const newline = body.indexOf('\n')
  let rest = newline === -1 ? '' : body.slice(newline + 1)
  const block = (open: string, close: string): string => {
    const end = rest.startsWith(open) ? rest.indexOf(close) : -1
    if (end === -1) return ''
    const taken = rest.slice(0, end + close.length + 1)
    rest = rest.slice(taken.length)
    return taken
  }
  const marker = newline === -1 ? body : body.slice(0, newline)
  const note = block(NOTE_OPEN, NOTE_CLOSE)
  return { marker, note, alert: block(ALERT_OPEN, ALERT_CLOSE), rest }
}

/**
 * The comment with an acceptance's note at its top (in place of an earlier one) and `state` as
 * its state, without rendering the report again; within `limit`, or without the note when it
 * would not fit (the check run and the state still record the acceptance).
 */
export function withAcceptance(
  body: string,
  acceptance: Acceptance,
  state: CommentState,
  limit = COMMENT_LIMIT
): string {
  const { marker, alert, rest } = commentTop(body)
  const noted = replaceState(
    `${marker}\n${NOTE_OPEN}\n${acceptanceNote(acceptance)}${NOTE_CLOSE}\n${alert}${rest}`,
    state,
    limit
  )
  return noted.length <= limit ? noted : replaceState(`${marker}\n${alert}${rest}`, state, limit)
}

/**
 * The comment with `alert` (see `renderComment`) in place of the one it had, without rendering
 * the report again; as it was when that would not fit within `limit`.
 */
export function withAlert(body: string, alert: string, limit = COMMENT_LIMIT): string {
  const { marker, note, rest } = commentTop(body)
  const alerted = `${marker}\n${note}${alertBlock(alert)}${rest}`
  return alerted.length <= limit ? alerted : body
}
