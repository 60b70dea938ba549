/**
 * Text from judges, gates and the PR is untrusted: escaped so it can neither break the comment's
 * structure (`</details>`, fences, tables) nor ping people (`@user`), embed images, or link
 * anywhere (a bare URL, `www.`, `#12`, `org/repo#12`, `GH-12`, a commit id): a judge's answer is
 * text to read, never a link to follow or a cross-reference left on another issue.
 */

/** For element content such as `<summary>` (no attribute values are ever written). */
export function escapeHtml(text: string): string {
  const escaped = HTML_SPECIAL.test(text)
    ? text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    : text
  return LINKISH.test(escaped) ? defuseLinks(escaped) : escaped
}

/**
 * Where GitHub would see a link or a reference, a word joiner (U+2060, invisible) is put in its
 * way: between a URL's scheme and `//`, after `www`, after `#` or `GH-` before a number, and every
 * six characters of a run of hex digits (GitHub links 7 to 40 of them to a commit).
 */
function defuseLinks(text: string): string {
  return text
    .replace(/:\/\//g, `:${JOIN}//`)
    .replace(/\bwww\./gi, match => `${match.slice(0, 3)}${JOIN}.`)
    .replace(/(#|\bGH-)(?=\d)/gi, `$1${JOIN}`)
    .replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi, hex =>
      hex.replace(/.{6}(?=.)/g, `$&${JOIN}`)
    )
}

const JOIN = '\u2060'
const LINKISH = /:\/\/|\bwww\.|#\d|\bGH-\d|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/i

/**
 * The text of a `<summary>`: one line (a line break there could end the HTML block and start
 * Markdown, a heading of the attacker's right under the real one), HTML escaped, and no one
 * pinged (`@user`).
 */
export function escapeSummary(text: string): string {
  return defuseMentions(escapeHtml(text.replace(/\s+/g, ' ').trim()))
}

/** Inline Markdown: one paragraph, line breaks kept as `<br>`. */
export function escapeMarkdown(text: string): string {
  return escapeInline((text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text).trim())
}

/** Like `escapeMarkdown`, but the text is kept as it is at both ends: for a part of a line. */
export function escapeInline(text: string): string {
  // Most names and sentences hold none of these: one scan says so (a report may list thousands).
  if (!INLINE_SPECIAL.test(text) && !LINKISH.test(text)) return text
  const escaped = escapeHtml(text).replace(/[\\`*_[\]|~]/g, char => `\\${char}`)
  return defuseMentions(escaped).replace(/\n/g, '<br>')
}

/** `@user` with a zero-width joiner after the `@`: it reads the same and pings no one. */
function defuseMentions(text: string): string {
  return text.replace(/@(?=\w)/g, '@\u200d')
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

/**
 * An id the report states (a commit's, a rubric's hash) as inline code, left exactly as it is: it
 * is ours to show, to copy and to search for, unlike a hex run in a judge's text, and GitHub links
 * no commit id inside `<code>`. Anything that is not hex is escaped like any text.
 */
export function idCode(id: string): string {
  return /^[0-9a-f]+$/.test(id) ? `<code>${id}</code>` : code(id)
}

/** A commit's short id as inline code (`idCode`). */
export function commitCode(commit: string): string {
  return idCode(commit.slice(0, 7))
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
