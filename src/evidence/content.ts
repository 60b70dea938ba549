import { posix } from 'node:path'

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
 * Media and data formats recognised by their first bytes and named as such: pictures, fonts,
 * sound, video, PDF and two database formats. What they hold is not code, so they are listed but
 * not sent, and do not count against coverage, when the file is binary and not text past its first
 * line either (see `textPastFirstLine`). Archives and executables are not here: they can carry code.
 *
 * The name must agree with the bytes: a file can be a picture and a program at once (a GIF
 * header, a comment that holds the picture's bytes, then code, all on one line), and what runs it
 * goes by its name: `node util.js`, `python tool.pyz`. So `util.js` or `tool.pyz` that starts like
 * a GIF is binary content that counts against coverage, never media; only `logo.gif` is a GIF.
 *
 * One signature a line, as `file`'s magic lists them: the offset it starts at, its bytes in hex
 * (`474946383761` is `GIF87a`), the file name extensions it goes by, and the format it says.
 */
const SIGNATURE_TABLE = `
0 89504e470d0a1a0a                 png,apng                      PNG image
0 ffd8ff                           jpg,jpeg,jpe,jfif             JPEG image
0 474946383761                     gif                           GIF image
0 474946383961                     gif                           GIF image
8 57454250                         webp                          WebP image
0 49492a00                         tif,tiff                      TIFF image
0 4d4d002a                         tif,tiff                      TIFF image
0 00000100                         ico                           icon
0 424d                             bmp                           BMP image
0 255044462d                       pdf                           PDF document
0 774f4646                         woff                          WOFF font
0 774f4632                         woff2                         WOFF2 font
0 4f54544f                         otf                           OpenType font
0 00010000                         ttf                           TrueType font
0 494433                           mp3                           MP3 audio
0 4f676753                         ogg,oga,ogv,opus              Ogg media
0 664c6143                         flac                          FLAC audio
8 57415645                         wav                           WAV audio
0 1a45dfa3                         mkv,mka,webm                  Matroska or WebM video
4 66747970                         mp4,m4a,m4v,mov,avif,heic,heif MP4, MOV, AVIF or HEIC media
0 53514c69746520666f726d6174203300 sqlite,sqlite3,db             SQLite database
0 50415231                         parquet                       Parquet data
`

const SIGNATURES: readonly {
  readonly format: string
  readonly at: number
  readonly bytes: Buffer
  readonly extensions: readonly string[]
}[] = SIGNATURE_TABLE.trim()
  .split('\n')
  .map(line => {
    const [at = '0', hex = '', extensions = '', ...format] = line.split(/ +/)
    return {
      format: format.join(' '),
      at: Number(at),
      bytes: Buffer.from(hex, 'hex'),
      extensions: extensions.split(',')
    }
  })

/** The first bytes any signature needs. */
export const SIGNATURE_BYTES = 16

/**
 * The media or data format that `head` (a file's first bytes) starts with, if `path` is named as
 * that format is (`logo.GIF` too); undefined for any other file.
 */
export function mediaFormat(head: Uint8Array, path: string): string | undefined {
  const extension = posix.extname(path).slice(1).toLowerCase()
  return SIGNATURES.find(({ at, bytes, extensions }) => {
    if (!extensions.includes(extension) || head.length < at + bytes.length) return false
    return bytes.every((byte, i) => head[at + i] === byte)
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
