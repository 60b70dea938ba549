/**
 * Turns at a prompt cache that serves only what a breakpoint marks (a provider module's
 * `breakpoint`: Anthropic's, also through OpenRouter; OpenAI's from the GPT-5.6 family on). A
 * marked prefix is billed as a write (1.25× the input price) unless it is already cached, and is
 * readable only once the request that wrote it has started its answer: requests that arrive
 * together all write, and none reads
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
