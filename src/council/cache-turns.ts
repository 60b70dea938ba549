/**
 * Turns at a prompt cache that serves only what a breakpoint marks (a provider module's
 * `breakpoint`: Anthropic's, also through OpenRouter; OpenAI's from the GPT-5.6 family on). A
 * marked prefix is billed as a write (1.25× the input price) unless it is already cached, and is
 * readable only once the request that wrote it has started its answer: requests that arrive
 * together all write, and none reads
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
 * So, per model, the first request goes at once and writes; the others that would go while it is
 * pending wait until it has been answered, or `CACHE_WAIT_MS` at most, and then read what it
 * wrote. Every request marks the same breakpoints (call.ts `userMessage`). A request after the
 * first has been answered (a repair, a re-ask, an extra vote) goes at once and reads; so does the
 * next push's first request while the cache keeps the prefix (five minutes).
 */
export interface CacheTurn {
  /** Told once the request ends: `answered` when the provider read the prompt. */
  readonly settle: (answered: boolean) => void
}

/**
 * The longest a request waits for the first one of its model. The provider makes the prefix
 * readable once it begins its answer, after reading the prompt (a second or a few for a judge's
 * prompt); the council sees only the whole answer, which with thinking can take a minute. After
 * this long the request goes: the first has begun answering by then, and if it has not, the
 * request writes the prefix too (at 1.25× instead of 1×) rather than keep the verdict waiting.
 */
export const CACHE_WAIT_MS = 10_000

type State =
  { readonly kind: 'written' } | { readonly kind: 'writing'; readonly settled: Promise<void> }

/**
 * A turn-taker per model: `await turn(model, cancel)` before each request. A request cancelled
 * while it waits gets its turn at once and must not be made (the caller checks `cancel`).
 */
export function cacheTurns(
  waitMs: number = CACHE_WAIT_MS
): (model: string, cancel?: AbortSignal) => Promise<CacheTurn> {
  const states = new Map<string, State>()
  const idle: CacheTurn = { settle: () => undefined }
  return async (model, cancel) => {
    const until = Date.now() + waitMs
    for (;;) {
      const state = states.get(model)
      if (state === undefined) {
        let done = (): void => undefined
        states.set(model, { kind: 'writing', settled: new Promise(resolve => (done = resolve)) })
        return {
          settle: answered => {
            if (answered) states.set(model, { kind: 'written' })
            else states.delete(model)
            // The calls behind it go on the next turn of the event loop, once the council has
            // read this answer: an answer that settles the verdict cancels them before they go.
            setImmediate(done)
          }
        }
      }
      if (state.kind === 'written' || cancel?.aborted) return idle
      const left = until - Date.now()
      if (left <= 0 || !(await settledWithin(state.settled, left, cancel))) return idle
    }
  }
}

/** Whether `settled` resolved within `ms`; false when the time ran out or `cancel` aborted. */
function settledWithin(settled: Promise<void>, ms: number, cancel?: AbortSignal): Promise<boolean> {
  return new Promise(resolve => {
    const timer = setTimeout(() => {
      end(false)
    }, ms)
    const abort = (): void => {
      end(false)
    }
    cancel?.addEventListener('abort', abort, { once: true })
    void settled.then(() => {
      end(true)
    })
    function end(result: boolean): void {
      clearTimeout(timer)
      cancel?.removeEventListener('abort', abort)
      resolve(result)
    }
  })
}
