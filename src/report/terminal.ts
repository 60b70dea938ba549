import { formatIssue } from '../rubric/errors.js'
import { formatNumber } from '../verdict/decide.js'
import type { CriterionResult } from '../verdict/types.js'
import type { Evaluation } from '../engine/evaluation.js'
import { isMet, summaryLine } from './summary.js'
import { nextStep, stepContext } from './next-step.js'

/**
 * A compact rendering for a terminal, in the spirit of Scope's TUI: the verdict and summary line,
 * what to do next, the reasons, then one line per gate and criterion.
 */
export function renderTerminal(evaluation: Evaluation): string {
  const { verdict, gates, rubric } = evaluation
  const lines: string[] = []
  const summary = summaryLine(evaluation)
  lines.push(`${verdict.verdict} (exit ${verdict.exitCode})${summary ? ` · ${summary}` : ''}`)
  const step = nextStep(verdict, 'local', stepContext(evaluation))
  if (step !== undefined) lines.push(`next: ${step}`)
  for (const reason of verdict.reasons) lines.push(`  ${reason.code}: ${reason.message}`)
  for (const issue of rubric.problems) lines.push(`  ${formatIssue(issue)}`)

  if (gates.length > 0) {
    lines.push('', 'gates:')
    for (const g of gates) {
      const result =
        g.status === 'fail' && g.exitCode !== null ? `fail (exit ${g.exitCode})` : g.status
      lines.push(
        row(
          g.status === 'pass' ? '✓' : '✗',
          g.command,
          `${result}  ${(g.durationMs / 1000).toFixed(1)} s`
        )
      )
    }
  }
  const must = verdict.criteria.filter(c => c.required)
  const nice = verdict.criteria.filter(c => !c.required)
  if (must.length > 0) lines.push('', 'must-have:', ...must.map(criterionRow))
  if (nice.length > 0) lines.push('', 'nice-to-have:', ...nice.map(criterionRow))
  lines.push('', `recommendation: ${verdict.recommendation}`)
  return `${lines.join('\n')}\n`
}

function criterionRow(c: CriterionResult): string {
  const tally =
    c.kind === 'score'
      ? c.median === undefined
        ? ''
        : ` median ${formatNumber(c.median)}`
      : c.tally
        ? ` ${c.tally.pass}/${c.tally.pass + c.tally.fail + c.tally.abstain}${c.tieBreak?.verdict ? `, tie-break ${c.tieBreak.verdict}` : ''}`
        : ''
  // The first objection is what an author wants to read next to a failed criterion.
  // Ungraded is neither met nor failed: no judge, or too few, answered.
  const mark = c.status === 'UNGRADED' ? '–' : isMet(c) ? '✓' : '✗'
  const objection =
    mark === '✗' ? c.votes.find(v => v.verdict === 'FAIL' || v.score !== undefined) : undefined
  const why = objection ? ` - ${firstLine(objection.reasoning)}` : ''
  return row(mark, c.id, `${c.status}${tally}${why}`)
}

function row(mark: '✓' | '✗' | '–', name: string, result: string): string {
  const label = name.length > 40 ? `${name.slice(0, 39)}…` : name.padEnd(40)
  return `  ${mark} ${label} ${result}`
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? ''
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}
