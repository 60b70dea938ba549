import type { ModelId } from '../rubric/model-id.js'

/**
 * Turns at a prompt cache that serves only what a breakpoint marks (Anthropic's, also through
 * OpenRouter; OpenAI's from the GPT-5.6 family on). A marked prefix is billed as a write (1.25×
 * the input price) unless it is already cached, and is readable only once the request that wrote
 * it has started its answer: requests that arrive together all write, and none reads
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
 * So, per model, the first request marks the shared part of the prompt; the others that go while
 * it is pending do not, and pay the plain input price for it; every request after it has been
 * answered (a repair, a re-ask, a tie-break) marks it again and reads. The next push's first
 * request reads it too while the cache keeps it (five minutes).
 */
export interface CacheTurn {
  /** Whether this request marks the shared part. */
  readonly marked: boolean
  /** Told once the request ends: `answered` when the provider read the prompt. */
  readonly settle: (answered: boolean) => void
}

type State = 'unwritten' | 'writing' | 'written'

/** A turn-taker per model: `turn(model)` before each request. */
export function cacheTurns(): (model: string) => CacheTurn {
  const states = new Map<string, State>()
  return model => {
    const state = states.get(model) ?? 'unwritten'
    if (state === 'writing') return { marked: false, settle: () => undefined }
    if (state === 'unwritten') states.set(model, 'writing')
    return {
      marked: true,
      settle: answered => {
        if (state === 'unwritten') states.set(model, answered ? 'written' : 'unwritten')
      }
    }
  }
}

/**
 * Whether a member's provider caches only at breakpoints: Anthropic's API, and Anthropic's models
 * through OpenRouter, which passes a part's `cache_control` on
 * (https://openrouter.ai/docs/features/prompt-caching); and OpenAI's own API for the models that
 * bill a cache write (`openaiBillsCacheWrites`). Gemini, and OpenAI's earlier models, cache on
 * their own, at no charge for a write.
 */
export function cachesAtBreakpoints(id: ModelId): boolean {
  return (
    id.provider === 'anthropic' ||
    (id.provider === 'openrouter' && id.model.startsWith('anthropic/')) ||
    (id.provider === 'openai' && openaiBillsCacheWrites(id.model))
  )
}

/**
 * OpenAI's models from the GPT-5.6 family on (`gpt-5.6-sol`, `gpt-6.2-astra`, and later families
 * this version does not know yet) bill a cache write at 1.25× the input price, and unless told
 * otherwise write the prompt up to a breakpoint of their own near its end (the prompt caching
 * guide, https://developers.openai.com/api/docs/guides/prompt-caching; `prompt_cache_options` in
 * OpenAI's OpenAPI description). A judge's prompt ends with what no other call shares, so that
 * write would never be read: these models are asked to cache at explicit breakpoints only.
 */
export function openaiBillsCacheWrites(model: string): boolean {
  const version = /^gpt-(\d+)(?:\.(\d+))?(?:-|$)/.exec(model)
  if (version === null) return false
  const major = Number(version[1])
  const minor = Number(version[2] ?? '0')
  return major > 5 || (major === 5 && minor >= 6)
}
