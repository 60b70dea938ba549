import { CST, isScalar, Parser, visit, type Document, type YAMLError } from 'yaml'
import type { LineProblem } from './markdown.js'
import type { Position } from './yaml-source.js'

/** What a rubric's author reads for a YAML error: its cause, where that cause is, the line quoted. */
interface Explained {
  readonly line: number
  readonly column: number
  readonly cause: string
  /** What to do, when the cause alone does not say it. */
  readonly fix?: string
}

interface Source {
  readonly text: string
  readonly lines: readonly string[]
  readonly doc: Document.Parsed
  readonly position: (offset: number) => Position
}

/**
 * The problems of a YAML text that did not parse, said as causes rather than as the parser's
 * symptoms. A `{`, `[` or quote left open swallows every line after it, and the parser reports
 * where it noticed (a comment, a key further down) rather than where the mistake is: so when one
 * is open, it is the only problem reported, at the character that opened it.
 */
export function explainYamlErrors(
  text: string,
  doc: Document.Parsed,
  position: (offset: number) => Position
): LineProblem[] {
  const errors = [...doc.errors, ...doc.warnings]
  if (errors.length === 0) return []
  const source: Source = { text, lines: text.split('\n'), doc, position }
  const opened = firstLeftOpen(source, errors)
  const explained = opened ? [opened] : errors.map(error => explainError(error, source))
  const seen = new Set<string>()
  return explained.flatMap(({ line, column, cause, fix }) => {
    const quoted = quoteLine(source.lines[line - 1] ?? '')
    const message = `invalid YAML: ${cause}: ${quoted}${fix === undefined ? '' : `; ${fix}`}`
    const key = `${line}:${message}`
    if (seen.has(key)) return []
    seen.add(key)
    return [{ line, column, rule: 'yaml-syntax' as const, message }]
  })
}

interface LeftOpen {
  readonly offset: number
  /** A `[` ended by `}` (or the reverse): the bracket that is missing is this one's. */
  readonly mismatched: boolean
  readonly cause: string
  readonly fix: string
}

/**
 * The flow collection or quoted value the text opens and never closes: one closed by the other
 * bracket, else the earliest (an open one swallows the lines after it, and what they open).
 */
function firstLeftOpen(source: Source, errors: readonly YAMLError[]): Explained | undefined {
  const found: LeftOpen[] = []
  for (const token of new Parser().parse(source.text)) {
    if (token.type !== 'document') continue
    CST.visit(token, item => {
      for (const node of [item.key, item.value]) {
        const open = node ? leftOpen(node, errors, source) : undefined
        if (open) found.push(open)
      }
    })
  }
  const first = found.sort(
    (a, b) => Number(b.mismatched) - Number(a.mismatched) || a.offset - b.offset
  )[0]
  return first && { ...source.position(first.offset), ...first }
}

const CLOSED_QUOTE: Readonly<Record<string, RegExp>> = {
  'double-quoted-scalar': /^"(?:[^"\\]|\\[\s\S])*"$/,
  'single-quoted-scalar': /^'(?:[^']|'')*'$/
}

function leftOpen(
  node: CST.Token,
  errors: readonly YAMLError[],
  source: Source
): LeftOpen | undefined {
  if (node.type === 'flow-collection') {
    const map = node.start.source === '{'
    const [open, close, kind] = map ? ['{', '}', 'mapping'] : ['[', ']', 'list']
    const ends = node.end.map(token => token.type)
    if (ends.includes(map ? 'flow-map-end' : 'flow-seq-end')) return undefined
    return {
      offset: node.offset,
      mismatched: ends.includes(map ? 'flow-seq-end' : 'flow-map-end'),
      cause: `the ${open} that starts a ${kind} here is never closed with ${close}`,
      fix: `add the ${close} after the ${kind}'s last item (lines inside ${open} … ${close} are indented deeper than this one)`
    }
  }
  const closed = CLOSED_QUOTE[node.type]
  if (!closed || !('source' in node)) return undefined
  const end = node.offset + node.source.length
  // A quoted value may span lines; then it is the cause when the parser choked inside it or right
  // after it (a later quote closed it), unless on an escape of its own.
  const choked =
    node.source.includes('\n') &&
    errors.some(
      error => error.code !== 'BAD_DQ_ESCAPE' && error.pos[0] >= node.offset && error.pos[0] <= end
    )
  const unclosed = !closed.test(node.source)
  if (!unclosed && !choked) return undefined
  const quote = node.source[0] ?? '"'
  return {
    offset: node.offset,
    mismatched: false,
    cause: unclosed
      ? `the ${quote} that starts a quoted value here is never closed`
      : `the ${quote} that starts a quoted value here is closed only on line ${source.position(end).line}`,
    fix: `end the value with ${quote} on the same line`
  }
}

/** Misalignments, by the start of the parser's message (their codes are shared with other errors). */
const MISALIGNED: readonly (readonly [RegExp, string])[] = [
  [/^All sequence items/, 'the - of this list item is not lined up with the items above it'],
  [
    /^(All mapping items|Sequence item without)/,
    'this key is not lined up with the keys above it in the same mapping'
  ]
]

/** One error the parser reported, at the line and with the words its cause calls for. */
function explainError(error: YAMLError, source: Source): Explained {
  const at = source.position(error.pos[0])
  const lineText = source.lines[at.line - 1] ?? ''
  if (error.code === 'TAB_AS_INDENT') {
    return {
      line: at.line,
      column: 1,
      cause: 'this line is indented with a tab',
      fix: 'YAML indents with spaces only: replace the tab with spaces'
    }
  }
  if (error.code === 'DUPLICATE_KEY') return { ...at, ...duplicateKey(error, source) }
  if (error.code === 'BLOCK_AS_IMPLICIT_KEY' || error.code === 'MULTILINE_IMPLICIT_KEY') {
    return colonInValue(at, lineText, source)
  }
  const misaligned = MISALIGNED.find(([pattern]) => pattern.test(error.message))
  if (misaligned) {
    return {
      line: at.line,
      column: lineText.search(/\S|$/) + 1,
      cause: misaligned[1],
      fix: 'indent it exactly as they are'
    }
  }
  return { ...at, cause: firstSentence(error.message) }
}

/**
 * `title: Security: no secrets`: the second `: ` makes YAML read a mapping inside the value. A
 * value with no `: ` after the error's column is continued by the next line, indented deeper than
 * its key's siblings: that line is the cause.
 */
function colonInValue(at: Position, lineText: string, source: Source): Explained {
  const value = lineText.slice(at.column - 1)
  if (/:(\s|$)/.test(value)) {
    const quoted = `${lineText.slice(0, at.column - 1).trimStart()}${JSON.stringify(value.trim())}`
    return {
      ...at,
      cause: `the value ${JSON.stringify(value.trim())} contains ": ", which YAML reads as a key inside the value`,
      fix: `put the value in quotes: ${quoted}`
    }
  }
  const next = source.lines.findIndex((line, index) => index >= at.line && line.trim() !== '')
  const line = next === -1 ? at.line : next + 1
  return {
    line,
    column: (source.lines[line - 1] ?? '').search(/\S|$/) + 1,
    cause: `this line is indented deeper than the keys beside it, so YAML reads it as the rest of the value on line ${at.line}`,
    fix: 'indent it exactly as the keys beside it'
  }
}

function duplicateKey(error: YAMLError, source: Source): Pick<Explained, 'cause' | 'fix'> {
  let name = ''
  let firstLine: number | undefined
  visit(source.doc, {
    Map(_, map) {
      const index = map.items.findIndex(
        pair => isScalar(pair.key) && pair.key.range?.[0] === error.pos[0]
      )
      const pair = map.items[index]
      if (!pair || !isScalar(pair.key)) return undefined
      name = String(pair.key.value)
      const first = map.items.find(p => isScalar(p.key) && String(p.key.value) === name)
      const start = first && isScalar(first.key) ? first.key.range?.[0] : undefined
      if (start !== undefined) firstLine = source.position(start).line
      return visit.BREAK
    }
  })
  return {
    cause: `the key ${JSON.stringify(name)} is set twice in the same mapping${firstLine === undefined ? '' : ` (first on line ${firstLine})`}`,
    fix: 'keep one of them'
  }
}

/** A line of the file, quoted so that a tab or a trailing blank shows. */
function quoteLine(line: string): string {
  return JSON.stringify(line.length > 80 ? `${line.slice(0, 77)}...` : line)
}

/** yaml's messages end with " at line L, column C" and an excerpt; the position is reported apart. */
export function firstSentence(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '')
}
