import { countTokens } from '../evidence/tokens.js'
import type { JudgePrompt } from './prompt.js'

/**
 * Where, inside the evidence, a model that caches only at breakpoints is given one (Anthropic,
 * also through OpenRouter; OpenAI from the GPT-5.6 family on). Anthropic takes four per request
 * (400 "A maximum of 4 blocks with cache_control may be provided. Found 5." beyond): one ends the
 * shared part (call.ts), so three at most go into the evidence, at about 20%, 40% and 60% of the
 * prompt's prefix that every call of one diff shares (the instructions, the rubric and the diff up
 * to its closing tag, which carries the call's own token). The whole of that prefix would serve
 * the samples of one push best, but the next push, whose diff differs, reads none of it; three
 * breakpoints in the diff's first part serve both (docs/council.md#costs).
 *
 * A push reads what an earlier one wrote at a breakpoint only where its own prompt has a part
 * boundary at the same place, with the same text before it. So the places are rungs, fixed by the
 * text before them alone: the first line end at which the prefix reaches the model's minimum
 * cacheable length times 2^(k/4), for each whole k. The evidence is cut into parts at every rung
 * up to the last breakpoint, and the rungs nearest to the shares are marked. A push that grows or
 * changes the diff may mark other rungs than the last one did, and still reads what the last one
 * wrote at a rung before its change: the provider looks for an entry at the part boundaries before
 * a breakpoint (Anthropic up to 20 parts back; OpenAI without a limit). No rung is under the
 * minimum, nor within the instructions and the rubric.
 */
const SHARES = [0.2, 0.4, 0.6] as const

/** The ratio of one rung to the next. */
const RUNG = 2 ** (1 / 4)

/** Where the evidence is cut into parts, and whether a breakpoint ends the part. */
export interface EvidenceCut {
  /** The offset in `prompt.evidence` at which the part ends: the end of a line. */
  readonly offset: number
  readonly marked: boolean
}

/**
 * The cuts of `prompt.evidence`, ascending: each the end of a line of the part every call of one
 * diff shares, none under `minimum` tokens of prefix, none after the last breakpoint; at most three
 * marked.
 */
export function evidenceCuts(prompt: JudgePrompt, minimum: number): EvidenceCut[] {
  const before = countTokens(prompt.system) + countTokens(prompt.rubric)
  const ends = lineEnds(prompt.evidence.slice(0, prompt.sharedEvidence), before)
  const total = ends.at(-1)?.tokens ?? before
  const rungOf = (tokens: number): number => Math.log(tokens / minimum) / Math.log(RUNG)
  const marked = new Set<number>()
  for (const share of SHARES) {
    const aim = share * total
    if (aim >= minimum) marked.add(Math.round(rungOf(aim)))
  }
  // A line that passes several rungs is one cut, marked if one of them is.
  const cuts = new Map<number, boolean>()
  const last = Math.max(...marked)
  let i = 0
  for (let rung = before < minimum ? 0 : Math.floor(rungOf(before)) + 1; rung <= last; rung++) {
    while ((ends[i]?.tokens ?? Infinity) < minimum * RUNG ** rung) i++
    const end = ends[i]
    if (end === undefined) break
    cuts.set(end.offset, (cuts.get(end.offset) ?? false) || marked.has(rung))
  }
  return [...cuts].map(([offset, isMarked]) => ({ offset, marked: isMarked }))
}

/** Each line end of `text` (the offset after its newline) with the prefix's tokens up to it. */
function lineEnds(
  text: string,
  before: number
): { readonly offset: number; readonly tokens: number }[] {
  const ends: { offset: number; tokens: number }[] = []
  let tokens = before
  let from = 0
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', from)) {
    tokens += countTokens(text.slice(from, at + 1))
    from = at + 1
    ends.push({ offset: from, tokens })
  }
  return ends
}
