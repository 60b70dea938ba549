import { countTokens } from '../evidence/tokens.js'
import type { JudgePrompt } from './prompt.js'

/**
 * Where, inside the evidence, a model that caches only at breakpoints is given one (Anthropic,
 * also through OpenRouter; OpenAI from the GPT-5.6 family on). Anthropic takes four per request
 * (400 "A maximum of 4 blocks with cache_control may be provided. Found 5." beyond): one ends the
 * shared part (call.ts), so three at most go into the evidence, at about 20%, 40% and 60% of the
 * prompt's prefix that every call of one diff shares (the instructions, the rubric and the diff up
 * to its closing tag, which carries the call's own token). The whole of that prefix would serve
 * the samples of one push best, but the next push, whose diff differs, reads none of it; a
 * breakpoint in the diff's first part serves both (docs/council.md#costs).
 *
 * A breakpoint must stay where it was when a later push changes a later file, or that push cannot
 * read what the earlier one wrote there. So it is not at a share of the diff (which moves as the
 * diff grows) but at a rung: the first line end at which the prefix reaches the model's minimum
 * cacheable length times √2 to a whole power, a place fixed by the text before it alone. Each share
 * picks the rung nearest to it: a push that grows the diff a little keeps the rungs unless a share
 * crosses the midpoint between two. No rung is under the minimum, nor within the shared part.
 */
const SHARES = [0.2, 0.4, 0.6] as const

/** The ratio of one rung to the next. */
const RUNG = Math.SQRT2

/**
 * The offsets in `prompt.evidence` after which a breakpoint goes, ascending: each the end of a
 * line of the part every call of one diff shares, none under `minimum` tokens of prefix.
 */
export function evidenceBreakpoints(prompt: JudgePrompt, minimum: number): number[] {
  const before = countTokens(prompt.system) + countTokens(prompt.rubric)
  const ends = lineEnds(prompt.evidence.slice(0, prompt.sharedEvidence), before)
  const total = ends.at(-1)?.tokens ?? before
  const rungs = new Set<number>()
  for (const share of SHARES) {
    const aim = share * total
    if (aim < minimum) continue
    const rung = minimum * RUNG ** Math.round(Math.log(aim / minimum) / Math.log(RUNG))
    if (rung > before) rungs.add(rung)
  }
  const cuts = new Set<number>()
  for (const rung of [...rungs].sort((a, b) => a - b)) {
    const end = ends.find(e => e.tokens >= rung)
    if (end !== undefined) cuts.add(end.offset)
  }
  return [...cuts]
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
