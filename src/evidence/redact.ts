import type { Span } from './secret-pattern.js'
import { PATTERNS, SECRET_FILE_PATTERNS } from './secret-patterns.js'
import { isConfigFile } from './secret-values.js'

/** A secret found: where it is, and what it looked like (in the order of `PATTERNS`). */
interface Secret extends Span {
  readonly kinds: readonly string[]
}

/** Every kind, each once, in the order of the patterns: the order kinds are named in. */
const KINDS = [...new Set([...PATTERNS, ...SECRET_FILE_PATTERNS].map(({ kind }) => kind))]

/**
 * How a file is read for secrets: as code (the default), where only what looks like a secret in
 * code goes; or as a secret file (a name on the denylist: `.env`, `.npmrc`, `*.key`…), where on
 * top of that every value that looks like a credential goes (see `SECRET_FILE_PATTERNS`).
 */
export type RedactionPolicy = 'code' | 'secret file'

function inOrder(kinds: ReadonlySet<string>): string[] {
  return KINDS.filter(kind => kinds.has(kind))
}

/**
 * Where `text` seems to hold secrets, in order, overlapping and touching spans merged into one.
 * `path` is the file the text is from: it tells how to read unquoted values (see
 * `isConfigFile`).
 */
export function findSecrets(text: string, path = '', policy: RedactionPolicy = 'code'): Secret[] {
  const secretFile = policy === 'secret file'
  // A secret file may hold code (a `.env` that node requires): configuration's reading would take
  // `token = load(key)` for a value. Its values are the secret-file patterns' to find, which
  // leave code alone.
  const context = { config: !secretFile && isConfigFile(path) }
  const patterns = secretFile ? [...PATTERNS, ...SECRET_FILE_PATTERNS] : PATTERNS
  const found = patterns
    .flatMap(({ kind, spans }) => spans(text, context).map(span => ({ ...span, kind })))
    .sort((a, b) => a.start - b.start)
  const merged: { start: number; end: number; kinds: Set<string> }[] = []
  for (const { start, end, kind } of found) {
    const last = merged.at(-1)
    if (last !== undefined && start <= last.end) {
      last.end = Math.max(last.end, end)
      last.kinds.add(kind)
    } else {
      merged.push({ start, end, kinds: new Set([kind]) })
    }
  }
  return merged.map(({ start, end, kinds }) => ({ start, end, kinds: inOrder(kinds) }))
}

/** `@@ -1,3 +1,4 @@`: a hunk header's line ranges, before the old line it may show. */
const HUNK_RANGES = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/

/** A line of a hunk: what marks its kind, kept as it is, and its text, which is scanned. */
interface HunkLine {
  readonly mark: string
  readonly text: string
}

/**
 * A body line's mark is its first character (` `, `+`, `-`, `\`). A header's is its line ranges:
 * the text after them is a line of the old file (the enclosing function), scanned like the rest.
 */
function hunkLine(line: string, header: boolean): HunkLine {
  const mark = header ? (HUNK_RANGES.exec(line)?.[0] ?? '@@') : line.slice(0, 1)
  return { mark, text: line.slice(mark.length) }
}

/**
 * Replaces each secret in a file's patch with `[redacted: kind]`, and nothing else: the code
 * around a secret, on its line and in its hunk, is still shown, so a secret cannot hide code from
 * the judges. Every line of each hunk is scanned, context and removed lines too (context is sent
 * as well, and a secret already in the repository must not travel further), joined without their
 * marks so that a secret over several lines (a key's body) is found whole. A secret over several
 * lines leaves each of its lines in place, with its mark and `[redacted: kind]` for its part of
 * the secret, so the hunk's line counts stay true. A secret file's patch (`policy`) loses every
 * value that looks like a credential as well.
 */
export function redactPatch(
  patch: string,
  policy: RedactionPolicy = 'code'
): { patch: string; secrets: number; kinds: string[] } {
  const lines = patch.split('\n')
  const firstHunk = lines.findIndex(line => line.startsWith('@@'))
  if (firstHunk === -1) return { patch, secrets: 0, kinds: [] }

  const output = lines.slice(0, firstHunk)
  const path = patchPath(output)
  const kinds = new Set<string>()
  let secrets = 0
  let start = firstHunk
  while (start < lines.length) {
    let end = start + 1
    // Inside hunks only hunk headers start with `@@`: body lines start with ` +-\`.
    while (end < lines.length && !(lines[end] ?? '').startsWith('@@')) end++
    const hunk = lines.slice(start, end).map((line, i) => hunkLine(line, i === 0))
    const found = findSecrets(hunk.map(line => line.text).join('\n'), path, policy)
    secrets += found.length
    for (const secret of found) for (const kind of secret.kinds) kinds.add(kind)
    output.push(...redactLines(hunk, found))
    start = end
  }
  return { patch: output.join('\n'), secrets, kinds: inOrder(kinds) }
}

/**
 * The lines with each secret's part of them replaced by `[redacted: kind]`, naming the secret's
 * first kind: the most specific (`token: "ghp_…"` is a GitHub token before it is an assignment).
 * `secrets` are spans of the lines' texts joined with `\n`, in order and apart.
 */
function redactLines(lines: readonly HunkLine[], secrets: readonly Secret[]): string[] {
  let next = 0
  let lineStart = 0
  return lines.map(({ mark, text }) => {
    const offset = lineStart
    const lineEnd = offset + text.length
    lineStart = lineEnd + 1
    let shown = ''
    let at = offset
    for (let secret = secrets[next]; secret !== undefined && secret.start < lineEnd;) {
      if (secret.end > at) {
        const before = text.slice(at - offset, Math.max(secret.start, at) - offset)
        shown += `${before}[redacted: ${secret.kinds[0] ?? 'secret'}]`
        at = Math.min(secret.end, lineEnd)
      }
      // A secret that goes on past this line is redacted on the next one too.
      if (secret.end > lineEnd) break
      secret = secrets[++next]
    }
    return mark + shown + text.slice(at - offset)
  })
}

/**
 * The file's path as the patch's header gives it (`+++ b/…`, or `--- a/…` for a deleted file),
 * prefix and quotes left on: only its name matters here.
 */
function patchPath(header: readonly string[]): string {
  const after = header.find(line => line.startsWith('+++ '))
  const before = header.find(line => line.startsWith('--- '))
  const line = after === undefined || after.startsWith('+++ /dev/null') ? before : after
  // Git quotes unusual names and ends a name holding a space with a tab.
  return (line ?? '').slice(4).trimEnd().replace(/"$/, '')
}
