import { parseModelId } from '../rubric/model-id.js'
import type { MemberSettings, ReasoningEffort, Rubric } from '../rubric/types.js'
import { providerOf } from './providers/index.js'

/*
 * How each judge is asked (docs/council.md#members): its reasoning effort, the cap on its answer,
 * its temperature and the context window it declares, from the rubric and its provider.
 */

/** The effort a member names in the rubric, else the rubric's `council.reasoning`, else none. */
export function effortOf(rubric: Rubric, member: string): ReasoningEffort | undefined {
  const named = rubric.council.memberReasoning
  return (
    (named && Object.hasOwn(named, member) ? named[member] : undefined) ?? rubric.council.reasoning
  )
}

/** What `member` sets for itself in the rubric (`{ model, window, … }`), if anything. */
function ownSettings(rubric: Rubric, member: string): MemberSettings | undefined {
  const settings = rubric.council.memberSettings
  return settings && Object.hasOwn(settings, member) ? settings[member] : undefined
}

/** The context window `member` declares (`window`), for a model the table does not know. */
export function declaredWindow(rubric: Rubric, member: string): number | undefined {
  return ownSettings(rubric, member)?.window
}

/**
 * The temperature sent to `member`: its own, else its provider's default (0 where the server's
 * default varies, none where the provider advises against setting one: providers/*.ts).
 */
export function temperatureOf(rubric: Rubric, member: string): number | undefined {
  const own = ownSettings(rubric, member)?.temperature
  if (own !== undefined) return own
  const id = parseModelId(member)
  return id.ok ? providerOf(id.value).temperature?.(id.value.model) : undefined
}

/**
 * The cap on a judge's answer (docs/council.md#answer-caps), sent to every provider as its own
 * field (`max_output_tokens`, `max_tokens`, `maxOutputTokens`, `num_predict`): a self-hosted
 * server without one writes until its window is full. Sized from what the answer holds: the
 * findings, the verdict and the feedback (`ANSWER_BASE_TOKENS`), each criterion's and dimension's
 * reasoning and grade (`ITEM_TOKENS`), and the thinking a reasoning model does first; and within
 * a quarter of a window the member declares or its server reports (`WINDOW_SHARE`), so that the
 * evidence keeps room in a self-hosted model's small window.
 */

/** The findings, verdict, feedback and the JSON around them. */
export const ANSWER_BASE_TOKENS = 3000
/** One criterion's or dimension's reasoning (a few sentences) and its grade. */
export const ITEM_TOKENS = 400
/** What a reasoning model may think before it answers, per effort. */
export const REASONING_TOKENS: Readonly<Record<ReasoningEffort, number>> = {
  low: 4096,
  medium: 12_288,
  high: 24_576
}
/**
 * The highest cap sent unless a member sets its own: the least output limit of the models the
 * table knows (Claude Opus 4.1's 32,000; Anthropic refuses a `max_tokens` above a model's limit).
 */
export const MAX_ANSWER_TOKENS = 32_000
/**
 * The most of a known window a sized cap takes: an 8,192-token window keeps 2,048 for the answer
 * (3 criteria take about 1,000 when their reasoning runs to 200 words each), the rest for the
 * prompt; at 4,200 its evidence had 27 tokens left (measured, __tests__/council/llama-engine.test.ts).
 */
export const WINDOW_SHARE = 1 / 4

/**
 * The cap on `member`'s answers about `rubric`: its own `max_output_tokens`, else sized, within
 * `WINDOW_SHARE` of `window`, the window it declares or its server reports.
 */
export function answerCap(rubric: Rubric, member: string, window?: number): number {
  const own = ownSettings(rubric, member)?.maxOutputTokens
  if (own !== undefined) return own
  const sized = sizedCap(rubric, member)
  return window === undefined ? sized : Math.min(sized, Math.floor(window * WINDOW_SHARE))
}

function sizedCap(rubric: Rubric, member: string): number {
  const items = rubric.criteria.length + rubric.dimensions.length
  const answer = ANSWER_BASE_TOKENS + ITEM_TOKENS * items
  const id = parseModelId(member)
  if (!id.ok) return Math.min(answer, MAX_ANSWER_TOKENS)
  const provider = providerOf(id.value)
  const effort = effortOf(rubric, member) ?? provider.reasoning.default
  // A provider that adds the thinking budget to the cap itself (Claude before 4.6) gets the answer's.
  const thinking =
    effort === undefined || provider.reasoning.budgetAdded?.(id.value.model) === true
      ? 0
      : REASONING_TOKENS[effort]
  return Math.min(answer + thinking, MAX_ANSWER_TOKENS)
}
