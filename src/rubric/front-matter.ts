import type { z } from 'zod'
import {
  CouncilSchema,
  CriterionSchema,
  DimensionSchema,
  ThresholdsSchema,
  ID_PATTERN,
  FRONT_MATTER_SHAPE,
  FrontMatterSchema,
  type FrontMatter,
  type RawCriterion
} from './schema.js'
import { own } from './own.js'
import { closest } from './similar.js'
import { isRecord } from '../util/is-record.js'
import { describeIssues, label, show, type Path, type PathProblem } from './zod-issues.js'

/** A criterion of the front matter with every field that is valid on its own. */
export interface CheckedCriterion {
  /** Its index in the front matter's list (for positions). */
  readonly index: number
  /** `criterion "id"` or `criteria item 3`, for messages. */
  readonly name: string
  /** Only the fields that passed; the others are in `invalidKeys`. */
  readonly criterion: RawCriterion
  /** Keys whose value failed validation (already reported); empty for a valid criterion. */
  readonly invalidKeys: readonly string[]
  /** False when anything about the criterion failed, so it must not be used. */
  readonly valid: boolean
}

/** What survived validation: every key that is valid on its own, with its errors beside it. */
export interface CheckedFrontMatter {
  readonly values: Omit<Partial<FrontMatter>, 'criteria'>
  /**
   * Every criterion that is a mapping, the invalid ones too (with their valid fields), so that
   * the rules spanning fields (id, duplicates, score ranges) are checked in the same run as the
   * shape errors: one error of a criterion never hides another.
   */
  readonly criteria: readonly CheckedCriterion[]
  /**
   * Fields that failed inside an object kept in `values` with its other fields (thresholds,
   * council, score_weights, a dimension), as dotted paths: `thresholds.pass`,
   * `dimensions.foo.weight`. Rules that involve them are skipped; their errors are already reported.
   */
  readonly invalidFields: ReadonlySet<string>
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
  const checked: Checked = { values: {}, criteria: [], invalidFields: new Set(), problems: [] }
  for (const [key, value] of Object.entries(data)) {
    if (!Object.hasOwn(FRONT_MATTER_SHAPE, key)) checked.problems.push(unknownKey(key, what))
    else if (key === 'criteria' && Array.isArray(value)) checkCriteria(value, data, checked)
    else if (key === 'dimensions' && isRecord(value)) checkDimensions(value, data, checked)
    else checkKey(key, value, data, checked)
  }
  return checked
}

/** A `CheckedFrontMatter` being filled in. */
interface Checked {
  readonly values: Record<string, unknown>
  readonly criteria: CheckedCriterion[]
  readonly invalidFields: Set<string>
  readonly problems: PathProblem[]
}

function unknownKey(key: string, what: 'front matter' | 'rubric'): PathProblem {
  const suggestion = closest(key, TOP_LEVEL_KEYS)
  return {
    path: [key],
    at: 'key',
    rule: 'unknown-key',
    message:
      `unknown key "${key}" in the ${what}` +
      (suggestion ? `; did you mean "${suggestion}"?` : '') +
      ` (known keys: ${TOP_LEVEL_KEYS.join(', ')})`
  }
}

/** Every criterion that is a mapping, the invalid ones with their valid fields. */
function checkCriteria(items: readonly unknown[], data: unknown, checked: Checked): void {
  items.forEach((item, index) => {
    const name = label(['criteria', index], data)
    const result = CriterionSchema.safeParse(item, { reportInput: true })
    if (result.success) {
      checked.criteria.push({ index, name, criterion: result.data, invalidKeys: [], valid: true })
      return
    }
    checked.problems.push(...describe(result.error.issues, ['criteria', index], data))
    if (isRecord(item)) checked.criteria.push({ index, name, ...validFields(item), valid: false })
  })
}

/** Entry by entry, so one bad dimension does not hide the others' problems. */
function checkDimensions(
  dimensions: Record<string, unknown>,
  data: unknown,
  checked: Checked
): void {
  const valid: Record<string, z.output<typeof DimensionSchema>> = {}
  for (const [name, entry] of Object.entries(dimensions)) {
    if (!ID_PATTERN.test(name)) {
      checked.problems.push({
        path: ['dimensions', name],
        at: 'key',
        rule: 'dimension',
        message: `dimension name "${name}" may contain only letters, digits, - and _`
      })
      continue
    }
    const result = DimensionSchema.safeParse(entry, { reportInput: true })
    if (result.success) {
      valid[name] = result.data
      continue
    }
    checked.problems.push(...describe(result.error.issues, ['dimensions', name], data))
    // Kept with its valid fields, so that a missing description is reported too.
    const prefix = `dimensions.${name}`
    if (isRecord(entry)) valid[name] = validPart(DIMENSION_FIELDS, entry, prefix, checked)
    else {
      valid[name] = {}
      checked.invalidFields.add(`${prefix}.weight`)
    }
  }
  // Entries that failed are reported above; an all-failed map is not an "empty map".
  if (Object.keys(valid).length > 0 || Object.keys(dimensions).length === 0) {
    checked.values.dimensions = valid
  }
}

/** Any other top-level key; of an object that failed, the fields valid on their own are kept. */
function checkKey(key: string, value: unknown, data: unknown, checked: Checked): void {
  const schema: z.ZodType = FRONT_MATTER_SHAPE[key as keyof Shape]
  const result = schema.safeParse(value, { reportInput: true })
  if (result.success) {
    checked.values[key] = result.data
    return
  }
  checked.problems.push(...describe(result.error.issues, [key], data))
  // An object's valid fields are kept, so that the rules relating them are checked too.
  const fields = own(OBJECT_FIELDS, key)
  if (fields && isRecord(value)) checked.values[key] = validPart(fields, value, key, checked)
}

/** The fields of an object that are valid on their own; the others go to `invalidFields`. */
function validPart(
  shape: Readonly<Record<string, z.ZodType>>,
  value: Record<string, unknown>,
  prefix: string,
  checked: Checked
): Record<string, unknown> {
  const part: Record<string, unknown> = {}
  for (const [field, fieldValue] of Object.entries(value)) {
    const schema = own(shape, field)
    const result = schema?.safeParse(fieldValue)
    if (result?.success) part[field] = result.data
    else checked.invalidFields.add(`${prefix}.${field}`)
  }
  return part
}

/** The fields of a criterion that are valid on their own; unknown keys are left out. */
function validFields(item: Record<string, unknown>): {
  criterion: RawCriterion
  invalidKeys: string[]
} {
  const criterion: Record<string, unknown> = {}
  const invalidKeys: string[] = []
  for (const [key, value] of Object.entries(item)) {
    const schema: z.ZodType | undefined = own(CriterionSchema.shape, key)
    if (!schema) continue
    const result = schema.safeParse(value)
    if (result.success) criterion[key] = result.data
    else invalidKeys.push(key)
  }
  return { criterion, invalidKeys }
}

/** Top-level keys whose value is one object of independent fields. */
const OBJECT_FIELDS: Readonly<Record<string, Readonly<Record<string, z.ZodType>>>> = {
  thresholds: ThresholdsSchema.shape,
  council: CouncilSchema.shape,
  score_weights: FRONT_MATTER_SHAPE.score_weights.unwrap().shape
}

const DIMENSION_FIELDS: Readonly<Record<string, z.ZodType>> = DimensionSchema.options[1].shape

const EMPTY: CheckedFrontMatter = {
  values: {},
  criteria: [],
  invalidFields: new Set(),
  problems: []
}

function describe(issues: readonly z.core.$ZodIssue[], base: Path, root: unknown): PathProblem[] {
  return describeIssues(issues, base, root, knownKeysAt)
}

/** The keys the object schema at `path` accepts, found by walking the schema alongside the path. */
function knownKeysAt(path: Path): readonly string[] {
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
