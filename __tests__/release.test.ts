import { Evaluator, Lexer, Parser, data } from '@actions/expressions'
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parse } from 'yaml'
import { afterAll, describe, expect, it } from 'vitest'
import {
  changelogSection,
  parseVersion,
  prepareChangelog,
  ReleaseError,
  releaseNotes
} from '../scripts/release.js'
import { condition, type WorkflowStep } from './helpers/workflow-runner.js'

/**
 * The release script, run as the workflow runs it (`tsx scripts/release.ts`), on a temporary git
 * repository with a CHANGELOG, a package.json whose `bundle` builds dist/ and gates/dist/, and a
 * bare repository as its origin: tags are created, the major tag moves, refusals leave no tag.
 */

const ROOT = join(import.meta.dirname, '..')
const SCRIPT = join(ROOT, 'scripts/release.ts')
const TSX = join(ROOT, 'node_modules/.bin/tsx')
const REPO_URL = 'https://github.com/example/action'

const base = mkdtempSync(join(tmpdir(), 'rc-release-'))
afterAll(() => {
  rmSync(base, { recursive: true, force: true })
})
const work = join(base, 'work')
const origin = join(base, 'origin.git')

/** Git's environment: a fixed identity, and no user or system configuration (signing, hooks). */
const env = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Release Test',
  GIT_AUTHOR_EMAIL: 'release@example.com',
  GIT_COMMITTER_NAME: 'Release Test',
  GIT_COMMITTER_EMAIL: 'release@example.com'
}

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: work, env, encoding: 'utf8' }).trim()
}

function write(path: string, text: string): void {
  mkdirSync(dirname(join(work, path)), { recursive: true })
  writeFileSync(join(work, path), text)
}

function commit(message: string): void {
  git('add', '-A')
  git('commit', '-q', '-m', message)
}

/** The script's exit code and what it printed. */
function release(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(TSX, [SCRIPT, ...args], { cwd: work, env, encoding: 'utf8' })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

/** Tags as `name object-type commit`, sorted; in the working repository or in origin. */
function tags(where: 'local' | 'origin' = 'local'): Record<string, string> {
  const dir = where === 'local' ? work : origin
  const out = execFileSync(
    'git',
    ['for-each-ref', '--format=%(refname:short) %(objecttype) %(*objectname)', 'refs/tags'],
    { cwd: dir, env, encoding: 'utf8' }
  ).trim()
  return Object.fromEntries(
    out
      .split('\n')
      .filter(l => l !== '')
      .map(l => {
        const [name = '', type = '', target = ''] = l.split(' ')
        return [name, `${type} ${target}`]
      })
  )
}

const BUILD = `import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
const source = readFileSync('src/index.js', 'utf8')
for (const dir of ['dist', 'gates/dist', 'dist/cli']) {
  mkdirSync(dir, { recursive: true })
  writeFileSync(dir + '/index.js', '// built\\n' + source)
  writeFileSync(dir + '/licenses.txt', 'none\\n')
}
`

/** What the release commit holds: the actions, their bundles, the licences; no source, no CLI. */
const RELEASE_FILES = [
  'LICENSE',
  'action.yml',
  'dist/index.js',
  'dist/licenses.txt',
  'gates/action.yml',
  'gates/dist/index.js',
  'gates/dist/licenses.txt'
]

/** The release commit a tag names, checked: its one parent is `source`, its tree the release's. */
function releaseCommit(tag: string, source: string): string {
  const commit = git('rev-parse', `${tag}^{commit}`)
  expect(git('rev-list', '--parents', '-n', '1', commit)).toBe(`${commit} ${source}`)
  expect(git('ls-tree', '-r', '--name-only', commit).split('\n')).toEqual(RELEASE_FILES)
  return commit
}

const CHANGELOG = `# Changelog

Notes on every release.

## Unreleased

### Added

- The first feature.
- The second feature.
`

function setUp(): void {
  mkdirSync(work, { recursive: true })
  execFileSync('git', ['init', '-q', '--bare', origin], { env })
  git('init', '-q', '-b', 'main')
  git('remote', 'add', 'origin', origin)
  write(
    'package.json',
    `${JSON.stringify(
      {
        name: 'action',
        version: '0.1.0',
        private: true,
        repository: { type: 'git', url: `git+${REPO_URL}.git` },
        // As in this repository's package.json, with the paths of this checkout.
        scripts: { bundle: 'node build.mjs', release: `${TSX} ${SCRIPT} tag` }
      },
      null,
      2
    )}\n`
  )
  write('build.mjs', BUILD)
  write('src/index.js', "console.log('one')\n")
  write('src/version.ts', "export const VERSION = '0.1.0'\n")
  write('CHANGELOG.md', CHANGELOG)
  write('LICENSE', 'MIT\n')
  write('action.yml', 'name: Action\nruns:\n  using: node24\n  main: dist/index.js\n')
  write('gates/action.yml', 'name: Gates\nruns:\n  using: node24\n  main: dist/index.js\n')
  execFileSync('node', ['build.mjs'], { cwd: work, env })
  commit('The first commit')
  git('push', '-q', 'origin', 'main')
}

describe('the release script on a temporary repository', { timeout: 120_000 }, () => {
  const notes = join(base, 'notes.md')

  it('refuses a version the CHANGELOG has no section for, and tags nothing', () => {
    setUp()
    const r = release('tag', '0.1.0', '--notes', notes)
    expect(r.code).toBe(1)
    expect(r.err).toContain('CHANGELOG.md has no section "## [0.1.0] - YYYY-MM-DD"')
    expect(r.err).toContain('npm run release:prepare -- 0.1.0')
    expect(tags()).toEqual({})
  })

  it('prepare turns Unreleased into the version section and leaves an empty Unreleased', () => {
    const r = release('prepare', '0.1.0', '--date', '2026-11-23')
    expect(r.code, r.err).toBe(0)
    expect(readFileSync(join(work, 'CHANGELOG.md'), 'utf8')).toBe(
      CHANGELOG.replace('## Unreleased\n', '## Unreleased\n\n## [0.1.0] - 2026-11-23\n').concat(
        `\n[0.1.0]: ${REPO_URL}/releases/tag/v0.1.0\n`
      )
    )
    commit('Release 0.1.0')
  })

  it('refuses uncommitted changes in dist/, and tags nothing', () => {
    write('dist/index.js', '// edited by hand\n')
    const r = release('tag', '0.1.0', '--notes', notes)
    expect(r.code).toBe(1)
    expect(r.err).toContain('uncommitted changes')
    expect(r.err).toContain('dist/index.js')
    expect(tags()).toEqual({})
    git('checkout', '--', 'dist')
  })

  it('refuses a committed dist/ that the source no longer builds, and tags nothing', () => {
    write('src/index.js', "console.log('two')\n")
    commit('Change the source but not dist/')
    const r = release('tag', '0.1.0', '--notes', notes)
    expect(r.code).toBe(1)
    expect(r.err).toContain('dist/ differs from what the source builds')
    expect(r.err).toContain('gates/dist/index.js')
    expect(tags()).toEqual({})
    commit('Rebuild dist/')
  })

  it('--dry-run prints the release archive and leaves no tag, ref, object or file behind', () => {
    const refs = git('for-each-ref')
    const out = join(base, 'dry-run')
    const r = release('tag', '--dry-run', '--out', out)
    expect(r.code, r.err).toBe(0)
    expect(Number(/^release archive: (\d+) bytes/m.exec(r.out)?.[1])).toBeLessThanOrEqual(1_200_000)
    expect(git('for-each-ref')).toBe(refs)
    expect(git('status', '--porcelain')).toBe('')
    const tree = /^The release tree ([0-9a-f]{40}) /m.exec(r.out)?.[1] ?? ''
    expect(spawnSync('git', ['cat-file', '-e', tree], { cwd: work, env }).status).toBe(1)
    expect(
      execFileSync('find', ['.', '-type', 'f'], { cwd: out, encoding: 'utf8' })
        .split('\n')
        .filter(f => f !== '')
        .map(f => f.slice(2))
        .sort()
    ).toEqual(RELEASE_FILES)
  })

  it('refuses a release tree over 1.2 MB gzipped, or missing a file a bundle imports; tags nothing', () => {
    // Random bytes do not compress: 1.3 MB of them stay over the budget.
    write('dist/chunks/big.js', randomBytes(1_300_000).toString('base64'))
    commit('A large chunk')
    const big = release('tag', '--dry-run')
    expect(big.code).toBe(1)
    expect(big.err).toMatch(/release archive: \d+ bytes gzipped, over its budget of 1200000 bytes/)
    git('rm', '-q', 'dist/chunks/big.js')
    write('gates/dist/index.js', 'import "../../dist/chunks/gone.js"\n')
    commit('A bundle that imports a chunk that is not there')
    const lacking = release('tag', '--dry-run')
    expect(lacking.code).toBe(1)
    expect(lacking.err).toContain(
      'The release tree lacks what a job reads:\n  dist/chunks/gone.js (imported by gates/dist/index.js)'
    )
    expect(tags()).toEqual({})
    git('reset', '-q', '--hard', 'HEAD~2')
  })

  let first = ''
  it('0.1.0: tags v0.1.0 (annotated), points v0 at it, pushes both, writes the notes', () => {
    const r = release('tag', '0.1.0', '--notes', notes, '--push', 'origin')
    expect(r.code, r.err).toBe(0)
    const released = releaseCommit('v0.1.0', git('rev-parse', 'HEAD'))
    expect(r.out).toMatch(/^release archive: \d+ bytes$/m)
    expect(tags()).toEqual({ 'v0.1.0': `tag ${released}`, v0: `tag ${released}` })
    expect(tags('origin')).toEqual(tags())
    expect(git('cat-file', '-p', 'v0.1.0')).toContain('Rubric Council v0.1.0')
    expect(readFileSync(notes, 'utf8')).toBe(
      '### Added\n\n- The first feature.\n- The second feature.\n'
    )
    first = git('rev-parse', 'v0.1.0')
  })

  it('0.2.0: tags v0.2.0 and moves v0 to it, here and in origin; v0.1.0 stays', () => {
    const changelog = readFileSync(join(work, 'CHANGELOG.md'), 'utf8')
    write(
      'CHANGELOG.md',
      changelog.replace('## Unreleased\n', '## Unreleased\n\n- A fix, its line\n  wrapped.\n')
    )
    write('src/index.js', "console.log('three')\n")
    execFileSync('node', ['build.mjs'], { cwd: work, env })
    commit('A fix')
    expect(release('prepare', '0.2.0', '--date', '2026-12-01').code).toBe(0)
    expect(JSON.parse(readFileSync(join(work, 'package.json'), 'utf8'))).toMatchObject({
      version: '0.2.0'
    })
    expect(readFileSync(join(work, 'src/version.ts'), 'utf8')).toBe(
      "export const VERSION = '0.2.0'\n"
    )
    const prepared = readFileSync(join(work, 'CHANGELOG.md'), 'utf8')
    expect(prepared).toContain(
      '## Unreleased\n\n## [0.2.0] - 2026-12-01\n\n- A fix, its line\n  wrapped.\n\n## [0.1.0]'
    )
    expect(prepared).toMatch(
      new RegExp(
        `\\[0\\.2\\.0\\]: ${REPO_URL}/compare/v0\\.1\\.0\\.\\.\\.v0\\.2\\.0\\n\\[0\\.1\\.0\\]: `
      )
    )
    commit('Release 0.2.0')

    const r = release('tag', '0.2.0', '--notes', notes, '--push', 'origin')
    expect(r.code, r.err).toBe(0)
    const released = releaseCommit('v0.2.0', git('rev-parse', 'HEAD'))
    const before = tags()
    expect(before).toMatchObject({ 'v0.2.0': `tag ${released}`, v0: `tag ${released}` })
    expect(before['v0.1.0']).not.toBe(`tag ${released}`)
    expect(git('rev-parse', 'v0.1.0')).toBe(first)
    expect(tags('origin')).toEqual(before)
    // One line per item: GitHub shows every newline of a release's body as a line break.
    expect(readFileSync(notes, 'utf8')).toBe('- A fix, its line wrapped.\n')
  })

  it('0.1.1 on a maintenance branch: tags v0.1.1 and leaves v0 at the newer v0.2.0', () => {
    const before = tags()
    // A maintenance branch starts at the commit the release was built from.
    git('checkout', '-q', '-b', 'maintenance', 'v0.1.0^')
    const changelog = readFileSync(join(work, 'CHANGELOG.md'), 'utf8')
    write('CHANGELOG.md', changelog.replace('## Unreleased\n', '## Unreleased\n\n- A backport.\n'))
    commit('A backport')
    expect(release('prepare', '0.1.1', '--date', '2026-12-02').code).toBe(0)
    expect(readFileSync(join(work, 'CHANGELOG.md'), 'utf8')).toContain(
      `[0.1.1]: ${REPO_URL}/compare/v0.1.0...v0.1.1\n[0.1.0]: `
    )
    commit('Release 0.1.1')
    const r = release('tag', '0.1.1', '--notes', notes, '--push', 'origin')
    expect(r.code, r.err).toBe(0)
    expect(r.out).toContain('Left v0 alone: v0.2.0 is newer')
    const released = releaseCommit('v0.1.1', git('rev-parse', 'HEAD'))
    expect(tags()).toEqual({ ...before, 'v0.1.1': `tag ${released}` })
    expect(tags('origin')).toEqual(tags())
    git('checkout', '-q', 'main')
  })

  it('refuses to tag a version twice', () => {
    const before = tags()
    const r = release('tag', '0.2.0', '--notes', notes)
    expect(r.code).toBe(1)
    expect(r.err).toContain('v0.2.0 exists already')
    expect(tags()).toEqual(before)
  })

  it('refuses what is not a version, and a package.json that says another one', () => {
    expect(release('tag', '1.0', '--notes', notes).err).toContain('"1.0" is not a release version')
    const r = release('tag', '0.3.0', '--notes', notes)
    expect(r.code).toBe(1)
    expect(r.err).toContain('package.json says 0.2.0, not 0.3.0')
  })
})

// After the tests above, on the repository they leave (v0.1.0, v0.2.0, v0.1.1 released).
describe('release.yml, its steps run on the same repository', { timeout: 120_000 }, () => {
  const workflow = parse(readFileSync(join(ROOT, '.github/workflows/release.yml'), 'utf8')) as {
    jobs: Record<string, { if: string; steps: WorkflowStep[] }>
  }
  const [job] = Object.values(workflow.jobs)
  const TOKEN = 'ghs_release_token_0001'
  const REPOSITORY = 'rubric-council/rubric-council'

  it('runs only from main', () => {
    const on = (ref: string): boolean =>
      condition(job?.if, { github: { ref }, secrets: {}, steps: {}, env: {}, jobFailed: false })
    expect(on('refs/heads/main')).toBe(true)
    expect(on('refs/heads/feature')).toBe(false)
    expect(on('refs/tags/v0.1.0')).toBe(false)
  })

  it('0.3.0: tags and pushes v0.3.0, moves v0, and creates the release with the notes', () => {
    const changelog = readFileSync(join(work, 'CHANGELOG.md'), 'utf8')
    write('CHANGELOG.md', changelog.replace('## Unreleased\n', '## Unreleased\n\n- More.\n'))
    commit('More')
    expect(release('prepare', '0.3.0', '--date', '2026-12-03').code).toBe(0)
    commit('Release 0.3.0')
    // GitHub's address, as the workflow pushes to it, leads to the bare origin here.
    git(
      'config',
      `url.${origin}.insteadOf`,
      `https://x-access-token:${TOKEN}@github.com/${REPOSITORY}.git`
    )
    // gh records what it was asked, with the notes file and the token it was given.
    const bin = join(base, 'bin')
    const ghLog = join(base, 'gh.log')
    mkdirSync(bin, { recursive: true })
    writeFileSync(
      join(bin, 'gh'),
      `#!/usr/bin/env bash\nset -e\n{ echo "token=$GH_TOKEN"; echo "args=$*"; while [ $# -gt 0 ]; do [ "$1" = --notes-file ] && cat "$2"; shift; done; } > ${JSON.stringify(ghLog)}\n`,
      { mode: 0o755 }
    )
    const runnerTemp = mkdtempSync(join(base, 'runner-temp-'))

    const steps = (job?.steps ?? []).filter(
      s => s.name === 'Check, tag and push' || s.name === 'Publish the GitHub release'
    )
    expect(steps).toHaveLength(2)
    const dictionary = { inputs: { version: '0.3.0' }, github: { token: TOKEN } }
    for (const step of steps) {
      const stepEnv = Object.fromEntries(
        Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(String(v), dictionary)])
      )
      const r = spawnSync('bash', ['-e', '-c', step.run ?? ''], {
        cwd: work,
        encoding: 'utf8',
        env: {
          ...env,
          ...stepEnv,
          PATH: `${bin}:${process.env.PATH ?? ''}`,
          RUNNER_TEMP: runnerTemp,
          GITHUB_REPOSITORY: REPOSITORY
        }
      })
      expect(r.status, `${step.name ?? ''}:\n${r.stdout}${r.stderr}`).toBe(0)
    }

    const released = releaseCommit('v0.3.0', git('rev-parse', 'HEAD'))
    expect(tags('origin')).toMatchObject({ 'v0.3.0': `tag ${released}`, v0: `tag ${released}` })
    expect(tags('origin')['v0.1.0']).toBe(tags()['v0.1.0'])
    expect(readFileSync(ghLog, 'utf8')).toBe(
      [
        `token=${TOKEN}`,
        `args=release create v0.3.0 --verify-tag --title v0.3.0 --notes-file ${runnerTemp}/release-notes.md`,
        '- More.',
        ''
      ].join('\n')
    )
  })
})

/** `${{ }}` expressions in `text`, evaluated with GitHub's expression engine over `dictionary`. */
function expand(text: string, dictionary: Record<string, unknown>): string {
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, expression: string) => {
    const { tokens } = new Lexer(expression).lex()
    const tree = new Parser(tokens, Object.keys(dictionary), []).parse()
    const data_ = JSON.parse(JSON.stringify(dictionary), data.reviver) as data.Dictionary
    return new Evaluator(tree, data_, new Map()).evaluate().coerceString()
  })
}

describe("this repository's CHANGELOG", () => {
  const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }

  it('has a dated section with text for the version package.json names, or can prepare one from Unreleased', () => {
    const version = parseVersion(pkg.version)
    const dated = new RegExp(
      `^## \\[${pkg.version.replaceAll('.', '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`,
      'm'
    )
    if (dated.test(changelog)) {
      // Prepared (npm run release:prepare): the section holds the notes the release will publish.
      expect(changelogSection(changelog, version).trim()).not.toBe('')
      return
    }
    const unreleased = /^## Unreleased\n([\s\S]*?)(?=^## |^\[[^\]]+\]: |(?![\s\S]))/m.exec(
      changelog
    )?.[1]
    expect(unreleased?.trim()).toBeTruthy()
    const prepared = prepareChangelog(changelog, version, '2026-11-23', REPO_URL, undefined)
    expect(changelogSection(prepared, version)).toBe(`${unreleased?.trim()}\n`)
  })

  it('has no section yet for an unreleased version, and the script says so', () => {
    expect(() => changelogSection(changelog, parseVersion('99.0.0'))).toThrow(ReleaseError)
  })
})

describe('release notes', () => {
  it('put each paragraph and list item on one line, and leave headings, nesting and code alone', () => {
    const section = [
      '### Added',
      '',
      '- An item wrapped',
      '  over three',
      '  lines.',
      '  - A nested item',
      '    wrapped.',
      '- Another.',
      '',
      'A paragraph',
      'wrapped.',
      '',
      '```sh',
      'npm run release -- 0.2.0',
      '  --push origin',
      '```',
      '',
      '| a | b |',
      '| - | - |',
      ''
    ].join('\n')
    expect(releaseNotes(section)).toBe(
      [
        '### Added',
        '',
        '- An item wrapped over three lines.',
        '  - A nested item wrapped.',
        '- Another.',
        '',
        'A paragraph wrapped.',
        '',
        '```sh',
        'npm run release -- 0.2.0',
        '  --push origin',
        '```',
        '',
        '| a | b |',
        '| - | - |',
        ''
      ].join('\n')
    )
  })

  it("this repository's newest notes: no wrapped line is left on its own, no word lost", () => {
    const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
    // The section of package.json's version once prepared, else what Unreleased would become.
    const version = parseVersion(pkg.version)
    const section = (() => {
      try {
        return changelogSection(changelog, version)
      } catch {
        const prepared = prepareChangelog(changelog, version, '2026-11-23', REPO_URL, undefined)
        return changelogSection(prepared, version)
      }
    })()
    const notes = releaseNotes(section)
    // A continuation line is indented text that starts no list item; outside code, none is left.
    let inFence = false
    for (const line of notes.split('\n')) {
      if (/^\s*(```|~~~)/.test(line)) inFence = !inFence
      else if (!inFence) expect(line, line).not.toMatch(/^ +(?![-*+] |\d+[.)] )\S/)
    }
    // Nothing is lost: the same words in the same order.
    const words = (text: string): string[] => text.split(/\s+/).filter(w => w !== '')
    expect(words(notes)).toEqual(words(section))
  })
})
