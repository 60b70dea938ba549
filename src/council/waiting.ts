import { WAITING_EVERY_MS, type Ticker } from '../util/ticker.js'

export interface Call {
  readonly judge: string
  readonly sample: number
}

/**
 * `Judges: 2 of 3 done; still waiting on anthropic:claude-sonnet-4-6 (30 s)`. A call past the
 * first sample is named with its number (`openai:gpt-5.4-mini #2`).
 */
export function waitingLine(
  calls: readonly Call[],
  pending: readonly Call[],
  seconds: number
): string {
  const names = pending.map(c => (c.sample === 1 ? c.judge : `${c.judge} #${c.sample}`))
  const done = calls.length - pending.length
  return `Judges: ${done} of ${calls.length} done; still waiting on ${names.join(', ')} (${seconds} s)`
}

/**
 * Watches a round of calls: every `WAITING_EVERY_MS` while some are pending, `say` gets the
 * waiting line. The ticker stops when the last call ends, or on `stop()`, whichever comes first.
 */
export function watchCalls(
  calls: readonly Call[],
  say: (line: string) => void,
  clock: { readonly ticker: Ticker; readonly now: () => number }
): { readonly ended: (call: Call) => void; readonly stop: () => void } {
  const started = clock.now()
  const pending = new Set(calls)
  const stopTicking = clock.ticker.every(WAITING_EVERY_MS, () => {
    const seconds = Math.round((clock.now() - started) / 1000)
    say(waitingLine(calls, [...pending], seconds))
  })
  let stopped = false
  const stop = (): void => {
    if (stopped) return
    stopped = true
    stopTicking()
  }
  return {
    ended: call => {
      pending.delete(call)
      if (pending.size === 0) stop()
    },
    stop
  }
}
