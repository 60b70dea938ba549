/**
 * Token counts, estimated: what the evidence budget, the prompt's length and the PR text's cut are
 * measured in. The estimate follows o200k_base, the encoding of GPT-4o, GPT-5 and the o-series
 * models; other vendors' tokenizers differ from it by some percent anyway, so the budget is an
 * estimate of the prompt's size, not a bill.
 *
 * The text is split into pieces by o200k_base's own pattern (a piece is at least one token), and
 * each piece is priced by its characters: a lower-case word (capitalised or not) a token per four
 * letters; other runs of letters a token per one and a half capitals and per three other letters
 * (identifiers like `HTTPResponse`, and base64, which o200k cuts finely); up to three digits one
 * token; punctuation a token per two characters; a run of white space a token per 64. Outside
 * ASCII: half a token per two-byte character (Cyrillic, Greek, Arabic, Hebrew), a token per
 * Chinese, Japanese or Korean character, one and a half per other character of three bytes, three
 * per four-byte character (emoji); a control character one. Any piece costs at least one.
 *
 * Measured against o200k_base (gpt-tokenizer; `__tests__/evidence/tokens.test.ts` holds the
 * bounds, docs/council.md#evidence gives the figures): source code, diffs, Markdown, lockfiles and
 * minified JavaScript count about 1.0 to 1.6 times their tokens, text in other scripts 1.3 to 4.5
 * times, base64 at least 0.84 times, and random characters (no text a person writes) at least
 * 0.5 times. It replaced an exact byte-pair encoder whose 3.7 MB vocabulary every copy of the
 * bundle carried.
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

const isUpper = (code: number): boolean => code >= 65 && code <= 90
const isLetter = (code: number): boolean => isUpper(code) || (code >= 97 && code <= 122)
const isSpace = (code: number): boolean => code === 32 || (code >= 9 && code <= 13)
const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff

/** Chinese, Japanese and Korean characters, which o200k mostly takes one to a token or two. */
const isCommon = (code: number): boolean =>
  (code >= 0x3040 && code <= 0x30ff) || // kana
  (code >= 0x4e00 && code <= 0x9fff) || // CJK unified ideographs
  (code >= 0xac00 && code <= 0xd7a3) || // Hangul syllables
  (code >= 0x3000 && code <= 0x303f) || // CJK punctuation
  (code >= 0xff00 && code <= 0xffef) // full-width forms

/** One character (UTF-16 code unit) of a piece with a character outside printable ASCII. */
function unitTokens(code: number): number {
  if (code < 0x80) return code < 32 || code === 127 ? 1 : 0.3
  if (code < 0x800) return 0.5
  // Each half of a surrogate pair (a four-byte character) counts one and a half.
  return isCommon(code) ? 1 : 1.5
}

function unicodeTokens(text: string, from: number, to: number): number {
  let tokens = 0
  for (let i = from; i < to; i++) tokens += unitTokens(text.charCodeAt(i))
  return tokens
}

/** The estimated tokens of one of o200k_base's pieces of `text`, from `from` to `to`. */
function pieceTokens(text: string, from: number, to: number): number {
  const length = to - from
  const first = text.charCodeAt(from)
  if (length === 1) return 1
  let upper = 0
  let laterUpper = false
  let spaces = 0
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0x80 || code < 9 || (code > 13 && code < 32) || code === 127)
      return Math.max(1, unicodeTokens(text, from, to))
    if (isUpper(code)) {
      upper++
      if (i > from + 1 || (i === from + 1 && isLetter(first))) laterUpper = true
    }
    if (isSpace(code)) spaces++
  }
  if (spaces === length) return Math.ceil(length / 64)
  const start = isLetter(first) ? from : from + 1
  if (start < to && isLetter(text.charCodeAt(start))) {
    const letters = to - start
    if (!laterUpper) return Math.max(1, letters / 4)
    return Math.max(1, upper / 1.5 + (letters - upper) / 3)
  }
  if (first >= 48 && first <= 57) return 1
  return Math.max(1, length / 2)
}

/** Estimated tokens in `text`. */
export function countTokens(text: string): number {
  return countTokensUpTo(text, Infinity)
}

/**
 * Estimated tokens in `text`, counted only until they pass `limit`: the count when it is at most
 * `limit`, else a number above `limit` (the count so far), having read little more than `limit`
 * tokens of the text. So `countTokensUpTo(text, n) <= n` exactly when `countTokens(text) <= n`,
 * at a cost bounded by `n` rather than by the text's length.
 */
export function countTokensUpTo(text: string, limit: number): number {
  let total = 0
  for (const match of text.matchAll(PIECES)) {
    total += pieceTokens(text, match.index, match.index + match[0].length)
    if (total > limit) return Math.ceil(total)
  }
  return Math.ceil(total)
}

/**
 * The longest start of `text` whose estimate is at most `max` tokens. A piece is cut only when it
 * alone is longer than what is left, never through a surrogate pair.
 */
export function truncateToTokens(text: string, max: number): string {
  if (max <= 0) return ''
  let used = 0
  for (const match of text.matchAll(PIECES)) {
    const from = match.index
    const to = from + match[0].length
    const tokens = pieceTokens(text, from, to)
    if (used + tokens <= max) {
      used += tokens
      continue
    }
    // The longest start of this piece that fits, by bisection: a piece's estimate grows with it.
    let low = from
    let high = to - 1
    while (low < high) {
      const middle = Math.ceil((low + high) / 2)
      if (used + pieceTokens(text, from, middle) <= max) low = middle
      else high = middle - 1
    }
    if (low > from && isHighSurrogate(text.charCodeAt(low - 1))) low--
    // The cut text's last piece may split differently from the whole text's: counted again.
    let cut = text.slice(0, low)
    while (countTokens(cut) > max) {
      const end = cut.length - (isHighSurrogate(cut.charCodeAt(cut.length - 2)) ? 2 : 1)
      cut = cut.slice(0, end)
    }
    return cut
  }
  return text
}
