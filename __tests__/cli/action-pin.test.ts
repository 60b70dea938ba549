import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { choosePin, usesPinned, type PinFacts } from '../../src/init/pin.js'
import { readPinFacts } from '../../src/init/pin-facts.js'
import { VERSION } from '../../src/version.js'

const A = '0123456789abcdef0123456789abcdef01234567'
const B = 'fedcba9876543210fedcba9876543210fedcba98'

const facts = (over: Partial<PinFacts>): PinFacts => ({
  version: '0.1.0',
  packageRoot: '/opt/rubric-council',
  checkoutHead: undefined,
  packedCommit: undefined,
  ...over
})

describe('the commit init pins the action to', () => {
  it('is the checkout’s HEAD, before any commit the package records', () => {
    expect(choosePin(facts({ checkoutHead: A, packedCommit: B }))).toEqual({
      ok: true,
      value: { commit: A, version: '0.1.0' }
    })
  })

  it('is the commit the package was packed from, without a checkout', () => {
    expect(choosePin(facts({ packedCommit: `${B.toUpperCase()}\n` }))).toEqual({
      ok: true,
      value: { commit: B, version: '0.1.0' }
    })
  })

  it('is never a short SHA, a ref name or a tag guessed from the version: then it says how to pin by hand', () => {
    for (const bad of [undefined, '', 'HEAD', A.slice(0, 12), `${A}0`, 'v0.1.0']) {
      const pin = choosePin(facts({ checkoutHead: bad, packedCommit: bad }))
      expect(pin).toEqual({
        ok: false,
        problem:
          'cannot tell which commit of Rubric Council this CLI is (/opt/rubric-council is no git ' +
          'checkout of it and records no commit), and the workflows must pin the action to one. Run ' +
          'init from a clone of https://github.com/rubric-council/rubric-council, or pin by hand: ' +
          'copy the workflows from its examples/workflows/ and put in each `uses:` line the full ' +
          'commit SHA of a release, which `git ls-remote https://github.com/rubric-council/rubric-council ' +
          "'refs/tags/v0.1.0^{}'` prints"
      })
    }
  })

  it('is written as a full SHA with the version as a comment, for the action and its gates', () => {
    const pin = { commit: A, version: '0.1.0' }
    expect(usesPinned(pin)).toBe(`rubric-council/rubric-council@${A} # v0.1.0`)
    expect(usesPinned(pin, '/gates')).toBe(`rubric-council/rubric-council/gates@${A} # v0.1.0`)
  })
})

describe('where the CLI comes from', () => {
  const env = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Pin Test',
    GIT_AUTHOR_EMAIL: 'pin@example.com',
    GIT_COMMITTER_NAME: 'Pin Test',
    GIT_COMMITTER_EMAIL: 'pin@example.com'
  }
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim()
  /** A git repository with one commit of `files`; its HEAD. */
  const repository = (dir: string, files: Record<string, string>): string => {
    mkdirSync(dir, { recursive: true })
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true })
      writeFileSync(join(dir, name), text)
    }
    git(dir, 'init', '-q')
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', 'one')
    return git(dir, 'rev-parse', 'HEAD')
  }
  const ours = '{"name":"rubric-council","version":"0.1.0"}\n'

  it('a clone of Rubric Council: its HEAD, found from a folder inside it', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'rc-pin-')), 'clone')
    const head = repository(dir, { 'package.json': ours, 'dist/cli/index.js': '' })
    expect(readPinFacts(join(dir, 'dist', 'cli'))).toEqual({
      version: VERSION,
      packageRoot: dir,
      checkoutHead: head,
      packedCommit: undefined
    })
  })

  it('a package installed in another project’s checkout: not that project’s HEAD, but the commit it records', () => {
    const project = mkdtempSync(join(tmpdir(), 'rc-pin-'))
    const root = join(project, 'node_modules', 'rubric-council')
    repository(project, {
      'package.json': '{"name":"someone-else"}\n',
      'node_modules/rubric-council/package.json': ours,
      'node_modules/rubric-council/commit.json': `{"commit":"${A}"}\n`
    })
    expect(readPinFacts(join(root, 'dist'))).toEqual({
      version: VERSION,
      packageRoot: root,
      checkoutHead: undefined,
      packedCommit: A
    })
  })

  it('package.json’s gitHead, when a tool wrote one, before commit.json', () => {
    const root = mkdtempSync(join(tmpdir(), 'rc-pin-'))
    writeFileSync(join(root, 'package.json'), `{"name":"rubric-council","gitHead":"${B}"}\n`)
    writeFileSync(join(root, 'commit.json'), `{"commit":"${A}"}\n`)
    expect(readPinFacts(root).packedCommit).toBe(B)
  })

  it('no package of Rubric Council above the code: nothing known', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-pin-'))
    writeFileSync(join(dir, 'package.json'), '{"name":"someone-else"}\n')
    const facts = readPinFacts(dir)
    expect(facts.packageRoot).toBeUndefined()
    expect(choosePin(facts).ok).toBe(false)
  })
})
