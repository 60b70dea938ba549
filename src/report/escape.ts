/**
 * Text from judges, gates and the PR is untrusted: escaped so it can neither break the comment's
 * structure (`</details>`, fences, tables) nor ping people (`@user`) or embed images.
 */

/** For element content such as `<summary>` (no attribute values are ever written). */
export function escapeHtml(text: string): string {
  if (!HTML_SPECIAL.test(text)) return text
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** Inline Markdown: one paragraph, line breaks kept as `<br>`. */
export function escapeMarkdown(text: string): string {
  return escapeInline((text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text).trim())
}

/** Like `escapeMarkdown`, but the text is kept as it is at both ends: for a part of a line. */
export function escapeInline(text: string): string {
  // Most names and sentences hold none of these: one scan says so (a report may list thousands).
  if (!INLINE_SPECIAL.test(text)) return text
  return escapeHtml(text)
    .replace(/[\\`*_[\]|~]/g, char => `\\${char}`)
    .replace(/@(?=\w)/g, '@\u200d')
    .replace(/\n/g, '<br>')
}

/** A table cell: like inline Markdown, on one line. */
export function escapeCell(text: string): string {
  return escapeMarkdown(text.includes('\n') ? text.replace(/\s*\n\s*/g, ' ') : text)
}

const HTML_SPECIAL = /[&<>]/
/** Every character `escapeInline` changes, or looks at (`@`). */
const INLINE_SPECIAL = /[&<>\\`*_[\]|~@\n]/

/**
 * Inline code that is safe anywhere, tables included: a Markdown code span would show escapes
 * literally, so this is an HTML `<code>` element around escaped text.
 */
export function code(text: string): string {
  return `<code>${escapeCell(text)}</code>`
}

/** A fence that no run of backticks inside `text` can close. */
export function fenceFor(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map(run => run.length))
  return '`'.repeat(Math.max(3, longest + 1))
}

/** Made on first use: creating it loads ICU's segmentation data (~7 ms). */
let graphemes: Intl.Segmenter | undefined

/** At most `n` characters (whole graphemes), with an ellipsis when shortened: for one-line labels. */
export function abbreviate(text: string, n: number): string {
  const line = text.replace(/\s+/g, ' ').trim()
  if (line.length <= n) return line // a grapheme is at least one UTF-16 code unit
  const parts = Array.from((graphemes ??= new Intl.Segmenter('en')).segment(line), s => s.segment)
  return parts.length <= n
    ? line
    : `${parts
        .slice(0, n - 1)
        .join('')
        .trimEnd()}…`
}
