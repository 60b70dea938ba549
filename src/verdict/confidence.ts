import type { CriterionResult, DimensionResult } from './types.js'

/**
 * Agreement (docs/verdict.md, "The numbers"): the mean over must-have checklist criteria,
 * score-range criteria, dimensions and "blocks or not" of each item's agreement between judges:
 * the majority share of the judges that voted, or 1 − (max − min) / 10 of their scores.
 */
export function agreement(
  criteria: readonly CriterionResult[],
  dimensions: readonly DimensionResult[],
  blockingVotes: readonly (boolean | undefined)[]
): number {
  const items: number[] = []
  for (const c of criteria) {
    if (c.kind === 'checklist' && c.required && c.tally) {
      const cast = c.tally.pass + c.tally.fail
      if (cast > 0) items.push(Math.max(c.tally.pass, c.tally.fail) / cast)
    } else if (c.kind === 'score') {
      const spread = c.spread ?? null
      if (spread !== null) items.push(1 - spread / 10)
    }
  }
  for (const d of dimensions) {
    if (d.spread !== null) items.push(1 - d.spread / 10)
  }
  const decided = blockingVotes.filter(vote => vote !== undefined)
  const blocking = decided.filter(vote => vote).length
  if (decided.length > 0) items.push(Math.max(blocking, decided.length - blocking) / decided.length)
  return items.length === 0 ? 1 : items.reduce((sum, x) => sum + x, 0) / items.length
}
