/**
 * Judges' answers in the wire format, built from what a request's judge schema asks for (the keys
 * of its keyed groups), so scripted judges answer exactly the questions they were sent.
 */

/** What a judge schema asks for, by key: checklist criteria, score-band criteria, dimensions. */
export interface Asked {
  readonly checklist: readonly string[]
  readonly scored: readonly string[]
  readonly dimensions: readonly string[]
}

interface KeyedSchema {
  readonly required?: readonly string[]
}

export function askedBy(schema: unknown): Asked {
  const properties = (schema as { properties?: Record<string, KeyedSchema | undefined> }).properties
  if (properties === undefined) throw new Error('the request carries no judge schema')
  const keys = (group: string): readonly string[] => properties[group]?.required ?? []
  return {
    checklist: keys('criteria'),
    scored: keys('scored_criteria'),
    dimensions: keys('dimensions')
  }
}

export interface Grades {
  /** Checklist ids graded FAIL; the others PASS. */
  readonly fail?: readonly string[]
  /** The score of every score-band criterion (default 8). */
  readonly score?: number
  /** The score of every dimension (default 8). */
  readonly dimensionScore?: number
  /** Each at `path`:`line` when given, else at src/feature.ts:1. */
  readonly findings?: readonly {
    readonly severity: string
    readonly title: string
    readonly path?: string
    readonly line?: number
  }[]
  readonly verdict?: 'ACCEPT' | 'RETRY' | 'TERMINATE'
}

/** A valid answer to `schema`: every key exactly once, graded by `grades`. */
export function wireAnswer(schema: unknown, grades: Grades = {}): Record<string, unknown> {
  const asked = askedBy(schema)
  const keyed = (keys: readonly string[], grade: (key: string) => Record<string, unknown>) =>
    Object.fromEntries(keys.map(key => [key, grade(key)]))
  return {
    findings: (grades.findings ?? []).map(f => ({
      path: 'src/feature.ts',
      line: 1,
      ...f,
      evidence: 'in the diff'
    })),
    ...(asked.checklist.length > 0 && {
      criteria: keyed(asked.checklist, id => ({
        reasoning: `${id}: checked against src/feature.ts`,
        verdict: grades.fail?.includes(id) ? 'FAIL' : 'PASS'
      }))
    }),
    ...(asked.scored.length > 0 && {
      scored_criteria: keyed(asked.scored, id => ({
        reasoning: `${id}: graded by its bands`,
        score: grades.score ?? 8
      }))
    }),
    ...(asked.dimensions.length > 0 && {
      dimensions: keyed(asked.dimensions, () => ({
        reasoning: 'solid',
        score: grades.dimensionScore ?? 8
      }))
    }),
    verdict: grades.verdict ?? (grades.fail?.length ? 'RETRY' : 'ACCEPT'),
    feedback: 'Fine.'
  }
}
