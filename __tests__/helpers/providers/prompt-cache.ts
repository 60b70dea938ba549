/**
 * The providers' prompt caches, as far as a client can tell them apart: what part of a request's
 * input is billed as read from the cache, or written to it.
 *
 * - OpenAI: automatic for prompts of 1,024 tokens or more; the longest prefix seen before is
 *   cached, counted in steps of 128 tokens (https://platform.openai.com/docs/guides/prompt-caching).
 * - Gemini 2.5 and later: implicit caching of a repeated prefix of 1,024 tokens or more
 *   (https://ai.google.dev/gemini-api/docs/caching#implicit-caching).
 * - Ollama: the runner keeps the evaluated prompt in its KV cache and evaluates only what follows
 *   the longest prefix it already holds, of any length (ollama/ollama#2068, #8008).
 * - Anthropic: only up to a `cache_control` breakpoint; the first request writes the prefix,
 *   later ones read it; shorter than the model's minimum, nothing is cached
 *   (https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
 * A prefix is readable only once the request that wrote it has been answered: requests that
 * arrive together all miss ("a cache entry only becomes available after the first response
 * begins", Anthropic's prompt-caching page; OpenAI's caches likewise fill after the prefill).
 * Tokens are the stand-in's estimate (four characters a token); entries do not expire during a
 * test run.
 */

export const tokensOf = (text: string): number => Math.max(1, Math.ceil(text.length / 4))

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
   * Anthropic's cache: `prefixes` are the texts up to each breakpoint, shortest first. The
   * longest one written before is read; what lies beyond it up to the last breakpoint is written,
   * an entry at each breakpoint long enough to be cached.
   */
  breakpoints(model: string, prefixes: readonly string[], minimum: number): CacheLookup {
    const written = this.#written.get(model) ?? new Set<string>()
    this.#written.set(model, written)
    const hit = [...prefixes].reverse().find(prefix => written.has(prefix))
    const read = hit === undefined ? 0 : tokensOf(hit)
    const cacheable = prefixes.filter(prefix => tokensOf(prefix) >= minimum)
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
