/**
 * A clock that ticks: `every(ms, tick)` calls `tick` every `ms` milliseconds until the function it
 * returns is called. A port, so that code which reports while it waits holds no timer of its own
 * and a test can tick it at will.
 */
export interface Ticker {
  readonly every: (ms: number, tick: () => void) => () => void
}

/**
 * How often a log says what it is still waiting for (the judges' calls, a gate): a call or a
 * test suite can take minutes, and a log silent that long looks hung.
 */
export const WAITING_EVERY_MS = 15_000

/**
 * The real one, given by the shells (src/main.ts, src/bin.ts): an interval that never keeps the
 * process alive on its own.
 */
export const intervalTicker: Ticker = {
  every: (ms, tick) => {
    const timer = setInterval(tick, ms)
    timer.unref()
    return () => {
      clearInterval(timer)
    }
  }
}
