import type { JudgeRun, TokenUsage } from '../council/types.js'
import type { GateResult } from '../gates/types.js'
import { formatIssue } from '../rubric/errors.js'
import { calibrationLine } from '../sentences/calibration.js'
import { NOT_IN_EVIDENCE } from '../sentences/findings.js'
import type { Thresholds } from '../rubric/types.js'
import { cancelledSentence, JUDGES_NOT_ASKED } from '../sentences/council.js'
import { formatNumber, nextStep, reasonSentence } from '../sentences/reasons.js'
import type {
  CriterionResult,
  CriterionStatus,
  DimensionResult,
  JudgedFinding,
  Verdict,
  Vote
} from '../verdict/types.js'
import type { Evaluation } from '../engine/evaluation.js'
import { formatCacheUse, formatTokens } from './progress.js'
import { extraVotesNote, summaryLine } from './summary.js'

export interface TerminalOptions {
  /**
   * The file the full (Markdown) report was written to, named on the last line: the one
   * `--markdown` named, else the one `check` wrote of its own accord. No line without one.
   */
  readonly markdownFile?: string
}

/** Each criterion status has its own mark; a SCORED criterion shows its median instead. */
export const STATUS_MARK: Readonly<Record<Exclude<CriterionStatus, 'SCORED'>, string>> = {
  PASS: '✓',
  FAIL: '✗',
  SPLIT: '±',
  UNGRADED: '–',
  WAIVED: '⚑'
}

/** Characters of a judge's reasoning shown next to a criterion, and of a finding's title. */
const REASON_WIDTH = 80
/** Characters of a gate's command or a criterion's id in the name column. */
const NAME_WIDTH = 40
/** Findings listed before the rest are left to the full report. */
const MAX_FINDINGS = 5

const SEVERITY_RANK = { critical: 0, major: 1, minor: 2, info: 3 } as const

/**
 * A compact rendering for a terminal, in the spirit of Scope's TUI: the verdict and summary line,
 * what to do next, the reasons, the gates and criteria (a group where everything passed on one
 * line), then the findings, dimensions, score and cost when there are any, and the file the
 * full report is in. Pure.
 */
export function renderTerminal(evaluation: Evaluation, options: TerminalOptions = {}): string {
  const { verdict, gates, rubric } = evaluation
  const lines: string[] = []
  const summary = summaryLine(evaluation)
  lines.push(`${verdict.verdict} (exit ${verdict.exitCode})${summary ? ` · ${summary}` : ''}`)
  const step = nextStep(verdict, 'terminal')
  if (step !== undefined) lines.push(`next: ${step}`)
  for (const reason of verdict.reasons)
    lines.push(`  ${reason.code}: ${reasonSentence(reason, 'terminal')}`)
  for (const issue of rubric.problems) lines.push(`  ${formatIssue(issue)}`)
  const review = evaluation.rubricReview
  if (review?.note !== undefined) lines.push(`rubric: ${review.note}`)
  if (review?.diff !== undefined && review.diff.changes.length > 0) {
    const changes = review.diff.changes.map(c => `${c.weakens ? 'WEAKENS ' : ''}${c.text}`)
    lines.push(
      `rubric: graded by the ${review.source === 'base' ? "base's" : "working tree's"}; the working tree's differs from the base's: ${changes.join('; ')}`
    )
  }
  if (rubric.inherited) {
    lines.push(`rubric extends ${rubric.inherited.from.join(', ')}`)
    for (const change of rubric.inherited.overrides)
      lines.push(`  overrides: ${change.weakens ? 'WEAKENS ' : ''}${change.text}`)
  }

  const must = verdict.criteria.filter(c => c.required)
  const nice = verdict.criteria.filter(c => !c.required)
  const groups = [
    ...(gates.length > 0 ? [gatesGroup(gates)] : []),
    ...(must.length > 0 ? [criteriaGroup('must-have', must)] : []),
    ...(nice.length > 0 ? [criteriaGroup('nice-to-have', nice)] : [])
  ]
  // A listed group stands apart; groups on one line each sit together.
  let apart = true
  for (const g of groups) {
    const listed = g.length > 1
    if (apart || listed) lines.push('')
    lines.push(...g)
    apart = listed
  }

  const details = [
    ...(evaluation.judgesNotAsked ? [JUDGES_NOT_ASKED[evaluation.judgesNotAsked]] : []),
    ...findingLines(verdict.findings),
    ...dimensionLines(verdict.dimensions, verdict.dimensionsScore),
    ...scoreLines(verdict, rubric.thresholds),
    ...(evaluation.council?.cancelled ?? []).map(
      call => `${call.judge} (sample ${call.sample}): ${cancelledSentence(call.settledBy)}`
    ),
    ...costLines([...(evaluation.council?.runs ?? []), ...(evaluation.council?.cancelled ?? [])]),
    ...cacheLines([...(evaluation.council?.runs ?? []), ...(evaluation.council?.cancelled ?? [])])
  ]
  if (details.length > 0) lines.push('', ...details)

  lines.push('', `recommendation: ${verdict.recommendation}`)
  if (options.markdownFile !== undefined) lines.push(`Full report: ${options.markdownFile}`)
  return `${lines.join('\n')}\n`
}

interface Row {
  readonly mark: string
  readonly name: string
  readonly result: string
}

/** A group's rows under its title, or one line naming them all when every one passed. */
function group(title: string, rows: readonly Row[], allPassed: boolean): string[] {
  if (allPassed) {
    const names = shorten(rows.map(r => r.name).join(', '), REASON_WIDTH)
    return [`${title}: ${STATUS_MARK.PASS} ${rows.length}/${rows.length} · ${names}`]
  }
  // Marks are one character but a score; the names line up either way.
  const width = Math.max(...rows.map(r => Array.from(r.mark).length))
  return [
    `${title}:`,
    ...rows.map(r => {
      const mark = r.mark.padStart(width + r.mark.length - Array.from(r.mark).length)
      const label = Array.from(r.name).length > NAME_WIDTH ? shorten(r.name, NAME_WIDTH) : r.name
      return `  ${mark} ${label.padEnd(NAME_WIDTH)} ${r.result}`
    })
  ]
}

function gatesGroup(gates: readonly GateResult[]): string[] {
  const rows = gates.map(g => ({
    mark: g.status === 'pass' ? STATUS_MARK.PASS : STATUS_MARK.FAIL,
    name: g.command,
    result: `${g.status === 'fail' && g.exitCode !== null ? `fail (exit ${g.exitCode})` : g.status}  ${(g.durationMs / 1000).toFixed(1)} s`
  }))
  return group(
    'gates',
    rows,
    gates.every(g => g.status === 'pass')
  )
}

function criteriaGroup(title: string, criteria: readonly CriterionResult[]): string[] {
  return group(
    title,
    criteria.map(criterionRow),
    criteria.every(c => c.status === 'PASS')
  )
}

function criterionRow(c: CriterionResult): Row {
  const mark =
    c.status === 'SCORED'
      ? c.median === undefined
        ? STATUS_MARK.UNGRADED
        : formatNumber(c.median)
      : STATUS_MARK[c.status]
  // The objection is what an author wants to read next to a failed or split criterion.
  const objection = c.status === 'FAIL' || c.status === 'SPLIT' ? objectionOf(c) : undefined
  const why = c.waived
    ? ` - waived by @${c.waived.by}: ${shorten(oneLine(c.waived.reason), REASON_WIDTH)}`
    : objection
      ? ` - ${shorten(oneLine(objection.reasoning), REASON_WIDTH)}`
      : ''
  const standing = c.calibration ? ` · ${calibrationLine(c.calibration)}` : ''
  return {
    mark,
    name: c.id,
    result: `${[c.status, tallyOf(c)].filter(Boolean).join(' ')}${standing}${why}`
  }
}

/**
 * `3/3`: of how many judges, how many passed it; a split shows its votes as `PASS–FAIL` (`2–1`);
 * a score-range criterion its median, against its minimum when it has one.
 */
function tallyOf(c: CriterionResult): string {
  if (c.kind === 'score') {
    if (c.median === undefined) return ''
    const min = c.requiredMinScore === undefined ? '' : ` (min ${c.requiredMinScore})`
    return `median ${formatNumber(c.median)}/10${min}`
  }
  const t = c.tally
  if (!t || t.pass + t.fail + t.abstain === 0) return ''
  const tied = t.abstain > 0 ? `, ${t.abstain} tied` : ''
  const extra = extraVotesNote(c)
  if (c.status === 'SPLIT') return `${t.pass}–${t.fail} (PASS–FAIL${tied}${extra})`
  return `${t.pass}/${t.pass + t.fail + t.abstain}${tied}${extra}`
}

/** A failing vote of a checklist criterion; the lowest score of a score-range one. */
function objectionOf(c: CriterionResult): Vote | undefined {
  if (c.kind === 'checklist') return c.votes.find(v => v.verdict === 'FAIL')
  return c.votes
    .filter(v => v.score !== undefined)
    .reduce<Vote | undefined>(
      (low, v) => (low && (low.score ?? 0) <= (v.score ?? 0) ? low : v),
      undefined
    )
}

/** The findings, the gravest first, the same finding of several judges once; the rest counted. */
function findingLines(findings: readonly JudgedFinding[]): string[] {
  if (findings.length === 0) return []
  const merged = new Map<string, { finding: JudgedFinding; judges: number }>()
  for (const f of findings) {
    const key = JSON.stringify([f.severity, f.title, f.path ?? '', f.line ?? -1])
    const seen = merged.get(key)
    merged.set(key, { finding: seen?.finding ?? f, judges: (seen?.judges ?? 0) + 1 })
  }
  const sorted = [...merged.values()].sort(
    (a, b) => SEVERITY_RANK[a.finding.severity] - SEVERITY_RANK[b.finding.severity]
  )
  const counts = (['critical', 'major', 'minor', 'info'] as const)
    .map(s => [s, sorted.filter(m => m.finding.severity === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`)
    .join(', ')
  const shown = sorted.slice(0, MAX_FINDINGS).map(({ finding: f, judges }) => {
    const where =
      f.path === undefined
        ? ''
        : ` · ${oneLine(f.line === undefined ? f.path : `${f.path}:${f.line}`)}`
    const by = judges > 1 ? ` (${judges} judges)` : ''
    const grounded = f.notInEvidence ? ` · ${NOT_IN_EVIDENCE}` : ''
    return `  ${f.severity.padEnd(8)} ${shorten(oneLine(f.title), REASON_WIDTH)}${where}${grounded}${by}`
  })
  const rest = sorted.length - shown.length
  return [
    `findings: ${counts}`,
    ...shown,
    ...(rest > 0 ? [`  … ${rest} more in the full report`] : [])
  ]
}

/** `dimensions: correctness 8 · clarity 7 (weighted 7.5/10)`; `–` for one no judge scored. */
function dimensionLines(dimensions: readonly DimensionResult[], score: number | null): string[] {
  if (dimensions.every(d => d.median === null)) return []
  const medians = dimensions
    .map(d => `${d.name} ${d.median === null ? '–' : formatNumber(d.median)}`)
    .join(' · ')
  const weighted = score === null ? '' : ` (weighted ${formatNumber(score * 10)}/10)`
  return [`dimensions: ${medians}${weighted}`]
}

/** `score: 0.73 = criteria 0.8, dimensions 0.65 · pass ≥ 0.8, fail < 0.5`. */
function scoreLines(verdict: Verdict, thresholds: Thresholds | undefined): string[] {
  if (verdict.score === null) return []
  const parts = [
    ...(verdict.criteriaScore === null ? [] : [`criteria ${formatNumber(verdict.criteriaScore)}`]),
    ...(verdict.dimensionsScore === null
      ? []
      : [`dimensions ${formatNumber(verdict.dimensionsScore)}`]),
    ...(verdict.accuracyCeilingApplied ? ['capped by the accuracy ceiling'] : [])
  ]
  const from = parts.length > 0 ? ` from ${parts.join(', ')}` : ''
  const bounds = thresholds
    ? ` · pass ≥ ${formatNumber(thresholds.pass)}, fail < ${formatNumber(thresholds.fail)}`
    : ''
  return [`score: ${formatNumber(verdict.score)}${from}${bounds}`]
}

/** `cost: 37,035 in (30,720 cached) / 2,034 out · est. $0.0369`, when the providers said. */
function costLines(runs: readonly Pick<JudgeRun, 'tokens' | 'costUsd'>[]): string[] {
  const counted = runs.flatMap(r => (r.tokens ? [r.tokens] : []))
  const priced = runs.filter(r => r.costUsd !== undefined)
  if (counted.length === 0 && priced.length === 0) return []
  const sum = (pick: (t: TokenUsage) => number): number =>
    counted.reduce((total, t) => total + pick(t), 0)
  const parts: string[] = []
  if (counted.length > 0) {
    parts.push(
      formatTokens({
        input: sum(t => t.input),
        cachedInput: sum(t => t.cachedInput),
        cacheWrite: sum(t => t.cacheWrite),
        output: sum(t => t.output)
      })
    )
  }
  if (priced.length > 0) {
    const dollars = priced.reduce((total, r) => total + (r.costUsd ?? 0), 0)
    const unpriced = runs.some(r => r.tokens !== undefined && r.costUsd === undefined)
    const partial = unpriced ? ' for the models with a known price' : ''
    parts.push(`est. $${dollars.toFixed(4)}${partial}`)
  }
  return [`cost: ${parts.join(' · ')}`]
}

/**
 * `prompt cache: anthropic:claude-sonnet-4-6 read 16,384 ($0.0049), written 8,192 ($0.0307); …`:
 * per judge, its samples together, on one line; none when no call read or wrote a cache.
 */
function cacheLines(
  calls: readonly Pick<JudgeRun, 'judge' | 'tokens' | 'cacheCostUsd'>[]
): string[] {
  const judges = [...new Set(calls.map(c => c.judge))].flatMap(judge => {
    const own = calls.filter(c => c.judge === judge)
    const sum = (pick: (t: TokenUsage) => number): number =>
      own.reduce((total, c) => total + (c.tokens ? pick(c.tokens) : 0), 0)
    const priced = own.every(c => c.cacheCostUsd !== undefined)
    const cost = own.reduce(
      (total, c) => ({
        read: total.read + (c.cacheCostUsd?.read ?? 0),
        write: total.write + (c.cacheCostUsd?.write ?? 0)
      }),
      { read: 0, write: 0 }
    )
    const tokens = {
      input: 0,
      cachedInput: sum(t => t.cachedInput),
      cacheWrite: sum(t => t.cacheWrite),
      output: 0
    }
    const use = formatCacheUse(tokens, priced ? cost : undefined)
    return use === undefined ? [] : [`${judge} ${use}`]
  })
  return judges.length === 0 ? [] : [`prompt cache: ${judges.join('; ')}`]
}

/**
 * A judge's text on one line: its line breaks as spaces, and without control characters (an
 * escape sequence from a model's answer must not restyle or move the user's terminal).
 */
function oneLine(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/\p{Cc}/gu, '')
    .trim()
}

/**
 * `text` in at most `max` characters (code points, so no emoji or other multi-byte character is
 * split): when it is longer, it ends at the last word that fits, followed by `…`. Only a first
 * word longer than the room is cut inside, there being no boundary to end at.
 */
export function shorten(text: string, max: number): string {
  const chars = Array.from(text)
  if (chars.length <= max) return text
  const room = chars.slice(0, Math.max(0, max - 1))
  const atBoundary = /\s/u.test(chars[room.length] ?? ' ')
  let end = room.length
  if (!atBoundary) {
    const lastSpace = room.findLastIndex(ch => /\s/u.test(ch))
    if (lastSpace > 0) end = lastSpace
  }
  const kept = room
    .slice(0, end)
    .join('')
    .replace(/[\s,;:–—-]+$/u, '')
  return `${kept}…`
}
