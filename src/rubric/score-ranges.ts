import type { RubricRule } from './errors.js'
import type { RawScoreRanges } from './schema.js'
import type { ScoreRange } from './types.js'
import type { Path } from './zod-issues.js'

export interface RangeProblem {
  /** Path below `score_ranges`: an item index, or a band start, or nothing for the whole. */
  readonly at: Path
  readonly rule: Extract<
    RubricRule,
    'score-range-bounds' | 'score-range-overlap' | 'score-range-coverage'
  >
  readonly message: string
}

/**
 * Checks AgentV's three rules for score ranges (bounds, overlap, coverage of every integer 0–10)
 * and returns the ranges sorted. Each element is already an integer 0–10 (the schema checks that).
 */
export function normaliseScoreRanges(raw: RawScoreRanges): {
  ranges: ScoreRange[]
  problems: RangeProblem[]
} {
  const problems: RangeProblem[] = []
  let indexed: { range: ScoreRange; at: Path }[]

  if (Array.isArray(raw)) {
    indexed = []
    raw.forEach((item, i) => {
      const [min, max] = item.score_range
      if (min > max) {
        problems.push({
          at: [i, 'score_range'],
          rule: 'score-range-bounds',
          message: `score_range [${min},${max}] has its bounds reversed (low must not exceed high)`
        })
      } else {
        indexed.push({ range: { min, max, expectedOutcome: item.expected_outcome }, at: [i] })
      }
    })
  } else {
    const starts = Object.keys(raw)
      .map(Number)
      .sort((a, b) => a - b)
    indexed = starts.map((start, i) => ({
      range: {
        min: start,
        max: (starts[i + 1] ?? 11) - 1,
        expectedOutcome: raw[String(start)] ?? ''
      },
      at: [String(start)]
    }))
  }

  const sorted = [...indexed].sort((a, b) => a.range.min - b.range.min || a.range.max - b.range.max)
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1]
    const current = sorted[i]
    if (previous && current && current.range.min <= previous.range.max) {
      problems.push({
        at: current.at,
        rule: 'score-range-overlap',
        message:
          `score_ranges [${previous.range.min},${previous.range.max}] and ` +
          `[${current.range.min},${current.range.max}] overlap`
      })
    }
  }

  const covered = new Set<number>()
  for (const { range } of indexed) for (let s = range.min; s <= range.max; s++) covered.add(s)
  const gaps: string[] = []
  for (let s = 0; s <= 10; s++) {
    if (covered.has(s)) continue
    let end = s
    while (end + 1 <= 10 && !covered.has(end + 1)) end++
    gaps.push(end === s ? String(s) : `${s}–${end}`)
    s = end
  }
  if (gaps.length > 0 && problems.every(p => p.rule !== 'score-range-bounds')) {
    problems.push({
      at: [],
      rule: 'score-range-coverage',
      message:
        `score_ranges leave ${gaps.join(', ')} uncovered; coverage must include every score 0–10` +
        (Array.isArray(raw) ? '' : ' (the first band must start at 0)')
    })
  }
  return { ranges: sorted.map(s => s.range), problems }
}
