import { mkdir, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DIFF_ARGS,
  DiffUnavailableError,
  defaultBase,
  diffFromMergeBase,
  localDiff
} from '../../src/evidence/git.js'
import { runGit, type Run } from '../../src/evidence/git-process.js'
import type { ChangedFile } from '../../src/evidence/types.js'
import { changedFiles } from './patch-text.js'
import {
  commitAll,
  emptyCommits,
  git,
  initRepo,
  removeDir,
  shallowCheckoutOf,
  tempDir,
  write
} from './git-fixture.js'

let root: string

beforeAll(async () => {
  root = await tempDir('git')
})

afterAll(async () => {
  await removeDir(root)
})

/** Runs real git and records every command, to see what was fetched. */
function recording(): { run: Run; calls: string[][] } {
  const calls: string[][] = []
  return {
    calls,
    run: (args, cwd, env, onStdout) => {
      calls.push([...args])
      return runGit(args, cwd, env, onStdout)
    }
  }
}

/** What GitHub shows for the pull request: the three-dot diff, parsed. */
const threeDotFiles = (pr: PullRequest): ChangedFile[] =>
  changedFiles(git(pr.origin, ...DIFF_ARGS, `${pr.base}...${pr.head}`))

const fetches = (calls: readonly string[][]): string[] =>
  calls.filter(c => c[0] === 'fetch').map(c => c.join(' '))

interface PullRequest {
  readonly origin: string
  readonly base: string
  readonly head: string
  readonly merge: string
}

/**
 * An "origin" with a PR branch and a main that moved on after the branch point, plus the merge
 * commit GitHub makes for the PR (refs/pull/1/merge). `extra` empty commits go on each side, to
 * push the merge base out of reach of a shallow fetch.
 */
function pullRequestOrigin(name: string, extra = 0): PullRequest {
  const origin = join(root, name)
  initRepo(origin)
  write(origin, 'shared.txt', 'one\ntwo\nthree\n')
  write(origin, 'app.ts', 'export const version = 1\n')
  commitAll(origin, 'start')

  git(origin, 'checkout', '-q', '-b', 'pr')
  write(origin, 'app.ts', 'export const version = 2\n')
  write(origin, 'feature.ts', 'export const feature = true\n')
  commitAll(origin, 'pr: feature')
  if (extra > 0) emptyCommits(origin, 'pr', extra, 'pr work')

  git(origin, 'checkout', '-q', 'main')
  write(origin, 'main-only.txt', 'added on main after the branch point\n')
  write(origin, 'shared.txt', 'one\ntwo\nthree\nfour (main)\n')
  commitAll(origin, 'main: moves on')
  if (extra > 0) emptyCommits(origin, 'main', extra, 'main work')

  const base = git(origin, 'rev-parse', 'main').trim()
  const head = git(origin, 'rev-parse', 'pr').trim()
  git(origin, 'checkout', '-q', '--detach', 'main')
  git(origin, 'merge', '-q', '--no-ff', '-m', 'Merge pr into main', 'pr')
  const merge = git(origin, 'rev-parse', 'HEAD').trim()
  git(origin, 'update-ref', 'refs/pull/1/merge', merge)
  git(origin, 'checkout', '-q', 'main')
  return { origin, base, head, merge }
}

/** What actions/checkout does by default: the merge commit alone, depth 1, detached. */
function shallowCheckout(pr: PullRequest, name: string): string {
  return shallowCheckoutOf(pr.origin, pr.merge, join(root, name))
}

const hasCommit = (dir: string, sha: string): boolean => {
  try {
    git(dir, 'cat-file', '-e', `${sha}^{commit}`)
    return true
  } catch {
    return false
  }
}

describe('diffFromMergeBase', () => {
  it('diffs from the merge base in a depth-1 checkout of the merge commit, fetching what it lacks', async () => {
    const pr = pullRequestOrigin('origin-simple')
    const dir = shallowCheckout(pr, 'clone-simple')
    expect(git(dir, 'rev-parse', '--is-shallow-repository').trim()).toBe('true')
    expect(hasCommit(dir, pr.base) || hasCommit(dir, pr.head)).toBe(false)

    const { run, calls } = recording()
    const result = await diffFromMergeBase({ cwd: dir, base: pr.base, head: pr.head, run })

    const threeDot = git(pr.origin, ...DIFF_ARGS, `${pr.base}...${pr.head}`)
    expect(result.files).toEqual(changedFiles(threeDot))
    expect(result.mergeBase).toBe(git(pr.origin, 'merge-base', pr.base, pr.head).trim())
    expect(result.files.map(f => f.path)).toEqual(['app.ts', 'feature.ts'])
    expect(result.files.map(f => f.patch).join('')).not.toContain('four (main)')
    expect(fetches(calls)).toEqual([`fetch --no-tags --depth=50 origin ${pr.base} ${pr.head}`])
    expect(hasCommit(dir, pr.base) && hasCommit(dir, pr.head)).toBe(true)
  })

  it('deepens the history when the merge base is beyond the first fetch', async () => {
    // 100 commits on each side: out of reach of --depth=50, within one --deepen=200.
    const pr = pullRequestOrigin('origin-deeper', 100)
    const dir = shallowCheckout(pr, 'clone-deeper')

    const { run, calls } = recording()
    const result = await diffFromMergeBase({ cwd: dir, base: pr.base, head: pr.head, run })

    expect(result.files).toEqual(threeDotFiles(pr))
    expect(fetches(calls)).toEqual([
      `fetch --no-tags --depth=50 origin ${pr.base} ${pr.head}`,
      `fetch --no-tags --deepen=200 origin ${pr.base} ${pr.head}`
    ])
  })

  it('deepens, then unshallows, when the merge base is further back than the first fetch', async () => {
    // 700 commits on each side: beyond 50 + 3 × 200, so only --unshallow reaches the merge base.
    const pr = pullRequestOrigin('origin-deep', 700)
    const dir = shallowCheckout(pr, 'clone-deep')

    const { run, calls } = recording()
    const result = await diffFromMergeBase({ cwd: dir, base: pr.base, head: pr.head, run })

    expect(result.files).toEqual(threeDotFiles(pr))
    expect(fetches(calls)).toEqual([
      `fetch --no-tags --depth=50 origin ${pr.base} ${pr.head}`,
      `fetch --no-tags --deepen=200 origin ${pr.base} ${pr.head}`,
      `fetch --no-tags --deepen=200 origin ${pr.base} ${pr.head}`,
      `fetch --no-tags --deepen=200 origin ${pr.base} ${pr.head}`,
      `fetch --no-tags --unshallow origin ${pr.base} ${pr.head}`
    ])
  })

  it('reads a large diff whole, characters of several bytes cut between reads, through a file or a pipe', async () => {
    const dir = join(root, 'wide-characters')
    initRepo(dir)
    write(dir, 'start.txt', 'start\n')
    const base = commitAll(dir, 'start')
    // About 1.7 MB of two-, three- and four-byte characters: read in several pieces from the
    // file (1 MiB each) or the pipe (64 KiB), whose edges fall inside characters.
    const line = (i: number): string => `é€😀 ${String(i)} ${'ß'.repeat(i % 7)}\n`
    write(dir, 'wide.txt', Array.from({ length: 80_000 }, (_, i) => line(i)).join(''))
    write(dir, 'after.txt', 'after\n')
    const head = commitAll(dir, 'wide')
    const whole = changedFiles(git(dir, ...DIFF_ARGS, base, head))
    expect(whole.map(f => [f.path, f.additions])).toEqual([
      ['after.txt', 1],
      ['wide.txt', 80_000]
    ])
    expect(whole[1]?.patch).not.toContain('\ufffd')

    // Through a private file, which leaves nothing behind in the temporary folder.
    const temporary = join(root, 'tmp-empty')
    await mkdir(temporary)
    const previous = process.env.TMPDIR
    try {
      process.env.TMPDIR = temporary
      expect((await diffFromMergeBase({ cwd: dir, base, head })).files).toEqual(whole)
      expect(await readdir(temporary)).toEqual([])
      // Without a temporary folder to write in, through the pipe.
      process.env.TMPDIR = join(root, 'no-such-folder')
      expect((await diffFromMergeBase({ cwd: dir, base, head })).files).toEqual(whole)
    } finally {
      if (previous === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = previous
    }
    // A Run that hands stdout back whole, not in pieces, gives the same files.
    const atOnce: Run = (args, cwd, env) => runGit(args, cwd, env)
    expect((await diffFromMergeBase({ cwd: dir, base, head, run: atOnce })).files).toEqual(whole)
  })

  it('fetches nothing when the history is already there (fetch-depth: 0)', async () => {
    const pr = pullRequestOrigin('origin-full')
    const dir = join(root, 'clone-full')
    git(root, 'clone', '-q', `file://${pr.origin}`, dir)
    const { run, calls } = recording()
    const result = await diffFromMergeBase({ cwd: dir, base: pr.base, head: pr.head, run })
    expect(result.files).toEqual(threeDotFiles(pr))
    expect(fetches(calls)).toEqual([])
  })

  it('throws DiffUnavailableError with advice when the remote cannot provide the commits', async () => {
    const pr = pullRequestOrigin('origin-missing')
    const dir = shallowCheckout(pr, 'clone-missing')
    const unknown = 'f'.repeat(40)
    const attempt = diffFromMergeBase({ cwd: dir, base: unknown, head: pr.head })
    await expect(attempt).rejects.toBeInstanceOf(DiffUnavailableError)
    await expect(attempt).rejects.toThrow(
      /commits f{40} and [0-9a-f]{40} are not in the checkout, and fetching from "origin" failed/
    )
    await expect(attempt).rejects.toThrow(/\(git: .*not our ref f{40}/)
    await expect(attempt).rejects.toThrow(/fetch-depth: 0/)
  })

  it('throws DiffUnavailableError when the remote is unreachable', async () => {
    const pr = pullRequestOrigin('origin-gone')
    const dir = shallowCheckout(pr, 'clone-gone')
    git(dir, 'remote', 'set-url', 'origin', `file://${join(root, 'no-such-repository')}`)
    const attempt = diffFromMergeBase({ cwd: dir, base: pr.base, head: pr.head })
    await expect(attempt).rejects.toThrow(DiffUnavailableError)
    await expect(attempt).rejects.toThrow(
      /\(git: fatal: '.*no-such-repository' does not appear to be a git repository/
    )
  })

  it('throws DiffUnavailableError for unrelated histories', async () => {
    const dir = join(root, 'unrelated')
    initRepo(dir)
    write(dir, 'a.txt', 'a\n')
    const base = commitAll(dir, 'one root')
    git(dir, 'checkout', '-q', '--orphan', 'other')
    write(dir, 'b.txt', 'b\n')
    const head = commitAll(dir, 'another root')
    await expect(diffFromMergeBase({ cwd: dir, base, head })).rejects.toThrow(
      /have no common ancestor/
    )
  })

  it('refuses revisions that git would read as options', async () => {
    const attempt = diffFromMergeBase({ cwd: root, base: '--upload-pack=touch pwned', head: 'x' })
    await expect(attempt).rejects.toThrow(DiffUnavailableError)
  })
})

describe('localDiff and defaultBase', () => {
  it('diffs the working tree from the merge base, uncommitted edits included', async () => {
    const pr = pullRequestOrigin('origin-local')
    const dir = join(root, 'local')
    git(root, 'clone', '-q', `file://${pr.origin}`, dir)
    git(dir, 'checkout', '-q', '-b', 'work', 'origin/pr')
    write(dir, 'app.ts', 'export const version = 3 // not committed yet\n')

    const result = await localDiff({ cwd: dir, base: 'origin/main' })
    expect(result.mergeBase).toBe(git(pr.origin, 'merge-base', pr.base, pr.head).trim())
    expect(result.files.find(f => f.path === 'app.ts')?.patch).toContain(
      '+export const version = 3 // not committed yet'
    )
    expect(result.files.map(f => f.path)).toEqual(['app.ts', 'feature.ts'])
  })

  it('throws DiffUnavailableError for a base that does not exist', async () => {
    const dir = join(root, 'local-nobase')
    initRepo(dir)
    commitAll(dir, 'only')
    await expect(localDiff({ cwd: dir, base: 'nope' })).rejects.toThrow(
      /base "nope" is not a commit in this repository/
    )
  })

  it('picks the remote’s default branch, never the branch’s own upstream, else main, else fails', async () => {
    const pr = pullRequestOrigin('origin-default')
    const dir = join(root, 'default-base')
    git(root, 'clone', '-q', `file://${pr.origin}`, dir)
    // A pull request checked out as gh does: its upstream is the pull request itself, whose own
    // rubric and diff must not stand in for the base's.
    git(dir, 'checkout', '-q', '-b', 'topic', '--track', 'origin/pr')
    expect(await defaultBase(dir)).toBe('origin/main')
    git(dir, 'remote', 'set-head', 'origin', '--delete')
    expect(await defaultBase(dir)).toBe('origin/main')

    const lonely = join(root, 'default-lonely')
    initRepo(lonely)
    commitAll(lonely, 'one')
    expect(await defaultBase(lonely)).toBe('main')
    git(lonely, 'branch', '-q', '-m', 'main', 'trunk')
    await expect(defaultBase(lonely)).rejects.toThrow(DiffUnavailableError)
    await expect(defaultBase(lonely)).rejects.toThrow(/--base/)
  })
})

describe('runGit', () => {
  it('returns large output whole, decoded once (multi-byte characters across chunks survive)', async () => {
    const dir = join(root, 'large')
    initRepo(dir)
    const before = Array.from({ length: 120_000 }, (_, i) => `ligne ${i} é€😀`).join('\n')
    write(dir, 'big.txt', `${before}\n`)
    commitAll(dir, 'big')
    const result = await runGit(['show', '--format=', 'HEAD'], dir)
    expect(result.exitCode).toBe(0)
    const added = result.stdout.split('\n').filter(line => line.startsWith('+l'))
    expect(added).toHaveLength(120_000)
    expect(result.stdout).not.toContain('\uFFFD')
  })

  it('reports a missing directory as a failed command, not a crash', async () => {
    const result = await runGit(['status'], join(root, 'does-not-exist'))
    expect(result.exitCode).not.toBe(0)
    expect(result.stderr).not.toBe('')
  })
})
