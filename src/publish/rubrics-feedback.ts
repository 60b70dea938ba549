import { escapeMarkdown } from '../report/escape.js'
import { FEEDBACK_BUDGET, renderFeedback } from '../report/feedback.js'
import { ICON } from '../report/markdown-pieces.js'
import { worstFirst, worstVerdict, type RubricOutcome } from './rubrics.js'

/*
 * Here, above report/, beside the several rubrics' comment (rubrics.ts): report/ renders one
 * evaluation, and this composes its feedback for several.
 */

/**
 * The feedback of one check of several rubrics (docs/rubric.md#several-rubrics): a line per
 * rubric, worst first, then the feedback of each that did not pass, in the same budget as one
 * rubric's, shared among them. Pure.
 */
export function renderRubricsFeedback(
  outcomes: readonly RubricOutcome[],
  iteration: number
): string {
  const sorted = worstFirst(outcomes)
  const worst = worstVerdict(sorted)
  const lines = sorted.map(o => {
    const name = `${escapeMarkdown(o.checkName)} (${escapeMarkdown(o.path)})`
    return o.evaluation === undefined
      ? `- ➖ ${name}: ${escapeMarkdown(o.notApplicable ?? '')}`
      : `- ${ICON[o.evaluation.verdict.verdict]} ${name}: ${o.evaluation.verdict.verdict}`
  })
  const unmet = sorted.flatMap(o =>
    o.evaluation === undefined || o.evaluation.verdict.verdict === 'PASS'
      ? []
      : [{ checkName: o.checkName, evaluation: o.evaluation }]
  )
  const budget = Math.floor(FEEDBACK_BUDGET / Math.max(1, unmet.length))
  return [
    `# ${ICON[worst]} Rubric Council: ${worst} at iteration ${iteration}\n\n${lines.join('\n')}\n`,
    ...unmet.map(u => renderFeedback(u.evaluation, { checkName: u.checkName, budget }))
  ].join('\n')
}
