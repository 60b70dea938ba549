/**
 * A 95% interval of a proportion: the Wilson score interval, which stays inside 0–1 and is not
 * empty at 0 or all of n, where the normal ("Wald") one claims certainty from 10 of 10.
 */

/** The normal quantile of 97.5%: two-sided 95%. */
const Z95 = 1.959963984540054

export interface Interval {
  readonly low: number
  readonly high: number
}

/** Wilson's interval of `successes` in `trials`; 0–1 when there was no trial. */
export function wilsonInterval(successes: number, trials: number, z = Z95): Interval {
  if (trials === 0) return { low: 0, high: 1 }
  const p = successes / trials
  const z2 = z * z
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
  const half =
    (z / (1 + z2 / trials)) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))
  // Rounding at the ends: 0 of n starts at 0 and n of n ends at 1, exactly.
  return {
    low: successes === 0 ? 0 : Math.max(0, centre - half),
    high: successes === trials ? 1 : Math.min(1, centre + half)
  }
}
