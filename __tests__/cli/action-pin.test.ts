import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { choosePin, pinSource, usesPinned, type PinFacts } from '../../src/init/pin.js'
import { readPinFacts } from '../../src/init/pin-facts.js'
import { pinSentence } from '../../src/init/sentences.js'
import { VERSION } from '../../src/version.js'

const A = '0123456789abcdef0123456789abcdef01234567'
const B = 'fedcba9876543210fedcba9876543210fedcba98'

const facts = (over: Partial<PinFacts>): PinFacts => ({
  version: '0.1.0',
  packageRoot: '/opt/rubric-council',
  checkoutHead: undefined,
  packedCommit: undefined,
  releaseTags: [],
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
const ours = '{"name":"rubric-council","version":"0.1.0"}\n'

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

describe('where the CLI comes from', () => {
  it('a clone of Rubric Council: its HEAD, found from a folder inside it', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'rc-pin-')), 'clone')
    const head = repository(dir, { 'package.json': ours, 'dist/cli/index.js': '' })
    expect(readPinFacts(join(dir, 'dist', 'cli'))).toEqual({
      version: VERSION,
      packageRoot: dir,
      checkoutHead: head,
      packedCommit: undefined,
      releaseTags: []
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
      packedCommit: A,
      releaseTags: []
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

/** A new commit in `dir` (one file more); its id. */
function commit(dir: string, name: string): string {
  writeFileSync(join(dir, name), `${name}\n`)
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', name)
  return git(dir, 'rev-parse', 'HEAD')
}

/**
 * A release commit of `source`, as scripts/release.ts makes one: its action.yml, dist/ but the
 * CLI's, and LICENSE, in a commit whose parent is `source`; built through an index of its own.
 */
function releaseCommit(dir: string, source: string): string {
  const index = join(mkdtempSync(join(tmpdir(), 'rc-pin-index-')), 'index')
  const withIndex = { ...env, GIT_INDEX_FILE: index }
  const run = (...args: string[]): string =>
    execFileSync('git', args, { cwd: dir, env: withIndex, encoding: 'utf8' }).trim()
  run('read-tree', source)
  const drop = run('ls-files')
    .split('\n')
    .filter(f => !['action.yml', 'LICENSE', 'dist/index.js'].includes(f))
  run('rm', '-q', '--cached', ...drop)
  return run('commit-tree', run('write-tree'), '-p', source, '-m', 'release')
}

/** What init would say of a clone at `dir`, from the facts it reads there. */
function said(dir: string): string {
  const facts = readPinFacts(dir)
  const pin = choosePin(facts)
  if (!pin.ok) throw new Error(pin.problem)
  return pinSentence(pinSource(facts, pin.value), pin.value.commit)
}

describe('whether the pinned commit is a release, from the clone’s tags', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'rc-pin-')), 'clone')
  const first = repository(dir, { 'package.json': ours })

  it('a clone with no release tag: its HEAD, which is no release, and how to get the tags', () => {
    git(dir, 'tag', 'latest')
    git(dir, 'tag', 'v0.1.0-rc.1')
    expect(said(dir)).toBe(
      `The workflows pin the action to ${first}, the HEAD of ${dir}, which is no release: GitHub ` +
        'has it only if it was pushed there.\nThis checkout has no release tag (vX.Y.Z): to pin a ' +
        `release, get the tags (git -C ${dir} fetch --tags), check out the newest, then run this ` +
        'init again with --force (it keeps the rubric).'
    )
  })

  it('a HEAD past the releases: no release, and the latest release tag (by version, annotated or not) with how to pin it', () => {
    git(dir, 'tag', '--annotate', 'v0.9.0', '--message', 'Rubric Council v0.9.0')
    const second = commit(dir, 'two')
    git(dir, 'tag', 'v0.10.0')
    const head = commit(dir, 'three')
    expect(readPinFacts(dir).releaseTags).toEqual(
      expect.arrayContaining([
        { tag: 'v0.9.0', commit: first, ofHead: false, checkout: 'v0.9.0' },
        { tag: 'v0.10.0', commit: second, ofHead: false, checkout: 'v0.10.0' }
      ])
    )
    expect(readPinFacts(dir).releaseTags).toHaveLength(2)
    expect(said(dir)).toBe(
      `The workflows pin the action to ${head}, the HEAD of ${dir}, which is no release: GitHub ` +
        'has it only if it was pushed there.\nTo pin the latest release here, v0.10.0, check it out ' +
        `(git -C ${dir} checkout v0.10.0), then run this init again with --force (it keeps the rubric).`
    )
  })

  it('a HEAD a release tag names: that release’s commit, and a newer release when there is one', () => {
    git(dir, 'checkout', '-q', 'v0.9.0')
    expect(said(dir)).toBe(
      `The workflows pin the action to ${first}, the release v0.9.0.\nv0.10.0 is newer: to pin it, ` +
        `check it out (git -C ${dir} checkout v0.10.0), then run this init again with --force ` +
        '(it keeps the rubric).'
    )
    git(dir, 'checkout', '-q', 'v0.10.0')
    expect(said(dir)).toBe(
      `The workflows pin the action to ${readPinFacts(dir).checkoutHead ?? ''}, the release v0.10.0.`
    )
  })

  it('a release commit of HEAD (its action, bundles and licences alone): pins it, says the release, and how to check out a newer one', () => {
    writeFileSync(join(dir, 'action.yml'), 'runs:\n  using: node24\n  main: dist/index.js\n')
    mkdirSync(join(dir, 'dist/cli'), { recursive: true })
    writeFileSync(join(dir, 'dist/index.js'), '// the action\n')
    writeFileSync(join(dir, 'dist/cli/index.js'), '// the CLI\n')
    writeFileSync(join(dir, 'LICENSE'), 'MIT\n')
    const source = commit(dir, 'four')
    const release = (from: string, tag: string): string => {
      const r = releaseCommit(dir, from)
      git(dir, 'tag', '--annotate', tag, '--message', `Rubric Council ${tag}`, r)
      return r
    }
    const v011 = release(source, 'v0.11.0')
    expect(said(dir)).toBe(`The workflows pin the action to ${v011}, the release v0.11.0.`)
    const pin = choosePin(readPinFacts(dir))
    expect(pin.ok && usesPinned(pin.value)).toBe(`rubric-council/rubric-council@${v011} # v0.11.0`)
    // A newer release, built from a later commit: named, with the commit to check out to pin it.
    writeFileSync(join(dir, 'dist/index.js'), '// the action, fixed\n')
    const fixed = commit(dir, 'five')
    release(fixed, 'v0.12.0')
    git(dir, 'checkout', '-q', source)
    expect(said(dir)).toBe(
      `The workflows pin the action to ${v011}, the release v0.11.0.\nv0.12.0 is newer: to pin it, ` +
        `check it out (git -C ${dir} checkout 'v0.12.0^'), then run this init again with --force ` +
        '(it keeps the rubric).'
    )
    git(dir, 'checkout', '-q', 'v0.12.0^')
    expect(said(dir)).toMatch(
      /^The workflows pin the action to [0-9a-f]{40}, the release v0\.12\.0\.$/
    )
  })

  it('a tag on a release-like commit whose bundle is not HEAD’s: never pinned, HEAD is', () => {
    // The clone's HEAD is the source of v0.12.0; a tag naming other code of the same shape.
    const head = git(dir, 'rev-parse', 'HEAD')
    writeFileSync(join(dir, 'dist/index.js'), '// something else\n')
    const other = commit(dir, 'six')
    git(dir, 'tag', 'v0.99.0', releaseCommit(dir, other))
    git(dir, 'checkout', '-q', head)
    const facts = readPinFacts(dir)
    expect(facts.releaseTags.find(t => t.tag === 'v0.99.0')?.ofHead).toBe(false)
    const pin = choosePin(facts)
    expect(pin.ok && pin.value.commit).toBe(git(dir, 'rev-parse', 'v0.12.0^{commit}'))
    expect(said(dir)).toContain(
      `v0.99.0 is newer: to pin it, check it out (git -C ${dir} checkout 'v0.99.0^')`
    )
  })

  it('a package, not a clone: the commit it was packed from, and how to compare it with the release', () => {
    const facts: PinFacts = {
      version: '0.1.0',
      packageRoot: '/opt/rubric-council',
      checkoutHead: undefined,
      packedCommit: A,
      releaseTags: []
    }
    const pin = choosePin(facts)
    expect(pin.ok && pinSentence(pinSource(facts, pin.value), pin.value.commit)).toBe(
      `The workflows pin the action to ${A}, the commit this package, version 0.1.0, was packed ` +
        'from.\nThe release v0.1.0 is the commit that git ls-remote ' +
        "https://github.com/rubric-council/rubric-council 'refs/tags/v0.1.0^{}' prints: it holds " +
        'only the files a job runs, the smaller download, and its parent is the commit the release ' +
        'was built from. If that parent is this one, the uses: lines should name the release ' +
        'commit instead; if not, this package is no release.'
    )
  })
})

/**
 * `init` run as a user runs it from a clone: the built CLI (bin/ and dist/) in a git repository of
 * its own, writing the workflows into a project beside it.
 */
describe('init from a clone of the built CLI', () => {
  const ROOT = join(import.meta.dirname, '..', '..')
  const base = mkdtempSync(join(tmpdir(), 'rc-pin-clone-'))
  const clone = join(base, 'rubric-council')
  const project = join(base, 'project')
  cpSync(join(ROOT, 'bin'), join(clone, 'bin'), { recursive: true })
  cpSync(join(ROOT, 'dist'), join(clone, 'dist'), { recursive: true })
  const head = repository(clone, {
    'package.json': readFileSync(join(ROOT, 'package.json'), 'utf8')
  })
  // The project's own tags say nothing of Rubric Council's commits: a v9.9.9 on its HEAD is ignored.
  repository(project, { 'package.json': '{}' })
  git(project, 'tag', 'v9.9.9')

  const init = (...args: string[]): string =>
    execFileSync(process.execPath, [join(clone, 'bin', 'rubric-council.js'), 'init', ...args], {
      cwd: project,
      env,
      encoding: 'utf8'
    })
  const pinnedIn = (file: string): string[] =>
    [...readFileSync(join(project, file), 'utf8').matchAll(/rubric-council@([0-9a-f]{40})/g)].map(
      m => m[1] ?? ''
    )

  it('pins the clone’s HEAD, and says it is no release', { timeout: 60_000 }, () => {
    const out = init()
    expect(out).toContain(
      `The workflows pin the action to ${head}, the HEAD of ${clone}, which is no release`
    )
    expect(out).not.toContain('v9.9.9')
    expect(new Set(pinnedIn('.github/workflows/rubric-council.yml'))).toEqual(new Set([head]))
  })

  it(
    'at a release tag, pins it and says the release; past it, names it and how to pin it',
    { timeout: 60_000 },
    () => {
      git(clone, 'tag', '--annotate', 'v0.1.0', '--message', 'Rubric Council v0.1.0')
      expect(init('--force')).toContain(
        `The workflows pin the action to ${head}, the release v0.1.0.\n`
      )
      const next = commit(clone, 'NEXT')
      const out = init('--force')
      expect(out).toContain(
        `The workflows pin the action to ${next}, the HEAD of ${clone}, which is no release: GitHub ` +
          'has it only if it was pushed there.\nTo pin the latest release here, v0.1.0, check it out ' +
          `(git -C ${clone} checkout v0.1.0), then run this init again with --force (it keeps the rubric).`
      )
      expect(new Set(pinnedIn('.github/workflows/rubric-council.yml'))).toEqual(new Set([next]))
    }
  )
})
