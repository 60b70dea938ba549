import { looksBinary } from './content.js'
import { isLfsPointer } from './lfs-pointer.js'
import type { ChangedFile, FileStatus } from './types.js'

const FILE_HEADER = 'diff --git '
const DEV_NULL = '/dev/null'

/**
 * Splits `git diff` output (`--no-color --no-ext-diff --find-renames`, default `a/` `b/`
 * prefixes) into one entry per file; text before the first `diff --git` line is ignored.
 * It parses the output a piece at a time, so that the whole output is never one string: a
 * file's section is parsed once the next one starts. Each section runs from its `diff --git` line
 * to the next one; hunk lines always start with one of ` +-\`, so a line starting with
 * `diff --git ` can only be a file header. Lines are split on LF alone: a CR inside a changed line
 * is content, not a line break. Pushing the text in pieces gives what pushing it whole gives.
 */
export class DiffParser {
  private readonly files: ChangedFile[] = []
  /** The current file's section so far, in the pieces it came in (joined once, when it ends). */
  private pieces: string[] = []
  /** Whether a section has begun: text before the first header is not kept. */
  private inSection = false
  /**
   * The end of what was pushed, to find a header split between two pieces. It starts as a line
   * break, so that a header at the very start is found like any other.
   */
  private carry = '\n'

  push(text: string): void {
    if (text === '') return
    const window = this.carry + text
    const offset = this.carry.length
    // Where the current section's text in `window` starts: before `offset` only when its header
    // began in the previous piece.
    let start = offset
    for (
      let at = window.indexOf(HEADER_BREAK);
      at !== -1;
      at = window.indexOf(HEADER_BREAK, at + 1)
    ) {
      const header = at + 1
      if (this.inSection) {
        const before = this.pieces.join('')
        this.files.push(
          parseSection(
            header < start
              ? before.slice(0, before.length - (start - header))
              : before + window.slice(start, header)
          )
        )
      }
      this.inSection = true
      this.pieces = []
      start = header
    }
    if (this.inSection) this.pieces.push(window.slice(start))
    this.carry = window.slice(-(HEADER_BREAK.length - 1))
  }

  /** Every file's entry, the last section included. */
  end(): ChangedFile[] {
    if (this.inSection) this.files.push(parseSection(this.pieces.join('')))
    this.pieces = []
    this.inSection = false
    return this.files
  }
}

/** A file header after the previous file's last line. */
const HEADER_BREAK = `\n${FILE_HEADER}`

const PLUS = 0x2b
const MINUS = 0x2d

function parseSection(section: string): ChangedFile {
  // The header is the lines before the first hunk; past the first `@@`, `--- x` is a removed line
  // `-- x`, not a header, and only the first character of each line matters, so the hunks are
  // read a line start at a time rather than split into lines.
  const hunks = section.indexOf('\n@@')
  const lines = (hunks === -1 ? section : section.slice(0, hunks)).split('\n')
  const names = headerNames(lines[0] ?? '')
  let oldPath = names?.old
  let newPath = names?.new
  let status: FileStatus = 'modified'
  let binary = false
  let submodule = false
  let additions = 0
  let deletions = 0
  for (let at = hunks; at !== -1; at = section.indexOf('\n', at + 1)) {
    const first = section.charCodeAt(at + 1)
    if (first === PLUS) additions++
    else if (first === MINUS) deletions++
  }

  for (const line of lines.slice(1)) {
    if (line.startsWith('new file mode ')) status = 'added'
    else if (line.startsWith('deleted file mode ')) status = 'deleted'
    else if (line.startsWith('rename from ')) {
      status = 'renamed'
      oldPath = unquotePath(line.slice('rename from '.length))
    } else if (line.startsWith('rename to ')) newPath = unquotePath(line.slice('rename to '.length))
    else if (line.startsWith('copy from ')) {
      status = 'copied'
      oldPath = unquotePath(line.slice('copy from '.length))
    } else if (line.startsWith('copy to ')) newPath = unquotePath(line.slice('copy to '.length))
    else if (line.startsWith('--- ')) oldPath = markerPath(line.slice(4), 'a/') ?? oldPath
    else if (line.startsWith('+++ ')) newPath = markerPath(line.slice(4), 'b/') ?? newPath
    else if (line === 'GIT binary patch' || isBinaryNotice(line)) binary = true
    if (GITLINK.test(line)) submodule = true
  }

  const path = (status === 'deleted' ? (oldPath ?? newPath) : (newPath ?? oldPath)) ?? ''
  const moved = status === 'renamed' || status === 'copied'
  return {
    path,
    ...(moved && oldPath !== undefined ? { previousPath: oldPath } : {}),
    status,
    additions,
    deletions,
    patch: section,
    // Diffed with --text, a binary file's bytes are in its hunks: decided by them, not by notices
    // (which attributes control); a notice still counts, from a diff made without --text.
    binary: binary || looksBinary(section),
    ...(submodule && { submodule: true }),
    // A deleted file's hunks show no new line: it is never one.
    ...(isLfsPointer(section) && { lfsPointer: true })
  }
}

/** A header line of a gitlink (mode 160000): a submodule's commit, added, removed or moved. */
const GITLINK =
  /^(?:(?:new file|deleted file|old|new) mode 160000|index [0-9a-f]+\.\.[0-9a-f]+ 160000)$/

function isBinaryNotice(line: string): boolean {
  return line.startsWith('Binary files ') && line.endsWith(' differ')
}

/**
 * The two names of `diff --git a/x b/y`. Either may be C-quoted. Unquoted names may contain
 * spaces, so `a/x y b/x y` is split where both halves name the same file (always the case unless
 * the file was renamed or copied, and then the `rename from`/`to` lines give the names anyway).
 */
function headerNames(line: string): { old: string; new: string } | undefined {
  const rest = line.slice(FILE_HEADER.length)
  let first: string
  let second: string
  if (rest.startsWith('"')) {
    const quoted = readQuoted(rest)
    if (quoted === undefined) return undefined
    first = quoted.value
    const after = quoted.rest.replace(/^ /, '')
    second = after.startsWith('"') ? (readQuoted(after)?.value ?? after) : after
  } else if (rest.endsWith('"')) {
    const open = rest.lastIndexOf(' "')
    const quoted = open === -1 ? undefined : readQuoted(rest.slice(open + 1))
    if (quoted === undefined) return undefined
    first = rest.slice(0, open)
    second = quoted.value
  } else {
    const half = (rest.length - 1) / 2
    const a = rest.slice(0, half)
    const b = rest.slice(half + 1)
    if (Number.isInteger(half) && rest[half] === ' ' && a.slice(2) === b.slice(2)) {
      first = a
      second = b
    } else {
      const split = rest.indexOf(' b/')
      if (split === -1) return undefined
      first = rest.slice(0, split)
      second = rest.slice(split + 1)
    }
  }
  return { old: stripPrefix(first, 'a/'), new: stripPrefix(second, 'b/') }
}

/** The name on a `---`/`+++` line; undefined for /dev/null. */
function markerPath(text: string, prefix: string): string | undefined {
  // Git ends the line with a tab when the unquoted name contains a space (for GNU patch).
  const name = unquotePath(text.endsWith('\t') ? text.slice(0, -1) : text)
  return name === DEV_NULL ? undefined : stripPrefix(name, prefix)
}

function stripPrefix(name: string, prefix: string): string {
  return name.startsWith(prefix) ? name.slice(prefix.length) : name
}

/** A name as git prints it: C-quoted when it holds special or (by default) non-ASCII bytes. */
function unquotePath(text: string): string {
  if (!text.startsWith('"')) return text
  const quoted = readQuoted(text)
  return quoted?.rest === '' ? quoted.value : text
}

const ESCAPES: Readonly<Record<string, number>> = {
  a: 7,
  b: 8,
  t: 9,
  n: 10,
  v: 11,
  f: 12,
  r: 13,
  '"': 34,
  '\\': 92
}

/**
 * Reads one C-quoted string from the start of `text`. Octal escapes are bytes, so the value is
 * decoded as UTF-8 only at the end (`"caf\303\251"` → `café`).
 */
function readQuoted(text: string): { value: string; rest: string } | undefined {
  const bytes: number[] = []
  let i = 1
  while (i < text.length) {
    const char = text.charAt(i)
    if (char === '"') {
      return { value: Buffer.from(bytes).toString('utf8'), rest: text.slice(i + 1) }
    }
    if (char !== '\\') {
      const codePoint = text.codePointAt(i) ?? 0
      const whole = String.fromCodePoint(codePoint)
      bytes.push(...Buffer.from(whole, 'utf8'))
      i += whole.length
      continue
    }
    const next = text.charAt(i + 1)
    const octal = /^[0-7]{3}/.exec(text.slice(i + 1, i + 4))
    if (octal !== null) {
      bytes.push(parseInt(octal[0], 8) & 0xff)
      i += 4
    } else if (Object.hasOwn(ESCAPES, next)) {
      bytes.push(ESCAPES[next] ?? 0)
      i += 2
    } else {
      // Not an escape git writes: keep it as it stands rather than guess.
      bytes.push(92)
      i += 1
    }
  }
  return undefined
}

/**
 * The lines of the new file that a patch shows, as inclusive [first, last] ranges, one per hunk
 * (`@@ -a,b +c,d @@` shows lines c to c+d-1). A deleted file, or a hunk that only removes, shows none.
 */
export function shownLines(patch: string): [number, number][] {
  const ranges: [number, number][] = []
  // Lines as git ends them, at "\n" only: a `^` of a multiline pattern also starts one after "\r"
  // or U+2028, which a changed line may carry to forge a hunk header.
  for (const text of patch.split('\n')) {
    const match = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(text)
    if (match === null) continue
    const first = Number(match[1])
    const count = match[2] === undefined ? 1 : Number(match[2])
    if (count > 0) ranges.push([first, first + count - 1])
  }
  return ranges
}
