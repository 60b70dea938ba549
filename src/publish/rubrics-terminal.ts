import { renderTerminal } from '../report/terminal.js'
import type { RubricOutcome } from './rubrics.js'

/**
 * The compact report of several rubrics' checks: a line for each that did not apply, and each
 * other's compact report under its check run's name, pointing at its Markdown report's file.
 */
export function rubricsTerminal(
  outcomes: readonly RubricOutcome[],
  markdownFileOf: (outcome: RubricOutcome) => string | undefined
): string {
  return outcomes
    .map(o => {
      if (o.evaluation === undefined) return `➖ ${o.checkName}: ${o.notApplicable ?? ''}`
      const markdownFile = markdownFileOf(o)
      const compact = renderTerminal(
        o.evaluation,
        markdownFile === undefined ? {} : { markdownFile }
      )
      return `── ${o.checkName} (${o.path})\n${compact.trimEnd()}`
    })
    .join('\n\n')
}
