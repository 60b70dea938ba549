import type { Rubric } from '../rubric/types.js'
import type { CriterionResult, DimensionResult } from './types.js'

export function medianOf(values: readonly number[]): number | null {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  const upper = sorted[mid] ?? 0
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? 0) + upper) / 2
}

/** The highest value less the lowest; null without values. */
export function spreadOf(values: readonly number[]): number | null {
  return values.length === 0 ? null : Math.max(...values) - Math.min(...values)
}

function weightedMean(pairs: readonly (readonly [weight: number, value: number])[]): number | null {
  const total = pairs.reduce((sum, [w]) => sum + w, 0)
  if (total <= 0) return null
  return pairs.reduce((sum, [w, v]) => sum + w * v, 0) / total
}

/** D / 10: the weighted mean of the dimension medians, over the dimensions that were scored. */
export function weightedDimensions(dimensions: readonly DimensionResult[]): number | null {
  return weightedMean(
    dimensions.flatMap(d => (d.median === null ? [] : [[d.weight, d.median / 10] as const]))
  )
}

/** C: the weighted mean of criterion scores, over criteria with weight > 0 that were graded. */
export function weightedCriteria(criteria: readonly CriterionResult[]): number | null {
  return weightedMean(
    criteria.flatMap(c => (c.weight > 0 && c.score !== null ? [[c.weight, c.score] as const] : []))
  )
}

/** S of docs/verdict.md: D and C by the rubric's score weights, under the accuracy ceiling. */
export function overallScore(
  rubric: Rubric,
  dimensionsScore: number | null,
  criteriaScore: number | null,
  dimensions: readonly DimensionResult[]
): { score: number | null; ceilingApplied: boolean } {
  const parts: (readonly [number, number])[] = []
  if (dimensionsScore !== null && rubric.scoreWeights.dimensions > 0) {
    parts.push([rubric.scoreWeights.dimensions, dimensionsScore])
  }
  if (criteriaScore !== null && rubric.scoreWeights.criteria > 0) {
    parts.push([rubric.scoreWeights.criteria, criteriaScore])
  }
  const raw = weightedMean(parts)
  if (raw === null || !rubric.accuracyCeiling) return { score: raw, ceilingApplied: false }
  const accuracy = dimensions.find(d => d.name === 'accuracy')?.median ?? null
  // ADR-016: median accuracy below 5 caps the score at 0.4; 5 up to (not including) 7 at 0.7.
  const cap = accuracy === null ? 1 : accuracy < 5 ? 0.4 : accuracy < 7 ? 0.7 : 1
  return raw > cap ? { score: cap, ceilingApplied: true } : { score: raw, ceilingApplied: false }
}
