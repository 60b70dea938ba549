import { formatNumber } from '../sentences/reasons.js'
import type { CriterionResult } from '../verdict/types.js'
import type { Evaluation } from '../engine/evaluation.js'

/** A criterion counts as met when it passed, or was scored with no minimum to miss. */
export function isMet(criterion: CriterionResult): boolean {
  return criterion.status === 'PASS' || criterion.status === 'SCORED'
}

/** Whether any criterion of `criteria` was graded; none is when no judge, or too few, answered. */
export function anyGraded(criteria: readonly CriterionResult[]): boolean {
  return criteria.some(c => c.status !== 'UNGRADED')
}

/** `met/total`, or `–/total` when nothing was graded (which is not the same as none met). */
export function metOf(criteria: readonly CriterionResult[], total: number): string {
  return `${anyGraded(criteria) ? criteria.filter(isMet).length : '–'}/${total}`
}

/**
 * The one-line summary of Scope's TUI:
 * `gates 1/2 · must 2/3 · nice 1/2 · score 0.74 · confidence 0.82 · judges 3/3`; waived
 * must-haves are not met, and counted: `must 1/2 (1 waived)`; so are must-haves the calibration
 * record does not let block: `must 1/3 (2 advisory)`; calls cancelled once the verdict was
 * settled are counted apart: `judges 2/2 (1 cancelled, the verdict settled)`.
 * Parts that do not apply to the rubric are left out.
 */
export function summaryLine(evaluation: Evaluation): string {
  const { verdict, gates, council, rubric } = evaluation
  const parts: string[] = []
  if (rubric.counts.gates > 0) {
    parts.push(`gates ${gates.filter(g => g.status === 'pass').length}/${rubric.counts.gates}`)
  }
  const must = verdict.criteria.filter(c => c.required)
  const nice = verdict.criteria.filter(c => !c.required)
  const waived = must.filter(c => c.status === 'WAIVED').length
  const advisory = must.filter(c => c.calibration?.blocks === false).length
  const notes = [
    ...(waived > 0 ? [`${waived} waived`] : []),
    ...(advisory > 0 ? [`${advisory} advisory`] : [])
  ]
  if (rubric.counts.must > 0) {
    parts.push(
      `must ${metOf(must, rubric.counts.must)}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`
    )
  }
  if (rubric.counts.nice > 0) parts.push(`nice ${metOf(nice, rubric.counts.nice)}`)
  if (verdict.score !== null) parts.push(`score ${formatNumber(verdict.score)}`)
  if (verdict.confidence !== null) parts.push(`confidence ${formatNumber(verdict.confidence)}`)
  if (council) {
    const valid = council.runs.filter(r => r.status === 'ok').length
    const cancelled = council.cancelled?.length ?? 0
    const note = cancelled > 0 ? ` (${cancelled} cancelled, the verdict settled)` : ''
    parts.push(`judges ${valid}/${council.runs.length}${note}`)
  }
  return parts.join(' · ')
}

/** `, extra vote FAIL` or `, extra votes FAIL, PASS`; nothing without extra votes. */
export function extraVotesNote(c: CriterionResult): string {
  const extra = c.extraVotes ?? []
  if (extra.length === 0) return ''
  return `, extra vote${extra.length === 1 ? '' : 's'} ${extra.map(v => v.verdict ?? '—').join(', ')}`
}
