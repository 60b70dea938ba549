import type { Ticker } from '../../src/util/ticker.js'

/**
 * A ticker whose every interval is `ms` long, whatever it is asked for (the product's 15 s is
 * played by 20 ms), and which tells how many intervals are still running.
 */
export function fastTicker(ms = 20): Ticker & { running: () => number } {
  const timers = new Set<NodeJS.Timeout>()
  return {
    every: (_asked, tick) => {
      const timer = setInterval(tick, ms)
      timers.add(timer)
      return () => {
        clearInterval(timer)
        timers.delete(timer)
      }
    },
    running: () => timers.size
  }
}
