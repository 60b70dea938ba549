/**
 * Git LFS pointers (git-lfs/git-lfs docs/spec.md): a file whose committed content is a pointer
 * holds, in every checkout with LFS, the content the pointer names, which is not in the diff. A
 * pointer is recognised as git-lfs decodes one (lfs/pointer.go), not only as the spec writes one:
 * what git-lfs would replace on checkout is what must not pass for reviewed text.
 */

/** git-lfs reads at most a blob's first 1,024 bytes as a pointer, and ignores the rest. */
const POINTER_BYTES = 1024
/** The spec's URL and the two that git-lfs still accepts from before its release. */
const VERSIONS = new Set([
  'https://git-lfs.github.com/spec/v1',
  'https://hawser.github.com/spec/v1',
  'http://git-media.io/v/2'
])
/** git-lfs once took upper-case hexadecimal too. */
const OID = /^sha256:[0-9a-fA-F]{64}$/
/** As Go's `strconv.ParseInt` reads a size git-lfs accepts: a sign, and no negative. */
const SIZE = /^(?:\+?[0-9]+|-0+)$/
/** Extension lines (`ext-0-name sha256:…`), which git-lfs takes anywhere before `size`. */
const EXTENSION = /^ext-[0-9]-\w/
const KEYS = ['version', 'oid', 'size'] as const
const VALID: Readonly<Record<(typeof KEYS)[number], (value: string) => boolean>> = {
  version: value => VERSIONS.has(value),
  oid: value => OID.test(value),
  size: value => SIZE.test(value)
}

/**
 * Whether a file's patch shows new content that is a Git LFS pointer, or the start of one: the
 * lines of the new file its first hunk shows (all of an added file), up to git-lfs's 1,024 bytes.
 * A pointer's lines are few, so a change to one shows all of it, and those of a pointer padded
 * with blank lines are shown from the blank lines before the change. Erring the other way is safe:
 * a file whose shown lines are only a pointer's holds no code the judges could read.
 */
export function isLfsPointer(patch: string): boolean {
  const shown = firstHunkText(patch)
  return shown !== undefined && readsAsPointer(shown)
}

/** The new file's lines the first hunk shows, as text, to 1,024 bytes; undefined without a hunk. */
function firstHunkText(patch: string): string | undefined {
  const hunk = patch.indexOf('\n@@')
  if (hunk === -1) return undefined
  const header = patch.indexOf('\n', hunk + 1)
  if (header === -1) return undefined
  const shown: string[] = []
  let bytes = 0
  let lastNew = false
  for (let at = header + 1; at < patch.length && bytes < POINTER_BYTES;) {
    const newline = patch.indexOf('\n', at)
    const end = newline === -1 ? patch.length : newline
    const mark = patch.charAt(at)
    if (mark === '+' || mark === ' ') {
      // A huge line is cut: git-lfs never looks past its first bytes.
      const line = `${patch.slice(at + 1, Math.min(end, at + 1 + POINTER_BYTES))}\n`
      shown.push(line)
      bytes += Buffer.byteLength(line)
      lastNew = true
    } else if (mark === '\\') {
      // `\ No newline at end of file` after a line of the new file: that line has none.
      const last = shown.at(-1)
      if (lastNew && last !== undefined) shown[shown.length - 1] = last.slice(0, -1)
    } else if (mark === '-') {
      lastNew = false
    } else {
      break
    }
    at = end + 1
  }
  return Buffer.from(shown.join('')).subarray(0, POINTER_BYTES).toString('utf8')
}

/**
 * As git-lfs decodes a pointer: the text trimmed of white space at both ends, lines split on LF
 * with a CR before it dropped, empty lines skipped, `version`, `oid` and `size` in that order with
 * a single space before each value, extension lines before `size`, nothing after it. A start
 * that stops before `oid` or `size` counts (what follows is not shown); one without `version`
 * does not.
 */
function readsAsPointer(text: string): boolean {
  let next = 0
  for (const raw of trimSpace(text).split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (line === '') continue
    const space = line.indexOf(' ')
    if (space === -1 || next === KEYS.length) return false
    const key = line.slice(0, space)
    const value = line.slice(space + 1)
    const expected = KEYS[next]
    if (expected !== undefined && key === expected) {
      if (!VALID[expected](value)) return false
      next++
    } else if (!EXTENSION.test(key) || !OID.test(value)) {
      return false
    }
  }
  return next > 0
}

/** What Go's `bytes.TrimSpace` or JavaScript's `trim` takes for white space: either trims it. */
const SPACE = /[\s\u0085]/

function trimSpace(text: string): string {
  let first = 0
  let last = text.length
  while (first < last && SPACE.test(text.charAt(first))) first++
  while (last > first && SPACE.test(text.charAt(last - 1))) last--
  return text.slice(first, last)
}
