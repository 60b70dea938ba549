import { expect } from 'vitest'
import { WAITING_EVERY_MS, type Ticker } from '../../src/util/ticker.js'

/**
 * A ticker the test ticks by hand; it remembers which intervals are running, and each must be the
 * product's one interval for what is still waited on (`WAITING_EVERY_MS`).
 */
export function handTicker(): Ticker & { tick: () => void; running: () => number[] } {
  const intervals = new Map<number, () => void>()
  let next = 0
  return {
    every: (ms, tick) => {
      const id = next++
      expect(ms).toBe(WAITING_EVERY_MS)
      intervals.set(id, tick)
      return () => {
        intervals.delete(id)
      }
    },
    tick: () => {
      for (const tick of intervals.values()) tick()
    },
    running: () => [...intervals.keys()]
  }
}
