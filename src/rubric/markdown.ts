import type { RubricRule } from './errors.js'
import { own } from './own.js'
import { closest } from './similar.js'

/** A problem found in the body, before the file name is known to it. */
export interface LineProblem {
  readonly line: number
  readonly column?: number
  readonly rule: RubricRule
  readonly message: string
}

export interface BodyItem {
  readonly text: string
  readonly line: number
  readonly column: number
}

export type SectionKind = 'gates' | 'must' | 'nice' | 'notes'

export interface ParsedBody {
  readonly title?: string
  readonly preamble: string
  readonly items: Readonly<Record<Exclude<SectionKind, 'notes'>, readonly BodyItem[]>>
  readonly notes: string
  readonly problems: readonly LineProblem[]
}

/** Section headings as people write them, normalised by `normaliseHeading`. */
const SECTION_ALIASES: Readonly<Record<string, SectionKind>> = {
  gates: 'gates',
  criteria: 'must',
  'must have': 'must',
  'must haves': 'must',
  'nice to have': 'nice',
  'nice to haves': 'nice',
  notes: 'notes'
}

export const SECTION_HEADINGS: Readonly<Record<SectionKind, string>> = {
  gates: 'Gates',
  must: 'Criteria',
  nice: 'Nice to Have',
  notes: 'Notes'
}

const CANONICAL_HEADINGS = ['Gates', 'Criteria', 'Must Have', 'Nice to Have', 'Notes']

const FENCE = /^( {0,3})(`{3,}|~{3,})/
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/
const LIST_ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/
const CHECKBOX = /^\[[ xX]\][ \t]+/

function normaliseHeading(text: string): string {
  return text
    .replace(/[*_`]/g, '')
    .replace(/:\s*$/, '')
    .replace(/[\s-]+/g, ' ')
    .trim()
    .toLowerCase()
}

/** Replaces HTML comments with spaces, keeping every line and column where it was. */
function blankComments(text: string): { text: string; unterminatedAt?: number } {
  let out = ''
  let index = 0
  for (;;) {
    const start = text.indexOf('<!--', index)
    if (start === -1) return { text: out + text.slice(index) }
    const end = text.indexOf('-->', start + 4)
    out += text.slice(index, start)
    if (end === -1) {
      return {
        text: out + text.slice(start).replace(/[^\n]/g, ' '),
        unterminatedAt: start
      }
    }
    out += text.slice(start, end + 3).replace(/[^\n]/g, ' ')
    index = end + 3
  }
}

interface OpenItem {
  lines: string[]
  line: number
  column: number
  contentIndent: number
}

/**
 * Splits a rubric's Markdown body into its sections (docs/rubric.md). `firstLine` is the file line the
 * body starts on, so every problem points into the file the user edits.
 */
export function parseBody(body: string, firstLine: number): ParsedBody {
  const parser = new BodyParser()
  const blanked = blankComments(body)
  if (blanked.unterminatedAt !== undefined) {
    parser.problems.push({
      line: firstLine + countNewlines(body, blanked.unterminatedAt),
      rule: 'section-content',
      message: 'HTML comment "<!--" is never closed with "-->"'
    })
  }
  blanked.text.split('\n').forEach((raw, index) => {
    parser.line(raw, firstLine + index)
  })
  return parser.end()
}

type ListKind = Exclude<SectionKind, 'notes'>
/** What a fenced code block belongs to. */
type FenceOwner = 'item' | 'notes' | 'preamble' | 'none'

/** The body, read a line at a time: each line goes to the section, or the item, it is in. */
class BodyParser {
  readonly problems: LineProblem[] = []
  private readonly items: Record<ListKind, BodyItem[]> = { gates: [], must: [], nice: [] }
  private readonly notes: string[] = []
  private readonly preamble: string[] = []
  private title: string | undefined
  /** Where lines go: before any section, a known section, or an unknown one (already reported). */
  private section: SectionKind | 'preamble' | 'unknown' = 'preamble'
  private item: OpenItem | undefined
  private previousBlank = true
  private fence: { char: string; length: number } | undefined
  private fenceOwner: FenceOwner = 'none'

  line(raw: string, lineNo: number): void {
    const line = raw.replace(/\s+$/, '')
    if (this.fence) {
      this.insideFence(this.fence, raw, line)
      return
    }
    const fenceOpen = FENCE.exec(line)
    if (fenceOpen) {
      this.openFence(fenceOpen, raw, line, lineNo)
      this.previousBlank = false
      return
    }
    const heading = HEADING.exec(line)
    if (heading) {
      this.heading(heading, raw, lineNo)
      this.previousBlank = false
      return
    }
    const blank = line === ''
    switch (this.section) {
      case 'preamble':
        this.preamble.push(raw)
        break
      case 'notes':
        this.notes.push(raw)
        break
      case 'unknown':
        break
      case 'gates':
      case 'must':
      case 'nice':
        this.listLine(this.section, raw, line, lineNo, blank)
        break
    }
    this.previousBlank = blank
  }

  end(): ParsedBody {
    // An unclosed fence simply runs to the end of the body, as in CommonMark.
    this.closeItem()
    return {
      ...(this.title !== undefined && { title: this.title }),
      preamble: this.preamble.join('\n').trim(),
      items: this.items,
      notes: this.notes.join('\n').trim(),
      problems: this.problems
    }
  }

  private insideFence(fence: { char: string; length: number }, raw: string, line: string): void {
    const close = FENCE.exec(line)
    if (close?.[2]?.startsWith(fence.char) && close[2].length >= fence.length) {
      if (line.slice(close[0].length).trim() === '') this.fence = undefined
    }
    this.appendTo(this.fenceOwner, raw)
  }

  private openFence(match: RegExpExecArray, raw: string, line: string, lineNo: number): void {
    this.fence = { char: match[2]?.[0] ?? '`', length: match[2]?.length ?? 3 }
    this.fenceOwner = this.ownerOf(line)
    if (this.fenceOwner === 'none' && isListSection(this.section)) {
      this.closeItem()
      this.problems.push(strayText(this.section, lineNo, line, 'code block'))
    }
    this.appendTo(this.fenceOwner, raw)
  }

  private heading(match: RegExpExecArray, raw: string, lineNo: number): void {
    const level = match[1]?.length ?? 1
    const text = (match[2] ?? '').trim()
    if (level === 2) this.startSection(text, lineNo)
    else if (this.section === 'preamble' && level === 1 && this.title === undefined)
      this.title = text
    else if (this.section === 'notes') this.notes.push(raw)
    else if (this.section === 'preamble') this.preamble.push(raw)
    // A sub-heading inside a list section only groups its items.
    else this.closeItem()
  }

  private startSection(text: string, lineNo: number): void {
    this.closeItem()
    const kind = own(SECTION_ALIASES, normaliseHeading(text))
    if (kind) {
      this.section = kind
      return
    }
    this.section = 'unknown'
    const suggestion = closest(text, CANONICAL_HEADINGS)
    this.problems.push({
      line: lineNo,
      column: 1,
      rule: 'unknown-section',
      message:
        `unknown section "## ${text}"` +
        (suggestion ? `; did you mean "## ${suggestion}"?` : '') +
        ` (sections: ${CANONICAL_HEADINGS.map(h => `## ${h}`).join(', ')})`
    })
  }

  private closeItem(): void {
    if (this.item && isListSection(this.section)) {
      this.items[this.section].push({
        text: this.item.lines.join('\n').trim(),
        line: this.item.line,
        column: this.item.column
      })
    }
    this.item = undefined
  }

  private ownerOf(line: string): FenceOwner {
    if (this.section === 'notes') return 'notes'
    if (this.section === 'preamble') return 'preamble'
    if (this.section === 'unknown') return 'none'
    if (this.item && (leadingSpaces(line) >= 2 || !this.previousBlank)) return 'item'
    return 'none'
  }

  private appendTo(owner: FenceOwner, raw: string): void {
    if (owner === 'item' && this.item) this.item.lines.push(dedent(raw, this.item.contentIndent))
    else if (owner === 'notes') this.notes.push(raw)
    else if (owner === 'preamble') this.preamble.push(raw)
  }

  private listLine(
    kind: ListKind,
    raw: string,
    line: string,
    lineNo: number,
    blank: boolean
  ): void {
    if (blank) {
      if (this.item) this.item.lines.push('')
      return
    }
    const match = LIST_ITEM.exec(line)
    if (match && !(this.item && leadingSpaces(line) >= this.item.contentIndent)) {
      this.openItem(kind, match, raw, lineNo)
      return
    }
    if (this.item && (leadingSpaces(line) >= 2 || !this.previousBlank)) {
      this.item.lines.push(dedent(raw, this.item.contentIndent))
      return
    }
    this.closeItem()
    this.problems.push(strayText(kind, lineNo, line, 'text'))
  }

  private openItem(kind: ListKind, match: RegExpExecArray, raw: string, lineNo: number): void {
    this.closeItem()
    const marker = (match[1] ?? '') + (match[2] ?? '')
    const rest = match[3] ?? ''
    if (rest.trim() === '') {
      this.problems.push({
        line: lineNo,
        column: marker.length,
        rule: 'section-content',
        message: `empty list item in ## ${SECTION_HEADINGS[kind]}`
      })
      return
    }
    this.item = {
      lines: [rest.replace(CHECKBOX, '')],
      line: lineNo,
      column: marker.length + 2,
      contentIndent: raw.length - raw.trimStart().length + marker.length + 1
    }
  }
}

function isListSection(section: string): section is ListKind {
  return section === 'gates' || section === 'must' || section === 'nice'
}

function strayText(
  kind: ListKind,
  line: number,
  text: string,
  what: 'text' | 'code block'
): LineProblem {
  return {
    line,
    column: leadingSpaces(text) + 1,
    rule: 'section-content',
    message:
      `${what} outside a list item in ## ${SECTION_HEADINGS[kind]}: ` +
      (kind === 'gates'
        ? 'each gate is a list item holding a backticked command'
        : 'each criterion is a list item') +
      '; put prose in ## Notes'
  }
}

function leadingSpaces(line: string): number {
  return line.length - line.trimStart().length
}

function dedent(line: string, indent: number): string {
  return line.slice(Math.min(indent, leadingSpaces(line)))
}

function countNewlines(text: string, end: number): number {
  let count = 0
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10) count++
  return count
}
