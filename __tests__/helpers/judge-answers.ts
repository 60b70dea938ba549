/**
 * Judges' answers in the wire format, built from what a request's judge schema asks for (the ids
 * and names it enumerates), so scripted judges answer exactly the questions they were sent.
 */

/** What a judge schema enumerates: checklist ids, score-band ids, dimension names. */
export interface Asked {
  readonly checklist: readonly string[]
  readonly scored: readonly string[]
  readonly dimensions: readonly string[]
}

interface ListSchema {
  readonly items: { readonly properties: Record<string, { readonly enum?: readonly string[] }> }
}

export function askedBy(schema: unknown): Asked {
  const properties = (schema as { properties?: Record<string, ListSchema | undefined> }).properties
  if (properties === undefined) throw new Error('the request carries no judge schema')
  const enumerated = (list: string, key: string): readonly string[] =>
    properties[list]?.items.properties[key]?.enum ?? []
  return {
    checklist: enumerated('criteria', 'id'),
    scored: enumerated('scored_criteria', 'id'),
    dimensions: enumerated('dimensions', 'name')
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

/** A valid answer to `schema`: every id and name exactly once, graded by `grades`. */
export function wireAnswer(schema: unknown, grades: Grades = {}): Record<string, unknown> {
  const asked = askedBy(schema)
  return {
    findings: (grades.findings ?? []).map(f => ({
      path: 'src/feature.ts',
      line: 1,
      ...f,
      evidence: 'in the diff'
    })),
    ...(asked.checklist.length > 0 && {
      criteria: asked.checklist.map(id => ({
        id,
        reasoning: `${id}: checked against src/feature.ts`,
        verdict: grades.fail?.includes(id) ? 'FAIL' : 'PASS'
      }))
    }),
    ...(asked.scored.length > 0 && {
      scored_criteria: asked.scored.map(id => ({
        id,
        reasoning: `${id}: graded by its bands`,
        score: grades.score ?? 8
      }))
    }),
    ...(asked.dimensions.length > 0 && {
      dimensions: asked.dimensions.map(name => ({
        name,
        reasoning: 'solid',
        score: grades.dimensionScore ?? 8
      }))
    }),
    verdict: grades.verdict ?? (grades.fail?.length ? 'RETRY' : 'ACCEPT'),
    feedback: 'Fine.'
  }
}
