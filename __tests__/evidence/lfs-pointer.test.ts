import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isLfsPointer } from '../../src/evidence/lfs-pointer.js'
import type { ChangedFile } from '../../src/evidence/types.js'
import { DIFF_ARGS } from '../../src/evidence/git.js'
import { commitAll, git, initRepo, removeDir, tempDir, write } from './git-fixture.js'
import { changedFiles } from './patch-text.js'

/**
 * A Git LFS pointer in the diff, as git prints it: every file here is committed, changed and
 * diffed by git with the options the evidence uses, then read by the evidence's parser.
 */

const OID = 'sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393'
const POINTER = `version https://git-lfs.github.com/spec/v1\noid ${OID}\nsize 12345\n`
const CODE = Array.from({ length: 40 }, (_, i) => `export const step${i} = run(${i})\n`).join('')

let dir: string
let counter = 0
beforeAll(async () => {
  dir = await tempDir('lfs')
})
afterAll(async () => {
  await removeDir(dir)
})

type Change = readonly [before: string | null, after: string | null]

/** The changed files, by path, after committing each `before` (absent when null), then `after`. */
function changes(files: Readonly<Record<string, Change>>): Map<string, ChangedFile> {
  const repo = `${dir}/${counter++}`
  initRepo(repo)
  for (const [path, [before]] of Object.entries(files))
    if (before !== null) write(repo, path, before)
  const base = commitAll(repo, 'base')
  for (const [path, [, after]] of Object.entries(files)) {
    if (after === null) git(repo, 'rm', '-q', path)
    else write(repo, path, after)
  }
  const head = commitAll(repo, 'head')
  const diff = git(repo, ...DIFF_ARGS, base, head, '--')
  return new Map(changedFiles(diff).map(file => [file.path, file]))
}

/** Which of `files` are taken for LFS pointers, by path. */
function pointers(files: Readonly<Record<string, Change>>): Record<string, boolean> {
  const changed = changes(files)
  return Object.fromEntries(
    Object.keys(files).map(path => [path, changed.get(path)?.lfsPointer === true])
  )
}

describe('a changed file whose new content is a Git LFS pointer', () => {
  it('is recognised when added, when code is replaced by one, and when an LFS file is updated', () => {
    const updated = POINTER.replace('4d7a', 'aaaa').replace('12345', '99')
    expect(
      pointers({
        'src/payload.js': [null, POINTER],
        'src/util.js': [CODE, POINTER],
        'assets/model.bin': [POINTER, updated]
      })
    ).toEqual({ 'src/payload.js': true, 'src/util.js': true, 'assets/model.bin': true })
  })

  it('is recognised in every form git-lfs still decodes, not only as the spec writes it', () => {
    const forms: Record<string, string> = {
      'crlf-line-ends': POINTER.replaceAll('\n', '\r\n'),
      'blank-lines-around-and-between': `\n  ${POINTER.replace('\noid', '\n\n\noid')}  \n\n`,
      'no-final-newline': POINTER.slice(0, -1),
      'extension-before-oid': POINTER.replace('\noid', `\next-0-crypt ${OID}\noid`),
      'pre-release-version': POINTER.replace(
        'https://git-lfs.github.com/spec/v1',
        'https://hawser.github.com/spec/v1'
      ),
      'upper-case-hexadecimal': POINTER.replace('4d7a214614ab', '4D7A214614AB'),
      'signed-size': POINTER.replace('size 12345', 'size +12345'),
      // git-lfs decodes a blob's first 1,024 bytes and ignores the rest.
      'code-after-1024-bytes-of-padding': `${POINTER}${' '.repeat(1100)}\n${CODE}`
    }
    const added = Object.fromEntries(
      Object.entries(forms).map(([form, content]) => [`${form}.js`, [null, content] as const])
    )
    const found = pointers(added)
    expect(Object.keys(found).filter(path => !found[path])).toEqual([])
  })

  it('renamed and rewritten as a pointer, is recognised under its new name', () => {
    const repo = `${dir}/${counter++}`
    initRepo(repo)
    write(repo, 'src/a.js', `${POINTER}module.exports = run()\n`)
    const base = commitAll(repo, 'base')
    git(repo, 'mv', 'src/a.js', 'src/b.js')
    write(repo, 'src/b.js', POINTER)
    const head = commitAll(repo, 'head')
    const [file] = changedFiles(git(repo, ...DIFF_ARGS, base, head, '--'))
    expect(file).toMatchObject({ path: 'src/b.js', status: 'renamed', lfsPointer: true })
  })

  it('of a pointer padded with blank lines, is read from the first hunk wherever it starts', () => {
    // git-lfs skips blank lines: the first hunk of a change to its size starts below line 1.
    const padded = `\n\n\n\n\n\n${POINTER}`
    const file = changes({ 'assets/model.bin': [padded, padded.replace('12345', '99')] }).get(
      'assets/model.bin'
    )
    expect(file?.patch).toMatch(/^@@ -[4-9],\d+ \+[4-9],\d+ @@/m)
    expect(file?.lfsPointer).toBe(true)
    expect(isLfsPointer(file?.patch ?? '')).toBe(true)
  })
})

describe('what is not a Git LFS pointer', () => {
  it('is text that mentions git-lfs or shows a pointer, code after a pointer, or a broken one', () => {
    const long = `${POINTER}${CODE}`
    const found = pointers({
      'docs/storage.md': [null, `# Storage\n\nWe use git-lfs. A pointer looks like:\n\n${POINTER}`],
      'src/lfs.ts': [null, `// git-lfs: ${POINTER}`],
      'src/code-after.js': [null, long],
      // Each a pointer that git-lfs would not decode, so a checkout keeps it as it is.
      'short-oid.js': [null, POINTER.replace('4d7a', '4d7')],
      'another-hash.js': [null, POINTER.replace('sha256:', 'sha512:')],
      'oid-first.js': [null, `oid ${OID}\nversion https://git-lfs.github.com/spec/v1\nsize 1\n`],
      'unknown-version.js': [null, POINTER.replace('git-lfs.github.com', 'lfs.evil.example')],
      'two-spaces.js': [null, POINTER.replace('version ', 'version  ')],
      'negative-size.js': [null, POINTER.replace('size 12345', 'size -1')],
      'key-after-size.js': [null, `${POINTER}url https://example.com\n`],
      // A deleted pointer: there is no new content to review.
      'assets/deleted.bin': [POINTER, null],
      // Code after a pointer, changed further down: its first hunk shows code.
      'src/changed-far-down.js': [long, long.replace('step30 ', 'step30b ')]
    })
    expect(Object.keys(found).filter(path => found[path])).toEqual([])
  })
})
