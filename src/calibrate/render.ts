import { escapeCell, escapeHtml } from '../report/escape.js'
import { table } from '../report/markdown-pieces.js'
import type { CalibrationReport, CriterionCalibration } from './measure.js'
import { percent } from './sentences.js'

/** Cells of a bar: one block character per 5%. */
const BAR_CELLS = 20

/** `████████████████░░░░`: a share as a bar of block characters; blank dots when not measured. */
export function bar(value: number | null): string {
  if (value === null) return '·'.repeat(BAR_CELLS)
  const full = Math.round(Math.min(1, Math.max(0, value)) * BAR_CELLS)
  return '█'.repeat(full) + '░'.repeat(BAR_CELLS - full)
}

/** The three figures a criterion is judged by, each against its threshold where it has one. */
function chartRows(
  c: CriterionCalibration,
  report: CalibrationReport
): [string, number | null, string][] {
  return [
    ['precision', c.precision, `needs ≥ ${percent(report.thresholds.min_precision)}`],
    ['recall', c.recall, ''],
    ['flip', c.flip, `needs ≤ ${percent(report.thresholds.max_flip)}`]
  ]
}

function coverageLine(report: CalibrationReport): string {
  const cases = report.cases.length
  const base = `${report.completed} of ${report.planned} runs (${cases} case${cases === 1 ? '' : 's'} × ${report.repeat})`
  const order =
    report.evidence_order === 'diff'
      ? ''
      : ` The files were shown least recently changed first (--evidence-order ${report.evidence_order}).`
  return report.interrupted > 0
    ? `Interrupted: ${base} completed; ${report.interrupted} not run. The figures are of the completed runs only.${order}`
    : `${base} completed.${order}`
}

function spentLine(report: CalibrationReport): string {
  const unpriced =
    report.unpriced_calls > 0
      ? ` (${report.unpriced_calls} calls of models without a known price not counted)`
      : ''
  return `Spent ${report.tokens.input} input and ${report.tokens.output} output tokens, about $${report.dollars.toFixed(4)}${unpriced}.`
}

/** The Markdown report: the verdicts' figures, then each criterion with its chart. */
export function renderCalibrationMarkdown(report: CalibrationReport): string {
  const v = report.verdicts
  const parts = [
    `## Calibration of ${escapeCell(report.rubric)}\n\n`,
    `${escapeCell(coverageLine(report))} Set: ${escapeCell(report.set)}.\n\n`,
    '### Verdicts\n\n',
    table(
      ['accuracy', 'false PASS', 'false FAIL', 'UNCLEAR', 'flip'],
      [[v.accuracy, v.false_pass, v.false_fail, v.unclear, v.flip].map(percent)]
    ),
    '### Criteria\n\n',
    table(
      [
        'criterion',
        'recommendation',
        'labelled PASS / FAIL',
        'precision',
        'recall',
        'flip',
        'agreement'
      ],
      report.criteria.map(c => [
        `<code>${escapeCell(c.id)}</code>`,
        c.recommendation === 'block' ? '**block**' : 'advise',
        `${c.labelled.pass} / ${c.labelled.fail}`,
        percent(c.precision),
        percent(c.recall),
        percent(c.flip),
        percent(c.agreement)
      ])
    ),
    ...report.criteria.map(c => {
      const rows = chartRows(c, report).map(([name, value, need]) =>
        `${name.padEnd(9)} ${bar(value)} ${percent(value).padStart(4)}  ${need}`.trimEnd()
      )
      return `#### <code>${escapeCell(c.id)}</code>: ${c.recommendation}\n\n\`\`\`text\n${rows.join('\n')}\n\`\`\`\n\n${escapeCell(c.reason)}.\n\n`
    }),
    '### Cases\n\n',
    table(
      ['case', 'expected', 'verdicts'],
      report.cases.map(c => [
        escapeCell(c.name),
        c.expect,
        c.verdicts.length === 0 ? 'not run' : c.verdicts.join(', ')
      ])
    ),
    `${spentLine(report)}\n`
  ]
  return parts.join('')
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1f2328}
table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #d0d7de;padding:.3rem .6rem;text-align:left}
.criterion{border:1px solid #d0d7de;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}
.block{color:#1a7f37;font-weight:600}.advise{color:#9a6700;font-weight:600}.interrupted{color:#cf222e;font-weight:600}
svg text{font:13px system-ui,sans-serif}`

/** One criterion's chart: a bar per figure, the threshold as a line across its bar. */
function svgChart(c: CriterionCalibration, report: CalibrationReport): string {
  const width = 300
  const rows = chartRows(c, report)
  const lines = rows.map(([name, value], i) => {
    const y = i * 26
    const threshold =
      name === 'precision'
        ? report.thresholds.min_precision
        : name === 'flip'
          ? report.thresholds.max_flip
          : undefined
    const mark =
      threshold === undefined
        ? ''
        : `<line x1="${80 + threshold * width}" x2="${80 + threshold * width}" y1="${y}" y2="${y + 20}" stroke="#1f2328" stroke-dasharray="3 2"/>`
    const filled =
      value === null
        ? ''
        : `<rect x="80" y="${y + 3}" width="${(value * width).toFixed(1)}" height="14" fill="#0969da"/>`
    return `<text x="0" y="${y + 15}">${name}</text><rect x="80" y="${y + 3}" width="${width}" height="14" fill="#eaeef2"/>${filled}${mark}<text x="${90 + width}" y="${y + 15}">${percent(value)}</text>`
  })
  return `<svg role="img" aria-label="${escapeHtml(c.id)}: precision ${percent(c.precision)}, recall ${percent(c.recall)}, flip ${percent(c.flip)}" width="${width + 140}" height="${rows.length * 26}" xmlns="http://www.w3.org/2000/svg">${lines.join('')}</svg>`
}

/** The HTML report: one self-contained page (inline CSS and SVG, nothing fetched). */
export function renderCalibrationHtml(report: CalibrationReport): string {
  const v = report.verdicts
  const row = (cells: readonly string[], tag = 'td'): string =>
    `<tr>${cells.map(cell => `<${tag}>${cell}</${tag}>`).join('')}</tr>`
  const criteria = report.criteria.map(
    c => `<section class="criterion"><h3><code>${escapeHtml(c.id)}</code>: <span class="${c.recommendation}">${c.recommendation}</span></h3>
${svgChart(c, report)}
<p>Labelled ${c.labelled.pass} PASS / ${c.labelled.fail} FAIL · agreement ${percent(c.agreement)}</p>
<p>${escapeHtml(c.reason)}.</p></section>`
  )
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Calibration of ${escapeHtml(report.rubric)}</title><style>${STYLE}</style></head>
<body><h1>Calibration of ${escapeHtml(report.rubric)}</h1>
<p class="${report.interrupted > 0 ? 'interrupted' : ''}">${escapeHtml(coverageLine(report))}</p>
<p>Set: ${escapeHtml(report.set)}</p>
<h2>Verdicts</h2>
<table>${row(['accuracy', 'false PASS', 'false FAIL', 'UNCLEAR', 'flip'], 'th')}${row([v.accuracy, v.false_pass, v.false_fail, v.unclear, v.flip].map(percent))}</table>
<h2>Criteria</h2>
${criteria.join('\n')}
<h2>Cases</h2>
<table>${row(['case', 'expected', 'verdicts'], 'th')}${report.cases.map(c => row([escapeHtml(c.name), c.expect, c.verdicts.join(', ') || 'not run'])).join('')}</table>
<p>${escapeHtml(spentLine(report))}</p>
</body></html>
`
}

/** The terminal's summary: how much ran, and each criterion's recommendation with its figures. */
export function calibrationSummary(report: CalibrationReport): string[] {
  const v = report.verdicts
  return [
    `${report.completed} of ${report.planned} runs${report.interrupted > 0 ? ` (interrupted: ${report.interrupted} not run)` : ''}: accuracy ${percent(v.accuracy)}, false PASS ${percent(v.false_pass)}, false FAIL ${percent(v.false_fail)}, UNCLEAR ${percent(v.unclear)}, flip ${percent(v.flip)}`,
    ...report.criteria.map(
      c =>
        `${c.recommendation === 'block' ? 'block ' : 'advise'} ${c.id}: precision ${percent(c.precision)}, recall ${percent(c.recall)}, flip ${percent(c.flip)}. ${c.reason}.`
    )
  ]
}
