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
const Acceptance = z.object({
  commit: Commit,
  by: Login,
  reason: z.string().max(500),
  /** The `/council accept` comment, read again through the API before the acceptance counts. */
  commentId: z.int().positive()
})
/**
 * No reason: the one shown is always the command comment's, read again through the API (the
 * history note records it as it was given).
 */
const Waiver = z.object({
  commit: Commit,
  criterion: z.string().min(1).max(MAX_WAIVER_ID),
  by: Login,
  /** The command comment, read again through the API before the waiver counts. */
  commentId: z.int().positive()
})
const Heal = z.object({ commit: Commit, count: z.int().min(1).max(100), due: z.boolean() })

/**
 * What the sticky comment remembers between runs: the one declaration of its fields, which the
 * types below are derived from. Everything in it can be edited by a person with write access, so
 * it is only ever a hint: the history is shown as untrusted text, a judgement is reused only when
 * its seal holds, an acceptance or a waiver counts only once the command comment it names is
 * checked through the API, and a rerun request or a healing count can only cause or prevent a
 * review being run again (docs/pr-bot.md#healing). Each part is read on its own: one that does
 * not check is dropped, the others kept.
 */
const Parts = {
  history: z.array(Entry).max(500).catch([]),
  /** The judges' answers of the last judged iteration (the verdict cache). */
  judgement: SealedJudgementSchema.optional().catch(undefined),
  /** The latest `/council accept`: for `commit` only. */
  accepted: Acceptance.optional().catch(undefined),
  /** `/council rerun` was asked for `commit`: the next run asks the judges again. */
  rerun: z.object({ commit: Commit, by: Login }).optional().catch(undefined),
  /** `/council waive <criterion-id> <reason>`: each for its `commit` only. */
  waivers: z.array(Waiver).max(MAX_WAIVERS).optional().catch(undefined),
  /**
   * The bot re-ran the review of `commit` after a provider outage (`schedule`), `count` times so
   * far; `due` until the review it started has run (and noted why it ran).
   */
  heal: Heal.optional().catch(undefined),
  /**
   * With several rubrics, each one's own memory by its check run's name; `history` above is then
   * the pull request's, one entry per run with the worst verdict of the rubrics that applied.
   */
  rubrics: z.record(z.string().max(300), RubricPart).optional().catch(undefined),
  /**
   * The check run the latest verdict was posted on (one rubric; with several, `rubrics` is keyed by
   * theirs): `/council accept` completes that one only, never the name another base would give.
   */
  check: z.string().max(300).optional().catch(undefined)
}
const State = z.object({ v: z.literal(1), ...Parts })

type Part<K extends keyof typeof Parts> = Exclude<z.output<(typeof Parts)[K]>, undefined>

/** The sticky comment's memory (see `Parts`); a part that is absent is not there. */
export type CommentState = { readonly history: readonly HistoryEntry[] } & {
  readonly [K in Exclude<keyof typeof Parts, 'history'>]?: K extends 'rubrics'
    ? Readonly<Record<string, RubricMemory>>
    : K extends 'waivers'
      ? readonly StoredWaiver[]
      : Part<K>
}

/** What one rubric among several remembers: its last iterations and its judges' answers. */
export interface RubricMemory {
  readonly history: readonly HistoryEntry[]
  readonly judgement?: SealedJudgement
}

export type StoredWaiver = Readonly<z.output<typeof Waiver>>
export type StoredHeal = Readonly<z.output<typeof Heal>>
export type StoredAcceptance = Readonly<z.output<typeof Acceptance>>

/**
 * How each part (but the history, which is always merged) is taken when two runs wrote the comment
 * at once (`mergeStates`): `asked`, what someone asked for meanwhile (the comment's, when it
 * changed since this run read it, else this run's); `shown`, what goes with the report shown (this
 * run's when its head is the current one). A part added to `Parts` does not compile until it is
 * placed here.
 */
const MERGE: Readonly<Record<Exclude<keyof typeof Parts, 'history'>, 'asked' | 'shown'>> = {
  judgement: 'shown',
  rubrics: 'shown',
  check: 'shown',
  accepted: 'asked',
  rerun: 'asked',
  heal: 'asked',
  waivers: 'asked'
}

/** The state without the parts that are absent (or, for the waivers, empty). */
function present(state: Record<string, unknown>): CommentState {
  return Object.fromEntries(
    Object.entries(state).filter(
      ([name, value]) => value !== undefined && !(name === 'waivers' && isEmptyList(value))
    )
  ) as unknown as CommentState
}

const isEmptyList = (value: unknown): boolean => Array.isArray(value) && value.length === 0

/**
 * The state to write when the comment changed since this run read it (`read`): another review
 * wrote `fresh` meanwhile. Both runs stay in the history; what goes with the report is `ours` when
 * this run is the current head's; what someone asked for meanwhile is kept (see `MERGE`).
 */
export function mergeStates(
  states: {
    readonly read: CommentState
    readonly fresh: CommentState
    readonly ours: CommentState
  },
  head: string | undefined,
  oursIsCurrent: boolean
): CommentState {
  const { read, fresh, ours } = states
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)
  const merged: Record<string, unknown> = {
    history: mergeHistories(fresh.history, ours.history, head)
  }
  for (const [part, rule] of Object.entries(MERGE)) {
    const name = part as keyof typeof MERGE
    merged[name] =
      rule === 'shown'
        ? (oursIsCurrent ? ours : fresh)[name]
        : same(fresh[name], read[name])
          ? ours[name]
          : fresh[name]
  }
  return present(merged)
}

/** What one rubric remembers: the pull request's state for a rubric alone, else its own part. */
export function memoryOf(state: CommentState, checkName: string, alone: boolean): RubricMemory {
  if (!alone) return state.rubrics?.[checkName] ?? { history: [] }
  return { history: state.history, ...(state.judgement && { judgement: state.judgement }) }
}

/**
 * What a review keeps besides the history: each rubric's memory (for a rubric alone, its judges'
 * answers and the check run's name at the top), and what was asked of this head that still holds.
 */
export function keptByReview(review: {
  readonly rubrics: readonly { readonly checkName: string; readonly memory: RubricMemory }[]
  readonly alone: boolean
  readonly accepted?: StoredAcceptance | undefined
  readonly heal?: StoredHeal | undefined
  readonly waivers: readonly StoredWaiver[]
}): Omit<CommentState, 'history'> {
  const [first] = review.rubrics
  const own =
    review.alone && first
      ? { check: first.checkName, judgement: first.memory.judgement }
      : { rubrics: Object.fromEntries(review.rubrics.map(r => [r.checkName, r.memory])) }
  return present({
    history: [],
    ...own,
    accepted: review.accepted,
    heal: review.heal,
    waivers: review.waivers
  })
}

/** `/council rerun` asked for `commit`: the judges' answers go (each rubric's history stays). */
export function askRerun(
  state: CommentState,
  rerun: { readonly commit: string; readonly by: string }
): CommentState {
  return { ...withoutJudgement(state), rerun }
}

/** A maintainer's acceptance of the verdict on its commit, with the history's note of it. */
export function noteAcceptance(
  state: CommentState,
  note: HistoryEntry,
  accepted: StoredAcceptance
): CommentState {
  return { ...state, history: [...state.history, note], accepted }
}

/** The waivers recorded for `commit`, but the one of `criterion` (which a new one replaces). */
export function otherWaivers(
  state: CommentState,
  commit: string,
  criterion: string
): StoredWaiver[] {
  return (state.waivers ?? []).filter(w => w.commit === commit && w.criterion !== criterion)
}

/** A maintainer's waiver, in place of the other waivers of its commit and criterion. */
export function noteWaiver(
  state: CommentState,
  note: HistoryEntry,
  waiver: StoredWaiver
): CommentState {
  return {
    ...state,
    history: [...state.history, note],
    waivers: [...otherWaivers(state, waiver.commit, waiver.criterion), waiver]
  }
}

/** The bot re-runs the review of a head after a provider outage: counted, and due. */
export function markHeal(state: CommentState, heal: StoredHeal): CommentState {
  return { ...state, heal }
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
    const { rubrics, ...parts } = parsed.data
    return present({ ...parts, v: undefined, rubrics: rubrics && readRubrics(rubrics) })
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
  const { waivers, rubrics } = state
  return JSON.stringify({
    v: 1,
    ...present({
      ...state,
      waivers: waivers?.slice(-MAX_WAIVERS),
      rubrics:
        rubrics &&
        Object.fromEntries(
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
  const { rubrics } = state
  return present({
    ...state,
    judgement: undefined,
    rubrics:
      rubrics &&
      Object.fromEntries(
        Object.entries(rubrics).map(([name, memory]) => [name, { history: memory.history }])
      )
  })
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
