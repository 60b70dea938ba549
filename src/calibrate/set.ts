import { closest } from '../rubric/similar.js'
import { parseYaml } from '../rubric/yaml-source.js'
import type { Path } from '../rubric/zod-issues.js'
import { isRecord } from '../util/is-record.js'
import { failed, ok, type Result } from '../util/result.js'

/** Where `calibrate` reads its cases by default, beside the rubric. */
export const DEFAULT_SET_PATH = '.github/rubric-calibration.yml'

/** The largest calibration set read, in bytes: thousands of cases; a larger file is refused. */
export const MAX_SET_BYTES = 1024 * 1024

export type Expected = 'PASS' | 'FAIL'

/** What a case names: two commits of the local repository, or a pull request's fetched head. */
export type CaseRefs =
  | { readonly kind: 'range'; readonly base: string; readonly head: string }
  | { readonly kind: 'pull'; readonly number: number }

export interface CalibrationCase {
  /** The case's `name`, else its refs (`main..feature`, `#12`). */
  readonly name: string
  /** Where the case is in the set file, for the problems found later (a ref that does not resolve). */
  readonly line: number
  readonly column: number
  readonly refs: CaseRefs
  readonly expect: Expected
  /** The expected status of each criterion the case labels, by id. */
  readonly criteria: Readonly<Record<string, Expected>>
}

export interface CalibrationSet {
  readonly path: string
  readonly cases: readonly CalibrationCase[]
}

/** The rules a calibration set can break, named in each problem as the rubric's are. */
export type SetRule =
  | 'missing-file'
  | 'yaml-syntax'
  | 'unknown-key'
  | 'type'
  | 'unknown-criterion'
  | 'unresolved-ref'
  | 'duplicate-case'

export interface SetIssue {
  readonly file: string
  readonly line?: number
  readonly column?: number
  readonly rule: SetRule
  readonly message: string
}

const TOP_KEYS = ['cases'] as const
const CASE_KEYS = ['name', 'base', 'head', 'pull', 'expect', 'criteria'] as const
const EXPECTED: readonly string[] = ['PASS', 'FAIL']

/**
 * Parses a calibration set (docs/calibration.md): every problem with its line, the criterion ids
 * checked against `criterionIds` (the rubric's). Pure: nothing is read but `text`.
 */
export function parseCalibrationSet(
  text: string,
  path: string,
  criterionIds: readonly string[]
): Result<CalibrationSet, readonly SetIssue[]> {
  const yaml = parseYaml(text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n'))
  if (yaml.problems.length > 0) {
    return failed(yaml.problems.map(p => ({ file: path, ...p, rule: 'yaml-syntax' as const })))
  }
  const issues: SetIssue[] = []
  const at = (where: Path, rule: SetRule, message: string, pointAt: 'key' | 'value' = 'value') => {
    issues.push({ file: path, ...yaml.locate(where, pointAt), rule, message })
  }
  const unknownKeys = (value: Record<string, unknown>, where: Path, known: readonly string[]) => {
    for (const key of Object.keys(value)) {
      if (known.includes(key)) continue
      const guess = closest(key, known)
      at(
        [...where, key],
        'unknown-key',
        `unknown key "${key}"${guess ? `; did you mean "${guess}"?` : ''} (known keys: ${known.join(', ')})`,
        'key'
      )
    }
  }
  const data = yaml.data
  if (!isRecord(data) || !Array.isArray(data.cases) || data.cases.length === 0) {
    at(
      isRecord(data) && 'cases' in data ? ['cases'] : [],
      'type',
      'the set needs "cases:", a list of at least one case, each with base and head (or pull) and expect'
    )
    if (isRecord(data)) unknownKeys(data, [], TOP_KEYS)
    return failed(issues)
  }
  unknownKeys(data, [], TOP_KEYS)
  const cases: CalibrationCase[] = []
  data.cases.forEach((entry: unknown, index) => {
    const where: Path = ['cases', index]
    const { line, column } = yaml.locate(where, 'value')
    const label = `case ${index + 1}`
    if (!isRecord(entry)) {
      at(
        where,
        'type',
        `${label}: a case is a mapping with base and head (or pull) and expect, got ${shown(entry)}`
      )
      return
    }
    unknownKeys(entry, where, CASE_KEYS)
    const before = issues.length
    const text = (key: string): string | undefined => {
      const value = entry[key]
      if (value === undefined) return undefined
      if (typeof value === 'string' && value.trim() !== '') return value.trim()
      at(
        [...where, key],
        'type',
        `${label}: ${key} must be text (quote a commit that YAML reads as a number), got ${shown(value)}`
      )
      return undefined
    }
    const name = text('name')
    const base = text('base')
    const head = text('head')
    const pull = entry.pull
    let refs: CaseRefs | undefined
    if (pull !== undefined) {
      if (base !== undefined || head !== undefined) {
        at([...where, 'pull'], 'type', `${label}: give either pull or base and head, not both`)
      } else if (typeof pull === 'number' && Number.isInteger(pull) && pull > 0) {
        refs = { kind: 'pull', number: pull }
      } else {
        at(
          [...where, 'pull'],
          'type',
          `${label}: pull must be a pull request number, got ${shown(pull)}`
        )
      }
    } else if (base !== undefined && head !== undefined) {
      refs = { kind: 'range', base, head }
    } else if (issues.length === before) {
      at(
        where,
        'type',
        `${label}: needs base and head (refs or commits of this repository), or pull: N`
      )
    }
    const expect = entry.expect
    if (expect === undefined) {
      at(where, 'type', `${label}: needs expect: PASS or FAIL, the verdict it should get`)
    } else if (typeof expect !== 'string' || !EXPECTED.includes(expect)) {
      at(
        [...where, 'expect'],
        'type',
        `${label}: expect must be PASS or FAIL, got ${shown(expect)}`
      )
    }
    const criteria: Record<string, Expected> = {}
    const labelled = entry.criteria
    if (labelled !== undefined && !isRecord(labelled)) {
      at(
        [...where, 'criteria'],
        'type',
        `${label}: criteria must map criterion ids to PASS or FAIL, got ${shown(labelled)}`
      )
    } else if (labelled !== undefined) {
      for (const [id, status] of Object.entries(labelled)) {
        if (!criterionIds.includes(id)) {
          const guess = closest(id, criterionIds)
          at(
            [...where, 'criteria', id],
            'unknown-criterion',
            `${label}: the rubric has no criterion "${id}"${guess ? `; did you mean "${guess}"?` : ''} (its criteria: ${criterionIds.join(', ') || 'none'})`,
            'key'
          )
        } else if (typeof status !== 'string' || !EXPECTED.includes(status)) {
          at(
            [...where, 'criteria', id],
            'type',
            `${label}: criterion "${id}" must be PASS or FAIL, got ${shown(status)}`
          )
        } else {
          criteria[id] = status as Expected
        }
      }
    }
    if (issues.length > before || refs === undefined) return
    cases.push({
      name: name ?? (refs.kind === 'pull' ? `#${refs.number}` : `${refs.base}..${refs.head}`),
      line,
      column,
      refs,
      expect: expect as Expected,
      criteria
    })
  })
  issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0))
  return issues.length > 0 ? failed(issues) : ok({ path, cases })
}

function shown(value: unknown): string {
  if (value === null || value === undefined) return 'nothing'
  if (typeof value === 'string') return `"${value}"`
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return Array.isArray(value) ? 'a list' : 'a mapping'
}
