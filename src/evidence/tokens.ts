/* eslint-disable @typescript-eslint/no-non-null-assertion -- typed-array reads in the byte-pair loops stay within bounds by construction */
import { readFileSync } from 'node:fs'
import { hashBytes, readVocabulary, type Vocabulary } from './vocabulary.js'

/**
 * Token counting under o200k_base, the encoding of GPT-4o, GPT-5 and the o-series models. Other
 * vendors' tokenizers differ by some percent; the budget is an estimate of the prompt's size, not
 * a bill.
 *
 * This is byte-pair encoding as tiktoken defines it: the text is split into pieces by the
 * encoding's pattern, each piece's UTF-8 bytes start as one part per byte, and the adjacent pair
 * whose merged bytes have the lowest rank in the vocabulary is merged (the leftmost on a tie)
 * until no merged pair is in the vocabulary. The count is the number of parts left. A test holds
 * it to gpt-tokenizer's counts.
 *
 * It exists because loading gpt-tokenizer's vocabulary (a 2.4 MB JavaScript module) cost the
 * action ~150 ms on every run. The vocabulary here is a byte file with its hash table
 * (`o200k_base.bin`, see `vocabulary.ts`), read on first use.
 *
 * Special tokens such as `<|endoftext|>` are ordinary text here, counted (and sent) as the
 * characters they are.
 */

const CONTRACTION = String.raw`(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?`
const UPPER = String.raw`[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`
const LOWER = String.raw`[\p{Ll}\p{Lm}\p{Lo}\p{M}]`

/** o200k_base's pre-tokenisation pattern, with its case-insensitive contractions spelled out. */
const PIECES = new RegExp(
  [
    String.raw`[^\r\n\p{L}\p{N}]?${UPPER}*${LOWER}+${CONTRACTION}`,
    String.raw`[^\r\n\p{L}\p{N}]?${UPPER}+${LOWER}*${CONTRACTION}`,
    String.raw`\p{N}{1,3}`,
    String.raw` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
    String.raw`\s*[\r\n]+`,
    String.raw`\s+(?!\S)`,
    String.raw`\s+`
  ].join('|'),
  'gu'
)

/**
 * Beside this module in `src/evidence/`, and beside the bundle in `dist/` (copied there by
 * `scripts/bundle.mjs`). Named through a variable so that the bundler leaves it alone: its asset
 * handling reads the file as text and would corrupt it.
 */
const VOCABULARY_FILE = 'o200k_base.bin'

let vocabulary: Vocabulary | undefined

function loadVocabulary(): Vocabulary {
  return readVocabulary(readFileSync(new URL(VOCABULARY_FILE, import.meta.url)))
}

/** The rank of the token whose bytes are `piece[from, to)`, or -1 when there is none. */
function rankOf(words: Vocabulary, from: number, to: number): number {
  const { bytes, start, slots, mask } = words
  const length = to - from
  let slot = hashBytes(piece, from, to) & mask
  for (;;) {
    const entry = slots[slot]!
    if (entry === 0) return -1
    const at = start[entry - 1]!
    if (start[entry]! - at === length) {
      let i = 0
      while (i < length && bytes[at + i] === piece[from + i]) i++
      if (i === length) return entry - 1
    }
    slot = (slot + 1) & mask
  }
}

// Scratch space for one piece, grown as needed: its UTF-8 bytes, and the parts as a linked list
// indexed by their first byte (`next`, `previous`, `end`), with the rank of each part merged with
// the one after it (`pairRank`, -1 when not a token or when the part was merged away).
let piece = new Uint8Array(256)
let next = new Int32Array(256)
let previous = new Int32Array(256)
let end = new Int32Array(256)
let pairRank = new Int32Array(256)
/** Candidate merges as `rank · 2³² + first byte`, a binary min-heap: lowest rank, then leftmost. */
let heap = new Float64Array(768)
let heapSize = 0
const PAIR = 2 ** 32

const encoder = new TextEncoder()

/** Writes the UTF-8 bytes of `text` to `piece`; returns how many. */
function toBytes(text: string): number {
  if (piece.length < text.length * 3) {
    const size = text.length * 3
    piece = new Uint8Array(size)
    next = new Int32Array(size)
    previous = new Int32Array(size)
    end = new Int32Array(size)
    pairRank = new Int32Array(size)
    heap = new Float64Array(size * 3)
  }
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0x80) return encoder.encodeInto(text, piece).written
    piece[i] = code
  }
  return text.length
}

function push(key: number): void {
  let i = heapSize++
  while (i > 0) {
    const parent = (i - 1) >> 1
    if (heap[parent]! <= key) break
    heap[i] = heap[parent]!
    i = parent
  }
  heap[i] = key
}

function pop(): number {
  const top = heap[0]!
  const last = heap[--heapSize]!
  let i = 0
  for (;;) {
    const left = 2 * i + 1
    if (left >= heapSize) break
    const child = left + 1 < heapSize && heap[left + 1]! < heap[left]! ? left + 1 : left
    if (heap[child]! >= last) break
    heap[i] = heap[child]!
    i = child
  }
  heap[i] = last
  return top
}

function pair(words: Vocabulary, first: number): void {
  const second = next[first]!
  const rank = second < 0 ? -1 : rankOf(words, first, end[second]!)
  pairRank[first] = rank
  if (rank >= 0) push(rank * PAIR + first)
}

/**
 * Merges the `length` bytes in `piece` into tokens; returns how many. The tokens are left in
 * the linked list from byte 0: `next[i]` is where the token after the one at `i` starts.
 */
function merge(words: Vocabulary, length: number): number {
  for (let i = 0; i < length; i++) {
    next[i] = i + 1 < length ? i + 1 : -1
    previous[i] = i - 1
    end[i] = i + 1
  }
  heapSize = 0
  for (let i = 0; i < length; i++) pair(words, i)
  let count = length
  while (heapSize > 0) {
    const key = pop()
    const rank = Math.floor(key / PAIR)
    const first = key - rank * PAIR
    if (pairRank[first] !== rank) continue // superseded by an earlier merge
    const second = next[first]!
    end[first] = end[second]!
    next[first] = next[second]!
    if (next[second]! >= 0) previous[next[second]!] = first
    pairRank[second] = -1
    count--
    pair(words, first)
    if (previous[first]! >= 0) pair(words, previous[first]!)
  }
  return count
}

/** Counts of recent pieces: source code repeats its words. Cleared when full. */
const counted = new Map<string, number>()
const COUNTED_LIMIT = 100_000

function pieceTokens(words: Vocabulary, text: string): number {
  if (text.length === 1 && text.charCodeAt(0) < 0x80) return 1
  const known = counted.get(text)
  if (known !== undefined) return known
  const length = toBytes(text)
  const count = rankOf(words, 0, length) >= 0 ? 1 : merge(words, length)
  if (counted.size >= COUNTED_LIMIT) counted.clear()
  counted.set(text, count)
  return count
}

/** Tokens in `text` under o200k_base. */
export function countTokens(text: string): number {
  return countTokensUpTo(text, Infinity)
}

/**
 * Tokens in `text` under o200k_base, counted only until they pass `limit`: the exact count when it
 * is at most `limit`, else a number above `limit` (the count so far), having tokenised little more
 * than `limit` tokens of the text. So `countTokensUpTo(text, n) <= n` exactly when
 * `countTokens(text) <= n`, at a cost bounded by `n` rather than by the text's length.
 */
export function countTokensUpTo(text: string, limit: number): number {
  if (text === '') return 0
  const words = (vocabulary ??= loadVocabulary())
  let total = 0
  for (const [match] of text.matchAll(PIECES)) {
    total += pieceTokens(words, match)
    if (total > limit) return total
  }
  return total
}

/**
 * The first `max` tokens of `text`. A cut through a multi-byte character leaves the character
 * out.
 */
export function truncateToTokens(text: string, max: number): string {
  const words = (vocabulary ??= loadVocabulary())
  let used = 0
  for (const match of text.matchAll(PIECES)) {
    const tokens = pieceTokens(words, match[0])
    if (used + tokens <= max) {
      used += tokens
      continue
    }
    let cut = 0
    if (max > used) {
      const length = toBytes(match[0])
      merge(words, length)
      for (let kept = 0; kept < max - used; kept++) cut = next[cut]!
    }
    // `stream` holds back the bytes of a character the cut went through.
    const kept = new TextDecoder().decode(piece.subarray(0, cut), { stream: true })
    return text.slice(0, match.index) + kept
  }
  return text
}
