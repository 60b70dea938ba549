import type { VerdictKind } from '../verdict/types.js'
import { formatCount } from '../util/format-count.js'
import type { Block, Elastic, Piece } from './budget.js'
import { escapeMarkdown, fenceFor } from './escape.js'

// The pieces every part of the Markdown report is built of.

/** A reason is the verdict's explanation: it is cut last, and never below this. */
export const REASON_FLOOR = 600

export const ICON: Readonly<Record<VerdictKind, string>> = { PASS: '✅', FAIL: '❌', UNCLEAR: '⚠️' }

/** Untrusted prose, shortened from the end with a note; `floor` characters always stay. */
export function prose(text: string, floor = 0): Elastic {
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
export function codeBlock(content: string, language = 'text'): Elastic {
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

export function details(summary: string, body: readonly Piece[], priority: number): Block {
  return {
    pieces: [`<details>\n<summary>${summary}</summary>\n\n`, ...body, '\n</details>\n\n'],
    priority
  }
}

/** A GFM table; cells must already be escaped. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`
  return `${[line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n')}\n\n`
}

export function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`
}
