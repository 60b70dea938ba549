/**
 * The providers' prompt caches, as far as a client can tell them apart: what part of a request's
 * input is billed as read from the cache, or written to it.
 *
 * - OpenAI before the GPT-5.6 family: automatic for prompts of 1,024 tokens or more; the longest
 *   prefix seen before is cached, counted in steps of 128 tokens, and writing is free
 *   (https://platform.openai.com/docs/guides/prompt-caching).
 * - OpenAI from the GPT-5.6 family on: written at breakpoints, billed at 1.25× and reported as
 *   `cache_write_tokens`; unless `prompt_cache_options.mode` is `explicit`, OpenAI sets one
 *   breakpoint of its own at the end of the input, besides the parts' `prompt_cache_breakpoint`s;
 *   an entry is read at any earlier block boundary, "without a content-block lookback limit"
 *   (the guide, and `PromptCacheOptionsParam` in OpenAI's OpenAPI description of 2026-08-21).
 *   The stand-in takes the 1,024-token minimum of the earlier models for these too.
 * - Gemini 2.5 and later: implicit caching of a repeated prefix, from a minimum that depends on
 *   the model (`GEMINI_MIN_CACHE_TOKENS`; https://ai.google.dev/gemini-api/docs/caching#implicit-caching).
 * - Ollama: the runner keeps the evaluated prompt in its KV cache and evaluates only what follows
 *   the longest prefix it already holds, of any length (ollama/ollama#2068, #8008).
 * - Anthropic: only up to a `cache_control` breakpoint; the first request writes the prefix,
 *   later ones read it; shorter than the model's minimum, nothing is cached. To read, the API
 *   looks for an entry at the breakpoint and at the content-block boundaries before it, up to 20
 *   blocks back: an entry an earlier request wrote at a block where this request sets no
 *   breakpoint is still read (https://platform.claude.com/docs/en/build-with-claude/prompt-caching,
 *   "the system automatically checks for cache hits at all previous content block boundaries").
 * A prefix is readable only once the request that wrote it has been answered: requests that
 * arrive together all miss ("a cache entry only becomes available after the first response
 * begins", Anthropic's prompt-caching page; OpenAI's caches likewise fill after the prefill).
 * Tokens are the stand-in's estimate (four characters a token); entries do not expire during a
 * test run.
 */

export const tokensOf = (text: string): number => Math.max(1, Math.ceil(text.length / 4))

/**
 * Gemini's implicit caching: the fewest input tokens it caches, per model. From the table on
 * https://ai.google.dev/gemini-api/docs/caching#implicit-caching (versions of 2026-07-07 and
 * 2026-10-13: Gemini 3.5 Flash and 3.1 Pro Preview 4,096; Gemini 2.5 Pro 2,048) and of 2026-05-07
 * (Gemini 3 Flash Preview 1,024, a model the later tables no longer list). The Flash-Lite models
 * are in no version of the table: the API enforces 2,048 for Gemini 2.5 Flash-Lite
 * (discuss.ai.google.dev/t/178942, its own "min_total_token_count=2048"), and the Gemini 3
 * Flash-Lite models are taken at 4,096, as every Gemini 3.1 and later model the table lists.
 */
export const GEMINI_MIN_CACHE_TOKENS: Readonly<Record<string, number>> = {
  'gemini-3.5-flash': 4096,
  'gemini-3.5-flash-lite': 4096,
  'gemini-3.1-flash-lite': 4096,
  'gemini-3.1-pro-preview': 4096,
  'gemini-3-flash-preview': 1024,
  'gemini-2.5-pro': 2048,
  'gemini-2.5-flash': 2048,
  'gemini-2.5-flash-lite': 2048
}
/** A model the table does not name: the highest minimum any Gemini model has. */
export const GEMINI_DEFAULT_MIN_CACHE_TOKENS = 4096

/** How far back from a breakpoint Anthropic looks for an entry, in content blocks. */
export const ANTHROPIC_LOOKBACK_BLOCKS = 20

/** A request's text up to the end of each content block, and whether that block is a breakpoint. */
export interface BlockPrefix {
  readonly text: string
  readonly breakpoint: boolean
}

export interface CacheUse {
  readonly read: number
  readonly written: number
}

/** What a request found in the cache on arrival; `commit()` stores it once it is answered. */
export interface CacheLookup {
  readonly use: CacheUse
  readonly commit: () => void
}

export class PromptCache {
  /** Prompts answered, per model: the automatic caches match the longest common prefix. */
  readonly #prompts = new Map<string, string[]>()
  /** Prefixes written at an Anthropic breakpoint, per model. */
  readonly #written = new Map<string, Set<string>>()

  /** OpenAI's and Gemini's caches: the longest prefix shared with a prompt answered before. */
  automatic(model: string, prompt: string, step: number, minimum = 1024): CacheLookup {
    const seen = this.#prompts.get(model) ?? []
    this.#prompts.set(model, seen)
    let common = 0
    for (const earlier of seen) common = Math.max(common, commonPrefix(earlier, prompt))
    const tokens = Math.floor(common / 4)
    const read = tokens < minimum ? 0 : Math.floor(tokens / step) * step
    return { use: { read, written: 0 }, commit: () => seen.push(prompt) }
  }

  /**
   * A cache written at breakpoints (Anthropic's; OpenAI's from GPT-5.6 on, with no `lookback`
   * limit): `blocks` are the texts up to the end of each content block, in order. The longest
   * entry written before at a breakpoint, or at a block up to `lookback` before one, is read; what lies beyond it up to the last breakpoint is written, an entry at each breakpoint
   * long enough to be cached.
   */
  breakpoints(
    model: string,
    blocks: readonly BlockPrefix[],
    minimum: number,
    lookback = ANTHROPIC_LOOKBACK_BLOCKS
  ): CacheLookup {
    const written = this.#written.get(model) ?? new Set<string>()
    this.#written.set(model, written)
    const readable = blocks.filter((_, i) =>
      blocks.slice(i, i + lookback + 1).some(block => block.breakpoint)
    )
    const hit = readable
      .map(block => block.text)
      .reverse()
      .find(prefix => written.has(prefix))
    const read = hit === undefined ? 0 : tokensOf(hit)
    const cacheable = blocks
      .filter(block => block.breakpoint && tokensOf(block.text) >= minimum)
      .map(block => block.text)
    const last = cacheable.at(-1)
    return {
      use: { read, written: last === undefined || last === hit ? 0 : tokensOf(last) - read },
      commit: () => {
        for (const prefix of cacheable) written.add(prefix)
      }
    }
  }
}

function commonPrefix(a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  let i = 0
  while (i < length && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}
