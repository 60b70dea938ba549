import { execFileSync, spawnSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * examples/agent/stop-hook.sh as Claude Code runs it: the hook's input as JSON on stdin, in the
 * project's directory; the CLI run from src/ through tsx in place of the installed one.
 */

const ROOT = join(import.meta.dirname, '..', '..')
const HOOK = join(ROOT, 'examples/agent/stop-hook.sh')
const CLI = `${process.execPath} --import ${pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href} ${join(ROOT, 'src/bin.ts')}`

/** A repository on `main` whose rubric's gate passes once `done.txt` exists; `files` committed too. */
function project(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'rc-hook-'))
  mkdirSync(join(dir, '.github'))
  writeFileSync(join(dir, '.github/rubric.md'), '# Done\n\n## Gates\n- `test -f done.txt`\n')
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), content)
  }
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', 'base')
  return dir
}

function git(dir: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd: dir,
    stdio: 'ignore'
  })
}

/**
 * The hook's run in `dir`; with a null session, its input has no `session_id`. `cli` stands in
 * for the CLI where only the hook's count is tested: `false` is a check that never passes.
 */
function stop(
  dir: string,
  session: string | null = 'abc-123',
  args: string[] = [],
  cli = CLI
): { code: number | null; stderr: string } {
  const run = spawnSync('bash', [HOOK, ...args], {
    cwd: dir,
    input: JSON.stringify({
      ...(session !== null && { session_id: session }),
      stop_hook_active: false
    }),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      RUBRIC_COUNCIL_CLI: cli,
      RUBRIC_COUNCIL_MAX_ITERATIONS: '2'
    },
    encoding: 'utf8'
  })
  return { code: run.status, stderr: run.stderr }
}

/** Where the hook keeps a session's count: under the git directory, out of every commit's reach. */
const COUNTERS = '.git/rubric-council/stop-hook'

describe('examples/agent/stop-hook.sh', () => {
  it('keeps the agent working while the rubric fails, with the reason, up to the limit', () => {
    const dir = project()
    const first = stop(dir)
    expect(first.code).toBe(2)
    expect(first.stderr).toContain('The rubric does not pass yet (check 1 of 2, exit 1)')
    expect(first.stderr).toContain('FAIL (exit 1)')
    expect(first.stderr).toContain('test -f done.txt')
    const second = stop(dir)
    expect(second.code).toBe(0)
    expect(second.stderr).toBe('rubric-council: no PASS after 2 checks; letting the agent stop\n')
  })

  it('lets the agent stop once the rubric passes', () => {
    const dir = project()
    expect(stop(dir).code).toBe(2)
    writeFileSync(join(dir, 'done.txt'), '')
    expect(stop(dir)).toEqual({ code: 0, stderr: '' })
    expect(existsSync(join(dir, COUNTERS, 'abc-123'))).toBe(false)
  })

  it('hands the agent the reason when the check cannot run at all', () => {
    const run = stop(project(), 'abc-123', ['--rubric', 'missing.md'])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('The rubric does not pass yet (check 1 of 2, exit 2)')
    expect(run.stderr).toContain('missing.md: error: rubric file not found')
  })

  it('never uses a session id from its input as a path', () => {
    const dir = project()
    expect(stop(dir, '../../escaped').code).toBe(2)
    expect(readFileSync(join(dir, COUNTERS, 'default'), 'utf8')).toBe('1\n')
    expect(existsSync(join(dir, '..', 'escaped'))).toBe(false)
  })

  it('reads a counter as data: a number or 0, never evaluated, wherever it comes from', () => {
    // Bash arithmetic on `max[$(touch PWNED)]` runs `touch PWNED`; committed as the counter the
    // hook once kept in the working tree, directly and through a link.
    const hostile = 'max[$(touch PWNED)]\n'
    const dir = project({
      '.rubric-council/stop-hook/default': hostile,
      'notes/counter.txt': hostile
    })
    symlinkSync('../../notes/counter.txt', join(dir, '.rubric-council/stop-hook/abc-123'))
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', 'links')
    mkdirSync(join(dir, COUNTERS), { recursive: true })
    writeFileSync(join(dir, COUNTERS, 'default'), hostile)

    const first = stop(dir, null, [], 'false')
    expect(existsSync(join(dir, 'PWNED'))).toBe(false)
    expect(first.code).toBe(2)
    expect(first.stderr).toContain(
      `rubric-council: ${COUNTERS}/default does not hold a number; counting from 0`
    )
    expect(first.stderr).toContain('The rubric does not pass yet (check 1 of 2, exit 1)')
    expect(stop(dir, 'abc-123', [], 'false').stderr).toContain('(check 1 of 2, exit 1)')
    expect(stop(dir, null, [], 'false').stderr).toBe(
      'rubric-council: no PASS after 2 checks; letting the agent stop\n'
    )
    expect(existsSync(join(dir, 'PWNED'))).toBe(false)
    expect(readFileSync(join(dir, 'notes/counter.txt'), 'utf8')).toBe(hostile)
  })

  it('writes nothing through a link the repository commits', () => {
    const outside = mkdtempSync(join(tmpdir(), 'rc-hook-outside-'))
    const linkedFolder = project()
    symlinkSync(outside, join(linkedFolder, '.rubric-council'))
    git(linkedFolder, 'add', '-A')
    git(linkedFolder, 'commit', '-q', '-m', 'a linked folder')
    expect(stop(linkedFolder, null, [], 'false').code).toBe(2)
    expect(readdirSync(outside)).toEqual([])

    const linkedCounter = project()
    mkdirSync(join(linkedCounter, '.rubric-council/stop-hook'), { recursive: true })
    symlinkSync('../../.git/config', join(linkedCounter, '.rubric-council/stop-hook/default'))
    git(linkedCounter, 'add', '-A')
    git(linkedCounter, 'commit', '-q', '-m', 'a linked counter')
    const config = readFileSync(join(linkedCounter, '.git/config'), 'utf8')
    expect(stop(linkedCounter, null, [], 'false').code).toBe(2)
    expect(readFileSync(join(linkedCounter, '.git/config'), 'utf8')).toBe(config)
    expect(readFileSync(join(linkedCounter, COUNTERS, 'default'), 'utf8')).toBe('1\n')
  })

  it('removes a link where it keeps its count, and follows none', () => {
    const dir = project()
    const outside = mkdtempSync(join(tmpdir(), 'rc-hook-outside-'))
    writeFileSync(join(outside, 'target'), 'keep\n')
    symlinkSync(outside, join(dir, '.git/rubric-council'))
    const folder = stop(dir, 'abc-123', [], 'false')
    expect(folder.code).toBe(2)
    expect(folder.stderr).toContain(
      'rubric-council: .git/rubric-council is a symbolic link: removed, not followed'
    )
    expect(readdirSync(outside)).toEqual(['target'])

    symlinkSync(join(outside, 'target'), join(dir, COUNTERS, 'next'))
    const counter = stop(dir, 'next', [], 'false')
    expect(counter.stderr).toContain(`rubric-council: ${COUNTERS}/next is a symbolic link`)
    expect(counter.stderr).toContain('(check 1 of 2, exit 1)')
    expect(readFileSync(join(outside, 'target'), 'utf8')).toBe('keep\n')
    expect(readFileSync(join(dir, COUNTERS, 'next'), 'utf8')).toBe('1\n')
  })

  it('outside a git repository, says it cannot count and lets the agent stop', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-hook-'))
    expect(stop(dir, 'abc-123', [], 'false')).toEqual({
      code: 0,
      stderr:
        'rubric-council: not in a git repository, so the Stop hook cannot count checks; letting the agent stop\n'
    })
    expect(readdirSync(dir)).toEqual([])
  })
})
