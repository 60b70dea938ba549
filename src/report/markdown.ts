import type { Acceptance, Evaluation } from '../engine/evaluation.js'
import { JUDGES_NOT_ASKED } from '../sentences/council.js'
import { nextStep, reasonSentence, type Audience } from '../sentences/reasons.js'
import type { CriterionResult, CriterionStatus } from '../verdict/types.js'
import { VERSION } from '../version.js'
import { fitToBudget, type BudgetUnit, type Doc, type Piece, type Section } from './budget.js'
import { code, commitCode, escapeInline, escapeMarkdown } from './escape.js'
import {
  criteriaSection,
  criterionParagraph,
  dimensionsSection,
  findingsSection,
  extraVotesSentence
} from './markdown-grades.js'
import { ICON, prose, REASON_FLOOR } from './markdown-pieces.js'
import { historySection, rubricAlerts, rubricSection } from './markdown-rubric.js'
import { coverageSection, gatesSection, judgesSection } from './markdown-run.js'
import { summaryLine } from './summary.js'
import { advisoryCount } from '../sentences/calibration.js'

/** GitHub refuses issue comments longer than this. */
export const COMMENT_LIMIT = 65_536

export interface RenderOptions {
  /** The rendered report never exceeds this many characters (or bytes, per `unit`). */
  readonly budget: number
  /** What `budget` counts: characters (the default; comments, check runs) or UTF-8 bytes (the job summary). */
  readonly unit?: BudgetUnit
  /**
   * Say what to do next about a FAIL or UNCLEAR, right under the summary line, in the words of
   * this audience, which the reasons are said in too. Without it: no next step, and the reasons
   * in the action's words.
   */
  readonly nextStep?: Audience
}

/**
 * The Markdown report (comment, job summary, `--markdown`): a pure function of the evaluation.
 * Within the budget it shortens the longest texts first, then drops the least important details,
 * saying what it cut; the result is always well-formed.
 */
export function renderMarkdown(evaluation: Evaluation, options: RenderOptions): string {
  const step = options.nextStep
  return fitToBudget(buildDoc(evaluation, step), options.budget, options.unit).text
}

/** `step`: the audience of the next step and the reasons; none without a next step. */
function buildDoc(evaluation: Evaluation, step: Audience | undefined): Doc {
  const { verdict } = evaluation
  const headline = `### ${ICON[verdict.verdict]} Rubric Council: ${verdict.verdict}\n\n`
  const summary = summaryLine(evaluation)
  // An accepted verdict needs nothing more from anyone.
  const said = step === undefined || evaluation.acceptance ? undefined : nextStep(verdict, step)
  // The next step is fixed text of the head (and the fallback): shortening never cuts it.
  const next = said === undefined ? '' : `**Next:** ${stepMarkdown(said)}\n\n`
  const head: Piece[] = [headline]
  if (evaluation.acceptance) head.push(acceptanceNote(evaluation.acceptance))
  if (summary) head.push(`**${escapeMarkdown(summary)}**\n\n`)
  if (next) head.push(next)
  for (const reason of verdict.reasons) {
    const sentence = reasonSentence(reason, step ?? 'action')
    head.push(`- **${reason.code}**: `, prose(sentence, REASON_FLOOR), '\n')
  }
  if (verdict.reasons.length > 0) head.push('\n')
  // A must-have that took extra votes says so, with every vote, so a person can weigh it.
  const confirmed = verdict.criteria.filter(c => c.extraVotes !== undefined)
  for (const c of confirmed) head.push(`⚖️ ${extraVotesSentence(c)}\n\n`)
  head.push(...advisoryNote(verdict.criteria))
  head.push(`Recommendation: **${verdict.recommendation}**\n\n`)
  if (evaluation.reusedFrom !== undefined) {
    head.push(
      `♻️ The judges' answers are reused from iteration ${evaluation.reusedFrom}: nothing they were ` +
        'shown has changed, so no provider was asked. `/council rerun` asks them again.\n\n'
    )
  }
  if (evaluation.judgesNotAsked !== undefined) {
    head.push(`ℹ️ ${JUDGES_NOT_ASKED[evaluation.judgesNotAsked]}\n\n`)
  }
  if (evaluation.skipRefused !== undefined) {
    head.push(`ℹ️ ${escapeMarkdown(evaluation.skipRefused)}\n\n`)
  }
  head.push(...rubricAlerts(evaluation))

  const sections: Section[] = []
  if (evaluation.gates.length > 0) {
    sections.push(gatesSection(evaluation.gates, evaluation.gatesProvenance))
  }
  const must = verdict.criteria.filter(c => c.required)
  const nice = verdict.criteria.filter(c => !c.required)
  if (must.length > 0) sections.push(criteriaSection('Must-have criteria', must, 60))
  if (nice.length > 0) sections.push(criteriaSection('Nice-to-have criteria', nice, 30))
  if (verdict.dimensions.length > 0) sections.push(dimensionsSection(evaluation))
  if (verdict.findings.length > 0) sections.push(findingsSection(verdict.findings))
  if (evaluation.evidence) sections.push(coverageSection(evaluation.evidence.receipt))
  if (evaluation.council && evaluation.council.runs.length > 0) {
    const { runs, quorum, cancelled } = evaluation.council
    sections.push(judgesSection(runs, quorum, cancelled))
  }
  // An input error stops before any rubric is read: there is nothing to say about one.
  if (evaluation.rubric.path !== '') sections.push(rubricSection(evaluation))
  if (evaluation.history && evaluation.history.length > 0) {
    sections.push(historySection(evaluation.history))
  }

  const footer =
    `<sub>Rubric Council ${VERSION}` +
    (evaluation.rubric.hash ? ` · rubric \`${evaluation.rubric.hash}\`` : '') +
    ` · iteration ${evaluation.iteration}</sub>\n`
  sections.push({ open: [footer], blocks: [], close: [], omitted: () => '' })

  return {
    head,
    sections,
    shortenedNote:
      '> [!NOTE]\n> This report was shortened to fit. The job summary and the JSON report ' +
      '(the `report` output) have it in full.\n\n',
    fallback:
      headline +
      (summary ? `**${escapeMarkdown(summary)}**\n\n` : '') +
      next +
      `Reasons: ${verdict.reasons.map(r => r.code).join(', ') || 'none'}. ` +
      'The report is too long to show here; the job summary and the JSON report have it in full.\n\n' +
      worstFirst(verdict.criteria).map(criterionParagraph).join('')
  }
}

/** Under `calibration: required`: how many must-haves are advisory (each says why below). */
function advisoryNote(criteria: readonly CriterionResult[]): string[] {
  const calibrated = criteria.filter(c => c.calibration !== undefined)
  if (calibrated.length === 0) return []
  const advisory = calibrated.filter(c => c.calibration?.blocks === false).length
  return [`🎯 ${escapeMarkdown(advisoryCount(advisory, calibrated.length))}\n\n`]
}

/**
 * The criteria in the order a cut must spare them: must-haves before nice-to-haves, and among each
 * the failed, split and waived before the rest.
 */
function worstFirst(criteria: readonly CriterionResult[]): CriterionResult[] {
  const rank = (c: CriterionResult): number => (c.required ? 0 : 10) + STATUS_RANK[c.status]
  return [...criteria].sort((a, b) => rank(a) - rank(b))
}

const STATUS_RANK: Readonly<Record<CriterionStatus, number>> = {
  FAIL: 0,
  SPLIT: 1,
  WAIVED: 2,
  UNGRADED: 3,
  SCORED: 4,
  PASS: 5
}

/** A maintainer's acceptance, above everything else: the check passes because of it. */
export function acceptanceNote(acceptance: Acceptance): string {
  return (
    `> [!NOTE]\n> **Accepted by @${escapeMarkdown(acceptance.by)}** for ` +
    `${commitCode(acceptance.commit)}: ${escapeMarkdown(acceptance.reason.replace(/\s+/g, ' '))}\n> ` +
    'The check passes for this commit whatever the verdict below; a new push is judged again.\n\n'
  )
}

/**
 * A next step as Markdown: its backtick spans as code, the rest escaped like any text (a gate's
 * command comes from the rubric, which a pull request may edit).
 */
export function stepMarkdown(step: string): string {
  return step
    .split(/`([^`]*)`/)
    .map((part, i) => (i % 2 === 1 ? code(part) : escapeInline(part)))
    .join('')
}
