import { execFile } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { NEEDS_24, onNode20 } from './helpers/node20.js'

/**
 * On a Node older than 24, the CLI and the test suite stop at once with one line that names the
 * version needed, instead of failing later inside (Node 20: "Map.groupBy is not a function").
 * The older Node is played by the Node running the tests, with its version numbers replaced
 * before anything else loads.
 */

const ROOT = join(import.meta.dirname, '..')

/** npm's own script: the one `npm test` runs under, else the `npm` on PATH. */
function npmCli(): string {
  const fromNpm = process.env.npm_execpath
  if (fromNpm?.endsWith('npm-cli.js') === true) return fromNpm
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const candidate = join(dir, 'npm')
    if (existsSync(candidate)) return realpathSync(candidate)
  }
  throw new Error('npm is not on PATH: the test runs npm ci as a user would')
}

describe('on Node 20', () => {
  it('the CLI says which Node it needs, in one line, and stops', async () => {
    const result = await onNode20(['bin/rubric-council.js', '--version'], ROOT)
    expect(result).toMatchObject({ code: 2, stdout: '' })
    expect(result.stderr).toMatch(NEEDS_24)
    expect(result.stderr).toMatch(/^rubric-council needs/)
  })

  it('the test suite says which Node it needs, in one line, and stops', async () => {
    const result = await onNode20(['node_modules/vitest/vitest.mjs', 'run', '__tests__/util'], ROOT)
    expect(result).toMatchObject({ code: 2, stdout: '' })
    expect(result.stderr).toMatch(NEEDS_24)
    expect(result.stderr).toMatch(/^Rubric Council's test suite needs/)
  })

  it('npm ci stops at once with EBADENGINE, before it installs anything', async () => {
    // npm's own CLI, run by the pretend Node 20 on a copy of the manifest, the lock and .npmrc.
    const copy = mkdtempSync(join(tmpdir(), 'rc-npm-ci-'))
    for (const file of ['package.json', 'package-lock.json', '.npmrc'])
      copyFileSync(join(ROOT, file), join(copy, file))
    const result = await onNode20([npmCli(), 'ci', '--dry-run', '--offline'], copy)
    expect(result.code).not.toBe(0)
    expect(result.stderr).toMatch(/^npm error code EBADENGINE$/m)
    expect(result.stderr).toContain('Required: {"node":">=24"}')
    // Without engine-strict npm would go on and print one warning per package.
    expect(result.stderr).not.toContain('npm warn EBADENGINE')
    expect(result.stdout).not.toMatch(/^add /m)
    expect(existsSync(join(copy, 'node_modules'))).toBe(false)
  })

  it("the README's Usage opens with Node 24 and git, and each way to get Node 24 the CLI's line names", async () => {
    const { stderr } = await onNode20(['bin/rubric-council.js', '--version'], ROOT)
    const ways = [...stderr.matchAll(/"([^"]+)"/g)].map(m => m[1] ?? '')
    expect(ways.length).toBeGreaterThan(1)
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const opening = (/^## Usage\n\n([\s\S]*?)\n\n/m.exec(readme)?.[1] ?? '').replace(/\s+/g, ' ')
    expect(opening).toMatch(/^\*\*You need Node 24 or later, and git\.\*\* /)
    for (const way of ways) expect(opening).toContain(`\`${way}\``)
  })

  it('on this Node, the CLI runs', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['bin/rubric-council.js', '--version'],
      { cwd: ROOT }
    )
    expect(stdout).toMatch(/^\d+\.\d+\.\d+\n$/)
  })
})
