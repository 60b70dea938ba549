import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DiffParser } from '../../src/evidence/diff.js'
import { changedFiles } from './patch-text.js'
import type { ChangedFile } from '../../src/evidence/types.js'
import { DIFF_ARGS } from '../../src/evidence/git.js'
import { commitAll, git, initRepo, removeDir, tempDir, write } from './git-fixture.js'

let dir: string
let diff: string
let copyDiff: string
let files: ChangedFile[]

const lines = (prefix: string, n: number): string =>
  Array.from({ length: n }, (_, i) => `${prefix} line ${i + 1}\n`).join('')

beforeAll(async () => {
  dir = await tempDir('diff')
  initRepo(dir)
  write(dir, 'modify.txt', 'keep 1\n-- sql comment\nkeep 2\n++ not a header\nkeep 3\n')
  write(dir, 'deleted.txt', lines('gone', 4))
  write(dir, 'old name.txt', lines('moved as is', 10))
  write(dir, 'rename-src.js', lines('moved and edited', 20))
  write(dir, 'script.sh', '#!/bin/sh\necho hi\n')
  write(dir, 'dir with space/file name.txt', 'one\ntwo\n')
  write(dir, 'noeol.txt', 'first\nlast without newline')
  write(dir, 'copy-src.txt', lines('copied', 30))
  write(dir, 'logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0, 0]))
  commitAll(dir, 'base')

  write(dir, 'modify.txt', 'keep 1\nkeep 2\n++ not a header\n-- new sql\nkeep 3\n')
  git(dir, 'rm', '-q', 'deleted.txt')
  git(dir, 'mv', 'old name.txt', 'new name.txt')
  git(dir, 'rm', '-q', 'rename-src.js')
  write(dir, 'lib/rename-dst.js', lines('moved and edited', 20).replace('line 7', 'LINE SEVEN'))
  write(dir, 'script.sh', '#!/bin/sh\necho hi\n', true)
  write(dir, 'dir with space/file name.txt', 'one\ntwo\nthree\n')
  write(dir, 'noeol.txt', 'first\nlast, still without newline')
  write(dir, 'added.txt', 'brand new\n')
  write(dir, 'café.txt', 'non-ASCII name\n')
  write(dir, 'quote"name.txt', 'a quote in the name\n')
  write(dir, 'copy-dst.txt', lines('copied', 30).replace('line 3', 'line three'))
  write(dir, 'logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 9, 9, 9, 0, 0]))
  write(dir, 'icon.bin', Buffer.from([0, 1, 2, 0, 255]))
  commitAll(dir, 'change')

  diff = git(dir, ...DIFF_ARGS, 'HEAD~1', 'HEAD')
  copyDiff = git(dir, ...DIFF_ARGS, '-C', '--find-copies-harder', 'HEAD~1', 'HEAD')
  files = changedFiles(diff)
})

afterAll(async () => {
  await removeDir(dir)
})

function file(path: string, from: readonly ChangedFile[] = files): ChangedFile {
  const found = from.find(f => f.path === path)
  if (found === undefined) throw new Error(`${path} not in ${from.map(f => f.path).join(', ')}`)
  return found
}

/** `git diff --numstat -z`: the counts git itself computes, keyed by the new path. */
function numstat(text: string): Map<string, { additions: number; deletions: number }> {
  const result = new Map<string, { additions: number; deletions: number }>()
  const fields = text.split('\0')
  for (let i = 0; i < fields.length - 1; i++) {
    const [added = '', deleted = '', path = ''] = (fields[i] ?? '').split('\t')
    // A rename or copy: the path is empty and the two names follow as fields of their own.
    const name = path === '' ? fields[(i += 2)] : path
    if (name !== undefined && added !== '-') {
      result.set(name, { additions: Number(added), deletions: Number(deleted) })
    }
  }
  return result
}

describe('the diff parser on real git output', () => {
  it('finds every changed file once, in git order, with the sections covering the whole diff', () => {
    expect(files.map(f => f.path).sort()).toEqual(
      [
        'added.txt',
        'café.txt',
        'copy-dst.txt',
        'deleted.txt',
        'dir with space/file name.txt',
        'icon.bin',
        'lib/rename-dst.js',
        'logo.png',
        'modify.txt',
        'new name.txt',
        'noeol.txt',
        'quote"name.txt',
        'script.sh'
      ].sort()
    )
    const binaries = new Set(['icon.bin', 'logo.png'])
    const patches = files.filter(f => !binaries.has(f.path)).map(f => f.patch ?? '')
    // Every non-binary section is its own text, so the diff minus binaries is their concatenation.
    for (const patch of patches) expect(diff).toContain(patch)
    expect(patches.every(p => p.startsWith('diff --git '))).toBe(true)
  })

  it('counts additions and deletions as git --numstat does', () => {
    // Without -U3, which would add the patches (binary ones included, as --text asks) after the counts.
    const options = DIFF_ARGS.filter(option => option !== '-U3')
    const counts = numstat(git(dir, ...options, '--numstat', '-z', 'HEAD~1', 'HEAD'))
    expect(counts.size).toBeGreaterThan(8)
    for (const [path, expected] of counts) {
      const { additions, deletions } = file(path)
      expect({ path, additions, deletions }).toEqual({ path, ...expected })
    }
  })

  it('reads a modification, including removed "-- " and added "++ " lines inside hunks', () => {
    const modified = file('modify.txt')
    expect(modified).toMatchObject({
      status: 'modified',
      additions: 1,
      deletions: 1,
      binary: false
    })
    expect(modified.patch).toContain('--- sql comment')
    expect(modified.previousPath).toBeUndefined()
  })

  it('reads added and deleted files', () => {
    expect(file('added.txt')).toMatchObject({ status: 'added', additions: 1, deletions: 0 })
    expect(file('deleted.txt')).toMatchObject({ status: 'deleted', additions: 0, deletions: 4 })
    expect(file('deleted.txt').patch).toContain('+++ /dev/null')
  })

  it('reads a pure rename (no hunks) and a rename with edits', () => {
    expect(file('new name.txt')).toMatchObject({
      status: 'renamed',
      previousPath: 'old name.txt',
      additions: 0,
      deletions: 0
    })
    expect(file('new name.txt').patch).toContain('similarity index 100%')
    expect(file('lib/rename-dst.js')).toMatchObject({
      status: 'renamed',
      previousPath: 'rename-src.js',
      additions: 1,
      deletions: 1
    })
  })

  it('reads a copy (when the diff detects copies)', () => {
    const copied = changedFiles(copyDiff)
    expect(file('copy-dst.txt', copied)).toMatchObject({
      status: 'copied',
      previousPath: 'copy-src.txt',
      additions: 1,
      deletions: 1
    })
  })

  it('reads a mode-only change as a modification without lines', () => {
    const script = file('script.sh')
    expect(script).toMatchObject({ status: 'modified', additions: 0, deletions: 0, binary: false })
    expect(script.patch).toMatch(/^old mode 100644\nnew mode 100755\n$/m)
  })

  it('marks binary files, added or modified, and keeps their patch for the content checks', () => {
    expect(file('logo.png')).toMatchObject({ status: 'modified', binary: true })
    expect(file('icon.bin')).toMatchObject({ status: 'added', binary: true })
    // --text: git prints binary content as lines, so a `binary` attribute cannot hide a file's text.
    expect(file('logo.png').patch).toContain('+++ b/logo.png')
    expect(file('icon.bin').patch).toContain('+++ b/icon.bin')
  })

  it('unquotes C-quoted names (non-ASCII, quotes) and keeps names with spaces', () => {
    expect(diff).toContain('"b/caf\\303\\251.txt"')
    expect(diff).toContain('"b/quote\\"name.txt"')
    expect(file('café.txt')).toMatchObject({ status: 'added', additions: 1 })
    expect(file('quote"name.txt')).toMatchObject({ status: 'added', additions: 1 })
    expect(file('dir with space/file name.txt')).toMatchObject({
      status: 'modified',
      additions: 1,
      deletions: 0
    })
  })

  it('does not count "\\ No newline at end of file" as a line', () => {
    const noeol = file('noeol.txt')
    expect(noeol.patch).toContain('\\ No newline at end of file')
    expect(noeol).toMatchObject({ additions: 1, deletions: 1 })
  })

  it('returns nothing for an empty diff and ignores text before the first file', () => {
    expect(changedFiles('')).toEqual([])
    const withPreamble = `commit abc\nAuthor: x\n\n    message\n\n${file('added.txt').patch ?? ''}`
    expect(changedFiles(withPreamble)).toEqual([file('added.txt')])
  })
})

describe('the diff parser on generated sections', () => {
  it('counts the lines of the hunks as the line-by-line reading it replaced did', () => {
    // The reading before: every line of the section, a header until the first `@@`.
    const counted = (section: string): { additions: number; deletions: number } => {
      let additions = 0
      let deletions = 0
      let inHunks = false
      for (const line of section.split('\n').slice(1)) {
        if (inHunks) {
          if (line.startsWith('+')) additions++
          else if (line.startsWith('-')) deletions++
        } else if (line.startsWith('@@')) inHunks = true
      }
      return { additions, deletions }
    }
    const line = fc.oneof(
      fc.constantFrom(
        '@@ -1,2 +1,3 @@',
        '+added',
        '-removed',
        ' context',
        '--- a/x.ts',
        '+++ b/x.ts',
        '-- sql comment',
        '++ not a header',
        '\\ No newline at end of file',
        'new file mode 100644',
        'index 1111111..2222222',
        '',
        '+\r',
        '-'
      ),
      fc.string({ maxLength: 6 }).map(text => text.replace(/\n/g, ''))
    )
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.boolean(), (body, newline) => {
        const section = `diff --git a/x.ts b/x.ts\n${body.join('\n')}${newline ? '\n' : ''}`
        const [file] = changedFiles(section)
        expect(file && { additions: file.additions, deletions: file.deletions }).toEqual(
          counted(section)
        )
      }),
      { numRuns: 2000 }
    )
  })
})

describe('DiffParser, fed as git writes', () => {
  /** `text` pushed in pieces cut at `cuts` (positions, any order, repeats allowed). */
  const inPieces = (text: string, cuts: readonly number[]): ChangedFile[] => {
    const parser = new DiffParser()
    let from = 0
    for (const cut of [...cuts].sort((a, b) => a - b)) {
      parser.push(text.slice(from, cut))
      from = cut
    }
    parser.push(text.slice(from))
    return parser.end()
  }

  it('gives the same files however the output is cut, headers split included', () => {
    const preamble = 'commit abc\n\n    message\n'
    fc.assert(
      fc.property(
        fc.constantFrom(diff, copyDiff, `${preamble}${diff}`, ''),
        fc.array(fc.nat(), { maxLength: 40 }),
        (text, cuts) => {
          expect(
            inPieces(
              text,
              cuts.map(c => c % (text.length + 1))
            )
          ).toEqual(changedFiles(text))
        }
      ),
      { numRuns: 500 }
    )
  })

  it('finds a file header cut after every one of its characters', () => {
    const at = diff.indexOf('\ndiff --git ', 1)
    for (let cut = at - 1; cut <= at + 13; cut++) {
      expect(inPieces(diff, [cut])).toEqual(files)
      // One character at a time around the header.
      expect(
        inPieces(
          diff,
          Array.from({ length: 14 }, (_, i) => at - 1 + i)
        )
      ).toEqual(files)
    }
  })

  it('keeps a header that starts the output in a piece shorter than itself', () => {
    expect(inPieces(diff, [3, 5, 11])).toEqual(files)
    expect(inPieces(diff, [1])).toEqual(files)
  })
})
