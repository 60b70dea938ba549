import { describe, expect, it } from 'vitest'
import { wilsonInterval } from '../../src/calibrate/interval.js'

describe('wilsonInterval, 95%', () => {
  it('gives the published values', () => {
    // Newcombe (1998), "Two-sided confidence intervals for the single proportion", Statistics in
    // Medicine 17: 857–872, table I: 81 of 263 → 0.2553–0.3662; 15 of 148 → 0.0624–0.1605;
    // 0 of 20 → 0–0.1611; 1 of 29 → 0.0061–0.1718.
    const cases: [number, number, number, number][] = [
      [81, 263, 0.2553, 0.3662],
      [15, 148, 0.0624, 0.1605],
      [0, 20, 0, 0.1611],
      [1, 29, 0.0061, 0.1718]
    ]
    for (const [k, n, low, high] of cases) {
      const interval = wilsonInterval(k, n)
      expect(interval.low, `${k}/${n}`).toBeCloseTo(low, 4)
      expect(interval.high, `${k}/${n}`).toBeCloseTo(high, 4)
    }
  })

  it('does not claim certainty from a few cases: 10 of 10 is not above 72%', () => {
    const interval = wilsonInterval(10, 10)
    expect(interval.high).toBe(1)
    expect(interval.low).toBeCloseTo(0.7225, 4)
    // And symmetric: 0 of 10 is as far from 0% as 10 of 10 is from 100%.
    expect(wilsonInterval(0, 10).low).toBe(0)
    expect(wilsonInterval(0, 10).high).toBeCloseTo(1 - interval.low, 12)
  })

  it('knows nothing without a trial', () => {
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 })
  })
})
