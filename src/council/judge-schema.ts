import { z } from 'zod'
import type { Rubric } from '../rubric/types.js'
import type { CriterionGrade, JudgeAnswer, Severity } from './types.js'
import { isRecord } from '../util/is-record.js'
import { failed, ok, type Result } from '../util/result.js'

/**
 * The judge's output (docs/council.md#the-contract), built per rubric, in the one form every
 * provider's structured-output mode accepts: OpenAI strict mode, Anthropic structured outputs,
 * Gemini's `responseJsonSchema`, and the JSON-schema grammars of OpenRouter's providers and Ollama.
 *
 * - Every object lists all its properties as required and allows no others (OpenAI strict).
 * - No unions: no type arrays, no `anyOf`, no nullable field. Anthropic rejects an `enum` beside a
 *   type array and caps union-typed fields; Gemini's older schema has no type arrays. So checklist
 *   and score-range criteria have a list each, and a finding without a file has path "" and line 0.
 * - No numeric, length or item-count bounds (Anthropic rejects `minimum`, `maximum`, `maxItems`…):
 *   `validateAnswer` enforces them, and a judge that breaks one gets the repair request.
 * - A list the rubric has nothing for is left out, rather than bounded to zero items.
 * - Criterion ids and dimension names are enumerated, so an unknown one cannot be expressed.
 * - Reasoning comes before the verdict or score in each item: evidence before verdict.
 */
export function judgeJsonSchema(rubric: Rubric): Record<string, unknown> {
  const checklist = rubric.criteria.filter(c => !c.scoreRanges).map(c => c.id)
  const scored = rubric.criteria.filter(c => c.scoreRanges).map(c => c.id)
  const names = rubric.dimensions.map(d => d.name)
  const object = (properties: Record<string, unknown>): Record<string, unknown> => ({
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties),
    properties
  })
  const list = (description: string, item: Record<string, unknown>): Record<string, unknown> => ({
    type: 'array',
    description,
    items: object(item)
  })
  const text = (description: string): Record<string, unknown> => ({ type: 'string', description })
  return object({
    findings: list(
      'Problems found in the pull request, most severe first, listed before any grade',
      {
        severity: { type: 'string', enum: [...SEVERITIES] },
        title: { type: 'string' },
        path: text(
          'The changed file the finding is about, or the gate ("gate 1"); "" when it is about no one file'
        ),
        line: {
          type: 'integer',
          description: 'The line of the diff’s new side in that file; 0 when there is none'
        },
        evidence: text('What in the diff or the gate’s output shows it, quoted')
      }
    ),
    ...(checklist.length > 0 && {
      criteria: list('Every checklist criterion, each exactly once', {
        id: { type: 'string', enum: checklist },
        reasoning: { type: 'string' },
        verdict: { type: 'string', enum: ['PASS', 'FAIL'] }
      })
    }),
    ...(scored.length > 0 && {
      scored_criteria: list('Every criterion with score bands, each exactly once', {
        id: { type: 'string', enum: scored },
        reasoning: { type: 'string' },
        score: { type: 'integer', description: 'An integer from 0 to 10, by the bands' }
      })
    }),
    ...(names.length > 0 && {
      dimensions: list('Every dimension, each exactly once', {
        name: { type: 'string', enum: names },
        reasoning: { type: 'string' },
        score: { type: 'integer', description: 'An integer from 1 to 10, by the anchors' }
      })
    }),
    verdict: { type: 'string', enum: ['ACCEPT', 'RETRY', 'TERMINATE'] },
    feedback: text('What the author should do next')
  })
}

const SEVERITIES = ['critical', 'major', 'minor', 'info'] as const

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

// Lenient on what varies between models (severity words, a null where "" or 0 was asked for, a
// list left out when the rubric has nothing for it), strict on what the verdict depends on (ids,
// verdicts, scores and their bounds).
const Grades = <T extends z.ZodRawShape>(shape: T) => z.array(z.object(shape)).default([])
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
  criteria: Grades({ id: z.string(), verdict: z.enum(['PASS', 'FAIL']), reasoning: z.string() }),
  scored_criteria: Grades({ id: z.string(), score: z.int(), reasoning: z.string() }),
  dimensions: Grades({ name: z.string(), score: z.int(), reasoning: z.string() }),
  verdict: z.enum(['ACCEPT', 'RETRY', 'TERMINATE']),
  feedback: z.string().default('')
})

/**
 * The answer with each enum value written in another case replaced by the one member it can only
 * mean: a judge (Claude, among others) may answer "pass" for "PASS", and a repair request for
 * that costs a whole call. Only a difference of case is forgiven, and only where one member
 * matches: a value two members match (criterion ids cannot differ only by case, but the rule does
 * not rely on it), or that differs by anything else, is left as it is and refused by the
 * validation that follows.
 */
export function withEnumCase(value: unknown, schema: unknown): unknown {
  if (!isRecord(schema)) return value
  if (typeof value === 'string' && Array.isArray(schema.enum)) {
    const members = schema.enum.filter((m): m is string => typeof m === 'string')
    if (members.includes(value)) return value
    const matching = members.filter(m => sameButCase(m, value))
    return matching.length === 1 ? matching[0] : value
  }
  if (Array.isArray(value)) return value.map(item => withEnumCase(item, schema.items))
  if (isRecord(value) && isRecord(schema.properties)) {
    const properties = schema.properties
    return Object.fromEntries(
      Object.entries(value).map(([key, field]) => [
        key,
        Object.hasOwn(properties, key) ? withEnumCase(field, properties[key]) : field
      ])
    )
  }
  return value
}

/**
 * Equal but for case, both ways round: "ı" (dotless i) upper-cases to "I" but does not lower-case
 * to "i", and the Kelvin sign lower-cases to "k" but does not upper-case to "K"; neither passes.
 */
function sameButCase(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase() && a.toUpperCase() === b.toUpperCase()
}

/** The answer as the verdict reads it, or every problem with it (said back to the judge). */
export type Validation = Result<JudgeAnswer>

/**
 * Checks an answer against the rubric: the shape, then that every criterion id and dimension name
 * appears exactly once, with a verdict for checklist criteria and a score for score-range ones.
 * The error text goes back to the judge in the repair request, so it names each problem.
 */
export function validateAnswer(value: unknown, rubric: Rubric): Validation {
  const parsed = WireAnswer.safeParse(withEnumCase(value, judgeJsonSchema(rubric)))
  if (!parsed.success) {
    const problems = parsed.error.issues.map(i => `${i.path.join('.') || '(root)'}: ${i.message}`)
    return failed(problems.slice(0, 20).join('; '))
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
    'checklist criterion',
    answer.criteria.map(c => c.id),
    rubric.criteria.filter(c => !c.scoreRanges).map(c => c.id)
  )
  expectOnce(
    'criterion with score bands',
    answer.scored_criteria.map(c => c.id),
    rubric.criteria.filter(c => c.scoreRanges).map(c => c.id)
  )
  expectOnce(
    'dimension',
    answer.dimensions.map(d => d.name),
    rubric.dimensions.map(d => d.name)
  )
  for (const grade of answer.scored_criteria) {
    if (grade.score < 0 || grade.score > 10)
      problems.push(`criterion "${grade.id}" has score ${grade.score}: give an integer 0–10`)
  }
  for (const grade of answer.dimensions) {
    if (grade.score < 1 || grade.score > 10)
      problems.push(`dimension "${grade.name}" has score ${grade.score}: give an integer 1–10`)
  }
  if (problems.length > 0) return failed(problems.join('; '))

  // Graded in the rubric's order, whichever list each grade came in.
  const grades = new Map<string, CriterionGrade>([
    ...answer.criteria.map(g => [g.id, g] as const),
    ...answer.scored_criteria.map(g => [g.id, g] as const)
  ])
  return ok({
    findings: answer.findings.map(f => ({
      severity: normaliseSeverity(f.severity),
      title: f.title,
      evidence: f.evidence,
      ...(f.path ? { path: f.path } : {}),
      ...(f.line ? { line: f.line } : {})
    })),
    criteria: rubric.criteria.flatMap(c => {
      const grade = grades.get(c.id)
      return grade ? [grade] : []
    }),
    dimensions: answer.dimensions,
    verdict: answer.verdict,
    feedback: answer.feedback
  })
}
