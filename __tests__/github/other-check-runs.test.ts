import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { runAction } from '../../src/action/action.js'
import { actionGitHub, octokitPort } from '../../src/github/port.js'
import { BOT_WORKFLOW_FILE } from '../../src/init/workflows.js'
import {
  issueCommentEvent,
  openPullRequest,
  OWNER,
  prepareRunner,
  pullRequestEvent,
  pullRequestJson,
  REPO,
  scheduleEvent,
  type Repository
} from '../helpers/action-run.js'
import {
  responseProblems,
  startGitHubStandIn,
  type GitHubStandIn
} from '../helpers/github-standin.js'
import { recordingIO } from '../helpers/recording-io.js'

/**
 * A pull request's own workflow can add a job named like the required check: GitHub makes a check
 * run of that name for it, by the same GitHub Actions app, which a required check may take. The
 * review names every check run of its name on the head commit that it did not create. Run here
 * from `src/` (the action's `runAction`), against the GitHub stand-in through Octokit.
 */

const WRITE = 'ghs_other_check_runs_token_01'
/** The heal job's token, as init's bot workflow grants it: it cannot write check runs. */
const HEAL = 'ghs_other_check_runs_token_02'
const BOT = { login: 'github-actions[bot]', type: 'Bot' as const }
const MAINTAINER = { login: 'octo-maintainer', type: 'User' as const }
const ROOT = join(import.meta.dirname, '..', '..')

let github: GitHubStandIn
let nextPr = 1
let nextRun = 7_000_000_001
beforeAll(async () => {
  github = await startGitHubStandIn({ owner: OWNER, repo: REPO })
  github.addToken(WRITE, { ...BOT, write: true })
  github.addToken(HEAL, {
    ...BOT,
    permissions: {
      contents: 'read',
      'pull-requests': 'write',
      checks: 'read',
      actions: 'write'
    }
  })
  github.setPermission(MAINTAINER.login, 'write')
})
afterEach(() => {
  expect(github.violations).toEqual([])
})
afterAll(async () => {
  await github.close()
})

const RUBRIC = '## Gates\n- `true`\n'

function pullRequest(): { number: number; repo: Repository } {
  const number = nextPr++
  const repo = openPullRequest(
    github,
    number,
    { '.github/rubric.md': RUBRIC },
    // A content of its own: two pull requests made in the same second would otherwise have the
    // same head commit, and one's check runs would be counted on the other's.
    { 'feature.ts': `export const feature = ${String(number)}\n` }
  )
  return { number, repo }
}

/**
 * A workflow run on the head commit whose one job is named `job`, as GitHub runs a workflow the
 * pull request added; the id of the job's check run, as GitHub's API lists the job.
 */
async function workflowJob(headSha: string, job: string): Promise<number> {
  const id = nextRun++
  github.setWorkflowRun({ id, head_sha: headSha, workflow: 'sneaky.yml', name: 'Sneaky' })
  github.setRunJobs(id, [{ name: job, conclusion: 'success' }])
  const response = await fetch(`${github.url}/repos/${OWNER}/${REPO}/actions/runs/${id}/jobs`, {
    headers: { authorization: `token ${WRITE}` }
  })
  const { jobs } = (await response.json()) as { jobs: { id: number }[] }
  return jobs[0]?.id ?? 0
}

const review = (pr: { number: number; repo: Repository }) =>
  act(pr, 'pull_request', pullRequestEvent(pr.repo, { number: pr.number }))

/** The action on `eventName`, from `src/`, with the workflow's token. */
async function act(
  pr: { number: number; repo: Repository },
  eventName: string,
  eventPath: string,
  token = WRITE
) {
  const { env } = prepareRunner({
    workspace: pr.repo.dir,
    eventName,
    eventPath,
    apiUrl: github.url,
    inputs: { 'github-token': token, 'allow-gates-with-secrets': 'true' }
  })
  const io = recordingIO()
  await runAction({
    env,
    getInput: name => (env[`INPUT_${name.toUpperCase()}`] ?? '').trim(),
    io,
    github: token => actionGitHub(env, token, io.warning),
    bundleDir: join(ROOT, 'dist')
  })
  return io
}

describe('a check run of the check’s name that the review did not create', () => {
  it('made by a job of the pull request’s own workflow, is named in the comment, the check run and the log', async () => {
    const pr = pullRequest()
    const job = await workflowJob(pr.repo.headSha, 'rubric-council')
    const io = await review(pr)

    const ours = github.checkRuns.filter(c => c.head_sha === pr.repo.headSha)
    expect(ours.map(c => c.conclusion)).toEqual(['success'])
    const link = `https://github.com/${OWNER}/${REPO}/runs/${job}`
    const named = `Another check run named <code>rubric-council</code> exists on this commit that Rubric Council did not create: [github-actions, check run ${job}](${link}).`
    const comment = github.comments.get(pr.number)?.[0]?.body ?? ''
    expect(comment).toContain(named)
    expect(comment).toContain('Make the check a ruleset-required workflow')
    expect(ours[0]?.output.summary).toContain(named)
    expect(io.log).toContain(
      `warning: Rubric Council: another check run named "rubric-council" exists on this commit that Rubric Council did not create: ${link} (by github-actions); make the check a ruleset-required workflow, see https://github.com/rubric-council/rubric-council/blob/main/docs/security.md`
    )
    // Only the other one: never the check run the review itself wrote.
    expect(comment).not.toContain(`check run ${ours[0]?.id ?? 0}`)
  })

  it('none but its own, from an earlier review of the commit: the comment and the log say nothing of it', async () => {
    const pr = pullRequest()
    await workflowJob(pr.repo.headSha, 'tests')
    await review(pr)
    const again = await review(pr)
    expect(github.checkRuns.filter(c => c.head_sha === pr.repo.headSha)).toHaveLength(2)
    expect(github.comments.get(pr.number)?.[0]?.body).not.toContain('Another check run')
    expect(again.log.filter(l => l.includes('another check run'))).toEqual([])
  })
})

describe('a check run of the check’s name that a job started after the review', () => {
  const named = (job: number): string =>
    `Another check run named <code>rubric-council</code> exists on this commit that Rubric Council did not create: [github-actions, check run ${String(job)}](https://github.com/${OWNER}/${REPO}/runs/${String(job)}).`
  const comment = (pr: { number: number }): string =>
    github.comments.get(pr.number)?.[0]?.body ?? ''

  it('is named by a /council accept on that head: in the acceptance’s check run and in the comment', async () => {
    const pr = pullRequest()
    await review(pr)
    expect(comment(pr)).not.toContain('Another check run')
    // The pull request's own workflow runs a job of the check's name once the review is done.
    const job = await workflowJob(pr.repo.headSha, 'rubric-council')
    const body = '/council accept the gate is enough here'
    const { id } = github.addComment(pr.number, body, MAINTAINER)
    const io = await act(
      pr,
      'issue_comment',
      issueCommentEvent({ number: pr.number, body, user: MAINTAINER, commentId: id })
    )
    const accepted = github.checkRuns.filter(c => c.head_sha === pr.repo.headSha).at(-1)
    expect(accepted?.output.title).toBe('Accepted by @octo-maintainer: the gate is enough here')
    expect(accepted?.output.summary).toContain(named(job))
    expect(comment(pr)).toContain(named(job))
    expect(comment(pr)).toContain('**Accepted by @octo-maintainer**')
    expect(io.log.some(l => l.startsWith('warning: Rubric Council: another check run named'))).toBe(
      true
    )
  })

  it('is named in the comment by the next schedule run, with the heal job’s permissions, once', async () => {
    const pr = pullRequest()
    await review(pr)
    const job = await workflowJob(pr.repo.headSha, 'rubric-council')
    const heal = () => act(pr, 'schedule', scheduleEvent('17,47 * * * *', BOT_WORKFLOW_FILE), HEAL)
    const first = await heal()
    expect(comment(pr)).toContain(named(job))
    // The report and its state are those of the review.
    expect(comment(pr).slice(comment(pr).indexOf('### '))).toContain('Rubric Council: PASS')
    expect(first.log.join('\n')).toContain(
      `warned of a check run of the check’s name that Rubric Council did not create: #${String(pr.number)} (check run ${String(job)})`
    )
    // Nothing new: the comment is not written again.
    const writes = github.requests.filter(
      r => r.method === 'PATCH' && r.path.includes('/issues/comments/')
    ).length
    const second = await heal()
    expect(
      github.requests.filter(r => r.method === 'PATCH' && r.path.includes('/issues/comments/'))
    ).toHaveLength(writes)
    expect(second.log.join('\n')).not.toContain('warned of')
    // A later job too: the alert names both.
    const another = await workflowJob(pr.repo.headSha, 'rubric-council')
    await heal()
    expect(comment(pr)).toContain(named(job))
    expect(comment(pr)).toContain(named(another))
    expect(comment(pr).match(/\[!WARNING\]/g)).toHaveLength(1)
  })

  it('on a head the comment’s report is not about, is left to that head’s review', async () => {
    const pr = pullRequest()
    await review(pr)
    const before = comment(pr)
    const later = pr.repo.commit({ 'later.ts': 'export const later = 1\n' }, 'push')
    github.setPullRequest(pr.number, pullRequestJson(pr.repo, pr.number))
    await workflowJob(later, 'rubric-council')
    await act(pr, 'schedule', scheduleEvent('17,47 * * * *', BOT_WORKFLOW_FILE), HEAL)
    expect(comment(pr)).toBe(before)
  })
})

describe('checkRunsNamed', () => {
  it('lists every check run of the name on the commit, every page, as GitHub answers', async () => {
    const sha = 'ab'.repeat(20)
    const run = nextRun++
    github.setWorkflowRun({ id: run, head_sha: sha })
    github.setRunJobs(
      run,
      Array.from({ length: 250 }, (_, i) => ({ name: i % 2 === 0 ? 'council' : 'tests' }))
    )
    const port = octokitPort(
      { owner: OWNER, repo: REPO },
      { token: WRITE, baseUrl: github.url, warn: () => undefined }
    )
    const listed = await port.checkRunsNamed(sha, ['council'])
    expect(listed).toHaveLength(125)
    expect(new Set(listed.map(r => r.appSlug))).toEqual(new Set(['github-actions']))
    expect(
      listed.every(r => r.htmlUrl === `https://github.com/${OWNER}/${REPO}/runs/${r.id}`)
    ).toBe(true)
    const request = github.requests.filter(r => r.path.endsWith(`/commits/${sha}/check-runs`))
    expect(request).toHaveLength(2)
    expect(request[0]?.query).toMatchObject({
      check_name: 'council',
      filter: 'all',
      per_page: '100'
    })
    // Several names: every check run of the commit listed (three pages), the names kept.
    const both = await port.checkRunsNamed(sha, ['council', 'tests'])
    expect(both.filter(r => r.name === 'tests')).toHaveLength(125)
    expect(both).toHaveLength(250)
    const all = github.requests.filter(r => r.path.endsWith(`/commits/${sha}/check-runs`))
    expect(all.slice(2).map(r => r.query.check_name)).toEqual([undefined, undefined, undefined])
    expect(await port.checkRunsNamed(sha, ['council', 'lint'])).toHaveLength(125)
  })

  it('answers in the shape GitHub’s description gives', async () => {
    const sha = 'cd'.repeat(20)
    const run = nextRun++
    github.setWorkflowRun({ id: run, head_sha: sha })
    github.setRunJobs(run, [{ name: 'council' }])
    const response = await fetch(
      `${github.url}/repos/${OWNER}/${REPO}/commits/${sha}/check-runs?check_name=council`,
      { headers: { authorization: `token ${WRITE}` } }
    )
    const body = (await response.json()) as { total_count: number }
    expect(body.total_count).toBe(1)
    expect(
      await responseProblems('GET', `/repos/${OWNER}/${REPO}/commits/${sha}/check-runs`, 200, body)
    ).toEqual([])
  })
})
