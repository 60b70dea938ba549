import { cacheLookup, type RecordedCall } from '../../__tests__/helpers/provider-standin.js'
import { PromptCache, tokensOf } from '../../__tests__/helpers/providers/prompt-cache.js'
import { estimateCost } from '../../src/council/pricing.js'

/**
 * The lifecycle figure's prompts under other layouts of the diff: the requests one run of the
 * bundle sent, push by push, with the diff block rewritten as another layout would lay it out,
 * replayed through the provider stand-ins' own cache rules (`cacheLookup`) on a fresh cache. Only
 * the diff block changes: the instructions, the rubric, the other blocks and each request's
 * content blocks and breakpoints stay as the bundle sent them. Only the layouts the product does
 * not have are replayed: its own orders (`evidence-order`) are measured by running it; today's
 * replay checks the replay against what the run measured.
 */

export type Layout = 'today' | 'append-only'

export const LAYOUTS: readonly { readonly id: Layout; readonly name: string }[] = [
  { id: 'today', name: "today's file order (replayed)" },
  { id: 'append-only', name: "append-only (last push's diff + changed files; replayed)" }
]

/** One provider's tokens over the five pushes under a layout. */
export interface ReplayedTokens {
  readonly provider: string
  readonly model: string
  readonly input: number
  readonly cached: number
  readonly written: number
  readonly output: number
  /** `estimateCost` of the tokens above; NaN for an unpriced model. */
  readonly costUsd: number
}

export interface LayoutReplay {
  readonly layout: Layout
  readonly providers: readonly ReplayedTokens[]
}

export interface LayoutFigure {
  /**
   * Of the pushes' input (today's layout), the share a prefix cache could serve at most with the
   * pull request's current code only: per later push, everything before the diff and every file
   * unchanged since an earlier push in front, as if the layout knew which files the push changes.
   * Push 1 is new to every cache. Append-only can exceed it: it also sends the stale code.
   */
  readonly ceiling: number
  readonly layouts: readonly LayoutReplay[]
  /** Providers whose requests carry breakpoints inside the diff: not replayed (`withDiff`). */
  readonly notReplayed: readonly string[]
}

const DIFF_OPEN = '<data name="diff">\n'
const FENCE_CLOSE = '\n</DATA-'

/** The diff block's text in a prompt, as sent (its last line end included). */
function diffOf(text: string): { readonly at: number; readonly diff: string } {
  const open = text.indexOf(DIFF_OPEN)
  const end = open < 0 ? -1 : text.indexOf(FENCE_CLOSE, open)
  if (end < 0) throw new Error(`layout replay: no diff block in the prompt "${text.slice(0, 80)}…"`)
  const at = open + DIFF_OPEN.length
  return { at, diff: text.slice(at, end + 1) }
}

interface Section {
  /** The section's `diff --git` line: which file it is. */
  readonly file: string
  readonly text: string
}

function sectionsOf(diff: string): Section[] {
  return diff
    .split(/(?=^diff --git )/m)
    .filter(text => text !== '')
    .map(text => ({ file: text.slice(0, text.indexOf('\n')), text }))
}

const joined = (sections: readonly Section[]): string => sections.map(s => s.text).join('')

/** The sections of `now` that differ from (or are not in) `before`. */
function changed(now: readonly Section[], before: readonly Section[]): Section[] {
  const was = new Map(before.map(s => [s.file, s.text]))
  return now.filter(s => was.get(s.file) !== s.text)
}

/** Each push's diff text under `layout`, from each push's sections in today's order. */
function laidOut(pushes: readonly (readonly Section[])[], layout: Layout): string[] {
  if (layout === 'today') return pushes.map(joined)
  const out: string[] = []
  pushes.forEach((sections, p) => {
    const before = pushes[p - 1]
    out.push(
      before === undefined
        ? joined(sections)
        : `${out[p - 1] ?? ''}${joined(changed(sections, before))}`
    )
  })
  return out
}

/** `value` with the one string that holds `from` holding `to` there instead. */
function replaced(value: unknown, from: string, to: string, found: { count: number }): unknown {
  if (typeof value === 'string') {
    const at = value.indexOf(from)
    if (at < 0) return value
    found.count++
    return value.slice(0, at) + to + value.slice(at + from.length)
  }
  if (Array.isArray(value)) return value.map(v => replaced(v, from, to, found))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, replaced(v, from, to, found)])
    )
  }
  return value
}

/**
 * `call` as it would have gone with `diff` in its diff block; undefined when its diff is split
 * across content blocks (a model given breakpoints inside the diff, src/council/breakpoints.ts):
 * another layout would move those, and only the product places them.
 */
function withDiff(call: RecordedCall, diff: string): RecordedCall | undefined {
  const { at, diff: sent } = diffOf(call.text)
  const found = { count: 0 }
  const body = replaced(call.body, sent, diff, found)
  if (found.count !== 1) return undefined
  return { ...call, body, text: call.text.slice(0, at) + diff + call.text.slice(at + sent.length) }
}

/** The ceiling (see `LayoutFigure`) over recorded pushes, in today's layout. */
function ceilingOf(recorded: readonly (readonly RecordedCall[])[]): number {
  let input = 0
  let served = 0
  const earlier: Section[][] = []
  recorded.forEach(calls => {
    for (const call of calls) {
      const { at, diff } = diffOf(call.text)
      const sections = sectionsOf(diff)
      input += tokensOf(call.text)
      if (earlier.length === 0) continue
      const kept = Math.max(
        ...earlier.map(before => joined(sections).length - joined(changed(sections, before)).length)
      )
      served += Math.floor((at + kept) / 4)
    }
    const first = calls[0]
    if (first !== undefined) earlier.push(sectionsOf(diffOf(first.text).diff))
  })
  return input === 0 ? 0 : served / input
}

/**
 * Replays `recorded` (per push, the judge requests in the order they arrived) under each layout.
 * `outputOf` gives a call's output tokens, which no layout changes. The calls of one push arrive
 * together: all are looked up before any is stored, as on the stand-ins, where a prefix is
 * readable only once its request has been answered.
 */
export function replayLayouts(
  recorded: readonly (readonly RecordedCall[])[],
  outputOf: (push: number, provider: string) => number
): LayoutFigure {
  const pushes = recorded.map(calls => sectionsOf(diffOf(calls[0]?.text ?? '').diff))
  const notReplayed = new Set<string>()
  const layouts = LAYOUTS.map(({ id }) => {
    const diffs = laidOut(pushes, id)
    const cache = new PromptCache()
    const sums = new Map<string, ReplayedTokens>()
    recorded.forEach((calls, p) => {
      const replays = calls.flatMap(call => {
        const replay = withDiff(call, diffs[p] ?? '')
        if (replay === undefined) notReplayed.add(call.service)
        return replay === undefined ? [] : [replay]
      })
      const lookups = replays.map(call => ({ call, lookup: cacheLookup(call, cache) }))
      for (const { call, lookup } of lookups) {
        lookup.commit()
        const seen = sums.get(call.service)
        const input = tokensOf(call.text)
        const output = outputOf(p, call.service)
        const cost =
          estimateCost(call.model, {
            input,
            cachedInput: lookup.use.read,
            cacheWrite: lookup.use.written,
            output
          }) ?? NaN
        sums.set(call.service, {
          provider: call.service,
          model: call.model,
          input: (seen?.input ?? 0) + input,
          cached: (seen?.cached ?? 0) + lookup.use.read,
          written: (seen?.written ?? 0) + lookup.use.written,
          output: (seen?.output ?? 0) + output,
          costUsd: (seen?.costUsd ?? 0) + cost
        })
      }
    })
    // A provider with any request not replayed is left out whole: a part of its pushes would read
    // as its figure.
    return { layout: id, providers: [...sums.values()].filter(t => !notReplayed.has(t.provider)) }
  })
  return { ceiling: ceilingOf(recorded), layouts, notReplayed: [...notReplayed] }
}
