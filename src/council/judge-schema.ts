import { z } from 'zod'
import type { Rubric } from '../rubric/types.js'
import type { CriterionGrade, JudgeAnswer, Severity } from './types.js'
import { isRecord } from '../util/is-record.js'
import { failed, ok, type Result } from '../util/result.js'

/**
 * The judge's output (docs/council.md#the-contract), built per rubric, in the one form every
 * provider's structured-output mode accepts: OpenAI strict mode, Anthropic structured outputs,
 * Gemini's `responseJsonSchema`, and the JSON-schema grammars of OpenRouter's providers, Ollama
 * and llama.cpp. What the verdict needs is in the schema itself, so an engine that follows it can
 * only produce a usable answer:
 *
 * - Criteria and dimensions are objects keyed by id or name, every key required and no other
 *   allowed: none can be missing, repeated or unknown (a list of items with an `id` allowed all
 *   three, and a grammar-constrained engine produced each).
 * - Scores are integer enums (0–10 by the bands, 1–10 by the anchors): Anthropic rejects
 *   `minimum` and `maximum`, while every provider takes an enum of integers. The item shapes are
 *   `$defs`, referred to once per key: OpenAI counts enum values across the whole schema (1,000 at
 *   most), and a shared definition counts them once however many criteria there are.
 * - Every object lists all its properties as required and allows no others (OpenAI strict).
 * - No unions: no type arrays, no `anyOf`, no nullable field. Anthropic rejects an `enum` beside a
 *   type array and caps union-typed fields; so a finding without a file has path "" and line 0.
 * - A group the rubric has nothing for is left out, rather than an object with no keys.
 * - Reasoning comes before the verdict or score in each item: evidence before verdict.
 */
export function judgeJsonSchema(rubric: Rubric): Record<string, unknown> {
  const used = answerGroups(rubric)
  const text = (description: string): Record<string, unknown> => ({ type: 'string', description })
  const keyed = (group: AnswerGroup): Record<string, unknown> => ({
    ...object(
      Object.fromEntries(
        [...group.keys.values()].map(key => [key, { $ref: `#/$defs/${group.item}` }])
      )
    ),
    description: group.description
  })
  return {
    ...object({
      findings: {
        type: 'array',
        description:
          'Problems found in the pull request, most severe first, listed before any grade',
        items: object({
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
        })
      },
      ...Object.fromEntries(used.map(group => [group.field, keyed(group)])),
      verdict: { type: 'string', enum: ['ACCEPT', 'RETRY', 'TERMINATE'] },
      feedback: text('What the author should do next')
    }),
    // A copy each time: what a caller does to its schema cannot change the next one.
    $defs: Object.fromEntries(used.map(group => [group.item, structuredClone(ITEMS[group.item])]))
  }
}

function object(properties: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties),
    properties
  }
}

const integers = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i)

/** The shape of one grade, by group: reasoning first, then the verdict or the score. */
const ITEMS = {
  check: object({
    reasoning: { type: 'string' },
    verdict: { type: 'string', enum: ['PASS', 'FAIL'] }
  }),
  band: object({
    reasoning: { type: 'string' },
    score: { type: 'integer', enum: integers(0, 10), description: 'By the criterion’s bands' }
  }),
  dimension: object({
    reasoning: { type: 'string' },
    score: { type: 'integer', enum: integers(1, 10), description: 'By the dimension’s anchors' }
  })
} as const

/** One keyed group of the answer: which field, what it grades, and the key of each id or name. */
export interface AnswerGroup {
  readonly field: 'criteria' | 'scored_criteria' | 'dimensions'
  /** What one of its ids is called in a problem said back to the judge. */
  readonly kind: string
  readonly description: string
  readonly item: keyof typeof ITEMS
  /** Each id or name, in the rubric's order, to the property it is answered under. */
  readonly keys: ReadonlyMap<string, string>
}

/** The groups this rubric's answer has: only those it has something for. */
export function answerGroups(rubric: Rubric): AnswerGroup[] {
  return everyGroup(rubric).filter(group => group.keys.size > 0)
}

/** All three groups, one with no keys where the rubric has nothing for it. */
function everyGroup(rubric: Rubric): AnswerGroup[] {
  const group = (
    field: AnswerGroup['field'],
    kind: string,
    description: string,
    item: AnswerGroup['item'],
    names: readonly string[]
  ): AnswerGroup => ({ field, kind, description, item, keys: answerKeys(names) })
  return [
    group(
      'criteria',
      'checklist criterion',
      'Every checklist criterion, by id',
      'check',
      rubric.criteria.filter(c => !c.scoreRanges).map(c => c.id)
    ),
    group(
      'scored_criteria',
      'criterion with score bands',
      'Every criterion with score bands, by id',
      'band',
      rubric.criteria.filter(c => c.scoreRanges).map(c => c.id)
    ),
    group(
      'dimensions',
      'dimension',
      'Every dimension, by name',
      'dimension',
      rubric.dimensions.map(d => d.name)
    )
  ]
}

/**
 * Property names every provider takes. Anthropic refuses any other property key in a tool's
 * schema ("Property keys should match pattern '^[a-zA-Z0-9_.-]{1,64}$'", as met in
 * saidsurucu/ihale-mcp#2 for a non-ASCII letter); the same for the output schema is the stricter
 * reading. A rubric's ids may have any letter and any length (`ID_PATTERN`), so not every id is
 * one; nor is `__proto__`, which JavaScript's JSON-schema tools (ajv among them) take for the
 * prototype rather than a key.
 */
function plainKey(name: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}$/.test(name) && name !== '__proto__'
}

/**
 * The property each id or name is answered under: itself where it is a plain key, otherwise
 * `item-<n>`, a plain key no id of the group has (the prompt says which id it stands for).
 */
export function answerKeys(names: readonly string[]): ReadonlyMap<string, string> {
  const plain = new Set(names.filter(plainKey))
  const keys = new Map<string, string>()
  let n = 0
  for (const name of names) {
    let key = name
    if (!plain.has(name)) {
      do key = `item-${++n}`
      while (plain.has(key))
    }
    keys.set(name, key)
  }
  return keys
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
// group left out when the rubric has nothing for it), strict on what the verdict depends on (ids,
// verdicts, scores and their bounds). The keyed groups are read by `readGroup`, key by key.
// Not `z.record`: it drops a key named "__proto__", which a rubric may use as an id.
const Keyed = z
  .custom<Readonly<Record<string, unknown>>>(isRecord, 'expected an object keyed by id or name')
  .default({})
const WireAnswer = z.object({
  findings: z.array(
    z.object({
      severity: z.string(),
      title: z.string(),
      path: z.string().nullish(),
      // Unbounded in the schema (Anthropic takes no `minimum`), and a grammar writes any run of
      // digits (JSON.parse reads one past 1.8e308 as Infinity, which z.number() refuses): a line
      // that is not a whole number from 1 to 2^53 is no line, like 0.
      line: z.custom<number>(value => typeof value === 'number', 'expected a number').nullish(),
      evidence: z.string().default('')
    })
  ),
  criteria: Keyed,
  scored_criteria: Keyed,
  dimensions: Keyed,
  verdict: z.enum(['ACCEPT', 'RETRY', 'TERMINATE']),
  feedback: z.string().default('')
})

const Check = z.object({ reasoning: z.string(), verdict: z.enum(['PASS', 'FAIL']) })
const Scored = z.object({ reasoning: z.string(), score: z.int() })

/**
 * The answer with each enum value, and each key of a keyed group, written in another case
 * replaced by the one member it can only mean: a judge (Claude, among others) may answer "pass"
 * for "PASS", and a repair request for that costs a whole call. Only a difference of case is
 * forgiven, and only where one member matches: a value two members match, a key whose match is
 * also given, or one that differs by anything else, is left as it is and refused by the
 * validation that follows. `$ref`s are followed within `root`, the whole schema.
 */
export function withEnumCase(value: unknown, schema: unknown, root: unknown = schema): unknown {
  const node = resolved(schema, root)
  if (!isRecord(node)) return value
  if (typeof value === 'string' && Array.isArray(node.enum)) {
    const members = node.enum.filter((m): m is string => typeof m === 'string')
    return members.includes(value) ? value : (onlyMatch(members, value) ?? value)
  }
  if (Array.isArray(value)) return value.map(item => withEnumCase(item, node.items, root))
  if (isRecord(value) && isRecord(node.properties)) {
    const properties = node.properties
    const names = Object.keys(properties)
    return Object.fromEntries(
      Object.entries(value).map(([key, field]) => {
        const name = Object.hasOwn(properties, key) ? key : onlyMatch(names, key)
        // A key in another case takes the property's name, unless that name is given too.
        return name === undefined || (name !== key && Object.hasOwn(value, name))
          ? [key, field]
          : [name, withEnumCase(field, properties[name], root)]
      })
    )
  }
  return value
}

/** The schema a local `$ref` ("#/$defs/check") points at, or the schema itself. */
function resolved(schema: unknown, root: unknown): unknown {
  if (!isRecord(schema) || typeof schema.$ref !== 'string') return schema
  const name = /^#\/\$defs\/(.+)$/.exec(schema.$ref)?.[1]
  const defs = isRecord(root) && isRecord(root.$defs) ? root.$defs : {}
  return name !== undefined && Object.hasOwn(defs, name) ? defs[name] : undefined
}

/** The one member equal to `value` but for case, if exactly one is. */
function onlyMatch(members: readonly string[], value: string): string | undefined {
  const matching = members.filter(m => sameButCase(m, value))
  return matching.length === 1 ? matching[0] : undefined
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
 * Checks an answer against the rubric: the shape, then every criterion id and dimension name
 * under its key, with a verdict for checklist criteria and a score in bounds for the others.
 * The error text goes back to the judge in the repair request, so it names each problem.
 */
export function validateAnswer(value: unknown, rubric: Rubric): Validation {
  const parsed = WireAnswer.safeParse(withEnumCase(value, judgeJsonSchema(rubric)))
  if (!parsed.success) return failed(issues(parsed.error.issues, []).slice(0, 20).join('; '))
  const answer = parsed.data
  const problems: string[] = []
  const grades = new Map<string, CriterionGrade>()
  const dimensions: JudgeAnswer['dimensions'][number][] = []
  for (const group of everyGroup(rubric)) {
    for (const [name, grade] of readGroup(group, answer[group.field], problems)) {
      if (group.field === 'dimensions') dimensions.push({ name, ...(grade as Scored) })
      else grades.set(name, { id: name, ...grade })
    }
  }
  if (problems.length > 0) return failed(problems.join('; '))

  return ok({
    findings: answer.findings.map(f => ({
      severity: normaliseSeverity(f.severity),
      title: f.title,
      evidence: f.evidence,
      ...(f.path ? { path: f.path } : {}),
      ...(f.line != null && Number.isSafeInteger(f.line) && f.line > 0 ? { line: f.line } : {})
    })),
    // Graded in the rubric's order, whichever group each grade came in.
    criteria: rubric.criteria.flatMap(c => {
      const grade = grades.get(c.id)
      return grade ? [grade] : []
    }),
    dimensions,
    verdict: answer.verdict,
    feedback: answer.feedback
  })
}

type Scored = z.infer<typeof Scored>
type Grade = z.infer<typeof Check> | Scored

/** Each id's grade in one keyed group, in the rubric's order; what is wrong goes to `problems`. */
function readGroup(
  group: AnswerGroup,
  given: Readonly<Record<string, unknown>>,
  problems: string[]
): [string, Grade][] {
  const grades: [string, Grade][] = []
  const [low, high] = group.item === 'band' ? [0, 10] : [1, 10]
  for (const [name, key] of group.keys) {
    const named = key === name ? `"${name}"` : `"${name}" (key "${key}")`
    if (!Object.hasOwn(given, key)) {
      problems.push(`${group.kind} ${named} is missing`)
      continue
    }
    const item = (group.item === 'check' ? Check : Scored).safeParse(given[key])
    if (!item.success) {
      problems.push(...issues(item.error.issues, [group.field, key]))
      continue
    }
    const grade = item.data
    if ('score' in grade && (grade.score < low || grade.score > high)) {
      const what = group.item === 'band' ? 'criterion' : 'dimension'
      problems.push(`${what} ${named} has score ${grade.score}: give an integer ${low}–${high}`)
      continue
    }
    grades.push([name, grade])
  }
  const keys = new Set(group.keys.values())
  for (const key of Object.keys(given))
    if (!keys.has(key)) problems.push(`unknown ${group.kind} "${key}"`)
  return grades
}

/** zod's issues as "where: what", the path from the answer's root. */
function issues(found: readonly z.core.$ZodIssue[], at: readonly string[]): string[] {
  return found.map(i => `${[...at, ...i.path.map(String)].join('.') || '(root)'}: ${i.message}`)
}
