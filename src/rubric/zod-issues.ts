import type { z } from 'zod'
import type { RubricRule } from './errors.js'
import { isRecord } from '../util/is-record.js'
import { closest } from './similar.js'

type Issue = z.core.$ZodIssue
export type Path = readonly PropertyKey[]

/** A problem located by its path in the YAML data; `parse.ts` turns the path into a line. */
export interface PathProblem {
  readonly path: Path
  /** Point at the key (unknown keys) or at the value. */
  readonly at: 'key' | 'value'
  readonly rule: RubricRule
  readonly message: string
}

/** The keys an object schema accepts at a path, for "did you mean". */
export type KnownKeys = (path: Path) => readonly string[]

/**
 * Turns zod's issues into messages a rubric author can act on: the subject (criterion "id",
 * dimension "name", or the key path), what was expected, and the value actually found.
 */
export function describeIssues(
  issues: readonly Issue[],
  base: Path,
  root: unknown,
  knownKeys: KnownKeys
): PathProblem[] {
  const problems = issues.flatMap(issue =>
    describeIssue(issue, [...base, ...issue.path], root, knownKeys)
  )
  // Both numbers of one score range can be wrong; say so once.
  return problems.filter(
    (p, i) => problems.findIndex(q => q.message === p.message && q.rule === p.rule) === i
  )
}

function describeIssue(
  issue: Issue,
  path: Path,
  root: unknown,
  knownKeys: KnownKeys
): PathProblem[] {
  const input = issue.input
  const rangeAt = path.indexOf('score_range')
  if (rangeAt > 0 && issue.code !== 'unrecognized_keys') {
    return [scoreRangeProblem(path.slice(0, rangeAt + 1), root)]
  }
  switch (issue.code) {
    case 'unrecognized_keys':
      return unknownKeys(issue.keys, path, root, knownKeys(path))
    case 'invalid_union': {
      const branch = matchingBranch(issue)
      if (branch) return describeIssues(branch, path, root, knownKeys)
      return [problem(path, root, `must be ${unionPhrase(issue)}, got ${show(input)}`, 'type')]
    }
    case 'invalid_key':
      return [invalidKey(String(input), path, root)]
    case 'invalid_type':
      if (input === undefined) return [problem(path, root, 'is required', ruleFor(path, issue))]
      return [
        problem(
          path,
          root,
          `must be ${expected(issue.expected)}, got ${show(input)}`,
          ruleFor(path, issue)
        )
      ]
    case 'too_small':
    case 'too_big':
      return [
        problem(path, root, `${limitPhrase(issue)}, got ${show(input)}`, ruleFor(path, issue))
      ]
    case 'invalid_format':
      return [problem(path, root, formatPhrase(path, input), ruleFor(path, issue))]
    case 'invalid_value':
      return [invalidValue(issue, path, root)]
    case 'custom':
      return [
        {
          path,
          at: 'value',
          rule: ruleFor(path, issue),
          message: `${label(path, root)}: ${issue.message}`
        }
      ]
    case 'not_multiple_of':
    case 'invalid_element':
      return [problem(path, root, issue.message, 'type')]
  }
}

/** One message per score range, whichever of its two numbers is wrong. */
function scoreRangeProblem(rangePath: Path, root: unknown): PathProblem {
  const pair = valueAt(root, rangePath)
  const shown = Array.isArray(pair) ? `[${pair.map(v => show(v)).join(',')}]` : show(pair)
  return {
    path: rangePath,
    at: 'value',
    rule: 'score-range-bounds',
    message:
      `${label(rangePath.slice(0, -3), root)}: score_range ${shown} is out of bounds: ` +
      'a range is two whole numbers within 0–10'
  }
}

function unknownKeys(
  keys: readonly string[],
  path: Path,
  root: unknown,
  known: readonly string[]
): PathProblem[] {
  return keys.map(key => {
    const suggestion = closest(key, known)
    return {
      path: [...path, key],
      at: 'key',
      rule: 'unknown-key',
      message:
        `unknown key "${key}"${where(path, root)}` +
        (suggestion ? `; did you mean "${suggestion}"?` : '') +
        (known.length > 0 ? ` (known keys: ${known.join(', ')})` : '')
    }
  })
}

/** A key of a record that its schema refuses: a band start, or a name. */
function invalidKey(key: string, path: Path, root: unknown): PathProblem {
  return path.includes('score_ranges')
    ? problem(
        path.slice(0, -1),
        root,
        `key "${key}" is out of bounds: band starts are whole numbers from 0 to 10`,
        'score-range-bounds',
        path,
        'key'
      )
    : problem(
        path.slice(0, -1),
        root,
        `name "${key}" may contain only letters, digits, - and _`,
        'type',
        path,
        'key'
      )
}

/** What the formats of the fields checked by pattern are. */
function formatPhrase(path: Path, input: unknown): string {
  if (path.at(-1) === 'id') return `may contain only letters, digits, - and _, got ${show(input)}`
  if (path[0] === 'extends') {
    return `must be owner/repo/path@ref with a tag or a full commit SHA, e.g. octo-org/.github/rubrics/base.md@v1, got ${show(input)}`
  }
  if (path[0] === 'name') {
    return `may contain letters, digits, spaces, ".", "_" and "-" (at most 64, starting with a letter or digit and not ending with a space), got ${show(input)}`
  }
  return `has the wrong format, got ${show(input)}`
}

function invalidValue(issue: z.core.$ZodIssueInvalidValue, path: Path, root: unknown): PathProblem {
  const input = issue.input
  const options = issue.values.map(v => JSON.stringify(v))
  const suggestion =
    typeof input === 'string' ? closest(input, issue.values.map(String)) : undefined
  return problem(
    path,
    root,
    `must be ${oneOf(options)}, got ${show(input)}` +
      (suggestion ? `; did you mean "${suggestion}"?` : ''),
    ruleFor(path, issue)
  )
}

/**
 * The union branch the author evidently meant: the only one whose failure is not about the value's
 * basic type. A union whose every branch failed on type gets one message listing the choices.
 */
function matchingBranch(issue: z.core.$ZodIssueInvalidUnion): Issue[] | undefined {
  const fitting = issue.errors.filter(branch =>
    branch.every(inner => inner.path.length > 0 || !isTypeMismatch(inner))
  )
  return fitting.length === 1 ? fitting[0] : undefined
}

function isTypeMismatch(issue: Issue): boolean {
  if (issue.code === 'invalid_type') return true
  if (issue.code === 'invalid_value') return typeof issue.input !== typeof issue.values[0]
  if (issue.code === 'invalid_union') return issue.errors.every(b => b.some(isTypeMismatch))
  return false
}

function unionPhrase(issue: z.core.$ZodIssueInvalidUnion): string {
  const phrases = new Set<string>()
  for (const branch of issue.errors) {
    for (const inner of branch) {
      if (inner.path.length > 0) continue
      if (inner.code === 'invalid_type') phrases.add(expected(inner.expected))
      else if (inner.code === 'invalid_value')
        inner.values.forEach(v => phrases.add(JSON.stringify(v)))
      else if (inner.code === 'invalid_union') phrases.add(unionPhrase(inner))
    }
  }
  return oneOf([...phrases])
}

function oneOf(options: readonly string[]): string {
  if (options.length <= 1) return options[0] ?? 'valid'
  return `${options.slice(0, -1).join(', ')} or ${options.at(-1) ?? ''}`
}

function expected(type: string): string {
  switch (type) {
    case 'string':
      return 'text'
    case 'number':
      return 'a number'
    case 'int':
      return 'a whole number'
    case 'boolean':
      return 'true or false'
    case 'array':
    case 'tuple':
      return 'a list'
    case 'object':
    case 'record':
      return 'a mapping of keys to values'
    default:
      return type
  }
}

function limitPhrase(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string {
  const small = issue.code === 'too_small'
  const limit = Number(small ? issue.minimum : issue.maximum)
  switch (issue.origin) {
    case 'string':
      return small ? 'must not be empty' : `must be at most ${limit} characters`
    case 'array':
      return small
        ? `must list at least ${limit} item${limit === 1 ? '' : 's'}`
        : `must list at most ${limit} items`
    default: {
      // Numbers; the schema has no other sized types.
      if (issue.inclusive === false) return `must be ${small ? 'greater' : 'less'} than ${limit}`
      return `must be ${small ? 'at least' : 'at most'} ${limit}`
    }
  }
}

function ruleFor(path: Path, issue: Issue): RubricRule {
  const keys = path.filter((k): k is string => typeof k === 'string')
  const last = keys.at(-1)
  if (keys.includes('score_range')) return 'score-range-bounds'
  if (keys.includes('score_ranges') && issue.code === 'too_small') return 'score-range-coverage'
  if (last === 'required_min_score') return 'min-score'
  if (last === 'id' && issue.code !== 'invalid_type') return 'invalid-id'
  if (keys[0] === 'council' && (issue.code === 'custom' || last === 'reasoning')) return 'council'
  if (issue.code === 'too_small' || issue.code === 'too_big') {
    if (last === 'weight' || keys[0] === 'score_weights') return 'weight'
    if (keys[0] === 'dimensions' && keys.length === 2) return 'weight'
    if (keys[0] === 'thresholds' || keys[0] === 'min_coverage') return 'threshold'
    if (keys[0] === 'council') return 'council'
  }
  return 'type'
}

function problem(
  path: Path,
  root: unknown,
  what: string,
  rule: RubricRule,
  position: Path = path,
  at: 'key' | 'value' = 'value'
): PathProblem {
  return { path: position, at, rule, message: `${label(path, root)} ${what}` }
}

/** `criterion "relevance": weight`, `dimension "clarity"`, `thresholds.pass`. */
export function label(path: Path, root: unknown): string {
  const [head, second, ...rest] = path
  if (head === 'criteria' && typeof second === 'number') {
    const subject = criterionName(root, second)
    return rest.length > 0 ? `${subject}: ${dotted(rest)}` : subject
  }
  if (head === 'dimensions' && typeof second === 'string') {
    const subject = `dimension "${second}"`
    if (rest.length > 0) return `${subject}: ${dotted(rest)}`
    return typeof valueAt(root, path) === 'number' ? `${subject}: weight` : subject
  }
  return path.length > 0 ? dotted(path) : 'the rubric'
}

function where(path: Path, root: unknown): string {
  return path.length > 0 ? ` in ${label(path, root)}` : ''
}

function criterionName(root: unknown, index: number): string {
  const criteria = isRecord(root) ? root.criteria : undefined
  const item: unknown = Array.isArray(criteria) ? criteria[index] : undefined
  const id = isRecord(item) ? item.id : undefined
  return typeof id === 'string' && id !== '' ? `criterion "${id}"` : `criteria item ${index + 1}`
}

function dotted(path: Path): string {
  return path
    .map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? String(k) : `.${String(k)}`))
    .join('')
}

/** A short, quoted rendering of a YAML value for "got …". */
export function show(value: unknown): string {
  if (value === null || value === undefined) return 'an empty value'
  if (typeof value === 'string') {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value)
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (Array.isArray(value)) {
    const text = JSON.stringify(value)
    return text.length <= 40 ? text : 'a list'
  }
  return 'a mapping'
}

function valueAt(root: unknown, path: Path): unknown {
  let value = root
  for (const key of path) {
    if (Array.isArray(value) && typeof key === 'number') value = value[key]
    else if (isRecord(value)) value = value[String(key)]
    else return undefined
  }
  return value
}
