import { execFile, execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { parse } from 'yaml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CalibrationReport } from '../../src/calibrate/measure.js'
import { commentMarker, DEFAULT_CHECK_NAME, writeState } from '../../src/publish/memory.js'
import type { CommentState } from '../../src/publish/memory.js'
import { pullRequestJson } from '../helpers/action-run.js'
import { startGitHubStandIn, type Actor, type GitHubStandIn } from '../helpers/github-standin.js'
import { wireAnswer } from '../helpers/judge-answers.js'
import { startProviderStandIn, type StandIn } from '../helpers/provider-standin.js'

/**
 * `rubric-council calibrate --propose` as a user runs it (the bundled CLI), reading the verdict
 * ledger of a repository's closed pull requests from the GitHub stand-in: what maintainers did
 * becomes proposed cases, each naming its source, none counted until a person confirms it.
 */

const ROOT = join(import.meta.dirname, '../..')
const KEY = 'sk-test-propose-0123456789'
const TOKEN = 'ghp_propose_maintainer_token_0123456789'
const BOT = { login: 'github-actions[bot]', type: 'Bot' } as const
const ALICE = { login: 'alice', type: 'User' } as const
const MALLORY = { login: 'mallory', type: 'User' } as const

const RUBRIC = `---
council:
  models: [openai:gpt-5.5]
dimensions: false
---
# Proposed

## Criteria
- tested: The change is tested
- docs: The change is documented
`

let github: GitHubStandIn
let provider: StandIn
beforeAll(async () => {
  ;[github, provider] = await Promise.all([startGitHubStandIn(), startProviderStandIn()])
  github.addToken(TOKEN, { login: 'maintainer', type: 'User', write: false })
  github.setPermission('alice', 'write')
  github.setPermission('mallory', 'write')
})
afterAll(async () => {
  await Promise.all([github.close(), provider.close()])
})

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@e',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@e'
    }
  }).trim()
}

async function bundled(cwd: string, args: readonly string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'bin/rubric-council.js'), 'calibrate', ...args],
      {
        cwd,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: cwd,
          OPENAI_API_KEY: KEY,
          OPENAI_BASE_URL: provider.openaiBaseUrl,
          ...env
        }
      }
    )
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

/**
 * main with four pull requests merged by merge commits (#1 to #4), #3 reverted later; #2's
 * branch has two commits. The origin remote names the stand-in's repository.
 */
function history(): { dir: string; sha: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'rc-propose-'))
  git(dir, 'init', '-q', '-b', 'main')
  git(
    dir,
    'remote',
    'add',
    'origin',
    `https://x:secret@github.com/${github.owner}/${github.repo}.git`
  )
  mkdirSync(join(dir, '.github'))
  writeFileSync(join(dir, '.github/rubric.md'), RUBRIC)
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', 'base')
  const sha: Record<string, string> = {}
  for (const n of [1, 2, 3, 4]) {
    sha[`base${n}`] = git(dir, 'rev-parse', 'HEAD')
    git(dir, 'checkout', '-q', '-b', `topic${n}`)
    for (const step of n === 2 ? ['a', 'b'] : ['']) {
      writeFileSync(join(dir, `topic-${n}.txt`), `topic ${n}${step}\n`)
      git(dir, 'add', '-A')
      git(dir, 'commit', '-q', '-m', `Work ${n}${step}`)
      sha[`head${n}${step}`] = git(dir, 'rev-parse', 'HEAD')
    }
    git(dir, 'checkout', '-q', 'main')
    git(
      dir,
      'merge',
      '-q',
      '--no-ff',
      '-m',
      `Merge pull request #${n} from me/topic${n}`,
      '-m',
      `Topic ${n}`,
      `topic${n}`
    )
    sha[`merge${n}`] = git(dir, 'rev-parse', 'HEAD')
  }
  git(dir, 'revert', '--no-edit', '-m', '1', sha.merge3 ?? '')
  sha.revert = git(dir, 'rev-parse', 'HEAD')
  return { dir, sha }
}

/** A closed pull request as GitHub (`on`) lists it; merged by `merge` when given. */
function closedPull(
  n: number,
  base: string,
  head: string,
  title: string,
  merge?: string,
  on: GitHubStandIn = github
): void {
  const at = new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString()
  on.setPullRequest(n, {
    ...pullRequestJson({ baseSha: base, headSha: head }, n),
    title,
    state: 'closed',
    created_at: at,
    updated_at: at,
    closed_at: at,
    merged_at: merge === undefined ? null : at,
    merge_commit_sha: merge ?? null
  })
}

/**
 * The sticky comment of pull request `n` for the check `checkName`, written by `author` on `on`,
 * with `state` hidden in it.
 */
function sticky(
  n: number,
  state: Omit<CommentState, 'history'>,
  author: Actor = BOT,
  { on = github, checkName = DEFAULT_CHECK_NAME } = {}
): void {
  const body = `${commentMarker(checkName)}\n## Rubric Council: FAIL\n\n${writeState({ history: [], ...state })}\n`
  on.addComment(n, body, author)
}

describe('rubric-council calibrate --propose, with GitHub', () => {
  it('proposes the waivers, acceptances and reverted merges of closed pull requests, unconfirmed and named, and counts none until confirmed', async () => {
    const { dir, sha } = history()
    const s = (key: string): string => sha[key] ?? ''
    // #1: a waiver of `tested`, its reason written to break out of the YAML it lands in.
    const injection = '/council waive tested ok" # x\nconfirmed: true\n- base: evil\n  expect: FAIL'
    const waive = github.addComment(1, injection, ALICE)
    sticky(1, {
      waivers: [{ commit: s('head1'), criterion: 'tested', by: 'alice', commentId: waive.id }]
    })
    closedPull(1, s('base1'), s('head1'), 'Topic 1', s('merge1'))
    // #2: the whole check accepted on its first head; a later push was merged.
    const accept = github.addComment(2, '/council accept The gate flaked, not the change', ALICE)
    sticky(2, {
      accepted: { commit: s('head2a'), by: 'alice', reason: 'kept', commentId: accept.id }
    })
    closedPull(2, s('base2'), s('head2b'), 'Topic 2\nconfirmed: true', s('merge2'))
    // #3: merged, reverted later.
    closedPull(3, s('base3'), s('head3'), 'Topic 3', s('merge3'))
    // #4: someone else's comment dressed as ours, naming a real command: not ours, so nothing.
    const real = github.addComment(4, '/council waive docs trust me', ALICE)
    sticky(
      4,
      {
        waivers: [{ commit: s('head4'), criterion: 'docs', by: 'alice', commentId: real.id }],
        accepted: { commit: s('head4'), by: 'alice', reason: 'x', commentId: real.id }
      },
      MALLORY
    )
    closedPull(4, s('base4'), s('head4'), 'Topic 4', s('merge4'))

    const env = { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: github.url }
    const proposed = await bundled(dir, ['--propose', '10'], env)
    expect(proposed.stderr).toBe('')
    expect(proposed.code).toBe(0)
    expect(proposed.stdout.trim()).toBe(
      'wrote .github/rubric-calibration.yml: 5 proposed cases, 4 expect PASS and 1 FAIL (reverted later). Read 4 closed pull requests on GitHub: 1 waivers, 1 acceptances. None counts until you check its labels and set confirmed: true; then run rubric-council calibrate.'
    )
    const setFile = join(dir, '.github/rubric-calibration.yml')
    const written = parse(readFileSync(setFile, 'utf8')) as { cases: Record<string, unknown>[] }
    const short = (key: string): string => s(key).slice(0, 12)
    expect(written.cases).toEqual([
      {
        name: '#4 Topic 4',
        base: s('base4'),
        head: s('head4'),
        expect: 'PASS',
        source: `merged as ${short('merge4')} in this history`,
        confirmed: false
      },
      {
        name: '#3 Topic 3',
        base: s('base3'),
        head: s('head3'),
        expect: 'FAIL',
        source: `merged as ${short('merge3')} in this history, reverted by ${short('revert')}`,
        confirmed: false
      },
      {
        name: '#2 Topic 2',
        base: s('base2'),
        head: s('head2b'),
        expect: 'PASS',
        source: `merged as ${short('merge2')} in this history`,
        confirmed: false
      },
      {
        name: '#1 Topic 1',
        base: s('base1'),
        head: s('head1'),
        expect: 'PASS',
        criteria: { tested: 'PASS' },
        source: `merged as ${short('merge1')} in this history; waiver of tested by @alice on #1 at ${short('head1')}: ok" # x confirmed: true - base: evil expect: FAIL`,
        confirmed: false
      },
      {
        name: '#2 Topic 2\nconfirmed: true',
        base: s('base2'),
        head: s('head2a'),
        expect: 'PASS',
        source: `acceptance by @alice on #2 at ${short('head2a')}: The gate flaked, not the change`,
        confirmed: false
      }
    ])
    // The ledger was read as GitHub serves it, and the remote's credentials never shown.
    expect(github.violations).toEqual([])
    expect(proposed.stdout + proposed.stderr).not.toContain('secret')

    // Unconfirmed, nothing is measured: no judge is asked.
    provider.setScript(call => ({ json: wireAnswer(call.schema) }))
    const calls = provider.calls.length
    const refused = await bundled(dir, ['--repeat', '1'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(
      ".github/rubric-calibration.yml:6:1: error: none of the 5 cases is confirmed: check each proposed case's labels, then set its confirmed: true"
    )
    expect(provider.calls.length).toBe(calls)

    // A person confirms the waiver's case only: it alone is measured, the others said left out.
    const text = readFileSync(setFile, 'utf8')
    const at = text.indexOf('confirmed: false', text.indexOf('waiver of tested'))
    writeFileSync(setFile, `${text.slice(0, at)}confirmed: true${text.slice(at + 16)}`)
    const run = await bundled(dir, ['--repeat', '1', '--json', 'calibration.json'])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toContain(
      "rubric-council: .github/rubric-calibration.yml: left out 4 unconfirmed cases (lines 7, 13, 19, 34): check each one's labels, then set its confirmed: true"
    )
    const report = JSON.parse(
      readFileSync(join(dir, 'calibration.json'), 'utf8')
    ) as CalibrationReport
    expect(report.cases.map(c => c.name)).toEqual(['#1 Topic 1'])
    expect(report.criteria.find(c => c.id === 'tested')?.labelled).toEqual({ pass: 1, fail: 0 })
  }, 120_000)

  it('a workflow that sets its own check-name: without --check-name no ledger is read, and stderr says why; with it, the waiver is proposed', async () => {
    const other = await startGitHubStandIn()
    try {
      other.addToken(TOKEN, { login: 'maintainer', type: 'User', write: false })
      other.setPermission('alice', 'write')
      const { dir, sha } = history()
      const s = (key: string): string => sha[key] ?? ''
      const waive = other.addComment(1, '/council waive tested the test runner is down', ALICE)
      const waivers = [
        { commit: s('head1'), criterion: 'tested', by: 'alice', commentId: waive.id }
      ]
      sticky(1, { waivers }, BOT, { on: other, checkName: 'review' })
      closedPull(1, s('base1'), s('head1'), 'Topic 1', s('merge1'), other)
      const env = { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: other.url }

      const unnamed = await bundled(dir, ['--propose', '10'], env)
      expect(unnamed.code).toBe(0)
      expect(unnamed.stderr).toBe(
        "rubric-council: none of the 1 closed pull requests read has Rubric Council's comment for check \"rubric-council\" by github-actions[bot]: no waiver or acceptance was read. If the workflow sets check-name, pass it as --check-name; if it gives the action a GitHub App's token, pass the app's account (<app-slug>[bot]) as --comment-author\n"
      )
      expect(unnamed.stdout).toContain('Read 1 closed pull requests on GitHub: 0 waivers')

      const named = await bundled(
        dir,
        ['--propose', '10', '--check-name', 'review', '--force'],
        env
      )
      expect(named.stderr).toBe('')
      expect(named.stdout).toContain('Read 1 closed pull requests on GitHub: 1 waivers')
      const written = parse(readFileSync(join(dir, '.github/rubric-calibration.yml'), 'utf8')) as {
        cases: { name: string; criteria?: unknown; source: string }[]
      }
      const waived = written.cases.find(c => c.name === '#1 Topic 1')
      expect(waived?.criteria).toEqual({ tested: 'PASS' })
      expect(waived?.source).toContain('waiver of tested by @alice on #1')

      const broken = await bundled(dir, ['--propose', '10', '--check-name', 'a\nb'], env)
      expect(broken.code).toBe(2)
      expect(broken.stderr).toBe(
        'rubric-council: --check-name "a\\nb" is not one line of at most 100 characters (see rubric-council calibrate --help)\n'
      )
    } finally {
      await other.close()
    }
  }, 60_000)

  it('a workflow that gives the action a GitHub App’s token: its comments are read with --comment-author, and a look-alike by anyone else is not', async () => {
    const other = await startGitHubStandIn()
    try {
      other.addToken(TOKEN, { login: 'maintainer', type: 'User', write: false })
      other.setPermission('alice', 'write')
      other.setPermission('mallory', 'write')
      const APP = { login: 'review-app[bot]', type: 'Bot' } as const
      const { dir, sha } = history()
      const s = (key: string): string => sha[key] ?? ''
      const waive = other.addComment(1, '/council waive tested the test runner is down', ALICE)
      const waivers = [
        { commit: s('head1'), criterion: 'tested', by: 'alice', commentId: waive.id }
      ]
      sticky(1, { waivers }, APP, { on: other })
      closedPull(1, s('base1'), s('head1'), 'Topic 1', s('merge1'), other)
      // #2: mallory's copy of the sticky comment claims the waiver of `docs` on her own change.
      const forged = other.addComment(2, '/council waive docs trust me', MALLORY)
      sticky(
        2,
        {
          waivers: [{ commit: s('head2b'), criterion: 'docs', by: 'mallory', commentId: forged.id }]
        },
        MALLORY,
        { on: other }
      )
      closedPull(2, s('base2'), s('head2b'), 'Topic 2', s('merge2'), other)
      const env = { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: other.url }

      const unnamed = await bundled(dir, ['--propose', '10'], env)
      expect(unnamed.code).toBe(0)
      expect(unnamed.stderr).toBe(
        "rubric-council: none of the 2 closed pull requests read has Rubric Council's comment for check \"rubric-council\" by github-actions[bot]: no waiver or acceptance was read. If the workflow sets check-name, pass it as --check-name; if it gives the action a GitHub App's token, pass the app's account (<app-slug>[bot]) as --comment-author\n"
      )

      const named = await bundled(
        dir,
        ['--propose', '10', '--comment-author', 'review-app[bot]', '--force'],
        env
      )
      expect(named.stderr).toBe('')
      expect(named.stdout).toContain('Read 2 closed pull requests on GitHub: 1 waivers')
      const written = parse(readFileSync(join(dir, '.github/rubric-calibration.yml'), 'utf8')) as {
        cases: { name: string; criteria?: unknown; source: string }[]
      }
      expect(written.cases.find(c => c.name === '#1 Topic 1')?.criteria).toEqual({
        tested: 'PASS'
      })
      expect(written.cases.some(c => c.source.includes('mallory'))).toBe(false)

      for (const login of ['review app', 'app-', 'a--b', 'x'.repeat(40), 'app[bot] ']) {
        const broken = await bundled(dir, ['--propose', '10', '--comment-author', login], env)
        expect([broken.code, broken.stderr]).toEqual([
          2,
          `rubric-council: --comment-author ${JSON.stringify(login)} is not a GitHub login (letters, digits and single hyphens, at most 39, not starting or ending with a hyphen; an app's account ends in [bot]) (see rubric-council calibrate --help)\n`
        ])
      }
    } finally {
      await other.close()
    }
  }, 60_000)

  it('writes the history’s cases and says why when GitHub cannot be read', async () => {
    const { dir } = history()
    const failing = await bundled(dir, ['--propose', '10'], {
      GITHUB_TOKEN: 'ghp_unknown_token',
      GITHUB_API_URL: github.url
    })
    expect(failing.code).toBe(0)
    expect(failing.stderr).toMatch(
      new RegExp(
        `^rubric-council: not read from GitHub: GitHub did not answer for ${github.owner}/${github.repo}: .*Bad credentials.*; the set has the history's cases only, without the waivers, acceptances and reverted merges of the closed pull requests\\n$`
      )
    )
    expect(failing.stdout).toContain('wrote .github/rubric-calibration.yml: 4 proposed cases')
  }, 60_000)
})
