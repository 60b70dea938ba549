import type { z } from 'zod'
import {
  CriterionSchema,
  DimensionSchema,
  ID_PATTERN,
  ScoreRangesSchema,
  FRONT_MATTER_SHAPE,
  FrontMatterSchema,
  type FrontMatter,
  type RawCriterion,
  type RawScoreRanges
} from './schema.js'
import { own } from './own.js'
import { closest } from './similar.js'
import { isRecord } from '../util/is-record.js'
import { describeIssues, label, show, type Path, type PathProblem } from './zod-issues.js'

/** What survived validation: every key that is valid on its own, with its errors beside it. */
export interface CheckedFrontMatter {
  readonly values: Omit<Partial<FrontMatter>, 'criteria'>
  /** Valid criteria with their index in the front matter (for positions). */
  readonly criteria: readonly { readonly index: number; readonly criterion: RawCriterion }[]
  /**
   * Score ranges of criteria that failed validation elsewhere, so that their overlap and coverage
   * are reported in the same run as the other errors.
   */
  readonly rangesOfInvalidCriteria: readonly {
    readonly index: number
    readonly name: string
    readonly scoreRanges: RawScoreRanges
  }[]
  readonly problems: readonly PathProblem[]
}

type Shape = typeof FRONT_MATTER_SHAPE
const TOP_LEVEL_KEYS = Object.keys(FRONT_MATTER_SHAPE).filter(k => k !== '$schema')

/**
 * Checks each top-level key, and each criterion, on its own, so that every error of the file is
 * reported at once (zod skips refinements, and gives no data, once anything in an object fails).
 */
export function checkFrontMatter(
  data: unknown,
  what: 'front matter' | 'rubric'
): CheckedFrontMatter {
  if (data === undefined || data === null) return EMPTY
  if (!isRecord(data)) {
    return {
      ...EMPTY,
      problems: [
        {
          path: [],
          at: 'value',
          rule: 'type',
          message: `the ${what} must be a mapping of keys (title, criteria, gates, …), got ${show(data)}`
        }
      ]
    }
  }

  const problems: PathProblem[] = []
  const values: Record<string, unknown> = {}
  const criteria: { index: number; criterion: RawCriterion }[] = []
  const rangesOfInvalidCriteria: CheckedFrontMatter['rangesOfInvalidCriteria'][number][] = []

  for (const [key, value] of Object.entries(data)) {
    if (!Object.hasOwn(FRONT_MATTER_SHAPE, key)) {
      const suggestion = closest(key, TOP_LEVEL_KEYS)
      problems.push({
        path: [key],
        at: 'key',
        rule: 'unknown-key',
        message:
          `unknown key "${key}" in the ${what}` +
          (suggestion ? `; did you mean "${suggestion}"?` : '') +
          ` (known keys: ${TOP_LEVEL_KEYS.join(', ')})`
      })
      continue
    }
    if (key === 'criteria' && Array.isArray(value)) {
      value.forEach((item: unknown, index) => {
        const result = CriterionSchema.safeParse(item, { reportInput: true })
        if (result.success) {
          criteria.push({ index, criterion: result.data })
          return
        }
        problems.push(...describe(result.error.issues, ['criteria', index], data))
        const ranges = ScoreRangesSchema.safeParse(isRecord(item) ? item.score_ranges : undefined)
        if (ranges.success) {
          rangesOfInvalidCriteria.push({
            index,
            name: label(['criteria', index], data),
            scoreRanges: ranges.data
          })
        }
      })
      continue
    }
    if (key === 'dimensions' && isRecord(value)) {
      // Entry by entry, so one bad dimension does not hide the others' problems.
      const valid: Record<string, z.output<typeof DimensionSchema>> = {}
      for (const [name, entry] of Object.entries(value)) {
        if (!ID_PATTERN.test(name)) {
          problems.push({
            path: ['dimensions', name],
            at: 'key',
            rule: 'dimension',
            message: `dimension name "${name}" may contain only letters, digits, - and _`
          })
          continue
        }
        const result = DimensionSchema.safeParse(entry, { reportInput: true })
        if (result.success) valid[name] = result.data
        else problems.push(...describe(result.error.issues, ['dimensions', name], data))
      }
      // Entries that failed are reported above; an all-failed map is not an "empty map".
      if (Object.keys(valid).length > 0 || Object.keys(value).length === 0) values[key] = valid
      continue
    }
    const schema: z.ZodType = FRONT_MATTER_SHAPE[key as keyof Shape]
    const result = schema.safeParse(value, { reportInput: true })
    if (result.success) values[key] = result.data
    else problems.push(...describe(result.error.issues, [key], data))
  }
  return {
    values,
    criteria,
    rangesOfInvalidCriteria,
    problems
  }
}

const EMPTY: CheckedFrontMatter = {
  values: {},
  criteria: [],
  rangesOfInvalidCriteria: [],
  problems: []
}

function describe(issues: readonly z.core.$ZodIssue[], base: Path, root: unknown): PathProblem[] {
  return describeIssues(issues, base, root, knownKeysAt)
}

/** The keys the object schema at `path` accepts, found by walking the schema alongside the path. */
export function knownKeysAt(path: Path): readonly string[] {
  const keys = new Set<string>()
  const visit = (schema: z.core.$ZodType, rest: Path): void => {
    const def = schema._zod.def as unknown as Record<string, unknown> & { type: string }
    switch (def.type) {
      case 'optional':
      case 'nullable':
      case 'default':
        visit(def.innerType as z.core.$ZodType, rest)
        return
      case 'union':
        for (const option of def.options as z.core.$ZodType[]) visit(option, rest)
        return
      case 'object': {
        const shape = def.shape as Record<string, z.core.$ZodType>
        if (rest.length === 0) {
          Object.keys(shape).forEach(k => keys.add(k))
          return
        }
        const next = own(shape, String(rest[0]))
        if (next) visit(next, rest.slice(1))
        return
      }
      case 'array':
        if (rest.length > 0) visit(def.element as z.core.$ZodType, rest.slice(1))
        return
      case 'record':
        if (rest.length > 0) visit(def.valueType as z.core.$ZodType, rest.slice(1))
        return
      default:
        return
    }
  }
  visit(FrontMatterSchema, path)
  keys.delete('$schema')
  return [...keys]
}
