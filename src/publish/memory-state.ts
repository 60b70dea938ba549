import { z } from 'zod'
import type { HistoryEntry } from '../engine/history.js'
import { SealedJudgementSchema, type SealedJudgement } from '../engine/judgement-cache.js'
import { COMMENT_LIMIT } from '../report/markdown.js'

/** The longest criterion id a waiver can name (rubric ids have no limit; the state has). */
export const MAX_WAIVER_ID = 64
/** The most must-haves a history entry names as waivable. */
export const MAX_WAIVABLE = 20
/**
 * The most waivers kept, all of one head commit. Each takes up to about 330 characters of the
 * state's budget; with 3, the largest judgement still fits beside the longest acceptance and a
 * history of 20 (__tests__/publish/memory.test.ts). More must-haves to waive: accept the check.
 */
export const MAX_WAIVERS = 3
const Entry = z.object({
  iteration: z.int().positive(),
  commit: z.string().regex(/^[0-9a-f]{7,64}$/),
  verdict: z.enum(['PASS', 'FAIL', 'UNCLEAR']),
  summary: z.string().max(500),
  rubricHash: z.string().max(64),
  reasons: z.array(z.string().max(64)).max(20),
  waivable: z.array(z.string().max(MAX_WAIVER_ID)).max(MAX_WAIVABLE).optional(),
  note: z.string().max(500).optional(),
  at: z.iso.datetime().optional()
})
const Login = z.string().regex(/^[A-Za-z0-9-]{1,39}(\[bot\])?$/)
const Commit = z.string().regex(/^[0-9a-f]{40,64}$/)
/** The most iterations kept per rubric among several (the whole pull request's are above). */
const MAX_RUBRIC_HISTORY = 10
const RubricPart = z.object({
  history: z.array(Entry).max(MAX_RUBRIC_HISTORY).catch([]),
  judgement: SealedJudgementSchema.optional().catch(undefined)
})
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
  rerun: z.object({ commit: Commit, by: Login }).optional().catch(undefined),
  waivers: z
    .array(
      z.object({
        commit: Commit,
        criterion: z.string().min(1).max(MAX_WAIVER_ID),
        by: Login,
        commentId: z.int().positive()
      })
    )
    .max(MAX_WAIVERS)
    .optional()
    .catch(undefined),
  heal: z
    .object({ commit: Commit, count: z.int().min(1).max(100), due: z.boolean() })
    .optional()
    .catch(undefined),
  rubrics: z.record(z.string().max(300), RubricPart).optional().catch(undefined),
  check: z.string().max(300).optional().catch(undefined)
})

/**
 * What the sticky comment remembers between runs. Everything in it can be edited by a person with
 * write access, so it is only ever a hint: the history is shown as untrusted text, a judgement is
 * reused only when its seal holds, an acceptance counts only once the command comment it names is
 * checked through the API, and a rerun request or a healing count can only cause or prevent a
 * review being run again (docs/pr-bot.md#healing).
 */
export interface CommentState {
  readonly history: readonly HistoryEntry[]
  /** The judges' answers of the last judged iteration (the verdict cache). */
  readonly judgement?: SealedJudgement
  /** The latest `/council accept`: for `commit` only. */
  readonly accepted?: StoredAcceptance
  /** `/council rerun` was asked for `commit`: the next run asks the judges again. */
  readonly rerun?: { readonly commit: string; readonly by: string }
  /**
   * The bot re-ran the review of `commit` after a provider outage (`schedule`), `count` times so
   * far; `due` until the review it started has run (and noted why it ran).
   */
  readonly heal?: StoredHeal
  /** `/council waive <criterion-id> <reason>`: each for its `commit` only. */
  readonly waivers?: readonly StoredWaiver[]
  /**
   * With several rubrics, each one's own memory by its check run's name; `history` above is then
   * the pull request's, one entry per run with the worst verdict of the rubrics that applied.
   */
  readonly rubrics?: Readonly<Record<string, RubricMemory>>
  /**
   * The check run the latest verdict was posted on (one rubric; with several, `rubrics` is keyed by
   * theirs): `/council accept` completes that one only, never the name another base would give.
   */
  readonly check?: string
}

/** What one rubric among several remembers: its last iterations and its judges' answers. */
export interface RubricMemory {
  readonly history: readonly HistoryEntry[]
  readonly judgement?: SealedJudgement
}

/**
 * No reason: the one shown is always the command comment's, read again through the API (the history
 * note records it as it was given).
 */
export interface StoredWaiver {
  readonly commit: string
  readonly criterion: string
  readonly by: string
  /** The command comment, read again through the API before the waiver counts. */
  readonly commentId: number
}

export interface StoredHeal {
  readonly commit: string
  readonly count: number
  readonly due: boolean
}

export interface StoredAcceptance {
  readonly commit: string
  readonly by: string
  readonly reason: string
  /** The `/council accept` comment, read again through the API before the acceptance counts. */
  readonly commentId: number
}

/** The most iterations kept one by one; older ones are merged into one entry. */
export const MAX_HISTORY = 200

/**
 * The most characters the hidden state may take of the comment's 65,536: room for the largest
 * sealed judgement (24,000 characters, base64 again here) and a compacted history, and the rest
 * for the report.
 */
export const STATE_BUDGET = 40_000

/** A judgement is kept only with at least this many entries of the history beside it. */
const HISTORY_BEFORE_JUDGEMENT = 20

const STATE_OPEN = '<!-- rubric-council-state:'
const STATE_CLOSE = ' -->'

/**
 * The state, hidden at the end of the comment as base64 JSON (base64 so that no text in it can end
 * the HTML comment). Anything unreadable is treated as no history, never as an error.
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
    const { history, judgement, accepted, rerun, heal, waivers, rubrics, check } = parsed.data
    return {
      history,
      ...(check !== undefined && { check }),
      ...(judgement && { judgement }),
      ...(accepted && { accepted }),
      ...(rerun && { rerun }),
      ...(heal && { heal }),
      ...(waivers && waivers.length > 0 && { waivers }),
      ...(rubrics && { rubrics: readRubrics(rubrics) })
    }
  } catch {
    return { history: [] }
  }
}

/**
 * The state block, never longer than `budget` characters when that can be done at all: the oldest
 * entries lose their summary, reasons and note first, then are merged into one entry ("N earlier
 * iterations not kept"); a judgement that would leave room for fewer than 20 entries, or not for
 * the newest whole, is not kept (it only saves a provider call). What is kept of the history is
 * always its newest end.
 */
export function writeState(state: CommentState, budget = STATE_BUDGET): string {
  const attempts = [
    { kept: state, newestWhole: true, atLeast: HISTORY_BEFORE_JUDGEMENT },
    { kept: withoutJudgement(state), newestWhole: true, atLeast: 1 },
    { kept: withoutJudgement(state), newestWhole: false, atLeast: 1 }
  ]
  for (const { kept, ...need } of attempts) {
    const history = compacted(kept, budget, need)
    if (history !== undefined) return encode({ ...kept, history })
  }
  // Not even one entry fits: the smallest state there is.
  return encode({ ...withoutJudgement(state), history: [] })
}

/**
 * The state block alone, replaced in a comment's body (or added when it has none), with the room
 * the rest of the body leaves under `limit` as its budget.
 */
export function replaceState(body: string, state: CommentState, limit = COMMENT_LIMIT): string {
  const start = body.lastIndexOf(STATE_OPEN)
  const end = start === -1 ? -1 : body.indexOf(STATE_CLOSE, start)
  if (end === -1) {
    const room = limit - body.length - 2
    return `${body}\n${writeState(state, room)}\n`
  }
  const before = body.slice(0, start)
  const after = body.slice(end + STATE_CLOSE.length)
  return before + writeState(state, limit - before.length - after.length) + after
}

/**
 * The histories of two writes of one comment made at once (two reviews overlapping), as one: every
 * run of either, each once, by iteration, except that the newest run of the head commit `head`
 * comes last, so that the newest entry is always the current head's verdict (a review of an older
 * head can start after it, and finish later). Whatever `fresh` (the comment as it is now) has
 * already compacted away stays away.
 */
export function mergeHistories(
  fresh: readonly HistoryEntry[],
  ours: readonly HistoryEntry[],
  head: string | undefined
): HistoryEntry[] {
  const key = (e: HistoryEntry): string => `${e.iteration} ${e.commit} ${e.at ?? ''}`
  const oldest = fresh[0]?.iteration ?? 0
  const seen = new Set(fresh.map(key))
  const union = [...fresh, ...ours.filter(e => e.iteration >= oldest && !seen.has(key(e)))]
  const sorted = union
    .map((entry, order) => ({ entry, order }))
    .sort((a, b) => a.entry.iteration - b.entry.iteration || a.order - b.order)
    .map(({ entry }) => entry)
  const newest = sorted.findLastIndex(e => e.commit === head)
  const last = sorted[newest]
  return last === undefined
    ? sorted
    : [...sorted.slice(0, newest), ...sorted.slice(newest + 1), last]
}

function encode(state: CommentState): string {
  return `${STATE_OPEN}${Buffer.from(json(state)).toString('base64')}${STATE_CLOSE}`
}

function json(state: CommentState): string {
  const { history, judgement, accepted, rerun, heal, waivers, rubrics, check } = state
  return JSON.stringify({
    v: 1,
    history,
    ...(check !== undefined && { check }),
    ...(judgement && { judgement }),
    ...(accepted && { accepted }),
    ...(rerun && { rerun }),
    ...(heal && { heal }),
    ...(waivers && waivers.length > 0 && { waivers: waivers.slice(-MAX_WAIVERS) }),
    ...(rubrics && {
      rubrics: Object.fromEntries(
        Object.entries(rubrics).map(([name, memory]) => [
          name,
          { ...memory, history: memory.history.slice(-MAX_RUBRIC_HISTORY) }
        ])
      )
    })
  })
}

/** Without the judges' answers, the pull request's and each rubric's (they only save calls). */
function withoutJudgement(state: CommentState): CommentState {
  const { history, accepted, rerun, heal, waivers, rubrics, check } = state
  return {
    history,
    ...(check !== undefined && { check }),
    ...(accepted && { accepted }),
    ...(rerun && { rerun }),
    ...(heal && { heal }),
    ...(waivers && { waivers }),
    ...(rubrics && {
      rubrics: Object.fromEntries(
        Object.entries(rubrics).map(([name, memory]) => [name, { history: memory.history }])
      )
    })
  }
}

function readRubrics(
  rubrics: Record<string, z.output<typeof RubricPart>>
): Record<string, RubricMemory> {
  return Object.fromEntries(
    Object.entries(rubrics).map(([name, { history, judgement }]) => [
      name,
      { history, ...(judgement && { judgement }) }
    ])
  )
}

/**
 * An entry reduced to what the history table cannot do without. One with nothing but a note (the
 * merged entry of an earlier compaction) keeps it: the note is what it says.
 */
function lean(entry: HistoryEntry): HistoryEntry {
  if (entry.summary === '' && entry.reasons.length === 0) return entry
  const { iteration, commit, verdict, rubricHash, at } = entry
  return { iteration, commit, verdict, summary: '', rubricHash, reasons: [], ...(at && { at }) }
}

/** The entry that stands for every iteration up to `last`, which are not kept. */
function merged(last: HistoryEntry): HistoryEntry {
  const n = last.iteration
  return {
    iteration: n,
    commit: last.commit,
    verdict: last.verdict,
    summary: '',
    rubricHash: last.rubricHash,
    reasons: [],
    note: `${n} earlier iteration${n === 1 ? '' : 's'} not kept`
  }
}

const bytes = (entry: HistoryEntry): number => Buffer.byteLength(JSON.stringify(entry))

/**
 * The history that fits the budget with the rest of `state`: entries from `from` on, lean before
 * `fullFrom`, with one merged entry for those before `from`. The most entries first, then the most
 * of them whole. Undefined when fewer than `atLeast` entries fit, or the newest does not fit whole
 * when it must.
 */
function compacted(
  state: CommentState,
  budget: number,
  need: { readonly newestWhole: boolean; readonly atLeast: number }
): HistoryEntry[] | undefined {
  const { history } = state
  const n = history.length
  // base64 turns 3 bytes into 4 characters.
  const jsonRoom = Math.floor((budget - STATE_OPEN.length - STATE_CLOSE.length) / 4) * 3
  const room = jsonRoom - Buffer.byteLength(json({ ...state, history: [] }))
  if (room < 0) return undefined
  const whole = history.map(bytes)
  const small = history.map(e => bytes(lean(e)))
  const cost = (from: number, fullFrom: number): number => {
    const older = history[from - 1]
    let total = older === undefined ? 0 : bytes(merged(older)) + 1
    for (let i = from; i < n; i++) total += (i >= fullFrom ? whole[i] : small[i]) ?? 0
    return total + Math.max(0, n - from - 1)
  }
  const last = need.newestWhole ? n - 1 : n
  let from = Math.max(0, n - MAX_HISTORY)
  while (from < n && cost(from, Math.max(from, last)) > room) from++
  if (n - from < Math.min(n, need.atLeast) || (n > 0 && from === n)) return undefined
  let fullFrom = from
  while (fullFrom < n && cost(from, fullFrom) > room) fullFrom++
  const older = history[from - 1]
  return [
    ...(older === undefined ? [] : [merged(older)]),
    ...history.slice(from).map((e, i) => (from + i >= fullFrom ? e : lean(e)))
  ]
}
