import { z } from 'zod'
import type { Rubric } from '../rubric/types.js'
import type { JudgeAnswer, Severity } from './types.js'

/**
 * The judge's output (docs/council.md#the-contract), built per rubric: criterion ids and dimension names are
 * enumerated, so an unknown id cannot even be expressed, and every field is required (optional
 * ones are nullable) so that providers' strict structured-output modes accept the schema.
 */
export function judgeJsonSchema(rubric: Rubric): Record<string, unknown> {
  const ids = rubric.criteria.map(c => c.id)
  const names = rubric.dimensions.map(d => d.name)
  const list = (
    item: Record<string, unknown>,
    values: readonly string[]
  ): Record<string, unknown> =>
    values.length === 0
      ? { type: 'array', items: item, maxItems: 0 }
      : { type: 'array', items: item }
  const object = (properties: Record<string, unknown>): Record<string, unknown> => ({
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties),
    properties
  })
  return object({
    findings: {
      type: 'array',
      description: 'Problems found in the pull request, listed before any grade',
      items: object({
        severity: { type: 'string', enum: ['critical', 'major', 'minor', 'info'] },
        title: { type: 'string' },
        path: { type: ['string', 'null'], description: 'File the finding is about, if any' },
        line: { type: ['integer', 'null'], description: 'Line in that file, if any' },
        evidence: { type: 'string', description: 'What in the diff shows it' }
      })
    },
    criteria: list(
      object({
        id: { type: 'string', enum: ids.length > 0 ? ids : ['-'] },
        verdict: { type: ['string', 'null'], enum: ['PASS', 'FAIL', null] },
        score: { type: ['integer', 'null'], minimum: 0, maximum: 10 },
        reasoning: { type: 'string' }
      }),
      ids
    ),
    dimensions: list(
      object({
        name: { type: 'string', enum: names.length > 0 ? names : ['-'] },
        score: { type: 'integer', minimum: 1, maximum: 10 },
        reasoning: { type: 'string' }
      }),
      names
    ),
    verdict: { type: 'string', enum: ['ACCEPT', 'RETRY', 'TERMINATE'] },
    feedback: { type: 'string', description: 'What the author should do next' }
  })
}

/** Synonyms judges use for severities; anything unrecognised counts as critical. */
const SEVERITY_SYNONYMS: Readonly<Record<string, Severity>> = {
  critical: 'critical',
  blocker: 'critical',
  high: 'critical',
  severe: 'critical',
  major: 'major',
  medium: 'major',
  moderate: 'major',
  warning: 'major',
  minor: 'minor',
  low: 'minor',
  nit: 'minor',
  trivial: 'minor',
  info: 'info',
  note: 'info',
  informational: 'info'
}

export function normaliseSeverity(value: string): Severity {
  const key = value.trim().toLowerCase()
  return Object.hasOwn(SEVERITY_SYNONYMS, key) ? (SEVERITY_SYNONYMS[key] ?? 'critical') : 'critical'
}

// Lenient on what varies between models (severity words, a missing optional field), strict on
// what the verdict depends on (ids, verdicts, scores).
const WireAnswer = z.object({
  findings: z.array(
    z.object({
      severity: z.string(),
      title: z.string(),
      path: z.string().nullish(),
      line: z.int().nonnegative().nullish(),
      evidence: z.string().default('')
    })
  ),
  criteria: z.array(
    z.object({
      id: z.string(),
      verdict: z.enum(['PASS', 'FAIL']).nullish(),
      score: z.int().min(0).max(10).nullish(),
      reasoning: z.string()
    })
  ),
  dimensions: z.array(
    z.object({ name: z.string(), score: z.int().min(1).max(10), reasoning: z.string() })
  ),
  verdict: z.enum(['ACCEPT', 'RETRY', 'TERMINATE']),
  feedback: z.string().default('')
})

export type Validation =
  | { readonly ok: true; readonly answer: JudgeAnswer }
  | { readonly ok: false; readonly error: string }

/**
 * Checks an answer against the rubric: the shape, then that every criterion id and dimension name
 * appears exactly once, with a verdict for checklist criteria and a score for score-range ones.
 * The error text goes back to the judge in the repair request, so it names each problem.
 */
export function validateAnswer(value: unknown, rubric: Rubric): Validation {
  const parsed = WireAnswer.safeParse(value)
  if (!parsed.success) {
    const problems = parsed.error.issues.map(i => `${i.path.join('.') || '(root)'}: ${i.message}`)
    return { ok: false, error: problems.slice(0, 20).join('; ') }
  }
  const answer = parsed.data
  const problems: string[] = []

  const expectOnce = (kind: string, given: readonly string[], wanted: readonly string[]): void => {
    const counts = new Map<string, number>()
    for (const g of given) counts.set(g, (counts.get(g) ?? 0) + 1)
    for (const w of wanted) {
      const n = counts.get(w) ?? 0
      if (n === 0) problems.push(`${kind} "${w}" is missing`)
      if (n > 1) problems.push(`${kind} "${w}" appears ${n} times`)
    }
    for (const g of counts.keys()) if (!wanted.includes(g)) problems.push(`unknown ${kind} "${g}"`)
  }
  expectOnce(
    'criterion',
    answer.criteria.map(c => c.id),
    rubric.criteria.map(c => c.id)
  )
  expectOnce(
    'dimension',
    answer.dimensions.map(d => d.name),
    rubric.dimensions.map(d => d.name)
  )

  for (const grade of answer.criteria) {
    const criterion = rubric.criteria.find(c => c.id === grade.id)
    if (!criterion) continue
    if (criterion.scoreRanges && (grade.score === null || grade.score === undefined)) {
      problems.push(`criterion "${grade.id}" is graded 0–10: give it a score`)
    }
    if (!criterion.scoreRanges && (grade.verdict === null || grade.verdict === undefined)) {
      problems.push(`criterion "${grade.id}" is a checklist item: give it a verdict PASS or FAIL`)
    }
  }
  if (problems.length > 0) return { ok: false, error: problems.join('; ') }

  return {
    ok: true,
    answer: {
      findings: answer.findings.map(f => ({
        severity: normaliseSeverity(f.severity),
        title: f.title,
        evidence: f.evidence,
        ...(f.path ? { path: f.path } : {}),
        ...(f.line !== null && f.line !== undefined ? { line: f.line } : {})
      })),
      criteria: answer.criteria.map(g => {
        const scored = rubric.criteria.find(c => c.id === g.id)?.scoreRanges !== undefined
        return scored
          ? { id: g.id, score: g.score ?? 0, reasoning: g.reasoning }
          : { id: g.id, verdict: g.verdict ?? 'FAIL', reasoning: g.reasoning }
      }),
      dimensions: answer.dimensions,
      verdict: answer.verdict,
      feedback: answer.feedback
    }
  }
}
