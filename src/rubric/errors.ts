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

export interface RubricIssue {
  readonly file: string
  /** 1-based; absent only when the file itself is the problem (missing, unreadable). */
  readonly line?: number
  /** 1-based, when the position inside the line is known. */
  readonly column?: number
  readonly rule: RubricRule
  readonly message: string
}

/** Thrown for every way a rubric can be unusable; carries all issues of the file at once. */
export class RubricError extends Error {
  override readonly name = 'RubricError'
  readonly issues: readonly RubricIssue[]

  constructor(issues: readonly RubricIssue[]) {
    super(
      issues.length === 1 && issues[0]
        ? formatIssue(issues[0])
        : `${issues.length} rubric errors:\n${issues.map(formatIssue).join('\n')}`
    )
    this.issues = issues
  }
}

/** `file:line:col: error: message [rule]`, the form compilers use and the problem matcher reads. */
export function formatIssue(issue: RubricIssue): string {
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
