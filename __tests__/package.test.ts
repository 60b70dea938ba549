import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readPinFacts } from '../src/init/pin-facts.js'
import { VERSION } from '../src/version.js'

/**
 * The package as `npm pack` makes it, installed into an empty folder (with its runtime
 * dependencies, from npm's cache where it has them) and run with `npx`: its binary runs, and it
 * records the commit it was packed from, for `init`'s pin.
 */

const ROOT = join(import.meta.dirname, '..')
const base = mkdtempSync(join(tmpdir(), 'rc-package-'))
const user = join(base, 'user')
afterAll(() => {
  rmSync(base, { recursive: true, force: true })
})

/** No user or system git configuration, and a fixed identity. */
const env = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Package Test',
  GIT_AUTHOR_EMAIL: 'package@example.com',
  GIT_COMMITTER_NAME: 'Package Test',
  GIT_COMMITTER_EMAIL: 'package@example.com',
  OPENAI_API_KEY: '',
  ANTHROPIC_API_KEY: ''
}

function run(
  command: string,
  args: readonly string[],
  cwd = user
): { code: number | null; out: string; err: string } {
  const r = spawnSync(command, args, { cwd, env, encoding: 'utf8' })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

let tarball = ''
beforeAll(() => {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', base], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe']
    })
  ) as { filename: string; files: { path: string }[] }[]
  tarball = join(base, packed[0]?.filename ?? '')
  mkdirSync(user)
  writeFileSync(join(user, 'package.json'), '{ "name": "user", "private": true }\n')
  const install = run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball])
  expect(install, 'npm install').toMatchObject({ code: 0 })
}, 120_000)

describe('the npm package, installed into an empty folder', { timeout: 60_000 }, () => {
  it('installs with the runtime dependencies package.json declares', () => {
    const lock = JSON.parse(readFileSync(join(user, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>
    }
    const declared = Object.keys(
      (
        JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
          dependencies: Record<string, string>
        }
      ).dependencies
    )
    expect(declared.length).toBeGreaterThan(0)
    for (const name of ['rubric-council', ...declared])
      expect(Object.keys(lock.packages)).toContain(`node_modules/${name}`)
  })

  it('npx rubric-council --version prints the version', () => {
    expect(run('npx', ['--offline', 'rubric-council', '--version'])).toEqual({
      code: 0,
      out: `${VERSION}\n`,
      err: ''
    })
  })

  it('npx rubric-council validate checks a rubric', () => {
    copyFileSync(join(ROOT, 'examples/library-pr.md'), join(user, 'library-pr.md'))
    const r = run('npx', ['--offline', 'rubric-council', 'validate', 'library-pr.md'])
    expect(r.code, r.err).toBe(0)
    expect(r.out).toMatch(/^library-pr\.md: ok \(4 gates, 4 must-have/)
  })

  it('npx rubric-council check runs a gates-only rubric in a repository, no provider key needed', () => {
    writeFileSync(
      join(user, 'rubric.md'),
      '---\ntitle: Gates only\n---\n## Gates\n\n- `node --version`\n'
    )
    const git = (...args: string[]): void => {
      execFileSync('git', args, { cwd: user, env, stdio: 'ignore' })
    }
    git('init', '-q', '-b', 'main')
    git('add', 'rubric.md')
    git('commit', '-q', '-m', 'The rubric')
    git('checkout', '-q', '-b', 'feature')
    writeFileSync(join(user, 'feature.txt'), 'a feature\n')
    git('add', 'feature.txt')
    git('commit', '-q', '-m', 'A feature')
    const r = run('npx', [
      '--offline',
      'rubric-council',
      'check',
      '--rubric',
      'rubric.md',
      '--base',
      'main'
    ])
    expect(r.code, r.err).toBe(0)
    expect(r.out).toContain('PASS (exit 0) · gates 1/1')
  })

  it('records the commit it was packed from, which init pins the action to', () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, env, encoding: 'utf8' })
    const installed = join(user, 'node_modules', 'rubric-council')
    expect(JSON.parse(readFileSync(join(installed, 'commit.json'), 'utf8'))).toEqual({
      commit: head.trim()
    })
    // Installed inside the user's repository: its HEAD is not the package's.
    expect(readPinFacts(join(installed, 'bin'))).toMatchObject({
      packageRoot: installed,
      checkoutHead: undefined,
      packedCommit: head.trim()
    })
  })

  it('packing leaves no commit.json behind in the checkout', () => {
    expect(run('git', ['status', '--porcelain', '--ignored', '--', 'commit.json'], ROOT).out).toBe(
      ''
    )
  })
})
