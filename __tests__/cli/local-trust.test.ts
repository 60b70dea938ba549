import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CliIo } from '../../src/cli/io.js'
import { main } from '../../src/cli.js'
import { MAX_RUBRIC_BYTES } from '../../src/rubric/defaults.js'

/**
 * A repository the CLI runs inside is hostile (docs/security.md, "Local checks"): a checked-out pull
 * request, or an agent's branch, that edits its rubric, commits symbolic links where the CLI reads
 * or writes, or points its rubric at a device. Each attack here runs through the CLI's entry in a
 * real repository, with real git and bash: gates only, so no judge is needed.
 */

async function cli(
  argv: string[],
  cwd: string,
  env: Record<string, string> = {}
): Promise<{ code: number; out: string; err: string[] }> {
  const out: string[] = []
  const err: string[] = []
  const io: CliIo = {
    stdout: l => out.push(l),
    stderr: l => err.push(l),
    env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env },
    cwd
  }
  return { code: await main(argv, io), out: out.join('\n'), err }
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], {
    cwd,
    encoding: 'utf8'
  }).trim()
}

/** Writes the files; `null` deletes one. */
function write(dir: string, files: Record<string, string | null>): void {
  for (const [path, text] of Object.entries(files)) {
    if (text === null) rmSync(join(dir, path))
    else {
      mkdirSync(dirname(join(dir, path)), { recursive: true })
      writeFileSync(join(dir, path), text)
    }
  }
}

/** The base's rubric: its gate fails until `done.txt` exists. */
const STRICT = '# Ranking\n\n## Gates\n- `test -f done.txt`\n'
/** What the branch makes of it: the failing gate gone, one of its own added. */
const WEAKENED = '# Ranking\n\n## Gates\n- `touch branch-gate-ran`\n'

/**
 * A pull request checked out as `gh pr checkout` does: a clone whose branch tracks the pull
 * request's own branch (its upstream is the pull request, not the base), which commits `head`.
 */
function checkedOutPullRequest(
  base: Record<string, string>,
  head: Record<string, string | null>
): string {
  const origin = mkdtempSync(join(tmpdir(), 'rc-origin-'))
  git(origin, 'init', '-q', '-b', 'main')
  write(origin, { ...base, 'README.md': '# Ranking\n' })
  git(origin, 'add', '-A')
  git(origin, 'commit', '-q', '-m', 'base')
  git(origin, 'checkout', '-q', '-b', 'pr')
  write(origin, head)
  git(origin, 'add', '-A')
  git(origin, 'commit', '-q', '--allow-empty', '-m', 'the pull request')
  git(origin, 'checkout', '-q', 'main')
  const clone = mkdtempSync(join(tmpdir(), 'rc-clone-'))
  git(clone, 'clone', '-q', origin, '.')
  git(clone, 'checkout', '-q', '-b', 'pr', '--track', 'origin/pr')
  return clone
}

describe('a local check grades with the rubric the required check uses', () => {
  it('attack: a branch that drops its failing gate still FAILs by the base’s rubric, its own gate never runs, and it is told', async () => {
    const dir = checkedOutPullRequest(
      { '.github/rubric.md': STRICT },
      { '.github/rubric.md': WEAKENED }
    )
    const json = join(dir, 'report.json')
    const run = await cli(['check', '--json', json], dir)
    expect(run.code).toBe(1)
    expect(run.out).toMatch(/^FAIL \(exit 1\)/)
    expect(existsSync(join(dir, 'branch-gate-ran'))).toBe(false)
    const said = run.err.find(line => line.includes('differs from the base'))
    expect(said).toMatch(
      /^rubric-council: the working tree's \.github\/rubric\.md differs from the base's and weakens it: WEAKENS: .*test -f done\.txt.*; graded by the base's \(origin\/main at [0-9a-f]{12}\), as the required check is \(--rubric-source head grades by the working tree's\)$/
    )
    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      gates: { command: string; status: string }[]
      rubric_review: { source: string; weakened: boolean }
    }
    expect(report.gates).toMatchObject([{ command: 'test -f done.txt', status: 'fail' }])
    expect(report.rubric_review).toMatchObject({ source: 'base', weakened: true })
  })

  it('grades by the working tree’s rubric only when asked by name, and says so in the report', async () => {
    const dir = checkedOutPullRequest(
      { '.github/rubric.md': STRICT },
      { '.github/rubric.md': WEAKENED }
    )
    const json = join(dir, 'report.json')
    const run = await cli(['check', '--rubric-source', 'head', '--json', json], dir)
    expect(run.code).toBe(0)
    expect(existsSync(join(dir, 'branch-gate-ran'))).toBe(true)
    expect(run.err[0]).toMatch(
      /^rubric-council: Graded by the working tree's \.github\/rubric\.md, as --rubric-source head asks; the required check grades by the base's \(origin\/main at [0-9a-f]{12}\), which differs from the base's and weakens it: WEAKENS: /
    )
    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      rubric_review: { source: string; note: string; weakened: boolean }
    }
    expect(report.rubric_review).toMatchObject({ source: 'head', weakened: true })
    expect(report.rubric_review.note).toContain('--rubric-source head')
    expect(run.out).toContain('rubric: Graded by the working tree')
  })

  it('refuses an unknown --rubric-source, quoting it', async () => {
    const dir = checkedOutPullRequest({ '.github/rubric.md': STRICT }, {})
    const run = await cli(['check', '--rubric-source', 'branch'], dir)
    expect(run.code).toBe(2)
    expect(run.err).toEqual([
      'rubric-council: --rubric-source "branch": expected base or head (see rubric-council check --help)'
    ])
  })

  it('grades by the working tree’s rubric when the base has none yet, as the required check would, and says so', async () => {
    const dir = checkedOutPullRequest({}, { '.github/rubric.md': STRICT })
    const run = await cli(['check'], dir)
    expect(run.code).toBe(1)
    expect(run.err[0]).toMatch(
      /^rubric-council: The base \(origin\/main at [0-9a-f]{12}\) has no \.github\/rubric\.md yet, so the working tree's is graded, as the required check would; once it is merged, the base's grades\.$/
    )
  })

  it('attack: a branch cannot add, remove or narrow the rubrics of .github/rubrics/ that grade it', async () => {
    const dir = checkedOutPullRequest(
      {
        '.github/rubrics/app.md': `---\npaths: ['src/**']\n---\n${STRICT}`,
        '.github/rubrics/docs.md': `---\npaths: ['docs/**']\n---\n## Gates\n- \`true\`\n`
      },
      {
        '.github/rubrics/app.md': null,
        '.github/rubrics/lenient.md': `---\nname: app\n---\n## Gates\n- \`touch branch-gate-ran\`\n`,
        'src/rank.ts': 'export const rank = 1\n'
      }
    )
    const run = await cli(['check'], dir)
    expect(run.code).toBe(1)
    expect(run.out).toContain('── rubric-council / app (.github/rubrics/app.md)')
    expect(run.out).toContain('test -f done.txt')
    expect(run.out).not.toContain('lenient.md')
    expect(existsSync(join(dir, 'branch-gate-ran'))).toBe(false)
  })

  it('attack: a loop whose doer weakens the rubric never ACCEPTs on it', async () => {
    const dir = checkedOutPullRequest({ '.github/rubric.md': STRICT }, {})
    const doer = `printf '%s' '${WEAKENED}' > .github/rubric.md`
    const run = await cli(['loop', '--doer', doer, '--max-iterations', '2'], dir)
    expect(run.code).toBe(1)
    expect(run.out).toContain('iter 2  check  FAIL  gates:0/1')
    expect(run.err.some(line => line.includes('weakens it: WEAKENS:'))).toBe(true)
    expect(existsSync(join(dir, 'branch-gate-ran'))).toBe(false)
    // Opening the session's rubric says an edit of it changes nothing here.
    const [session = ''] = readdirSync(join(dir, '.rubric-council/sessions'))
    const opened = await cli(['rubric', session], dir, { EDITOR: 'true' })
    expect(opened.code).toBe(0)
    expect(opened.err).toEqual([
      `rubric-council: session ${session} grades with the base's .github/rubric.md, as the required check does: an edit here changes its next iteration only in a loop started with --rubric-source head`
    ])
  })
})

describe('rubric files are resolved inside the repository and read with a cap', () => {
  const repository = (files: Record<string, string> = {}): string => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-paths-'))
    git(dir, 'init', '-q', '-b', 'main')
    write(dir, { 'README.md': '# x\n', ...files })
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', 'base')
    return dir
  }

  it('attack: a rubric that links out of the repository is refused with where it leads, never read', async () => {
    const outside = join(mkdtempSync(join(tmpdir(), 'rc-secret-')), 'secret.md')
    writeFileSync(outside, '## Gates\n- `true`\nsecret-0123456789\n')
    for (const target of [outside, '/dev/zero']) {
      const dir = repository()
      mkdirSync(join(dir, '.github'))
      symlinkSync(target, join(dir, '.github/rubric.md'))
      for (const argv of [['validate'], ['check', '--rubric-source', 'head']]) {
        const run = await cli(argv, dir)
        const said = run.err.join('\n')
        expect(run.code, argv.join(' ')).not.toBe(0)
        expect(said, argv.join(' ')).toContain(`.github/rubric.md: error: the rubric file leads to`)
        expect(said).toContain('outside the repository')
        expect(said + run.out).not.toContain('secret-0123456789')
      }
    }
  })

  it('attack: a rubric committed as a symbolic link is not the base’s rubric', async () => {
    const outside = join(mkdtempSync(join(tmpdir(), 'rc-secret-')), 'secret.md')
    writeFileSync(outside, '## Gates\n- `true`\nsecret-0123456789\n')
    const dir = repository()
    mkdirSync(join(dir, '.github'))
    symlinkSync(outside, join(dir, '.github/rubric.md'))
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', 'a link')
    const run = await cli(['check'], dir)
    expect(run.code).toBe(2)
    expect(run.err.join('\n')).toMatch(
      /\.github\/rubric\.md: error: is a symbolic link at the base's commit [0-9a-f]{12}, not a rubric file of its own/
    )
    expect(run.err.join('\n') + run.out).not.toContain('secret-0123456789')
  })

  it('refuses a rubric over the cap, at the base and in the working tree, without reading it', async () => {
    const big = `## Gates\n- \`true\`\n${'x'.repeat(MAX_RUBRIC_BYTES)}\n`
    const dir = repository({ '.github/rubric.md': big })
    for (const argv of [['check'], ['validate']]) {
      const run = await cli(argv, dir)
      expect(run.code, argv.join(' ')).not.toBe(0)
      expect(run.err.join('\n'), argv.join(' ')).toContain(
        'over the 1,048,576 bytes it may have; it was not read'
      )
    }
  })

  it('refuses a calibration set that links out of the repository', async () => {
    const outside = join(mkdtempSync(join(tmpdir(), 'rc-secret-')), 'set.yml')
    writeFileSync(outside, 'cases: []\n')
    const dir = repository({
      '.github/rubric.md': `${STRICT}\n## Criteria\n- tested: It is tested\n`
    })
    symlinkSync(outside, join(dir, '.github/rubric-calibration.yml'))
    const run = await cli(['calibrate'], dir)
    expect(run.code).toBe(2)
    expect(run.err.join('\n')).toContain('outside the repository')
  })
})

describe('the loop writes nothing through a link the repository commits', () => {
  const repository = (links: Record<string, string>): string => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-links-'))
    git(dir, 'init', '-q', '-b', 'main')
    write(dir, { '.github/rubric.md': STRICT, 'README.md': '# x\n' })
    for (const [path, target] of Object.entries(links)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true })
      symlinkSync(target, join(dir, path))
    }
    git(dir, 'add', '-A', '-f')
    git(dir, 'commit', '-q', '-m', 'links')
    return dir
  }

  it('attack: .rubric-council/.gitignore linked to .git/config leaves .git/config as it was', async () => {
    const dir = repository({ '.rubric-council/.gitignore': '../.git/config' })
    const config = readFileSync(join(dir, '.git/config'), 'utf8')
    const run = await cli(['loop', '--doer', 'touch doer-ran'], dir)
    expect(run.code).toBe(2)
    expect(run.err).toContain(
      'rubric-council: .rubric-council/.gitignore is a symbolic link: nothing is written through it (remove it, or run from a clean checkout)'
    )
    expect(readFileSync(join(dir, '.git/config'), 'utf8')).toBe(config)
    expect(git(dir, 'status', '--short')).toBe('')
    expect(existsSync(join(dir, 'doer-ran'))).toBe(false)
  })

  it('attack: a linked sessions folder puts nothing outside the repository', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'rc-elsewhere-'))
    const dir = repository({ '.rubric-council/sessions': elsewhere })
    const run = await cli(['loop', '--doer', 'touch doer-ran', '--checker', 'true'], dir)
    expect(run.code).toBe(2)
    expect(run.err.join('\n')).toContain('.rubric-council/sessions is a symbolic link')
    expect(readdirSync(elsewhere)).toEqual([])
    expect(existsSync(join(dir, 'doer-ran'))).toBe(false)
    rmSync(elsewhere, { recursive: true })
  })
})
