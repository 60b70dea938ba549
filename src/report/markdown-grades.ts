import { escapeName } from '../evidence/content.js'
import type { Evaluation } from '../engine/evaluation.js'
import { calibrationLine, standingSentence } from '../sentences/calibration.js'
import { NOT_IN_EVIDENCE } from '../sentences/findings.js'
import { describeTally, formatNumber } from '../sentences/reasons.js'
import type { CriterionResult, DimensionResult, JudgedFinding } from '../verdict/types.js'
import type { Block, Piece, Section } from './budget.js'
import {
  abbreviate,
  code,
  escapeCell,
  escapeHtml,
  escapeMarkdown,
  escapeSummary
} from './escape.js'
import { details, prose, table } from './markdown-pieces.js'
import { anyGraded, extraVotesNote, isMet } from './summary.js'

// The Markdown report's parts about the judges' grades: criteria, dimensions and findings.

export function criteriaSection(
  title: string,
  criteria: readonly CriterionResult[],
  priority: number
): Section {
  const met = anyGraded(criteria)
    ? `${criteria.filter(isMet).length} of ${criteria.length} met`
    : 'not graded'
  return {
    open: [`#### ${title} · ${met}\n\n`],
    blocks: criteria.map(c => criterionBlock(c, priority)),
    close: [],
    omitted: n =>
      `*The judges' reasoning on ${n} criteri${n === 1 ? 'on is' : 'a is'} not shown here.*\n\n`
  }
}

/**
 * A criterion's line as a paragraph of its own: what stays of it when its details do not fit.
 * An HTML block, so its text is escaped as the `<summary>` it otherwise is.
 */
export function criterionParagraph(c: CriterionResult): string {
  return `<p>${criterionLine(c)}</p>\n\n`
}

/** A criterion's line: its id, status and votes, and the start of its description. */
function criterionLine(c: CriterionResult): string {
  return (
    `${STATUS_ICON[c.status]} <b>${escapeHtml(c.id)}</b> · ${[c.status, c.waived ? `by @${c.waived.by}` : '', tally(c)].filter(Boolean).map(escapeHtml).join(' ')}${advisoryNote(c)} — ` +
    escapeSummary(abbreviate(c.description, SUMMARY_DESCRIPTION))
  )
}

function criterionBlock(c: CriterionResult, priority: number): Block {
  const summary = criterionLine(c)
  // The summary line already shows the description unless it had to be shortened there.
  const shortened =
    abbreviate(c.description, SUMMARY_DESCRIPTION) !== c.description.replace(/\s+/g, ' ').trim()
  const body: Piece[] = shortened ? [prose(c.description), '\n\n'] : []
  const weight = c.weight === 0 ? 'advisory (weight 0)' : `weight ${formatNumber(c.weight)}`
  if (c.kind === 'score') {
    body.push(
      `Median score **${c.median === undefined ? 'none' : formatNumber(c.median)}** of 10` +
        (c.requiredMinScore === undefined ? '' : `; minimum ${c.requiredMinScore}`) +
        ` · ${weight}\n\n`
    )
  } else {
    body.push(`${weight.charAt(0).toUpperCase()}${weight.slice(1)}\n\n`)
  }
  if (c.calibration) body.push(`Calibration: ${escapeMarkdown(calibrationLine(c.calibration))}\n\n`)
  if (c.waived) {
    body.push(
      `**Waived by @${escapeMarkdown(c.waived.by)}** for this commit: `,
      prose(c.waived.reason),
      '\n\n'
    )
  }
  if (c.votes.length === 0) body.push('*No judge graded this criterion.*\n')
  for (const vote of [...c.votes, ...(c.extraVotes ?? [])]) {
    const grade = vote.verdict ?? (vote.score === undefined ? '—' : `${vote.score}/10`)
    body.push(`- **${escapeMarkdown(vote.judge)}** · ${grade}: `, prose(vote.reasoning), '\n')
  }
  // Failing and split criteria are what the author needs most; they are kept longest.
  const urgency = c.status === 'FAIL' ? 40 : c.status === 'SPLIT' || c.waived ? 30 : 0
  // Without its details, the line stays: a reader still sees every criterion's verdict.
  return { ...details(summary, body, priority + urgency), stub: criterionParagraph(c) }
}

/** ` · advisory: why`, on the line of a must-have the calibration record does not let block. */
function advisoryNote(c: CriterionResult): string {
  return c.calibration && !c.calibration.blocks
    ? ` · ${escapeHtml(standingSentence(c.calibration))}`
    : ''
}

/** Characters of a criterion's description shown on its summary line. */
const SUMMARY_DESCRIPTION = 90

const STATUS_ICON = {
  PASS: '✅',
  FAIL: '❌',
  SPLIT: '⚠️',
  SCORED: '🔢',
  UNGRADED: '➖',
  WAIVED: '🏳️'
} as const

/** `(2/3 PASS)`: the votes counted (each judge's the majority of its samples), and the extra votes'. */
function tally(c: CriterionResult): string {
  if (c.kind === 'score') return c.median === undefined ? '' : `(median ${formatNumber(c.median)})`
  const t = c.tally
  if (!t) return ''
  const judges = t.pass + t.fail + t.abstain
  if (judges === 0) return ''
  return `(${t.pass}/${judges} PASS${extraVotesNote(c)})`
}

/**
 * `a took extra votes: the judges voted 2 PASS, 1 FAIL; then X (reserve) said FAIL and Y (reserve)
 * said FAIL: FAIL by 2 PASS, 3 FAIL.`
 */
export function extraVotesSentence(c: CriterionResult): string {
  const extra = c.extraVotes ?? []
  const t = c.tally ?? { pass: 0, fail: 0, abstain: 0 }
  const members = {
    pass: t.pass - extra.filter(v => v.verdict === 'PASS').length,
    fail: t.fail - extra.filter(v => v.verdict === 'FAIL').length,
    abstain: t.abstain
  }
  const said = extra.map(v => `${escapeMarkdown(v.judge)} said ${v.verdict ?? '—'}`).join(' and ')
  const outcome =
    c.status === 'SPLIT' ? `still split, ${describeTally(t)}` : `${c.status} by ${describeTally(t)}`
  return (
    `**${escapeMarkdown(c.id)}** took extra votes: the judges voted ${describeTally(members)}; ` +
    `then ${said}: ${outcome}.`
  )
}

export function dimensionsSection(evaluation: Evaluation): Section {
  const { verdict } = evaluation
  const judges = [...new Set(verdict.dimensions.flatMap(d => d.scores.map(s => s.judge)))]
  const header = ['dimension', 'weight', 'median', ...judges.map(escapeCell)]
  const rows = verdict.dimensions.map(d => [
    escapeCell(d.name),
    `${Math.round(d.normalisedWeight * 100)}%`,
    d.median === null ? '—' : formatNumber(d.median),
    ...judges.map(j => String(d.scores.find(s => s.judge === j)?.score ?? '—'))
  ])
  const overall =
    verdict.dimensionsScore === null
      ? ''
      : ` · weighted ${formatNumber(verdict.dimensionsScore * 10)}/10`
  const ceiling = verdict.accuracyCeilingApplied
    ? 'The accuracy ceiling capped the overall score (median accuracy below 7).\n\n'
    : ''
  return {
    open: [
      `<details>\n<summary><b>Dimensions</b>${overall}</summary>\n\n`,
      table(header, rows),
      ceiling
    ],
    blocks: verdict.dimensions.filter(d => d.scores.length > 0).map(dimensionBlock),
    close: ['</details>\n\n'],
    omitted: n => `*Reasoning for ${n} dimension${n === 1 ? ' is' : 's are'} not shown here.*\n\n`
  }
}

function dimensionBlock(d: DimensionResult): Block {
  const pieces: Piece[] = [`**${escapeMarkdown(d.name)}**\n\n`]
  for (const s of d.scores)
    pieces.push(`- **${escapeMarkdown(s.judge)}** · ${s.score}: `, prose(s.reasoning), '\n')
  pieces.push('\n')
  return { pieces, priority: 10 }
}

const SEVERITY_ICON = { critical: '🔴', major: '🟠', minor: '🟡', info: '🔵' } as const
const SEVERITY_RANK = { critical: 0, major: 1, minor: 2, info: 3 } as const

export function findingsSection(findings: readonly JudgedFinding[]): Section {
  const sorted = [...findings].sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity])
  const counts = (['critical', 'major', 'minor', 'info'] as const)
    .map(s => [s, findings.filter(f => f.severity === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`)
    .join(', ')
  return {
    open: [`<details>\n<summary><b>Findings</b> · ${counts}</summary>\n\n`],
    blocks: sorted.map(f => {
      const where = f.path
        ? ` · ${code(escapeName(f.line === undefined ? f.path : `${f.path}:${f.line}`))}`
        : ''
      const grounded = f.notInEvidence ? ` · *${NOT_IN_EVIDENCE}*` : ''
      return {
        pieces: [
          `- ${SEVERITY_ICON[f.severity]} **${f.severity}** · ${escapeMarkdown(f.title)}${where}${grounded} · ${escapeMarkdown(f.judge)}<br>`,
          prose(f.evidence),
          '\n'
        ],
        priority: f.severity === 'critical' || f.severity === 'major' ? 70 : 15
      }
    }),
    close: ['\n</details>\n\n'],
    omitted: n => `\n*${n} more finding${n === 1 ? ' is' : 's are'} not shown here.*\n`
  }
}
