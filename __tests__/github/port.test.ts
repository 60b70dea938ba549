import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { CheckRunAnnotation } from '../../src/github/check-run.js'
import { octokitPort } from '../../src/github/port.js'
import { baseBranch, OWNER, pullRequestJson, REPO } from '../helpers/action-run.js'
import { startGitHubStandIn, type GitHubStandIn } from '../helpers/github-standin.js'

/**
 * The port's writes and reads through Octokit, against the GitHub stand-in (which checks every
 * request against GitHub's OpenAPI description): it writes what it is given and reads into typed
 * values; expected failures come back as `Result` problems.
 */

const WRITE = 'ghs_port_write_token_0001'
const READ_ONLY = 'ghs_port_read_only_token_01'
const BOT = { login: 'github-actions[bot]', type: 'Bot' as const }
const SHA = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821'

let github: GitHubStandIn
beforeAll(async () => {
  github = await startGitHubStandIn({ owner: OWNER, repo: REPO })
  github.addToken(WRITE, { ...BOT, write: true })
  github.addToken(READ_ONLY, { ...BOT, write: false })
})
afterEach(() => {
  expect(github.violations).toEqual([])
})
afterAll(async () => {
  await github.close()
})

const port = (token = WRITE) =>
  octokitPort({ owner: OWNER, repo: REPO }, { token, baseUrl: github.url, warn: () => undefined })

function annotations(count: number): CheckRunAnnotation[] {
  return Array.from({ length: count }, (_, i) => ({
    path: 'src/a.ts',
    start_line: i + 1,
    end_line: i + 1,
    annotation_level: 'warning' as const,
    message: `finding ${i + 1}`
  }))
}

describe('the check run', () => {
  it('completes the started run with the conclusion, text and every batch of annotations given', async () => {
    const started = await port().startCheckRun(
      {
        headSha: SHA,
        name: 'council',
        detailsUrl: 'https://example.test/run',
        externalId: 'rubric-council'
      },
      { title: 'Reviewing…', summary: 'working' }
    )
    if (!started.ok) throw new Error(started.problem)
    const all = annotations(120)
    const written = await port().checkRun({
      id: started.value,
      headSha: SHA,
      name: 'council',
      conclusion: 'action_required',
      title: 'UNCLEAR: judges disagree',
      summary: 'the report',
      annotations: [all.slice(0, 50), all.slice(50, 100), all.slice(100)]
    })
    expect(written).toEqual({
      ok: true,
      value: {
        action: 'completed',
        url: `https://github.com/${OWNER}/${REPO}/runs/${started.value}`
      }
    })
    const run = github.checkRuns.find(r => r.id === started.value)
    expect([run?.status, run?.conclusion, run?.output.title, run?.output.summary]).toEqual([
      'completed',
      'action_required',
      'UNCLEAR: judges disagree',
      'the report'
    ])
    expect(run?.output.annotations.map(a => a.start_line)).toEqual(all.map(a => a.start_line))
    expect(await port().checkRunsNamed(SHA, ['council'])).toContainEqual({
      id: started.value,
      name: 'council',
      appSlug: 'github-actions',
      htmlUrl: `https://github.com/${OWNER}/${REPO}/runs/${started.value}`,
      externalId: 'rubric-council',
      status: 'completed',
      conclusion: 'action_required',
      title: 'UNCLEAR: judges disagree'
    })
  })

  it('without permission is a problem saying so, not an exception', async () => {
    const started = await port(READ_ONLY).startCheckRun(
      { headSha: SHA, name: 'council' },
      { title: 't', summary: 's' }
    )
    expect(started.ok ? 'written' : started.problem).toMatch(
      /^no permission to create the check run \(403\)/
    )
    const written = await port(READ_ONLY).completeCheckRun(
      { headSha: SHA, name: 'council' },
      'success',
      { title: 't', summary: 's' }
    )
    expect(written.ok).toBe(false)
  })
})

describe('the sticky comment', () => {
  it('is created, updated in place, left alone when unchanged, and its duplicates deleted', async () => {
    const issue = 41
    const created = await port().upsertComment(issue, '<!-- m -->\nfirst', [])
    expect(created).toMatchObject({ ok: true, value: { action: 'created' } })
    const duplicate = github.addComment(issue, '<!-- m -->\nduplicate', BOT)
    const found = await port().comments(issue, '<!-- m -->')
    expect(found).toHaveLength(2)
    const updated = await port().upsertComment(issue, '<!-- m -->\nsecond', found)
    expect(updated).toMatchObject({ ok: true, value: { action: 'updated' } })
    expect(github.comments.get(issue)?.map(c => c.body)).toEqual(['<!-- m -->\nsecond'])
    expect(github.comments.get(issue)?.some(c => c.id === duplicate.id)).toBe(false)
    const again = await port().upsertComment(
      issue,
      '<!-- m -->\nsecond',
      await port().comments(issue, '<!-- m -->')
    )
    expect(again).toMatchObject({ ok: true, value: { action: 'unchanged' } })
  })

  it('without permission is a problem saying so', async () => {
    const written = await port(READ_ONLY).upsertComment(42, 'body', [])
    expect(written.ok ? 'written' : written.problem).toMatch(
      /^no permission to comment on the pull request \(403\)/
    )
  })
})

describe('the pull request', () => {
  it('is read into its fields once, in the port', async () => {
    github.setPullRequest(43, {
      number: 43,
      title: 'Add search',
      body: null,
      state: 'closed',
      draft: true,
      user: { login: 'dependabot[bot]', type: 'Bot' },
      labels: [{ name: 'dependencies' }, { name: 'no-council' }],
      base: { ref: 'main', sha: 'b'.repeat(40), repo: { default_branch: 'trunk' } },
      head: { ref: 'feature', sha: SHA, repo: { full_name: 'fork-owner/octo-repo' } }
    })
    expect(await port().pullRequest(43)).toEqual({
      number: 43,
      title: 'Add search',
      body: '',
      baseSha: 'b'.repeat(40),
      baseRef: 'main',
      defaultBranch: 'trunk',
      headSha: SHA,
      headRepository: 'fork-owner/octo-repo',
      headRef: 'feature',
      state: 'closed',
      draft: true,
      author: { login: 'dependabot[bot]', bot: true },
      labels: ['dependencies', 'no-council']
    })
  })

  it('the open ones are listed with their bases, of one base or of every base', async () => {
    const json = (number: number, base: string, head: string) => {
      const pr = pullRequestJson({ baseSha: 'b'.repeat(40), headSha: head }, number)
      return { ...pr, base: { ...(pr.base as object), ref: base } }
    }
    github.setPullRequest(61, json(61, 'main-port', 'c'.repeat(40)))
    github.setPullRequest(62, json(62, 'release-port', 'd'.repeat(40)))
    github.setPullRequest(63, { ...json(63, 'main-port', 'e'.repeat(40)), state: 'closed' })
    const ours = (list: { number: number }[]) => list.filter(pr => pr.number > 60 && pr.number < 64)
    const defaultBranch = baseBranch({ baseSha: 'b'.repeat(40) })
    // The webhook example's head: branch `changes` of Codertocat/Hello-World.
    const from = { headRepository: 'Codertocat/Hello-World', headRef: 'changes' }
    expect(ours(await port().openPullRequests('main-port'))).toEqual([
      { number: 61, headSha: 'c'.repeat(40), ...from, baseRef: 'main-port', defaultBranch }
    ])
    expect(ours(await port().openPullRequests()).sort((a, b) => a.number - b.number)).toEqual([
      { number: 61, headSha: 'c'.repeat(40), ...from, baseRef: 'main-port', defaultBranch },
      { number: 62, headSha: 'd'.repeat(40), ...from, baseRef: 'release-port', defaultBranch }
    ])
    const listed = github.requests.filter(r => r.path.endsWith('/pulls'))
    expect(listed.map(r => r.query.base)).toEqual(['main-port', undefined])
  })
})

describe('the closed pull requests', () => {
  let own: GitHubStandIn
  beforeAll(async () => {
    own = await startGitHubStandIn({ owner: OWNER, repo: REPO })
    own.addToken(READ_ONLY, { login: 'maintainer', type: 'User', write: false })
    // 150 closed, the odd ones merged, each updated a minute after the one before; and an open one.
    const pr = pullRequestJson({ baseSha: SHA, headSha: SHA })
    for (let n = 1; n <= 151; n++) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString()
      const sha = (c: string) => `${c}${String(n).padStart(39, '0')}`
      own.setPullRequest(n, {
        ...pr,
        number: n,
        base: { ...(pr.base as object), sha: sha('b') },
        head: { ...(pr.head as object), sha: sha('c') },
        state: n === 151 ? 'open' : 'closed',
        updated_at: at,
        merged_at: n % 2 === 1 ? at : null,
        merge_commit_sha: n % 2 === 1 ? sha('a') : null
      })
    }
  })
  afterAll(async () => {
    expect(own.violations).toEqual([])
    await own.close()
  })

  it('lists the last N, the most recently updated first, reading no more pages than it needs', async () => {
    const closed = octokitPort(
      { owner: OWNER, repo: REPO },
      { token: READ_ONLY, baseUrl: own.url, warn: () => undefined }
    ).closedPullRequests
    const few = await closed(3)
    expect(few).toEqual([
      {
        number: 150,
        title: 'Add the search feature',
        baseSha: `b${'150'.padStart(39, '0')}`,
        headSha: `c${'150'.padStart(39, '0')}`
      },
      {
        number: 149,
        title: 'Add the search feature',
        baseSha: `b${'149'.padStart(39, '0')}`,
        headSha: `c${'149'.padStart(39, '0')}`,
        mergeCommit: `a${'149'.padStart(39, '0')}`
      },
      expect.objectContaining({ number: 148 })
    ])
    expect(own.requests.filter(r => r.path.endsWith('/pulls')).map(r => r.query.per_page)).toEqual([
      '3'
    ])
    const many = await closed(120)
    expect(many.map(p => p.number)).toEqual(Array.from({ length: 120 }, (_, i) => 150 - i))
    const listed = own.requests.filter(r => r.path.endsWith('/pulls')).slice(1)
    expect(
      listed.map(r => [r.query.state, r.query.sort, r.query.direction, r.query.per_page])
    ).toEqual([
      ['closed', 'updated', 'desc', '100'],
      ['closed', 'updated', 'desc', '100']
    ])
  })
})
