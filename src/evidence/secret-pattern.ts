/** How a secret pattern is written: where it looks, what it accepts, and the names it knows. */

/** What a file's name says about how to read it (see `isConfigFile`). */
export interface ScanContext {
  /** YAML, INI, shell and the like: an unquoted value there is a literal, not a variable. */
  readonly config: boolean
}

/** Where a secret is in the scanned text: `text.slice(start, end)`. */
export interface Span {
  readonly start: number
  readonly end: number
}

export interface SecretPattern {
  /** Named in the redaction and the coverage receipt. */
  readonly kind: string
  /** Where `text` holds this kind of secret. Linear in the text's length (see `PATTERNS`). */
  readonly spans: (text: string, context: ScanContext) => Span[]
}

/**
 * Every match `accept` (if any) agrees to. The secret is the match's `secret` group when it has
 * one, else the whole match: for `name = value` only the value goes, so a reviewer still reads
 * what was assigned. `pattern` has the `g` flag, for `matchAll`.
 */
export function matching(
  pattern: RegExp,
  accept?: (secret: string, match: RegExpExecArray, context: ScanContext) => boolean
): SecretPattern['spans'] {
  // The `d` flag gives the group's offsets. (matchAll works on a copy of the regex, so the
  // shared `g` patterns keep no state.)
  const indexed = new RegExp(pattern.source, `${pattern.flags}d`)
  return (text, context) => {
    const spans: Span[] = []
    // Every match, not just the first: the first may be a placeholder and a later one real.
    for (const match of text.matchAll(indexed)) {
      const [start, end] = match.indices?.groups?.secret ?? [
        match.index,
        match.index + match[0].length
      ]
      if (accept === undefined || accept(text.slice(start, end), match, context)) {
        spans.push({ start, end })
      }
    }
    return spans
  }
}

/**
 * The names a secret is assigned to: `password`, `DB_PASSWD`, `client_secret`, `authToken`,
 * `api-key`, `SECRET_KEY`, `private_key`. The name only has to end with one of them, so
 * `secretary` and `tokenizer` are not names of secrets, and `AWS_SECRET_ACCESS_KEY` is not either
 * (`SECRET_NAME` below covers it).
 */
export const NAME = String.raw`(?:password|passwd|secret|token|api[_-]?key|apikey|private[_-]?key)(?:[_-]?key)?`
/** Broader, for values that look random by themselves: any name ending in key, token, secret… */
export const SECRET_NAME = String.raw`(?:secret|token|key|key[_-]?base|password|passwd|credentials?)`
/** `=`, `:`, `:=` (Go), `=>` (PHP, Ruby), after an optional closing quote of the name. */
export const ASSIGN = String.raw`["']?[ \t]*(?::=|=>|[:=])[ \t]*`
