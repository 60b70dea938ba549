/**
 * The providers' prompt caches, as far as a client can tell them apart: what part of a request's
 * input is billed as read from the cache, or written to it.
 *
 * - OpenAI: automatic for prompts of 1,024 tokens or more; the longest prefix seen before is
 *   cached, counted in steps of 128 tokens (https://platform.openai.com/docs/guides/prompt-caching).
 * - Gemini 2.5 and later: implicit caching of a repeated prefix of 1,024 tokens or more
 *   (https://ai.google.dev/gemini-api/docs/caching#implicit-caching).
 * - Anthropic: only up to a `cache_control` breakpoint; the first request writes the prefix,
 *   later ones read it; shorter than the model's minimum, nothing is cached
 *   (https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
 * Tokens are the stand-in's estimate (four characters a token); entries do not expire during a
 * test run.
 */

export const tokensOf = (text: string): number => Math.max(1, Math.ceil(text.length / 4))

export interface CacheUse {
  readonly read: number
  readonly written: number
}

export class PromptCache {
  /** Prompts seen, per model: the automatic caches match the longest common prefix. */
  readonly #prompts = new Map<string, string[]>()
  /** Prefixes written at an Anthropic breakpoint, per model. */
  readonly #written = new Map<string, Set<string>>()

  /** OpenAI's and Gemini's caches: the longest prefix shared with an earlier prompt. */
  automatic(model: string, prompt: string, step: number): CacheUse {
    const seen = this.#prompts.get(model) ?? []
    let common = 0
    for (const earlier of seen) common = Math.max(common, commonPrefix(earlier, prompt))
    seen.push(prompt)
    this.#prompts.set(model, seen)
    const tokens = Math.floor(common / 4)
    if (tokens < 1024) return { read: 0, written: 0 }
    return { read: Math.floor(tokens / step) * step, written: 0 }
  }

  /**
   * Anthropic's cache: `prefixes` are the texts up to each breakpoint, shortest first. The
   * longest one written before is read; the last one, if new and long enough, is written.
   */
  breakpoints(model: string, prefixes: readonly string[], minimum: number): CacheUse {
    const written = this.#written.get(model) ?? new Set<string>()
    this.#written.set(model, written)
    const hit = [...prefixes].reverse().find(prefix => written.has(prefix))
    const read = hit === undefined ? 0 : tokensOf(hit)
    const last = prefixes.at(-1)
    if (last === undefined || last === hit || tokensOf(last) < minimum) return { read, written: 0 }
    written.add(last)
    return { read, written: tokensOf(last) - read }
  }
}

function commonPrefix(a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  let i = 0
  while (i < length && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}
