import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { lastChanges } from '../../src/evidence/git.js'
import { pullRequestEvidence, startDiff } from '../../src/evidence/git-source.js'
import type { Evidence, EvidenceOrder } from '../../src/evidence/types.js'
import { parse } from '../helpers/rubric.js'
import {
  commitAll,
  git,
  initRepo,
  removeDir,
  shallowCheckoutOf,
  tempDir,
  write
} from './git-fixture.js'

/**
 * `evidence-order`: the order of the files the judges are shown. Least recently changed first,
 * a push's prompt repeats the last one's up to the files it changed; either way the same files are
 * shown and counted. Read from the pull request's own commits, in a depth-1 checkout of the merge
 * commit as actions/checkout leaves it.
 */

let root: string
beforeAll(async () => {
  root = await tempDir('order')
})
afterAll(async () => {
  await removeDir(root)
})

const RUBRIC = parse('# R\n\n## Criteria\n- a: A\n')

interface PullRequest {
  readonly origin: string
  readonly base: string
  readonly head: string
  readonly merge: string
}

/**
 * A pull request of three commits: the first adds four source files and a doc, the second edits
 * a.ts, the third c.ts. The third's dates say 2001, before the others: a commit's date is the
 * author's to write, and must not move a file.
 */
function threePushes(name: string): PullRequest {
  const origin = join(root, name)
  initRepo(origin)
  write(origin, 'README.md', 'start\n')
  commitAll(origin, 'start')
  git(origin, 'checkout', '-q', '-b', 'pr')
  for (const file of ['a.ts', 'b.ts', 'c.ts', 'ü.ts']) write(origin, file, `// ${file}\n`)
  write(origin, 'docs/guide.md', '# Guide\n')
  commitAll(origin, 'push 1')
  write(origin, 'a.ts', '// a.ts, second push\n')
  commitAll(origin, 'push 2')
  write(origin, 'c.ts', '// c.ts, third push\n')
  git(origin, 'add', '-A')
  execFileSync('git', ['commit', '-q', '-m', 'push 3'], {
    cwd: origin,
    env: {
      ...process.env,
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Mallory',
      GIT_AUTHOR_EMAIL: 'm@example.com',
      GIT_AUTHOR_DATE: '2001-01-01T00:00:00Z',
      GIT_COMMITTER_NAME: 'Mallory',
      GIT_COMMITTER_EMAIL: 'm@example.com',
      GIT_COMMITTER_DATE: '2001-01-01T00:00:00Z'
    }
  })
  const base = git(origin, 'rev-parse', 'main').trim()
  const head = git(origin, 'rev-parse', 'pr').trim()
  git(origin, 'checkout', '-q', '--detach', 'main')
  git(origin, 'merge', '-q', '--no-ff', '-m', 'Merge pr into main', 'pr')
  const merge = git(origin, 'rev-parse', 'HEAD').trim()
  git(origin, 'checkout', '-q', 'main')
  return { origin, base, head, merge }
}

/** What actions/checkout does by default: the merge commit alone, depth 1, detached. */
function shallowCheckout(pr: PullRequest, name: string): string {
  return shallowCheckoutOf(pr.origin, pr.merge, join(root, name))
}

async function evidence(dir: string, pr: PullRequest, order?: EvidenceOrder): Promise<Evidence> {
  const source = pullRequestEvidence({
    diff: startDiff({ cwd: dir, baseSha: pr.base, headSha: pr.head }),
    title: 't',
    body: '',
    maxTokens: 60_000,
    exclude: [],
    ...(order && { order })
  })
  return source.collect({ rubric: RUBRIC, trusted: true })
}

/**
 * The files of the diff the judges read, in order: by where each one's content (`// a.ts`, or the
 * doc's `# Guide`) first appears in it; the receipt lists them in the same order.
 */
function shownOrder(e: Evidence): string[] {
  const reviewed = e.receipt.reviewed.map(f => f.path)
  const at = (path: string): number =>
    e.diff.indexOf(path.endsWith('.md') ? '+# Guide' : `+// ${path}`)
  expect(reviewed.every(path => at(path) >= 0)).toBe(true)
  expect([...reviewed].sort((a, b) => at(a) - at(b))).toEqual(reviewed)
  return reviewed
}

describe('evidence-order', () => {
  it('least-recently-changed: the files the commits last touched earliest first, within each kind; the same files shown and counted as in git’s order', async () => {
    const pr = threePushes('origin')
    const dir = shallowCheckout(pr, 'clone')
    const byPath = await evidence(dir, pr)
    const byRecency = await evidence(dir, pr, 'least-recently-changed')

    // git quotes a non-ASCII name in the diff ("\303\274.ts"); the log names it as it is.
    const u = 'ü.ts'
    expect(shownOrder(byPath)).toEqual(['a.ts', 'b.ts', 'c.ts', u, 'docs/guide.md'])
    // b.ts and ü.ts last changed by push 1, a.ts by push 2, c.ts by push 3 whatever its date
    // says; the doc, a file of a later kind, after the source whenever it changed.
    expect(shownOrder(byRecency)).toEqual(['b.ts', u, 'a.ts', 'c.ts', 'docs/guide.md'])

    // Only the order differs: what is shown, and what counts, is the same.
    expect(byRecency.receipt.reviewed.map(f => f.path).sort()).toEqual(
      byPath.receipt.reviewed.map(f => f.path).sort()
    )
    expect(byRecency.receipt.ratio).toBe(1)
    expect(byRecency.receipt.omitted).toEqual(byPath.receipt.omitted)
    expect(byRecency.files).toEqual(byPath.files)
    const sections = (e: Evidence): string[] => e.diff.split(/(?=^diff --git )/m).sort()
    expect(sections(byRecency)).toEqual(sections(byPath))
  })

  it('a push that edits one file keeps the files before it where the last push had them', async () => {
    const pr = threePushes('origin-pushes')
    const dir = shallowCheckout(pr, 'clone-pushes')
    const third = await evidence(dir, pr, 'least-recently-changed')
    // A fourth push edits b.ts: what came before b.ts is unchanged, b.ts moves to the end of its kind.
    git(pr.origin, 'checkout', '-q', 'pr')
    write(pr.origin, 'b.ts', '// b.ts, fourth push\n')
    commitAll(pr.origin, 'push 4')
    const head = git(pr.origin, 'rev-parse', 'pr').trim()
    git(pr.origin, 'checkout', '-q', 'main')
    const fourth = await evidence(dir, { ...pr, head }, 'least-recently-changed')
    expect(shownOrder(third)).toEqual(['b.ts', 'ü.ts', 'a.ts', 'c.ts', 'docs/guide.md'])
    expect(shownOrder(fourth)).toEqual(['ü.ts', 'a.ts', 'c.ts', 'b.ts', 'docs/guide.md'])
    // The fourth push's diff repeats the third's from ü.ts to c.ts: a prompt cache serves it.
    const run = (e: Evidence): string =>
      e.diff.slice(e.diff.indexOf('diff --git "a/'), e.diff.indexOf('diff --git a/c.ts'))
    expect(run(third)).toContain('a.ts, second push')
    expect(run(fourth)).toBe(run(third))
  })
})

describe('lastChanges', () => {
  it('names files from the repository’s root whatever its config says, from any directory', async () => {
    const pr = threePushes('origin-config')
    for (const [key, value] of [
      ['diff.relative', 'true'],
      ['color.ui', 'always'],
      ['log.showSignature', 'true']
    ] as const) {
      git(pr.origin, 'config', key, value)
    }
    const sub = join(pr.origin, 'sub')
    mkdirSync(sub)
    const last = await lastChanges(sub, pr.base, pr.head)
    expect([...(last?.keys() ?? [])].sort()).toEqual([
      'a.ts',
      'b.ts',
      'c.ts',
      'docs/guide.md',
      'ü.ts'
    ])
  })

  it('is undefined when git cannot read the history, so the files keep git’s order', async () => {
    const pr = threePushes('origin-unread')
    expect(await lastChanges(pr.origin, 'f'.repeat(40), pr.head)).toBeUndefined()
  })

  it('reads a name that begins with a line end, and a commit with no file, as they are', async () => {
    const dir = join(root, 'odd-names')
    initRepo(dir)
    write(dir, 'x.ts', 'x\n')
    const base = commitAll(dir, 'base')
    write(dir, '\nlead.ts', 'a\n')
    commitAll(dir, 'odd name')
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'nothing')
    write(dir, 'x.ts', 'x2\n')
    const head = commitAll(dir, 'x again')
    const last = await lastChanges(dir, base, head)
    expect([...(last?.keys() ?? [])].sort()).toEqual(['\nlead.ts', 'x.ts'])
    expect(last?.get('\nlead.ts')).toBeLessThan(last?.get('x.ts') ?? 0)
  })
})
