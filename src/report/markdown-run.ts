import { escapeName } from '../evidence/content.js'
import type { CancelledCall, JudgeRun, TokenUsage } from '../council/types.js'
import type { CoverageReceipt } from '../evidence/types.js'
import { formatExcerpt } from '../gates/excerpt.js'
import type { GateResult } from '../gates/types.js'
import { cancelledSentence } from '../sentences/council.js'
import { formatCount } from '../util/format-count.js'
import type { Block, Piece, Section } from './budget.js'
import { abbreviate, code, escapeCell, escapeHtml, escapeMarkdown } from './escape.js'
import { codeBlock, details, prose, seconds, table } from './markdown-pieces.js'
import { formatCacheUse, formatTokens } from './progress.js'

// The Markdown report's parts about what ran: the gates, the coverage and the judges.

export function gatesSection(
  gates: readonly GateResult[],
  provenance: string | undefined
): Section {
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

/**
 * The coverage section of each receipt, built once: the comment, the check run and the job
 * summary each render it, and a large pull request's receipt names thousands of files.
 */
const coverageSections = new WeakMap<CoverageReceipt, Section>()

export function coverageSection(receipt: CoverageReceipt): Section {
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

type Spent = Pick<JudgeRun, 'sample' | 'latencyMs' | 'tokens' | 'costUsd' | 'cacheCostUsd'>

/**
 * One row of the judges' table: who, which sample, its answer, and what it took; with `cache`, what
 * it read from the prompt cache and wrote to it, and what each cost.
 */
function judgeRow(who: string, status: string, call: Spent, cache: boolean): string[] {
  return [
    escapeCell(who),
    String(call.sample),
    status,
    seconds(call.latencyMs),
    call.tokens ? formatTokens(call.tokens) : '—',
    ...(cache ? [formatCacheUse(call.tokens, call.cacheCostUsd) ?? '—'] : []),
    call.costUsd === undefined ? '—' : `$${call.costUsd.toFixed(4)}`
  ]
}

/**
 * What each judge's requests were sent besides the prompt (docs/council.md#answer-caps): the cap
 * on its answer, the temperature, and the window its prompt was sized to where one was known, one
 * clause per distinct setting.
 */
function sentLine(runs: readonly Pick<JudgeRun, 'judge' | 'sent'>[]): string {
  const settings = new Map<string, string[]>()
  for (const { judge, sent } of runs) {
    if (sent === undefined) continue
    const temperature =
      sent.temperature === undefined ? 'no temperature' : `temperature ${sent.temperature}`
    const window = sent.window === undefined ? '' : `, window ${formatCount(sent.window)} tokens`
    const key = `answers capped at ${formatCount(sent.cap)} tokens, ${temperature}${window}`
    const judges = settings.get(key) ?? []
    if (!judges.includes(judge)) judges.push(escapeMarkdown(judge))
    settings.set(key, judges)
  }
  if (settings.size === 0) return ''
  const clauses = [...settings].map(([key, judges]) => `${key} (${judges.join(', ')})`)
  return `Sent: ${clauses.join('; ')}.\n\n`
}

/** The council's whole bill: tokens, the share the prompt caches served, and the cost. */
function totalsLine(runs: readonly Pick<JudgeRun, 'tokens' | 'costUsd'>[]): string {
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
  const written = sum(t => t.cacheWrite)
  const writes = written > 0 ? `, ${formatCount(written)} written to them` : ''
  return `In all: ${formatCount(input)} input tokens, ${formatCount(cached)} of them from the providers’ prompt caches${share}${writes}; ${formatCount(sum(t => t.output))} output tokens${cost}.\n\n`
}

export function judgesSection(
  runs: readonly JudgeRun[],
  quorum: number,
  cancelled: readonly CancelledCall[] = []
): Section {
  const valid = runs.filter(r => r.status === 'ok').length
  // The prompt-cache column only where a call read or wrote the cache.
  const cache = [...runs, ...cancelled].some(
    call => formatCacheUse(call.tokens, call.cacheCostUsd) !== undefined
  )
  const rows = runs.map(run => {
    const status = run.status === 'ok' ? `✅ ${run.answer.verdict}` : `❌ ${run.failure}`
    // An extra call says whose it was and the must-haves its vote was asked for.
    const extra = run.extra
      ? ` (${run.extra.reserve ? 'reserve' : 'extra vote'} on ${run.extra.criteria.join(', ')})`
      : ''
    return judgeRow(`${run.judge}${extra}`, status, run, cache)
  })
  const stopped = cancelled.map(call => judgeRow(call.judge, '⏹️ cancelled', call, cache))
  const asked = runs.length + cancelled.length
  return {
    open: [
      `<details>\n<summary><b>Judges</b> · ${valid} of ${asked} answered · quorum ${quorum}</summary>\n\n`,
      table(
        [
          'judge',
          'sample',
          'answer',
          'latency',
          'tokens',
          ...(cache ? ['prompt cache'] : []),
          'cost'
        ],
        [...rows, ...stopped]
      ),
      totalsLine([...runs, ...cancelled]),
      sentLine(runs),
      ...cancelled.map(
        call =>
          `- **${escapeMarkdown(call.judge)}** (sample ${call.sample}): ${cancelledSentence(call.settledBy)}.\n`
      ),
      cancelled.length > 0 ? '\n' : ''
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
