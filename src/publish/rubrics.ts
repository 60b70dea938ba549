import { createHash } from 'node:crypto'
import type { Evaluation } from '../engine/evaluation.js'
import type { HistoryEntry } from '../engine/history.js'
import { escapeCell, escapeSummary, code } from '../report/escape.js'
import { COMMENT_LIMIT, renderMarkdown } from '../report/markdown.js'
import { ICON } from '../report/markdown-pieces.js'
import { summaryLine } from '../report/summary.js'
import { toJsonReport, type JsonReport } from '../report/json.js'
import { EXIT_CODE } from '../verdict/outcome.js'
import type { ExitCode, VerdictKind } from '../verdict/types.js'
import { commentMarker, writeState, STATE_BUDGET, type CommentState } from './memory.js'
import { MAX_WAIVABLE } from './memory-state.js'

/**
 * What is said about a pull request judged by several rubrics (docs/rubric.md#several-rubrics):
 * one sticky comment with a section per rubric, the worst verdict first, and one job summary.
 * Each rubric's check run is planned on its own (`planPublication`). Pure.
 */

/** One rubric's part of the review: its evaluation, or why it did not apply. */
export interface RubricOutcome {
  /** Its check run's name, as written on the commit. */
  readonly checkName: string
  readonly name: string
  readonly path: string
  readonly evaluation?: Evaluation
  /** The check run's title when it did not apply. */
  readonly notApplicable?: string
}

const ORDER: Readonly<Record<VerdictKind, number>> = { FAIL: 0, UNCLEAR: 1, PASS: 2 }

/** Worst first: FAIL, UNCLEAR, PASS, then the rubrics that did not apply; by name within each. */
export function worstFirst(outcomes: readonly RubricOutcome[]): RubricOutcome[] {
  const rank = (o: RubricOutcome): number =>
    o.evaluation === undefined ? 3 : ORDER[o.evaluation.verdict.verdict]
  return [...outcomes].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name))
}

/** The worst verdict of the rubrics that applied; PASS when none did. */
export function worstVerdict(outcomes: readonly RubricOutcome[]): VerdictKind {
  const judged = outcomes.flatMap(o => (o.evaluation ? [o.evaluation.verdict.verdict] : []))
  return judged.sort((a, b) => ORDER[a] - ORDER[b])[0] ?? 'PASS'
}

/**
 * The pull request's history entry for this run: the worst verdict, each rubric's in the summary,
 * the reasons of all, and one hash for the rubrics as they were (a change of any shows as "base
 * rubric changed").
 */
export function combinedEntry(
  outcomes: readonly RubricOutcome[],
  iteration: number,
  commit: string,
  note: string | undefined,
  at: Date
): HistoryEntry {
  const judged = worstFirst(outcomes).filter(o => o.evaluation !== undefined)
  const summary = judged
    .map(o => `${o.name} ${o.evaluation?.verdict.verdict ?? ''}`)
    .join(' · ')
    .slice(0, 500)
  const hashes = outcomes.map(o => `${o.path}:${o.evaluation?.rubric.hash ?? ''}`).join('\n')
  const reasons = [
    ...new Set(judged.flatMap(o => o.evaluation?.verdict.reasons.map(r => r.code) ?? []))
  ].slice(0, 20)
  // What `/council waive <criterion-id>` may waive: the must-haves any rubric failed or split.
  const waivable = [
    ...new Set(judged.flatMap(o => o.evaluation?.history?.at(-1)?.waivable ?? []))
  ].slice(0, MAX_WAIVABLE)
  return {
    iteration,
    commit,
    verdict: worstVerdict(outcomes),
    summary: summary === '' ? 'no rubric applies' : summary,
    rubricHash: createHash('sha256').update(hashes).digest('hex').slice(0, 12),
    reasons,
    ...(waivable.length > 0 && { waivable }),
    ...(note !== undefined && { note }),
    at: at.toISOString()
  }
}

/** The table at the top: each rubric, its verdict and its summary line. */
function table(outcomes: readonly RubricOutcome[]): string {
  const rows = outcomes.map(o => {
    const verdict = o.evaluation
      ? `${ICON[o.evaluation.verdict.verdict]} ${o.evaluation.verdict.verdict}`
      : '➖ not applicable'
    const what = o.evaluation ? summaryLine(o.evaluation) : (o.notApplicable ?? '')
    return `| ${code(o.checkName)} | ${verdict} | ${escapeCell(what)} |`
  })
  return `| Rubric | Verdict | |\n| --- | --- | --- |\n${rows.join('\n')}\n\n`
}

/**
 * The report of every rubric, worst first: the table, then a collapsible section per rubric that
 * applied (the first open when it did not pass), within `budget` characters.
 */
export function renderRubricsReport(outcomes: readonly RubricOutcome[], budget: number): string {
  const sorted = worstFirst(outcomes)
  const worst = worstVerdict(sorted)
  const judged = sorted.filter(o => o.evaluation !== undefined)
  const head =
    `### ${ICON[worst]} Rubric Council: ${worst}\n\n` +
    `${judged.length} of ${sorted.length} rubric${sorted.length === 1 ? '' : 's'} applied to this pull request.\n\n` +
    table(sorted)
  const frame = (o: RubricOutcome, i: number, report: string): string => {
    const verdict = o.evaluation?.verdict.verdict ?? 'PASS'
    const open = i === 0 && verdict !== 'PASS' ? ' open' : ''
    return `<details${open}>\n<summary><b>${escapeSummary(o.name)}</b>: ${ICON[verdict]} ${verdict}</summary>\n\n${report}\n</details>\n\n`
  }
  const framing = judged.reduce((n, o, i) => n + frame(o, i, '').length, 0)
  const share = Math.floor((budget - head.length - framing) / Math.max(1, judged.length))
  return (
    head +
    judged
      .map((o, i) =>
        frame(
          o,
          i,
          o.evaluation ? renderMarkdown(o.evaluation, { budget: share, nextStep: 'action' }) : ''
        )
      )
      .join('')
  )
}

/** The sticky comment: the check's marker, the report of every rubric, and the state. */
export function renderRubricsComment(
  outcomes: readonly RubricOutcome[],
  checkName: string,
  state: CommentState,
  limit = COMMENT_LIMIT
): string {
  const marker = `${commentMarker(checkName)}\n`
  const block = `\n${writeState(state, Math.min(STATE_BUDGET, Math.floor(limit * 0.65)))}\n`
  return marker + renderRubricsReport(outcomes, limit - marker.length - block.length) + block
}

export const REPORT_SET_SCHEMA = 'rubric-council/report-set@1'

/**
 * The `report` output's file (and `check --json`) with several rubrics: the worst verdict and its
 * exit code, and each rubric's `rubric-council/report@1` (schema/report-set.schema.json).
 */
export interface RubricsJsonReport {
  readonly schema: typeof REPORT_SET_SCHEMA
  readonly verdict: VerdictKind
  readonly exit_code: ExitCode
  readonly rubrics: readonly {
    readonly name: string
    readonly check_run: string
    readonly path: string
    readonly applicable: boolean
    readonly report?: JsonReport
  }[]
}

export function rubricsJsonReport(outcomes: readonly RubricOutcome[]): RubricsJsonReport {
  const verdict = worstVerdict(outcomes)
  return {
    schema: REPORT_SET_SCHEMA,
    verdict,
    exit_code: EXIT_CODE[verdict],
    rubrics: worstFirst(outcomes).map(o => ({
      name: o.name,
      check_run: o.checkName,
      path: o.path,
      applicable: o.evaluation !== undefined,
      ...(o.evaluation && { report: toJsonReport(o.evaluation) })
    }))
  }
}
