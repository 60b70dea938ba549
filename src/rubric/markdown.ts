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
  const problems: LineProblem[] = []
  const blanked = blankComments(body)
  if (blanked.unterminatedAt !== undefined) {
    problems.push({
      line: firstLine + countNewlines(body, blanked.unterminatedAt),
      rule: 'section-content',
      message: 'HTML comment "<!--" is never closed with "-->"'
    })
  }
  const lines = blanked.text.split('\n')

  const items: Record<Exclude<SectionKind, 'notes'>, BodyItem[]> = { gates: [], must: [], nice: [] }
  const notes: string[] = []
  const preamble: string[] = []
  let title: string | undefined

  // Where lines go: before any section, a known section, or an unknown one (already reported).
  let section: SectionKind | 'preamble' | 'unknown' = 'preamble'
  let item: OpenItem | undefined
  let previousBlank = true
  let fence: { char: string; length: number } | undefined
  let fenceOwner: 'item' | 'notes' | 'preamble' | 'none' = 'none'

  const closeItem = (): void => {
    if (item && section !== 'preamble' && section !== 'unknown' && section !== 'notes') {
      items[section].push({
        text: item.lines.join('\n').trim(),
        line: item.line,
        column: item.column
      })
    }
    item = undefined
  }

  lines.forEach((raw, index) => {
    const lineNo = firstLine + index
    const line = raw.replace(/\s+$/, '')
    const blank = line === ''

    if (fence) {
      const close = FENCE.exec(line)
      if (close?.[2]?.startsWith(fence.char) && close[2].length >= fence.length) {
        if (line.slice(close[0].length).trim() === '') fence = undefined
      }
      appendTo(fenceOwner, raw)
      return
    }

    const fenceOpen = FENCE.exec(line)
    if (fenceOpen) {
      fence = { char: fenceOpen[2]?.[0] ?? '`', length: fenceOpen[2]?.length ?? 3 }
      fenceOwner = ownerOf(line)
      if (fenceOwner === 'none' && isListSection(section)) {
        closeItem()
        problems.push(strayText(section, lineNo, line, 'code block'))
      }
      appendTo(fenceOwner, raw)
      previousBlank = false
      return
    }

    const heading = HEADING.exec(line)
    if (heading) {
      const level = heading[1]?.length ?? 1
      const text = (heading[2] ?? '').trim()
      if (level === 2) {
        closeItem()
        const kind = own(SECTION_ALIASES, normaliseHeading(text))
        if (kind) {
          section = kind
        } else {
          section = 'unknown'
          const suggestion = closest(text, CANONICAL_HEADINGS)
          problems.push({
            line: lineNo,
            column: 1,
            rule: 'unknown-section',
            message:
              `unknown section "## ${text}"` +
              (suggestion ? `; did you mean "## ${suggestion}"?` : '') +
              ` (sections: ${CANONICAL_HEADINGS.map(h => `## ${h}`).join(', ')})`
          })
        }
      } else if (section === 'preamble' && level === 1 && title === undefined) {
        title = text
      } else if (section === 'notes' || section === 'preamble') {
        ;(section === 'notes' ? notes : preamble).push(raw)
      } else {
        // A sub-heading inside a list section only groups its items.
        closeItem()
      }
      previousBlank = false
      return
    }

    switch (section) {
      case 'preamble':
        preamble.push(raw)
        break
      case 'notes':
        notes.push(raw)
        break
      case 'unknown':
        break
      case 'gates':
      case 'must':
      case 'nice':
        listLine(section, raw, line, lineNo, blank)
        break
    }
    previousBlank = blank
  })
  // An unclosed fence simply runs to the end of the body, as in CommonMark.
  closeItem()

  return {
    ...(title !== undefined && { title }),
    preamble: preamble.join('\n').trim(),
    items,
    notes: notes.join('\n').trim(),
    problems
  }

  function ownerOf(line: string): 'item' | 'notes' | 'preamble' | 'none' {
    if (section === 'notes') return 'notes'
    if (section === 'preamble') return 'preamble'
    if (section === 'unknown') return 'none'
    if (item && (leadingSpaces(line) >= 2 || !previousBlank)) return 'item'
    return 'none'
  }

  function appendTo(owner: 'item' | 'notes' | 'preamble' | 'none', raw: string): void {
    if (owner === 'item' && item) item.lines.push(dedent(raw, item.contentIndent))
    else if (owner === 'notes') notes.push(raw)
    else if (owner === 'preamble') preamble.push(raw)
  }

  function listLine(
    kind: Exclude<SectionKind, 'notes'>,
    raw: string,
    line: string,
    lineNo: number,
    blank: boolean
  ): void {
    if (blank) {
      if (item) item.lines.push('')
      return
    }
    const match = LIST_ITEM.exec(line)
    if (match && !(item && leadingSpaces(line) >= item.contentIndent)) {
      closeItem()
      const marker = (match[1] ?? '') + (match[2] ?? '')
      const rest = match[3] ?? ''
      const contentIndent = raw.length - raw.trimStart().length + marker.length + 1
      if (rest.trim() === '') {
        problems.push({
          line: lineNo,
          column: marker.length,
          rule: 'section-content',
          message: `empty list item in ## ${SECTION_HEADINGS[kind]}`
        })
        return
      }
      item = {
        lines: [rest.replace(CHECKBOX, '')],
        line: lineNo,
        column: marker.length + 2,
        contentIndent
      }
      return
    }
    if (item && (leadingSpaces(line) >= 2 || !previousBlank)) {
      item.lines.push(dedent(raw, item.contentIndent))
      return
    }
    closeItem()
    problems.push(strayText(kind, lineNo, line, 'text'))
  }
}

function isListSection(section: string): section is Exclude<SectionKind, 'notes'> {
  return section === 'gates' || section === 'must' || section === 'nice'
}

function strayText(
  kind: Exclude<SectionKind, 'notes'>,
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
