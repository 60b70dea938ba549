import { matching, type SecretPattern, type Span } from './secret-pattern.js'

/** Private keys: their bodies, however split over lines or strings, and key files' fields. */

/**
 * A key file's `private_key` value, up to its closing quote (escaped or not, as its opening one
 * was): the key whole, however it is split over lines. Not a placeholder (`"<key>"`, `"${KEY}"`).
 * A `"` or `\"` ends every attempt, so none reads past the next one's start.
 */
export const GCP_PRIVATE_KEY = matching(
  /\\?"private_key\\?"\s*:\s*\\?"(?<secret>(?![<${"\\])(?:[^"\\]|\\(?!"))+)\\?"/g
)
/** A key file's `private_key_id`: 40 hex digits that name the key and appear nowhere else. */
export const GCP_KEY_ID = matching(/\\?"private_key_id\\?"\s*:\s*\\?"(?<secret>[0-9a-f]{40})\\?"/g)

/**
 * The bodies of private keys, each from a match of `start`: read from the match's end (`after`: a
 * BEGIN line) or from its start (`at`: the body's own first characters). A body that was read is
 * not read again for a later start inside it, so the text is read once, whatever the number of
 * starts.
 */
export function keyBodies(start: RegExp, from: 'after' | 'at'): SecretPattern['spans'] {
  return text => {
    const spans: Span[] = []
    // A copy: `exec` keeps its place in `lastIndex`.
    const starts = new RegExp(start)
    for (let match = starts.exec(text); match !== null; match = starts.exec(text)) {
      const body =
        from === 'after'
          ? keyBody(text, match.index + match[0].length, true)
          : keyBody(text, match.index, false)
      if (body === undefined) continue
      spans.push(body)
      starts.lastIndex = Math.max(starts.lastIndex, body.end)
    }
    return spans
  }
}

/** Base64, with its padding. */
const BASE64_WORD = /[A-Za-z0-9+/]*=*/y
/**
 * What stands between the words of a key's body as files and code hold it: white space and line
 * breaks, quotes, commas, a `+` joining strings, and `\n` written in a string (or a `\` that ends
 * a shell line). Nothing else: a key has no code in it.
 */
const KEY_SEPARATORS = /(?:[ \t\r\n'"`,]|\\[nrt]?|\+(?![A-Za-z0-9+/]))*/y
/**
 * What follows a key's last, short line: the key's end (its END line, PuTTY's MAC, the end of the
 * text) or, where a diff replaces a key with another, the next key's first line.
 */
const KEY_AFTER_LAST = new RegExp(
  String.raw`${KEY_SEPARATORS.source}(?:-----|Private-MAC:|$|[A-Za-z0-9+/]{16})`,
  'y'
)
/** An encrypted PEM key's headers, between its BEGIN line and its body: not secret. */
const PEM_HEADER = /(?:Proc-Type|DEK-Info):[ \t]*[A-Za-z0-9,-]*/y
/** A key's lines are 64 or 76 characters but its last; an identifier is rarely 16. */
const KEY_LINE = 16

/** Where a sticky `pattern` matching at `at` ends; `at` when it does not match there. */
function matchEnd(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at
  return pattern.test(text) ? pattern.lastIndex : at
}

/** Whether the sticky `pattern` matches at `at`. */
function matchesAt(pattern: RegExp, text: string, at: number): boolean {
  pattern.lastIndex = at
  return pattern.test(text)
}

/**
 * The span of a key's body read from `at`: base64 words, each long as a key's line is, with only
 * `KEY_SEPARATORS` between them, and a shorter word (a key's last line) where `KEY_AFTER_LAST`
 * follows it. It ends at the first thing that is not such a word, so code on the BEGIN or END
 * line, or written between them, stays for the judges to read: a fake key hides no code but
 * base64 words of 16 characters or more (a long identifier at worst), and a short word before one.
 */
function keyBody(text: string, at: number, afterBegin: boolean): Span | undefined {
  let start: number | undefined
  let end = at
  let next = at
  for (;;) {
    next = matchEnd(KEY_SEPARATORS, text, next)
    const header = afterBegin && start === undefined ? matchEnd(PEM_HEADER, text, next) : next
    if (header > next) {
      next = header
      continue
    }
    const wordEnd = matchEnd(BASE64_WORD, text, next)
    const short = wordEnd - next < KEY_LINE
    if (wordEnd === next || (short && !matchesAt(KEY_AFTER_LAST, text, wordEnd))) break
    start ??= next
    end = wordEnd
    next = wordEnd
  }
  return start === undefined ? undefined : { start, end }
}
