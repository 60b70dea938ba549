import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/**
 * Git for building fixtures, isolated from the machine's configuration (no global or system
 * config, fixed identity and dates) so the repositories are the same everywhere.
 */
const FIXTURE_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Fixture',
  GIT_AUTHOR_EMAIL: 'fixture@example.com',
  GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'Fixture',
  GIT_COMMITTER_EMAIL: 'fixture@example.com',
  GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
  LC_ALL: 'C'
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: FIXTURE_ENV,
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
    stdio: ['pipe', 'pipe', 'pipe']
  })
}

/** Feeds a stream to `git fast-import`: hundreds of commits in one process. */
export function fastImport(cwd: string, stream: string): void {
  execFileSync('git', ['fast-import', '--quiet'], { cwd, env: FIXTURE_ENV, input: stream })
}

/** `count` empty commits on top of `branch`, in one fast-import. */
export function emptyCommits(cwd: string, branch: string, count: number, label: string): void {
  const parent = git(cwd, 'rev-parse', `refs/heads/${branch}`).trim()
  const commits = Array.from({ length: count }, (_, i) => {
    const message = `${label} ${i + 1}\n`
    return [
      `commit refs/heads/${branch}`,
      'committer Fixture <fixture@example.com> 1704067200 +0000',
      `data ${Buffer.byteLength(message)}`,
      message + (i === 0 ? `from ${parent}\n` : '')
    ].join('\n')
  })
  fastImport(cwd, commits.join('\n'))
}

export async function tempDir(name: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `rubric-council-${name}-`))
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true })
}

export function initRepo(dir: string): void {
  mkdirSync(dir, { recursive: true })
  git(dir, 'init', '-q', '-b', 'main')
}

export function write(
  dir: string,
  path: string,
  content: string | Buffer,
  executable = false
): void {
  const file = join(dir, path)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, content)
  if (executable) chmodSync(file, 0o755)
}

export function commitAll(dir: string, message: string): string {
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '--allow-empty', '-m', message)
  return git(dir, 'rev-parse', 'HEAD').trim()
}

/**
 * What actions/checkout does by default, in `dir`: the merge commit `merge` of `origin` alone,
 * depth 1, detached.
 */
export function shallowCheckoutOf(origin: string, merge: string, dir: string): string {
  initRepo(dir)
  git(dir, 'remote', 'add', 'origin', `file://${origin}`)
  git(dir, 'fetch', '-q', '--no-tags', '--depth=1', 'origin', `+${merge}:refs/remotes/pull/1/merge`)
  git(dir, 'checkout', '-q', '--detach', merge)
  return dir
}
