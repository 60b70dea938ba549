/**
 * What a file's content is, decided from the content itself, never from its name or from
 * `.gitattributes`, which the pull request controls: a file that calls itself binary (a `-diff`
 * attribute, a NUL byte in a comment, a `.png` name) must not hide code from the judges.
 */

/** Share of a patch's characters that may be control or undecodable before it counts as binary. */
const BINARY_SHARE = 0.05

/**
 * How much of a patch's hunks is looked at, as git looks at a file's first 8,000 bytes: enough to
 * tell data from text, and a 6 MB diff is not read twice. Either mistake is safe: text taken for
 * binary is not sent and counts against coverage; binary taken for text is shown, controls as
 * symbols.
 */
const SNIFFED_CHARS = 8192

/** What `looksBinary` counts: controls but tab, line feed and carriage return; DEL; U+FFFD. */
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const ODD = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]/

/**
 * Whether a patch is mostly not text: more than 5% of its hunk lines' first characters are control
 * characters (other than tab and carriage return) or bytes that are not UTF-8. A source file with
 * a NUL byte in a comment is still text; compressed or compiled data is not.
 */
export function looksBinary(patch: string): boolean {
  const hunks = patch.indexOf('\n@@')
  if (hunks === -1) return false
  const end = Math.min(patch.length, hunks + 1 + SNIFFED_CHARS)
  // Most patches hold no such character at all: one regex scan of the sniffed part says so.
  if (!ODD.test(patch.slice(hunks + 1, end))) return false
  let odd = 0
  let total = 0
  for (let i = hunks + 1; i < end; i++) {
    const code = patch.charCodeAt(i)
    if (code === 0x0a) continue
    total++
    if ((code < 0x20 && code !== 0x09 && code !== 0x0d) || code === 0x7f || code === 0xfffd) odd++
  }
  return total > 0 && odd / total > BINARY_SHARE
}

/**
 * Whether a patch is text past its first line: the part of a file a media signature cannot speak
 * for. A format puts its signature and header in a file's first bytes, so a file that starts as
 * a GIF and goes on as JavaScript (`GIF89a`, a comment holding the rest of the picture, then
 * code) is text that can carry code, while a real picture is not text past its first line
 * either. False when nothing is past the first line.
 */
export function textPastFirstLine(patch: string): boolean {
  const hunks = patch.indexOf('\n@@')
  if (hunks === -1) return false
  // The hunk header's line, then the file's first line in the hunk.
  const header = patch.indexOf('\n', hunks + 1)
  const first = header === -1 ? -1 : patch.indexOf('\n', header + 1)
  if (first === -1) return false
  // Git's `\ No newline at end of file` notes are not the file's; `looksBinary` reads no more.
  const rest = patch
    .slice(first + 1, first + 1 + 2 * SNIFFED_CHARS)
    .replace(/^\\[^\n]*(?:\n|$)/gm, '')
  if (!/^[-+ ][^\n]/m.test(rest)) return false
  return !looksBinary(`${patch.slice(0, hunks)}\n@@\n${rest}`)
}

/**
 * Media and data formats recognised by their first bytes: pictures, fonts, sound, video, PDF and
 * two database formats. What they hold is not code, so they are listed but not sent, and do not
 * count against coverage, when the file is binary and not text past its first line either (see
 * `textPastFirstLine`). Archives and executables are not here: they can carry code.
 */
const SIGNATURES: readonly {
  readonly format: string
  readonly at?: number
  readonly bytes: string
}[] = [
  { format: 'PNG image', bytes: '\x89PNG\r\n\x1a\n' },
  { format: 'JPEG image', bytes: '\xff\xd8\xff' },
  { format: 'GIF image', bytes: 'GIF87a' },
  { format: 'GIF image', bytes: 'GIF89a' },
  { format: 'WebP image', at: 8, bytes: 'WEBP' },
  { format: 'TIFF image', bytes: 'II*\x00' },
  { format: 'TIFF image', bytes: 'MM\x00*' },
  { format: 'icon', bytes: '\x00\x00\x01\x00' },
  { format: 'BMP image', bytes: 'BM' },
  { format: 'PDF document', bytes: '%PDF-' },
  { format: 'WOFF font', bytes: 'wOFF' },
  { format: 'WOFF2 font', bytes: 'wOF2' },
  { format: 'OpenType font', bytes: 'OTTO' },
  { format: 'TrueType font', bytes: '\x00\x01\x00\x00' },
  { format: 'MP3 audio', bytes: 'ID3' },
  { format: 'Ogg media', bytes: 'OggS' },
  { format: 'FLAC audio', bytes: 'fLaC' },
  { format: 'WAV audio', at: 8, bytes: 'WAVE' },
  { format: 'Matroska or WebM video', bytes: '\x1a\x45\xdf\xa3' },
  { format: 'MP4, MOV, AVIF or HEIC media', at: 4, bytes: 'ftyp' },
  { format: 'SQLite database', bytes: 'SQLite format 3\x00' },
  { format: 'Parquet data', bytes: 'PAR1' }
]

/** The first bytes any signature needs. */
export const SIGNATURE_BYTES = 16

/** The media or data format `head` (a file's first bytes) starts with, if any. */
export function mediaFormat(head: Uint8Array): string | undefined {
  return SIGNATURES.find(({ at = 0, bytes }) => {
    if (head.length < at + bytes.length) return false
    for (let i = 0; i < bytes.length; i++) if (head[at + i] !== bytes.charCodeAt(i)) return false
    return true
  })?.format
}

/**
 * Control characters made visible (U+2400 Control Pictures: NUL shows as ␀), so the judges see
 * text that contains them as what it is; tab, line feed and carriage return stay as they are.
 */
export function showControls(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this finds
  return text.replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, c =>
    String.fromCharCode(c === '\x7f' ? 0x2421 : 0x2400 + c.charCodeAt(0))
  )
}

/** Characters that end or reorder a line when shown, beyond the ASCII controls. */
const INVISIBLE = '\u0085\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff'
const NAME_ESCAPES = new RegExp(`[\\x00-\\x1f\\x7f-\\x9f${INVISIBLE}]`, 'gu')
const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/**
 * A file name as one line of plain text: control, line-separator, zero-width and bidirectional
 * characters escaped (`\n`, `\x01`, `\u202e`), so a name cannot start a line of its own or
 * show as something else. Git allows all of them in a name.
 */
export function escapeName(name: string): string {
  return name.replace(NAME_ESCAPES, c => {
    const code = c.charCodeAt(0)
    return SHORT[c] ?? (code < 0x100 ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`)
  })
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0')
}
