import { escapeName } from '../evidence/content.js'
import type { JudgeRun, TokenUsage } from '../council/types.js'
import type { CoverageReceipt } from '../evidence/types.js'
import { formatIssue } from '../rubric/errors.js'
import { formatExcerpt } from '../gates/excerpt.js'
import type { GateResult } from '../gates/types.js'
import { describeTally, formatNumber } from '../verdict/decide.js'
import type {
  CriterionResult,
  DimensionResult,
  JudgedFinding,
  VerdictKind
} from '../verdict/types.js'
import { VERSION } from '../version.js'
import {
  fitToBudget,
  type BudgetUnit,
  type Block,
  type Doc,
  type Elastic,
  type Piece,
  type Section
} from './budget.js'
import {
  abbreviate,
  code,
  escapeCell,
  escapeHtml,
  escapeInline,
  escapeMarkdown,
  fenceFor
} from './escape.js'
import type { Acceptance, Evaluation } from '../engine/evaluation.js'
import type { HistoryEntry } from '../engine/history.js'
import { anyGraded, isMet, summaryLine } from './summary.js'
import { formatCount } from '../util/format-count.js'
import { formatTokens } from './progress.js'
import { nextStep, stepContext, type StepAudience } from './next-step.js'

/** GitHub refuses issue comments longer than this. */
export const COMMENT_LIMIT = 65_536

export interface RenderOptions {
  /** The rendered report never exceeds this many characters (or bytes, per `unit`). */
  readonly budget: number
  /** What `budget` counts: characters (the default; comments, check runs) or UTF-8 bytes (the job summary). */
  readonly unit?: BudgetUnit
  /**
   * Say what to do next about a FAIL or UNCLEAR, right under the summary line, in the words of
   * where the report is read; nothing without it.
   */
  readonly nextStep?: StepAudience
}

/** A reason is the verdict's explanation: it is cut last, and never below this. */
const REASON_FLOOR = 600

const ICON: Readonly<Record<VerdictKind, string>> = { PASS: '✅', FAIL: '❌', UNCLEAR: '⚠️' }

/**
 * The Markdown report (comment, job summary, `--markdown`): a pure function of the evaluation.
 * Within the budget it shortens the longest texts first, then drops the least important details,
 * saying what it cut; the result is always well-formed.
 */
export function renderMarkdown(evaluation: Evaluation, options: RenderOptions): string {
  return fitToBudget(buildDoc(evaluation, options.nextStep), options.budget, options.unit).text
}

function buildDoc(evaluation: Evaluation, audience: StepAudience | undefined): Doc {
  const { verdict } = evaluation
  const headline = `### ${ICON[verdict.verdict]} Rubric Council: ${verdict.verdict}\n\n`
  const summary = summaryLine(evaluation)
  // An accepted verdict needs nothing more from anyone.
  const step =
    audience === undefined || evaluation.acceptance
      ? undefined
      : nextStep(verdict, audience, stepContext(evaluation))
  // The next step is fixed text of the head (and the fallback): shortening never cuts it.
  const next = step === undefined ? '' : `**Next:** ${stepMarkdown(step)}\n\n`
  const head: Piece[] = [headline]
  if (evaluation.acceptance) head.push(acceptanceNote(evaluation.acceptance))
  if (summary) head.push(`**${escapeMarkdown(summary)}**\n\n`)
  if (next) head.push(next)
  for (const reason of verdict.reasons) {
    head.push(`- **${reason.code}**: `, prose(reason.message, REASON_FLOOR), '\n')
  }
  if (verdict.reasons.length > 0) head.push('\n')
  // A verdict that rests on a tie-break says so, with the votes, so a person can weigh it.
  const settled = verdict.criteria.filter(c => c.tieBreak)
  for (const c of settled) head.push(`⚖️ ${tieBreakSentence(c)}\n\n`)
  head.push(`Recommendation: **${verdict.recommendation}**\n\n`)
  if (evaluation.reusedFrom !== undefined) {
    head.push(
      `♻️ The judges' answers are reused from iteration ${evaluation.reusedFrom}: nothing they were ` +
        'shown has changed, so no provider was asked. `/council rerun` asks them again.\n\n'
    )
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
    sections.push(judgesSection(evaluation.council.runs, evaluation.council.quorum))
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
      'The report is too long to show here; the job summary and the JSON report have it in full.\n'
  }
}

/** A maintainer's acceptance, above everything else: the check passes because of it. */
export function acceptanceNote(acceptance: Acceptance): string {
  return (
    `> [!NOTE]\n> **Accepted by @${escapeMarkdown(acceptance.by)}** for ` +
    `${code(acceptance.commit.slice(0, 7))}: ${escapeMarkdown(acceptance.reason.replace(/\s+/g, ' '))}\n> ` +
    'The check passes for this commit whatever the verdict below; a new push is judged again.\n\n'
  )
}

/**
 * A next step as Markdown: its backtick spans as code, the rest escaped like any text (a gate's
 * command comes from the rubric, which a pull request may edit).
 */
function stepMarkdown(step: string): string {
  return step
    .split(/`([^`]*)`/)
    .map((part, i) => (i % 2 === 1 ? code(part) : escapeInline(part)))
    .join('')
}

/** Untrusted prose, shortened from the end with a note; `floor` characters always stay. */
function prose(text: string, floor = 0): Elastic {
  return {
    text: escapeMarkdown(text),
    keep: 'start',
    before: '',
    after: '',
    note: cut => ` *… (${formatCount(cut)} characters cut)*`,
    floor
  }
}

/** A log, shortened from the start: its end says why it failed. */
function codeBlock(content: string, language = 'text'): Elastic {
  const text = content.replace(/\n+$/, '')
  const fence = fenceFor(text)
  return {
    text,
    keep: 'end',
    before: `${fence}${language}\n`,
    after: `\n${fence}\n`,
    note: cut => `… ${formatCount(cut)} characters cut …\n`
  }
}

function details(summary: string, body: readonly Piece[], priority: number): Block {
  return {
    pieces: [`<details>\n<summary>${summary}</summary>\n\n`, ...body, '\n</details>\n\n'],
    priority
  }
}

function gatesSection(gates: readonly GateResult[], provenance: string | undefined): Section {
  const passed = gates.filter(g => g.status === 'pass').length
  const rows = gates.map(g => [
    g.status === 'pass' ? '✅' : '❌',
    code(g.command),
    gateResult(g),
    seconds(g.durationMs)
  ])
  return {
    open: [
      `<details>\n<summary><b>Gates</b> · ${passed} of ${gates.length} passed</summary>\n\n`,
      ...(provenance === undefined
        ? []
        : [`*The results were ${escapeMarkdown(provenance)}.*\n\n`]),
      table(['', 'gate', 'result', 'time'], rows)
    ],
    blocks: gates.map(g => {
      const output = formatExcerpt(g.output)
      const body: Piece[] = []
      if (g.detail) body.push(prose(g.detail), '\n\n')
      body.push(output === '' ? '*No output.*\n' : codeBlock(output))
      return details(
        `${g.status === 'pass' ? '✅' : '❌'} <code>${escapeHtml(abbreviate(g.command, 80))}</code> · output`,
        body,
        g.status === 'pass' ? 20 : 90
      )
    }),
    close: ['</details>\n\n'],
    omitted: n => `*${n} gate output${n === 1 ? ' is' : 's are'} not shown here.*\n\n`
  }
}

function gateResult(gate: GateResult): string {
  switch (gate.status) {
    case 'pass':
      return 'pass'
    case 'fail':
      return gate.exitCode === null ? 'fail' : `fail (exit ${gate.exitCode})`
    case 'timeout':
      return 'timeout'
    case 'error':
      return 'error'
  }
}

function criteriaSection(
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
    omitted: n => `*${n} more criteri${n === 1 ? 'on is' : 'a are'} not shown here.*\n\n`
  }
}

function criterionBlock(c: CriterionResult, priority: number): Block {
  const icon = STATUS_ICON[c.status]
  const summary =
    `${icon} <b>${escapeHtml(c.id)}</b> · ${[c.status, tally(c)].filter(Boolean).map(escapeHtml).join(' ')} — ` +
    escapeHtml(abbreviate(c.description, SUMMARY_DESCRIPTION))
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
  if (c.votes.length === 0) body.push('*No judge graded this criterion.*\n')
  for (const vote of [...c.votes, ...(c.tieBreak ? [c.tieBreak] : [])]) {
    const grade = vote.verdict ?? (vote.score === undefined ? '—' : `${vote.score}/10`)
    body.push(`- **${escapeMarkdown(vote.judge)}** · ${grade}: `, prose(vote.reasoning), '\n')
  }
  // Failing and split criteria are what the author needs most; they are kept longest.
  const urgency = c.status === 'FAIL' ? 40 : c.status === 'SPLIT' ? 30 : 0
  return details(summary, body, priority + urgency)
}

/** Characters of a criterion's description shown on its summary line. */
const SUMMARY_DESCRIPTION = 90

const STATUS_ICON = { PASS: '✅', FAIL: '❌', SPLIT: '⚠️', SCORED: '🔢', UNGRADED: '➖' } as const

/** `(2/3 PASS)`: the judges' votes (each the majority of its samples), and a tie-break's. */
function tally(c: CriterionResult): string {
  if (c.kind === 'score') return c.median === undefined ? '' : `(median ${formatNumber(c.median)})`
  const t = c.tally
  if (!t) return ''
  const judges = t.pass + t.fail + t.abstain
  if (judges === 0) return ''
  const tie = c.tieBreak?.verdict ? `, tie-break ${c.tieBreak.verdict}` : ''
  return `(${t.pass}/${judges} PASS${tie})`
}

/** `a was settled by a tie-break: the judges voted 1 PASS, 1 FAIL; X (tie-break) said FAIL.` */
function tieBreakSentence(c: CriterionResult): string {
  return (
    `**${escapeMarkdown(c.id)}** was settled by a tie-break: the judges voted ${describeTally(c)}; ` +
    `${escapeMarkdown(c.tieBreak?.judge ?? '')} said ${c.tieBreak?.verdict ?? ''}.`
  )
}

function dimensionsSection(evaluation: Evaluation): Section {
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

function findingsSection(findings: readonly JudgedFinding[]): Section {
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
      return {
        pieces: [
          `- ${SEVERITY_ICON[f.severity]} **${f.severity}** · ${escapeMarkdown(f.title)}${where} · ${escapeMarkdown(f.judge)}<br>`,
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

/**
 * The coverage section of each receipt, built once: the comment, the check run and the job
 * summary each render it, and a large pull request's receipt names thousands of files.
 */
const coverageSections = new WeakMap<CoverageReceipt, Section>()

function coverageSection(receipt: CoverageReceipt): Section {
  const built = coverageSections.get(receipt)
  if (built !== undefined) return built
  const section = buildCoverageSection(receipt)
  coverageSections.set(receipt, section)
  return section
}

function buildCoverageSection(receipt: CoverageReceipt): Section {
  const summary =
    `<b>Coverage</b> · ${formatCount(receipt.reviewed.length)} of ${formatCount(receipt.reviewable)} reviewable file${receipt.reviewable === 1 ? '' : 's'} ` +
    `(${Math.round(receipt.ratio * 100)}%) · ${formatCount(receipt.usedTokens)} of ` +
    `${formatCount(receipt.budgetTokens)} tokens`
  const blocks: Block[] = receipt.omitted.map(o => ({
    pieces: [`- ${code(escapeName(o.path))}: ${o.reason} — `, prose(o.detail), '\n'],
    // Files left out for the budget are what a reader must know about; the rest is routine.
    priority: o.reason === 'budget' ? 50 : 8
  }))
  for (const r of receipt.redacted) {
    // A secret file is shown too: the reader must not take it for one the judges never saw.
    const secretFile =
      r.secretFile === undefined
        ? ''
        : `, every value that looked like a credential, as a secret file (${code(escapeName(r.secretFile))})`
    blocks.push({
      pieces: [
        `- ${code(escapeName(r.path))}: shown, ${r.secrets} secret${r.secrets === 1 ? '' : 's'} redacted (${escapeMarkdown(r.kinds.join(', '))})${secretFile}; the rest of its diff was shown\n`
      ],
      priority: 45
    })
  }
  return {
    open: [
      `<details>\n<summary>${summary}</summary>\n\n`,
      receipt.omitted.length === 0 && receipt.redacted.length === 0
        ? 'Every changed file was shown to the judges.\n'
        : receipt.omitted.length === 0
          ? 'Every changed file was shown to the judges, with secrets redacted:\n\n'
          : 'Not shown to the judges, or shown with secrets redacted:\n\n'
    ],
    blocks,
    close: ['\n</details>\n\n'],
    omitted: n => `\n*${n} more file${n === 1 ? ' is' : 's are'} not listed here.*\n`
  }
}

/** The council's whole bill: tokens, the share the prompt caches served, and the cost. */
function totalsLine(runs: readonly JudgeRun[]): string {
  const counted = runs.flatMap(r => (r.tokens ? [r.tokens] : []))
  if (counted.length === 0) return ''
  const sum = (pick: (t: TokenUsage) => number): number =>
    counted.reduce((total, t) => total + pick(t), 0)
  const input = sum(t => t.input)
  const cached = sum(t => t.cachedInput)
  const share = input > 0 ? ` (${Math.round((cached / input) * 100)}%)` : ''
  const priced = runs.filter(r => r.costUsd !== undefined)
  const cost =
    priced.length === 0
      ? ''
      : `; estimated cost $${priced.reduce((total, r) => total + (r.costUsd ?? 0), 0).toFixed(4)}${priced.length < runs.length ? ' for the models with a known price' : ''}`
  return `In all: ${formatCount(input)} input tokens, ${formatCount(cached)} of them from the providers’ prompt caches${share}; ${formatCount(sum(t => t.output))} output tokens${cost}.\n\n`
}

function judgesSection(runs: readonly JudgeRun[], quorum: number): Section {
  const valid = runs.filter(r => r.status === 'ok').length
  const rows = runs.map(run => {
    const status = run.status === 'ok' ? `✅ ${run.answer.verdict}` : `❌ ${run.failure}`
    const cost = run.costUsd === undefined ? '—' : `$${run.costUsd.toFixed(4)}`
    return [
      escapeCell(run.judge),
      String(run.sample),
      status,
      seconds(run.latencyMs),
      run.tokens ? formatTokens(run.tokens) : '—',
      cost
    ]
  })
  return {
    open: [
      `<details>\n<summary><b>Judges</b> · ${valid} of ${runs.length} answered · quorum ${quorum}</summary>\n\n`,
      table(['judge', 'sample', 'answer', 'latency', 'tokens', 'cost'], rows),
      totalsLine(runs)
    ],
    blocks: runs.flatMap(run =>
      run.status === 'failed'
        ? [
            {
              pieces: [`- **${escapeMarkdown(run.judge)}**: `, prose(run.message), '\n'],
              priority: 25
            }
          ]
        : run.answer.feedback.trim() === ''
          ? []
          : [
              {
                pieces: [
                  `- **${escapeMarkdown(run.judge)}** feedback: `,
                  prose(run.answer.feedback),
                  '\n'
                ],
                priority: 12
              }
            ]
    ),
    close: ['\n</details>\n\n'],
    omitted: n => `\n*${n} more judge note${n === 1 ? ' is' : 's are'} not shown here.*\n`
  }
}

/** Said before anything else: a rubric the PR weakens, or read from somewhere unexpected. */
function rubricAlerts(evaluation: Evaluation): Piece[] {
  const review = evaluation.rubricReview
  if (!review) return []
  const out: Piece[] = []
  if (review.diff?.weakened) {
    const weakening = review.diff.changes.filter(c => c.weakens).map(c => c.text)
    out.push(
      review.source === 'base'
        ? '> [!WARNING]\n> This pull request **weakens the rubric** that grades it; the verdict uses the rubric from the base branch. Weakened: '
        : '> [!CAUTION]\n> This pull request **weakens the rubric** that grades it, and the rubric is read from the pull request itself (`rubric-source: head`). Weakened: ',
      prose(weakening.join('; '), REASON_FLOOR),
      '\n\n'
    )
  }
  if (review.note) out.push('> [!NOTE]\n> ', prose(review.note, REASON_FLOOR), '\n\n')
  return out
}

function rubricSection(evaluation: Evaluation): Section {
  const { rubric } = evaluation
  const facts = [
    `Path: ${code(rubric.path)}`,
    `source: ${rubric.source === 'checker' ? 'the `checker` input' : 'file'}`,
    rubric.hash ? `hash: \`${rubric.hash}\`` : 'hash: none (not read)'
  ].join(' · ')
  const blocks: Block[] = []
  if (rubric.problems.length > 0) {
    blocks.push({
      pieces: ['Problems:\n\n', codeBlock(rubric.problems.map(formatIssue).join('\n'))],
      priority: 95
    })
  }
  const review = evaluation.rubricReview
  const diff = review?.diff
  if (review && diff && diff.changes.length > 0) {
    blocks.push({
      pieces: [
        `This pull request changes the rubric${review.source === 'base' ? ' (the verdict uses the base branch’s)' : ''}:\n\n`,
        ...diff.changes.flatMap(c => [
          `- ${c.weakens ? '⚠️ **weakens:** ' : ''}`,
          prose(c.text),
          '\n'
        ]),
        '\n'
      ],
      priority: 85
    })
  }
  if (rubric.materialised) {
    blocks.push({
      pieces: [
        'Materialised from the `checker` input; copy it to `.github/rubric.md` to grow it:\n\n',
        codeBlock(rubric.materialised, 'markdown')
      ],
      priority: 5
    })
  }
  const source = evaluation.rubricReview ? ` · read from the ${evaluation.rubricReview.source}` : ''
  const changed =
    diff && diff.changes.length > 0
      ? ` · changed by this PR${diff.weakened ? ', weakened' : ''}`
      : ''
  return {
    open: [
      `<details>\n<summary><b>Rubric</b>${rubric.title ? ` · ${escapeHtml(rubric.title)}` : ''}${source}${changed}</summary>\n\n${facts}\n\n`
    ],
    blocks,
    close: ['\n</details>\n\n'],
    omitted: () => '*The rubric text is not shown here.*\n'
  }
}

function historySection(history: readonly HistoryEntry[]): Section {
  const rows = history.map((entry, i) => {
    const previous = history[i - 1]
    const changed = previous !== undefined && previous.rubricHash !== entry.rubricHash
    const cells = [
      String(entry.iteration),
      code(entry.commit.slice(0, 7)),
      `${ICON[entry.verdict]} ${entry.verdict}`,
      escapeCell(
        [entry.summary || entry.reasons.join(', ') || '—', entry.note]
          .filter(t => t !== undefined)
          .join(' · ')
      ),
      `${code(entry.rubricHash)}${changed ? ' ✎ changed' : ''}`
    ]
    // The newest iterations matter most; the oldest go first when space runs out.
    return { pieces: [`| ${cells.join(' | ')} |\n`], priority: 40 + (i / history.length) * 10 }
  })
  return {
    open: [
      `<details>\n<summary><b>Iterations</b> · ${history.length}</summary>\n\n`,
      '| # | commit | verdict | summary | rubric |\n| --- | --- | --- | --- | --- |\n'
    ],
    blocks: rows,
    close: ['\n</details>\n\n'],
    omitted: n => `| | | | ${n} earlier iteration${n === 1 ? '' : 's'} not shown | |\n`
  }
}

/** A GFM table; cells must already be escaped. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`
  return `${[line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n')}\n\n`
}

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`
}
