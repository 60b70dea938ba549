/**
 * Fitting a document into a length budget: in characters (GitHub comments stop at 65,536) or in
 * UTF-8 bytes (a job summary stops at 1 MiB).
 *
 * A document is fixed text, elastic texts that may be shortened (reasonings, logs), and blocks that
 * may be dropped (a criterion's details). To fit, every elastic text is capped at one common
 * length L — so the longest are shortened first — with L as large as the budget allows. Where that
 * would cut them below a useful length, blocks are dropped instead, least important first, each
 * leaving its `stub` (a criterion's line with its verdict, which is never dropped), and each section
 * says how many it lost. Every piece is well-formed on its own, so any selection of them is
 * well-formed too.
 */

export interface Elastic {
  /** The text in its final form (already escaped for where it goes). */
  readonly text: string
  /** Keep the start (prose) or the end (a log's tail) when shortened. */
  readonly keep: 'start' | 'end'
  /** Fixed text around it, e.g. a code fence. */
  readonly before: string
  readonly after: string
  /** What is said where text was cut, e.g. "… 1,234 characters cut". */
  readonly note: (cutCharacters: number) => string
  /** Never cut below this many characters (a reason must keep its words). Default 0. */
  readonly floor?: number
}

export type Piece = string | Elastic

export interface Block {
  readonly pieces: readonly Piece[]
  /** Lower is dropped first; among equals, the later block goes first. */
  readonly priority: number
  /** What stays in the block's place when it is dropped; it is never dropped itself. */
  readonly stub?: string
}

export interface Section {
  readonly open: readonly Piece[]
  readonly blocks: readonly Block[]
  readonly close: readonly Piece[]
  /** Said in place of the blocks that were dropped. */
  readonly omitted: (count: number) => string
}

export interface Doc {
  readonly head: readonly Piece[]
  readonly sections: readonly Section[]
  /** Added after the head whenever anything was shortened or dropped. */
  readonly shortenedNote: string
  /**
   * Used only if even the head and the stubs do not fit: cut to the budget at the end of a line
   * (a line cut in two could leave its emphasis open), so it should put what matters most first.
   */
  readonly fallback: string
}

export interface Fitted {
  readonly text: string
  readonly shortened: boolean
}

/** What a budget counts: UTF-16 code units (what GitHub calls characters), or UTF-8 bytes. */
export type BudgetUnit = 'characters' | 'bytes'

/** The size of a text in `unit`; a lone surrogate is written as U+FFFD, 3 bytes. */
export function sizeOf(text: string, unit: BudgetUnit): number {
  return unit === 'bytes' ? Buffer.byteLength(text, 'utf8') : text.length
}

export function fitToBudget(doc: Doc, budget: number, unit: BudgetUnit = 'characters'): Fitted {
  const size = (text: string): number => sizeOf(text, unit)
  const all = doc.sections.map(s => s.blocks.map(() => true))
  const full = render(doc, all, Infinity, false)
  if (size(full) <= budget) return { text: full, shortened: false }

  const layout = measured(doc, unit)
  const measure = (kept: readonly (readonly boolean[])[], cap: number): number =>
    measureDoc(layout, kept, cap)

  const droppable = doc.sections
    .flatMap((s, si) => s.blocks.map((b, bi) => ({ si, bi, priority: b.priority })))
    .sort((a, b) => a.priority - b.priority || b.si - a.si || b.bi - a.bi)
  /** Every block kept but the `count` least important. */
  const keepingAllBut = (count: number): boolean[][] => {
    const kept = doc.sections.map(s => s.blocks.map(() => true))
    for (const victim of droppable.slice(0, count)) {
      const section = kept[victim.si]
      if (section) section[victim.bi] = false
    }
    return kept
  }
  // Drop details before cutting texts down to stubs: a few useful lines beat many empty ones.
  // Dropping more never makes the document longer, so the fewest drops that fit are searched
  // for, not tried one by one (a report of thousands of files would be quadratic).
  let low = 0
  let high = droppable.length
  while (low < high) {
    const mid = Math.floor((low + high) / 2)
    if (measure(keepingAllBut(mid), USEFUL_LENGTH) <= budget) high = mid
    else low = mid + 1
  }
  const kept = keepingAllBut(low)
  if (measure(kept, 0) > budget) {
    return { text: truncateFallback(doc.fallback, budget, unit), shortened: true }
  }

  // The largest common cap that fits.
  let cap = 0
  let longest = longestElastic(doc)
  while (cap < longest) {
    const mid = Math.ceil((cap + longest) / 2)
    if (measure(kept, mid) <= budget) cap = mid
    else longest = mid - 1
  }
  const text = render(doc, kept, cap, true)
  // measure() is an upper bound of render(); this guards the guarantee against any slip.
  return {
    text: size(text) <= budget ? text : truncateFallback(doc.fallback, budget, unit),
    shortened: true
  }
}

function pieces(doc: Doc, kept: readonly (readonly boolean[])[], shortened: boolean): Piece[] {
  const out: Piece[] = [...doc.head]
  if (shortened) out.push(doc.shortenedNote)
  doc.sections.forEach((section, si) => {
    out.push(...section.open)
    let dropped = 0
    section.blocks.forEach((block, bi) => {
      if (kept[si]?.[bi]) out.push(...block.pieces)
      else {
        dropped++
        if (block.stub !== undefined) out.push(block.stub)
      }
    })
    if (dropped > 0) out.push(section.omitted(dropped))
    out.push(...section.close)
  })
  return out
}

/** The sizes of a list of pieces that do not depend on the cap, taken once per fit. */
interface Sized {
  /** Strings, and what surrounds each elastic text. */
  readonly fixed: number
  readonly elastics: readonly {
    readonly piece: Elastic
    /** The whole text's size. */
    readonly size: number
    /** The note for the largest possible cut, at least as long as the real one. */
    readonly note: number
  }[]
}

/** A document's pieces measured: `measureDoc` adds them up for any selection and cap. */
interface Layout {
  readonly unit: BudgetUnit
  readonly head: Sized
  readonly shortenedNote: number
  readonly sections: readonly {
    readonly open: Sized
    readonly close: Sized
    readonly blocks: readonly Sized[]
    /** The size of each block's stub (0 for none). */
    readonly stubs: readonly number[]
    readonly omitted: (count: number) => string
  }[]
}

function measured(doc: Doc, unit: BudgetUnit): Layout {
  const sized = (list: readonly Piece[]): Sized => {
    let fixed = 0
    const elastics: Sized['elastics'][number][] = []
    for (const piece of list) {
      if (typeof piece === 'string') {
        fixed += sizeOf(piece, unit)
        continue
      }
      fixed += sizeOf(piece.before, unit) + sizeOf(piece.after, unit)
      elastics.push({
        piece,
        size: sizeOf(piece.text, unit),
        note: sizeOf(piece.note(piece.text.length), unit)
      })
    }
    return { fixed, elastics }
  }
  return {
    unit,
    head: sized(doc.head),
    shortenedNote: sizeOf(doc.shortenedNote, unit),
    sections: doc.sections.map(section => ({
      open: sized(section.open),
      close: sized(section.close),
      blocks: section.blocks.map(block => sized(block.pieces)),
      stubs: section.blocks.map(block => sizeOf(block.stub ?? '', unit)),
      omitted: section.omitted
    }))
  }
}

/**
 * An upper bound of the rendered size, shortened (with the note that says so), of the blocks
 * `kept`, with every elastic text capped at `cap` characters.
 */
function measureDoc(layout: Layout, kept: readonly (readonly boolean[])[], cap: number): number {
  const { unit } = layout
  const at = (sized: Sized): number => {
    let length = sized.fixed
    for (const { piece, size, note } of sized.elastics) {
      const limit = capOf(piece, cap)
      if (piece.text.length <= limit) {
        length += size
        continue
      }
      // Characters are what is capped; in bytes, the part kept is measured as it will be cut.
      length +=
        note +
        (unit === 'characters'
          ? limit
          : sizeOf(
              piece.keep === 'start' ? safeHead(piece.text, limit) : safeTail(piece.text, limit),
              unit
            ))
    }
    return length
  }
  let length = at(layout.head) + layout.shortenedNote
  layout.sections.forEach((section, si) => {
    length += at(section.open) + at(section.close)
    let dropped = 0
    section.blocks.forEach((block, bi) => {
      if (kept[si]?.[bi]) length += at(block)
      else {
        dropped++
        length += section.stubs[bi] ?? 0
      }
    })
    if (dropped > 0) length += sizeOf(section.omitted(dropped), unit)
  })
  return length
}

function render(
  doc: Doc,
  kept: readonly (readonly boolean[])[],
  cap: number,
  shortened: boolean
): string {
  return pieces(doc, kept, shortened)
    .map(piece => (typeof piece === 'string' ? piece : renderElastic(piece, cap)))
    .join('')
}

function capOf(piece: Elastic, cap: number): number {
  return Math.max(cap, piece.floor ?? 0)
}

function renderElastic(piece: Elastic, cap: number): string {
  const { text, keep } = piece
  const limit = capOf(piece, cap)
  if (text.length <= limit) return piece.before + text + piece.after
  const kept = keep === 'start' ? safeHead(text, limit) : safeTail(text, limit)
  const note = piece.note(text.length - kept.length)
  return piece.before + (keep === 'end' ? note + kept : kept + note) + piece.after
}

function longestElastic(doc: Doc): number {
  let longest = 0
  const visit = (list: readonly Piece[]): void => {
    for (const p of list) if (typeof p !== 'string') longest = Math.max(longest, p.text.length)
  }
  visit(doc.head)
  for (const s of doc.sections) {
    visit(s.open)
    visit(s.close)
    for (const b of s.blocks) visit(b.pieces)
  }
  return longest
}

/**
 * The first `n` characters, never ending inside an HTML entity, a `<br>`, a backslash escape or a
 * surrogate pair, which would otherwise leak into the note that follows.
 */
export function safeHead(text: string, n: number): string {
  let end = Math.min(n, text.length)
  const amp = text.lastIndexOf('&', end - 1)
  if (amp !== -1 && end - amp < 10 && !text.slice(amp, end).includes(';')) end = amp
  // Escaped prose holds no `<` but those of `<br>`; look back no further than one of those.
  const lt = text.lastIndexOf('<', end - 1)
  if (lt !== -1 && end - lt < BR.length && !text.slice(lt, end).includes('>')) end = lt
  let slashes = 0
  while (end - slashes > 0 && text[end - 1 - slashes] === '\\') slashes++
  if (slashes % 2 === 1) end--
  if (end > 0 && isHighSurrogate(text.charCodeAt(end - 1))) end--
  return text.slice(0, end)
}

/** The last `n` characters, never starting inside an entity, a tag or a surrogate pair. */
export function safeTail(text: string, n: number): string {
  let start = Math.max(0, text.length - n)
  const semicolon = text.indexOf(';', start)
  const amp = text.lastIndexOf('&', start)
  if (amp !== -1 && semicolon !== -1 && amp < start && semicolon - amp < 10) start = semicolon + 1
  const lt = text.lastIndexOf('<', start - 1)
  const gt = text.indexOf('>', start)
  if (lt !== -1 && start - lt < BR.length && gt !== -1 && gt - lt < BR.length) start = gt + 1
  if (start < text.length && isLowSurrogate(text.charCodeAt(start))) start++
  return text.slice(start)
}

const BR = '<br>'

/** Texts are not cut below this while details can still be dropped instead. */
const USEFUL_LENGTH = 300

function truncateFallback(text: string, budget: number, unit: BudgetUnit): string {
  if (sizeOf(text, unit) <= budget) return text
  const head = unit === 'characters' ? safeHead(text, budget) : bytesHead(text, budget)
  const end = head.lastIndexOf('\n')
  return end === -1 ? head : head.slice(0, end + 1)
}

/** The longest head within `budget` UTF-8 bytes. */
function bytesHead(text: string, budget: number): string {
  // A character takes at least one byte, so no more than `budget` characters are ever needed.
  let low = 0
  let high = Math.min(text.length, budget)
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (sizeOf(safeHead(text, mid), 'bytes') <= budget) low = mid
    else high = mid - 1
  }
  return safeHead(text, low)
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}
