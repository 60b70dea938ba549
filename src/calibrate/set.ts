import { closest } from '../rubric/similar.js'
import { parseYaml, type YamlSource } from '../rubric/yaml-source.js'
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
  /** Where its labels came from (`calibrate --propose` names a waiver, a revert, ...). */
  readonly source?: string
}

export interface CalibrationSet {
  readonly path: string
  /** The cases a person confirmed: the only ones measured. */
  readonly cases: readonly CalibrationCase[]
  /** The cases marked `confirmed: false` (proposed, not yet checked): never measured. */
  readonly unconfirmed: readonly CalibrationCase[]
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
  | 'unconfirmed'

export interface SetIssue {
  readonly file: string
  readonly line?: number
  readonly column?: number
  readonly rule: SetRule
  readonly message: string
}

const TOP_KEYS = ['cases'] as const
const CASE_KEYS = [
  'name',
  'base',
  'head',
  'pull',
  'expect',
  'criteria',
  'source',
  'confirmed'
] as const
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
  const report: SetReport = {
    issues,
    locate: yaml.locate,
    at: (where, rule, message, pointAt = 'value') => {
      issues.push({ file: path, ...yaml.locate(where, pointAt), rule, message })
    }
  }
  const data = yaml.data
  if (!isRecord(data) || !Array.isArray(data.cases) || data.cases.length === 0) {
    report.at(
      isRecord(data) && 'cases' in data ? ['cases'] : [],
      'type',
      'the set needs "cases:", a list of at least one case, each with base and head (or pull) and expect'
    )
    if (isRecord(data)) unknownKeys(data, [], TOP_KEYS, report)
    return failed(issues)
  }
  unknownKeys(data, [], TOP_KEYS, report)
  const parsed = (data.cases as unknown[]).flatMap((entry, index) => {
    const one = parseCase(entry, index, criterionIds, report)
    return one === undefined ? [] : [one]
  })
  const cases = parsed.filter(c => c.confirmed).map(c => c.case)
  const unconfirmed = parsed.filter(c => !c.confirmed).map(c => c.case)
  if (issues.length === 0 && cases.length === 0) {
    report.at(
      ['cases'],
      'unconfirmed',
      `${unconfirmed.length === 1 ? 'the one case is not confirmed' : `none of the ${unconfirmed.length} cases is confirmed`}: check each proposed case's labels, then set its confirmed: true`
    )
  }
  issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0))
  return issues.length > 0 ? failed(issues) : ok({ path, cases, unconfirmed })
}

/** Where the set's problems go, each at a path of its data. */
interface SetReport {
  readonly issues: readonly SetIssue[]
  readonly locate: YamlSource['locate']
  readonly at: (where: Path, rule: SetRule, message: string, pointAt?: 'key' | 'value') => void
}

/** One case of the list: where it is, and its name in messages (`case 3`). */
interface CaseAt {
  readonly where: Path
  readonly label: string
  readonly report: SetReport
}

function unknownKeys(
  value: Record<string, unknown>,
  where: Path,
  known: readonly string[],
  report: SetReport
): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue
    const guess = closest(key, known)
    report.at(
      [...where, key],
      'unknown-key',
      `unknown key "${key}"${guess ? `; did you mean "${guess}"?` : ''} (known keys: ${known.join(', ')})`,
      'key'
    )
  }
}

/**
 * The case at `index`, and whether a person confirmed it (`confirmed: false` marks a proposed
 * case; a case without the key was written by a person); undefined when anything about it is
 * wrong (each problem reported).
 */
function parseCase(
  entry: unknown,
  index: number,
  criterionIds: readonly string[],
  report: SetReport
): { case: CalibrationCase; confirmed: boolean } | undefined {
  const where: Path = ['cases', index]
  const { line, column } = report.locate(where, 'value')
  const at: CaseAt = { where, label: `case ${index + 1}`, report }
  if (!isRecord(entry)) {
    report.at(
      where,
      'type',
      `${at.label}: a case is a mapping with base and head (or pull) and expect, got ${shown(entry)}`
    )
    return undefined
  }
  unknownKeys(entry, where, CASE_KEYS, report)
  const before = report.issues.length
  const name = caseText(entry, 'name', at)
  const base = caseText(entry, 'base', at)
  const head = caseText(entry, 'head', at)
  const source = caseText(entry, 'source', at)
  const refs = caseRefs(entry.pull, base, head, at, before)
  checkExpect(entry.expect, at)
  const criteria = caseCriteria(entry.criteria, criterionIds, at)
  const { confirmed = true } = entry
  if (typeof confirmed !== 'boolean') {
    report.at(
      [...where, 'confirmed'],
      'type',
      `${at.label}: confirmed must be true (a person checked its labels) or false, got ${shown(confirmed)}`
    )
  }
  if (report.issues.length > before || refs === undefined) return undefined
  return {
    case: {
      name: name ?? (refs.kind === 'pull' ? `#${refs.number}` : `${refs.base}..${refs.head}`),
      line,
      column,
      refs,
      expect: entry.expect as Expected,
      criteria,
      ...(source !== undefined && { source })
    },
    confirmed: confirmed === true
  }
}

/** A field of text, trimmed; undefined when it is absent or not text (reported). */
function caseText(entry: Record<string, unknown>, key: string, at: CaseAt): string | undefined {
  const value = entry[key]
  if (value === undefined) return undefined
  if (typeof value === 'string' && value.trim() !== '') return value.trim()
  at.report.at(
    [...at.where, key],
    'type',
    `${at.label}: ${key} must be text (quote a commit that YAML reads as a number), got ${shown(value)}`
  )
  return undefined
}

/**
 * What the case names: `pull`, or `base` and `head`. Missing both is reported only when nothing
 * was reported about the case since `before` (a `base` that is a number, say).
 */
function caseRefs(
  pull: unknown,
  base: string | undefined,
  head: string | undefined,
  at: CaseAt,
  before: number
): CaseRefs | undefined {
  const { where, label, report } = at
  if (pull !== undefined) {
    if (base !== undefined || head !== undefined) {
      report.at([...where, 'pull'], 'type', `${label}: give either pull or base and head, not both`)
    } else if (typeof pull === 'number' && Number.isInteger(pull) && pull > 0) {
      return { kind: 'pull', number: pull }
    } else {
      report.at(
        [...where, 'pull'],
        'type',
        `${label}: pull must be a pull request number, got ${shown(pull)}`
      )
    }
    return undefined
  }
  if (base !== undefined && head !== undefined) return { kind: 'range', base, head }
  if (report.issues.length === before) {
    report.at(
      where,
      'type',
      `${label}: needs base and head (refs or commits of this repository), or pull: N`
    )
  }
  return undefined
}

function checkExpect(expect: unknown, { where, label, report }: CaseAt): void {
  if (expect === undefined) {
    report.at(where, 'type', `${label}: needs expect: PASS or FAIL, the verdict it should get`)
  } else if (typeof expect !== 'string' || !EXPECTED.includes(expect)) {
    report.at(
      [...where, 'expect'],
      'type',
      `${label}: expect must be PASS or FAIL, got ${shown(expect)}`
    )
  }
}

/** The expected status of each criterion the case labels, by id; each problem reported. */
function caseCriteria(
  labelled: unknown,
  criterionIds: readonly string[],
  { where, label, report }: CaseAt
): Record<string, Expected> {
  const criteria: Record<string, Expected> = {}
  if (labelled === undefined) return criteria
  if (!isRecord(labelled)) {
    report.at(
      [...where, 'criteria'],
      'type',
      `${label}: criteria must map criterion ids to PASS or FAIL, got ${shown(labelled)}`
    )
    return criteria
  }
  for (const [id, status] of Object.entries(labelled)) {
    if (!criterionIds.includes(id)) {
      const guess = closest(id, criterionIds)
      report.at(
        [...where, 'criteria', id],
        'unknown-criterion',
        `${label}: the rubric has no criterion "${id}"${guess ? `; did you mean "${guess}"?` : ''} (its criteria: ${criterionIds.join(', ') || 'none'})`,
        'key'
      )
    } else if (typeof status !== 'string' || !EXPECTED.includes(status)) {
      report.at(
        [...where, 'criteria', id],
        'type',
        `${label}: criterion "${id}" must be PASS or FAIL, got ${shown(status)}`
      )
    } else {
      criteria[id] = status as Expected
    }
  }
  return criteria
}

function shown(value: unknown): string {
  if (value === null || value === undefined) return 'nothing'
  if (typeof value === 'string') return `"${value}"`
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return Array.isArray(value) ? 'a list' : 'a mapping'
}
