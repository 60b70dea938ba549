import type { Evaluation } from '../engine/evaluation.js'
import type { HistoryEntry } from '../engine/history.js'
import type { GateResult } from '../gates/types.js'
import { renderRubricsReport, rubricsJsonReport, type RubricOutcome } from '../publish/rubrics.js'
import { rubricsTerminal } from '../publish/rubrics-terminal.js'
import { LOCAL_MARKDOWN_BUDGET } from '../local/reports.js'
import { renderRubricsFeedback } from '../publish/rubrics-feedback.js'
import { renderFeedback } from '../report/feedback.js'
import { toJsonReport } from '../report/json.js'
import { renderMarkdown } from '../report/markdown.js'
import { renderTerminal } from '../report/terminal.js'
import { DEFAULT_RUBRIC_PATH, rubricsFolder } from '../rubric/defaults.js'
import { failed, ok, type Result } from '../util/result.js'
import { rubricsGoneLine } from './sentences.js'
import {
  iterationRecord,
  loopHistoryEntry,
  rubricsIterationRecord,
  type IterationRecord
} from './session.js'

// An iteration's check as the loop keeps and shows it, from the check `check` runs: the judges of
// each rubric are told its own iterations before.

/** An iteration's check, as the loop keeps and shows it. */
export interface IterationCheck {
  /** What `state.json` keeps, the feedback (masked) included. */
  readonly record: IterationRecord
  /** The Markdown report, masked. */
  readonly report: string
  /** The compact report the last iteration prints, pointing at the Markdown report's file. */
  readonly terminal: (reportFile: string) => string
  /** What `--json` writes when this is the last check. */
  readonly json: unknown
}

/** An iteration's check: the problems said on stderr when it could not run (the loop stops). */
export type Check = (
  iteration: number,
  doer: GateResult
) => Promise<Result<IterationCheck, readonly string[]>>

/** What the checks shown share: how secrets are masked, and the time of each. */
export interface CheckShown {
  readonly mask: (text: string) => string
  readonly now: () => Date
}

/** Checks of one rubric (`checkOnce`, told the iterations before). */
export function oneRubricCheck(
  checkOnce: (history: readonly HistoryEntry[]) => Promise<Result<Evaluation, readonly string[]>>,
  shown: CheckShown
): Check {
  const history: HistoryEntry[] = []
  return async (iteration, doer) => {
    const checked = await checkOnce([...history])
    if (!checked.ok) return checked
    const at = shown.now()
    history.push(loopHistoryEntry(iteration, checked.value, at))
    // The reports show this iteration last in the history, as the pull request's comment does.
    const evaluation: Evaluation = { ...checked.value, history: [...history] }
    const feedback = shown.mask(renderFeedback(evaluation))
    return ok({
      record: iterationRecord(iteration, doer, evaluation, feedback, at),
      report: shown.mask(
        renderMarkdown(evaluation, { budget: LOCAL_MARKDOWN_BUDGET, nextStep: 'terminal' })
      ),
      terminal: reportFile => renderTerminal(evaluation, { markdownFile: reportFile }).trimEnd(),
      json: toJsonReport(evaluation, 'terminal')
    })
  }
}

/**
 * Checks of every rubric of a repository with several (`checkSet`, told each rubric's own
 * iterations before, by check run name; undefined once the repository has one rubric).
 */
export function everyRubricCheck(
  checkSet: (
    historyOf: (checkName: string) => readonly HistoryEntry[]
  ) => Promise<Result<RubricOutcome[], readonly string[]> | undefined>,
  shown: CheckShown
): Check {
  const histories = new Map<string, HistoryEntry[]>()
  return async (iteration, doer) => {
    const checked = await checkSet(name => [...(histories.get(name) ?? [])])
    if (checked === undefined) {
      return failed([rubricsGoneLine(rubricsFolder(DEFAULT_RUBRIC_PATH))])
    }
    if (!checked.ok) return checked
    const at = shown.now()
    const outcomes = checked.value.map(o => {
      if (o.evaluation === undefined) return o
      const history = [...(histories.get(o.checkName) ?? [])]
      history.push(loopHistoryEntry(iteration, o.evaluation, at))
      histories.set(o.checkName, history)
      return { ...o, evaluation: { ...o.evaluation, history } }
    })
    const feedback = shown.mask(renderRubricsFeedback(outcomes, iteration))
    return ok({
      record: rubricsIterationRecord(iteration, doer, outcomes, feedback, at),
      report: shown.mask(renderRubricsReport(outcomes, LOCAL_MARKDOWN_BUDGET)),
      terminal: reportFile => rubricsTerminal(outcomes, () => reportFile),
      json: rubricsJsonReport(outcomes)
    })
  }
}
