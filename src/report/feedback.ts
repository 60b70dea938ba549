import type { Evaluation } from '../engine/evaluation.js'
import { nextStep, reasonSentence } from '../sentences/reasons.js'
import { fitToBudget, type Piece, type Section } from './budget.js'
import { escapeMarkdown } from './escape.js'
import { stepMarkdown } from './markdown.js'
import { criteriaSection, findingsSection } from './markdown-grades.js'
import { ICON, prose, REASON_FLOOR } from './markdown-pieces.js'
import { gatesSection } from './markdown-run.js'
import { isMet, summaryLine } from './summary.js'

/**
 * What a doer reads before its next iteration: an agent's context is worth keeping short, and gate
 * output is already bounded to its excerpt.
 */
export const FEEDBACK_BUDGET = 100_000

/**
 * The feedback of one check, for the loop's doer (`RUBRIC_COUNCIL_FEEDBACK`): the verdict and what
 * to do next, the reasons, the gates with the output of those that did not pass, the criteria not
 * met with the judges' reasons, the findings and each judge's feedback. Built of the Markdown
 * report's parts, and as escaped: gate output and the judges' words are data. Pure.
 */
export function renderFeedback(
  evaluation: Evaluation,
  options: {
    /** Whose check this is, in a repository of several rubrics: its check run's name. */
    readonly checkName?: string
    readonly budget?: number
  } = {}
): string {
  const { verdict } = evaluation
  const who = options.checkName === undefined ? 'Rubric Council' : escapeMarkdown(options.checkName)
  const title = `${who}: ${verdict.verdict} at iteration ${evaluation.iteration}`
  const head: Piece[] = [`# ${ICON[verdict.verdict]} ${title}\n\n`]
  const summary = summaryLine(evaluation)
  if (summary !== '') head.push(`**${escapeMarkdown(summary)}**\n\n`)
  const step = nextStep(verdict, 'terminal')
  if (step !== undefined) head.push(`**Next:** ${stepMarkdown(step)}\n\n`)
  for (const reason of verdict.reasons) {
    head.push(
      `- **${reason.code}**: `,
      prose(reasonSentence(reason, 'terminal'), REASON_FLOOR),
      '\n'
    )
  }
  if (verdict.reasons.length > 0) head.push('\n')

  const sections: Section[] = []
  const failedGates = evaluation.gates.filter(g => g.status !== 'pass')
  if (failedGates.length > 0) sections.push(gatesSection(evaluation.gates, undefined))
  const unmet = verdict.criteria.filter(c => !isMet(c))
  const must = unmet.filter(c => c.required)
  const nice = unmet.filter(c => !c.required)
  if (must.length > 0) sections.push(criteriaSection('Must-have criteria not met', must, 60))
  if (nice.length > 0) sections.push(criteriaSection('Nice-to-have criteria not met', nice, 30))
  if (verdict.findings.length > 0) sections.push(findingsSection(verdict.findings))
  const said = (evaluation.council?.runs ?? []).flatMap(run =>
    run.status === 'ok' && run.answer.feedback.trim() !== ''
      ? [{ judge: run.judge, feedback: run.answer.feedback }]
      : []
  )
  if (said.length > 0) {
    sections.push({
      open: ["#### The judges' feedback\n\n"],
      blocks: said.map(s => ({
        pieces: [`- **${escapeMarkdown(s.judge)}**: `, prose(s.feedback), '\n'],
        priority: 50
      })),
      close: ['\n'],
      omitted: n =>
        `*${n} more judge${n === 1 ? "'s feedback is" : "s' feedback is"} not shown.*\n\n`
    })
  }
  return fitToBudget(
    {
      head,
      sections,
      shortenedNote: '> [!NOTE]\n> This feedback was shortened to fit.\n\n',
      fallback: `# ${title}\n`
    },
    options.budget ?? FEEDBACK_BUDGET
  ).text
}
