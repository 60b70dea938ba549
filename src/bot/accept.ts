import { nextIteration, type HistoryEntry } from '../engine/history.js'
import type { IssueComment } from '../github/comment.js'
import {
  historyEntryNoted,
  noteAcceptance,
  noteWaiver,
  otherWaivers,
  readState,
  replaceState,
  verdictToAccept,
  withAcceptance,
  withAlert,
  MAX_WAIVER_ID,
  MAX_WAIVERS,
  type CommentState,
  type StoredWaiver
} from '../publish/memory.js'
import { escapeMarkdown } from '../report/escape.js'
import { failed, ok, type Result } from '../util/result.js'
import type { Command, CommandComment, Said } from './commands.js'
import { REPLY } from './replies.js'

/**
 * `/council accept <reason>` and `/council waive <criterion-id> <reason>`: what each decides of
 * the verdict on the head, the comment's state and the check runs, given what was read. Pure.
 */

/** The sticky comment and the verdict on the head a command written then is about. */
export interface OnHead {
  readonly head: string
  readonly ours: IssueComment
  readonly state: CommentState
  readonly last: HistoryEntry
}

/**
 * The verdict a command is about: the newest, on the pull request's `head` now, given before the
 * command was written, in our comment (`ours`). Otherwise what tells the commenter why there is
 * none.
 */
export function verdictOnHead(
  ours: IssueComment | undefined,
  head: string,
  comment: CommandComment,
  verb: 'accept' | 'waive'
): Result<OnHead, Said> {
  const state = ours ? readState(ours.body) : { history: [] }
  const verdict = verdictToAccept(state.history, head, comment.writtenAt)
  if (ours && verdict.ok) return ok({ head, ours, state, last: verdict.value })
  const { who } = comment
  return failed({
    reply:
      verdict.ok || verdict.problem === 'no_verdict'
        ? REPLY.noVerdict(who, head, verb)
        : REPLY.changedSince(who, head, verb),
    notice: `/council ${verb} by ${who} not taken for ${head.slice(0, 7)}: ${verdict.ok ? 'no comment' : verdict.problem}`
  })
}

/**
 * The rubrics judged on `head`, among the several the state remembers, that are this check's own
 * under its base now (`own`: the names its check runs have there).
 */
export function ownRubricNames(
  rubrics: NonNullable<CommentState['rubrics']>,
  head: string,
  own: ReadonlySet<string>
): string[] {
  return Object.entries(rubrics).flatMap(([name, memory]) =>
    memory.history.at(-1)?.commit === head && own.has(name) ? [name] : []
  )
}

/**
 * The one rubric's check run names to accept for a pull request whose base gives it `name`: the
 * name the state records (`recorded`) when it is that one; undefined for a state written before it
 * did, when this check's own runs on the head must say.
 */
export function recordedCheckName(
  recorded: string | undefined,
  name: string
): string[] | undefined {
  if (recorded === undefined) return undefined
  return recorded === name ? [name] : []
}

/**
 * An acceptance's text on a check run it completes as `success`: who, why, and which verdict of
 * `onHead` it accepts, after the alert about other check runs of its name (`alert`, '' for none).
 */
export function acceptanceOutput(
  onHead: OnHead,
  by: string,
  reason: string,
  alert: string
): { readonly title: string; readonly summary: string } {
  const { head, ours, last } = onHead
  return {
    title: `Accepted by @${by}: ${reason}`,
    summary:
      alert +
      `@${by} accepted the council's verdict on ${head.slice(0, 7)} ` +
      `(${last.verdict}${last.reasons.length > 0 ? `: ${last.reasons.join(', ')}` : ''}): ${escapeMarkdown(reason)}\n\n` +
      `It holds for this commit only; a new push is judged again. The report: ${ours.html_url}`
  }
}

/**
 * Our comment once an acceptance is recorded: its history notes who and why, its state keeps the
 * command to check again, and with one rubric it carries the alert of its check run (`alert`).
 */
export function acceptedComment(
  onHead: OnHead,
  comment: CommandComment,
  reason: string,
  alert: string
): string {
  const { head, ours, state, last } = onHead
  const by = comment.login
  const noted = withAcceptance(
    ours.body,
    { by, reason, commit: head },
    noteAcceptance(
      state,
      historyEntryNoted(last, nextIteration(state.history), `accepted by @${by}: ${reason}`),
      { commit: head, by, reason, commentId: comment.commentId }
    )
  )
  // The comment of several rubrics has no alert: each rubric's check run carries its own.
  return state.rubrics ? noted : withAlert(noted, alert)
}

/**
 * What refuses a waiver before its verdict is read, from the base branch's rubrics (`criteria`:
 * id → must-have, read through the API, never the pull request's): an unknown id (naming the
 * must-haves that exist), a nice-to-have, no reason. Undefined when none does.
 */
export function waiverRefused(
  who: string,
  command: Extract<Command, { kind: 'waive' }>,
  criteria: ReadonlyMap<string, boolean> | undefined
): string | undefined {
  const { criterion } = command
  const known = criteria?.get(criterion)
  if (known === undefined) return REPLY.unknownCriterion(who, criterion, criteria)
  if (!known) return REPLY.niceToHave(who, criterion)
  return command.reason === '' ? REPLY.waiveWhy(who, criterion) : undefined
}

/**
 * Our comment with `waiver` kept in its state for the head (and noted in its history), or why it
 * is not: an id too long to keep, a must-have that did not fail or split on the head, a head with
 * the most waivers already. `note` is the history's words.
 */
export function waivedComment(
  onHead: OnHead,
  waiver: StoredWaiver,
  reason: string
): Result<{ readonly body: string; readonly note: string }, Said> {
  const { head, ours, state, last } = onHead
  const who = `@${waiver.by}`
  if (waiver.criterion.length > MAX_WAIVER_ID) {
    return failed({ reply: REPLY.idTooLong(who, MAX_WAIVER_ID) })
  }
  if (!(last.waivable ?? []).includes(waiver.criterion)) {
    return failed({
      reply: REPLY.notWaivable(who, waiver.criterion, head),
      notice: `/council waive ${waiver.criterion} by ${who} not taken: it did not fail on ${head.slice(0, 7)}`
    })
  }
  if (otherWaivers(state, head, waiver.criterion).length >= MAX_WAIVERS) {
    return failed({ reply: REPLY.tooManyWaivers(who, head, MAX_WAIVERS) })
  }
  const note = `waived ${waiver.criterion} by ${who}: ${reason}`
  const noted = historyEntryNoted(last, nextIteration(state.history), note)
  return ok({ body: replaceState(ours.body, noteWaiver(state, noted, waiver)), note })
}
