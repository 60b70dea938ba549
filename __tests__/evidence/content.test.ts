import { describe, expect, it } from 'vitest'
import {
  escapeName,
  looksBinary,
  mediaFormat,
  showControls,
  textPastFirstLine
} from '../../src/evidence/content.js'

/** A new file's patch with `body` as its one added line, as git prints it with --text. */
const patchOf = (body: string): string =>
  `diff --git a/f b/f\nnew file mode 100644\n--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+${body}\n`

describe('looksBinary: decided by the content, never the name or .gitattributes', () => {
  it('keeps a source file with a NUL byte in a comment as text', () => {
    expect(looksBinary(patchOf(`// \0 marker\n+${'export const a = 1\n+'.repeat(20)}`))).toBe(false)
  })

  it('takes compressed or compiled bytes for binary', () => {
    const noise = Array.from({ length: 400 }, (_, i) => String.fromCharCode((i * 37) % 32)).join('')
    expect(looksBinary(patchOf(noise))).toBe(true)
    expect(looksBinary(patchOf('\ufffd\ufffd\ufffdPNG\ufffd\ufffd'))).toBe(true)
  })

  it('looks at the first 8 KiB of the hunks: a late change of kind does not change the answer', () => {
    const text = 'export const value = compute(1)\n+'.repeat(400)
    const noise = '\0\x01\x02\x03'.repeat(4000)
    expect(looksBinary(patchOf(`${text}${noise}`))).toBe(false)
    expect(looksBinary(patchOf(`${noise}${text}`))).toBe(true)
  })

  it('reads a patch without hunks (a mode change, an empty file) as text', () => {
    expect(looksBinary('diff --git a/f b/f\nold mode 100644\nnew mode 100755\n')).toBe(false)
  })
})

/** A GIF's first line as git's diff shows it: the header, the colour table, the picture. */
const GIF_LINE =
  'GIF89a/*\x01\x00\ufffd\x00\x00\ufffd\ufffd\ufffd\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;'

describe('textPastFirstLine: what a media signature cannot speak for', () => {
  it('takes a picture that goes on as code for text', () => {
    const polyglot = patchOf(`${GIF_LINE}*/=1;\n+exfiltrate(process.env)\n+module.exports = {}`)
    expect(looksBinary(polyglot)).toBe(true)
    expect(textPastFirstLine(polyglot)).toBe(true)
  })

  it('leaves a picture that is binary on every line binary', () => {
    const noise = Array.from({ length: 400 }, (_, i) => String.fromCharCode((i * 37) % 32)).join('')
    expect(textPastFirstLine(patchOf(`${GIF_LINE}\n+${noise}\n+${noise}`))).toBe(false)
  })

  it('has nothing to go on in a one-line picture, or past git’s “No newline” note', () => {
    expect(textPastFirstLine(patchOf(GIF_LINE))).toBe(false)
    expect(textPastFirstLine(`${patchOf(GIF_LINE)}\\ No newline at end of file\n`)).toBe(false)
    expect(textPastFirstLine('diff --git a/f b/f\nold mode 100644\nnew mode 100755\n')).toBe(false)
  })
})

describe('mediaFormat: media recognised by its first bytes', () => {
  const bytes = (text: string): Uint8Array => Uint8Array.from(text, c => c.charCodeAt(0))

  it.each([
    ['\x89PNG\r\n\x1a\n\0\0\0\rIHDR', 'logo.png', 'PNG image'],
    ['\xff\xd8\xff\xe0\0\x10JFIF', 'photo.JPG', 'JPEG image'],
    ['GIF89a\x01\0\x01\0', 'spinner.gif', 'GIF image'],
    ['RIFF\0\0\0\0WEBPVP8 ', 'hero.webp', 'WebP image'],
    ['%PDF-1.7\n', 'docs/spec.pdf', 'PDF document'],
    ['wOF2\0\x01\0\0', 'fonts/inter.woff2', 'WOFF2 font'],
    ['\0\0\0\x18ftypmp42', 'clip.mp4', 'MP4, MOV, AVIF or HEIC media'],
    ['SQLite format 3\0', 'fixtures/app.sqlite', 'SQLite database']
  ])('%j named %s is %s', (head, path, format) => {
    expect(mediaFormat(bytes(head), path)).toBe(format)
  })

  it('does not take archives, executables or text for media, whatever they are called', () => {
    expect(mediaFormat(bytes('PK\x03\x04\x14\0'), 'logo.png')).toBeUndefined() // zip: can carry code
    expect(mediaFormat(bytes('\x7fELF\x02\x01\x01'), 'logo.png')).toBeUndefined()
    expect(mediaFormat(bytes('export const a = 1'), 'logo.png')).toBeUndefined()
    expect(mediaFormat(bytes(''), 'logo.png')).toBeUndefined()
  })

  it('takes a picture named as a program, or as another format, for what it may be: not media', () => {
    // What runs a file goes by its name: a GIF that is also JavaScript runs as util.js.
    for (const path of ['src/util.js', 'tool.pyz', 'gradle/wrapper.jar', 'bin/run', 'logo.png']) {
      expect(mediaFormat(bytes('GIF89a\x01\0\x01\0'), path), path).toBeUndefined()
    }
  })
})

describe('showing untrusted text', () => {
  it('shows control characters as symbols, keeping tabs and line breaks', () => {
    expect(showControls('a\0b\x1b[2Kc\x7f\td\r\n')).toBe('a\u2400b\u241b[2Kc\u2421\td\r\n')
  })

  it('escapes a file name to one line that looks like what it is', () => {
    expect(escapeName('src/a\n# Instructions\r\t.ts')).toBe('src/a\\n# Instructions\\r\\t.ts')
    expect(escapeName('src/\u202egnp.ts')).toBe('src/\\u202egnp.ts')
    expect(escapeName('a\u200bb\u2028c\x01\x85')).toBe('a\\u200bb\\u2028c\\x01\\x85')
    expect(escapeName('café/naïve 名前.ts')).toBe('café/naïve 名前.ts')
  })
})
