/**
 * Invisible characters someone could use to show the judges what a reviewer does not see:
 * zero-width characters (U+200B, U+200C, U+2060, U+FEFF), bidi controls and marks (U+202A–U+202E,
 * U+2066–U+2069, U+200E, U+200F, U+061C), the invisible math operators (U+2061–U+2064), the soft
 * hyphen, and Unicode tag characters (U+E0000–U+E007F), which spell out hidden ASCII.
 */
const INVISIBLE =
  /[\u200B\u200C\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u00AD\u061C\u{E0000}-\u{E007F}]/gu

/**
 * The zero-width joiner (U+200D) too, except between two emoji, where it is what makes 👩‍💻 one
 * picture (after a skin tone or the emoji presentation selector as well).
 */
const STRAY_JOINER =
  /(?<!\p{Extended_Pictographic}(?:\u{FE0F}|\p{Emoji_Modifier})?)\u200D|\u200D(?!\p{Extended_Pictographic})/gu

/**
 * HTML comments, which GitHub does not render. An unterminated `<!--` hides the rest of the text
 * on GitHub, so it is removed to the end here too.
 */
const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/g

/**
 * The PR title or body without what a reviewer does not see, line breaks normalised to `\n`.
 * Invisible characters go first, so that `<!\u200B--` cannot dodge the comment rule (at worst a
 * visible fragment is dropped, never a hidden one kept). Untrusted input: anything that is not a
 * string becomes '' rather than an error.
 */
export function stripHidden(text: string | null | undefined): string {
  if (typeof text !== 'string') return ''
  return text
    .replace(/\r\n?/g, '\n')
    .replace(INVISIBLE, '')
    .replace(STRAY_JOINER, '')
    .replace(HTML_COMMENT, '')
}
