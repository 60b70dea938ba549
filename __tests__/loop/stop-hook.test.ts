import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * examples/agent/stop-hook.sh as Claude Code runs it: the hook's input as JSON on stdin, in the
 * project's directory; the CLI run from src/ through tsx in place of the installed one.
 */

const ROOT = join(import.meta.dirname, '..', '..')
const HOOK = join(ROOT, 'examples/agent/stop-hook.sh')
const CLI = `${process.execPath} --import ${pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href} ${join(ROOT, 'src/bin.ts')}`

/** A repository whose main branch has the rubric: the check reads it there, as the required check. */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rc-hook-'))
  mkdirSync(join(dir, '.github'))
  writeFileSync(join(dir, '.github/rubric.md'), '# Done\n\n## Gates\n- `test -f done.txt`\n')
  const git = (...args: string[]): void => {
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd: dir })
  }
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('commit', '-q', '-m', 'rubric')
  return dir
}

function stop(
  dir: string,
  session = 'abc-123',
  args: string[] = []
): { code: number | null; stderr: string } {
  const run = spawnSync('bash', [HOOK, ...args], {
    cwd: dir,
    input: JSON.stringify({ session_id: session, stop_hook_active: false }),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      RUBRIC_COUNCIL_CLI: CLI,
      RUBRIC_COUNCIL_MAX_ITERATIONS: '2'
    },
    encoding: 'utf8'
  })
  return { code: run.status, stderr: run.stderr }
}

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
    expect(existsSync(join(dir, '.rubric-council/stop-hook/abc-123'))).toBe(false)
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
    expect(existsSync(join(dir, '.rubric-council/stop-hook/default'))).toBe(true)
    expect(existsSync(join(dir, '..', 'escaped'))).toBe(false)
  })
})
