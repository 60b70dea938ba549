import { failed, type Result } from '../util/result.js'
import type { Rubric } from './types.js'
import type { Position } from './yaml-source.js'
import type { Path } from './zod-issues.js'

/** The rules a rubric can break; each issue names one so messages and docs stay in step. */
export type RubricRule =
  | 'missing-file'
  | 'unreadable-file'
  | 'empty-rubric'
  | 'yaml-syntax'
  | 'unknown-key'
  | 'type'
  | 'unknown-section'
  | 'section-content'
  | 'gate-syntax'
  | 'duplicate-id'
  | 'invalid-id'
  | 'weight'
  | 'threshold'
  | 'score-range-bounds'
  | 'score-range-overlap'
  | 'score-range-coverage'
  | 'min-score'
  | 'dimension'
  | 'council'
  | 'checker'
  | 'extends'
  | 'paths'
  | 'name'
  | 'too-large'

export interface RubricIssue {
  readonly file: string
  /** 1-based; absent only when the file itself is the problem (missing, unreadable). */
  readonly line?: number
  /** 1-based, when the position inside the line is known. */
  readonly column?: number
  readonly rule: RubricRule
  readonly message: string
}

/**
 * A rubric, or every problem that keeps its text from being one: rubric problems are values, so
 * each caller decides what an unusable rubric means (a verdict, a CLI message), and nothing is
 * thrown and caught on the way.
 */
export type RubricResult = Result<Rubric, readonly RubricIssue[]>

/** The result of a rubric that cannot be used for these reasons. */
export function rubricProblems(issues: readonly RubricIssue[]): RubricResult {
  return failed(issues)
}

/**
 * `file:line:col: error: message [rule]`, the form compilers use and the problem matcher reads; for
 * any file of ours located by line (a rubric, a calibration set).
 */
export function formatIssue(issue: Omit<RubricIssue, 'rule'> & { readonly rule: string }): string {
  let where = issue.file
  if (issue.line !== undefined) {
    where += `:${issue.line}`
    if (issue.column !== undefined) where += `:${issue.column}`
  }
  return `${where}: error: ${issue.message} [${issue.rule}]`
}

export function compareIssues(a: RubricIssue, b: RubricIssue): number {
  return (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0)
}

/** Reports an issue at a path of the rubric's data (its key or its value). */
export type AtPath = (path: Path, rule: RubricRule, message: string, at?: 'key' | 'value') => void
/** Reports an issue at a line (and column) of the rubric's text. */
export type AtLine = (
  line: number,
  column: number | undefined,
  rule: RubricRule,
  message: string
) => void
/** Where a path of the rubric's data is in its text. */
export type Locate = (path: Path, at: 'key' | 'value') => Position

/** The first line of an item's text, shortened, to quote it in a message. */
export function abbreviate(text: string): string {
  const line = text.split('\n')[0] ?? ''
  return line.length > 50 ? `${line.slice(0, 47)}...` : line
}
