import { DefaultArtifactClient } from '@actions/artifact'
import { createHash } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getOctokit } from '@actions/github'
import { retry } from '@octokit/plugin-retry'
import { throttling } from '@octokit/plugin-throttling'
import type { WebhookDefinition } from '@octokit/webhooks-examples'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { readZipEntry } from '../src/github/zip.js'
import {
  BLOB_PATH,
  DISPATCH_INPUTS_LIMIT,
  responseProblems,
  startGitHubStandIn
} from './helpers/github-standin.js'
import type { GitHubStandIn, TokenAccess } from './helpers/github-standin.js'
import { octokitPort } from '../src/github/port.js'

/** GITHUB_TOKEN as a workflow with `issues: write` and `checks: write` gets it. */
const APP = 'ghs_app_token'
const READ_ONLY = 'ghs_read_only_token'
/** A maintainer's personal access token. */
const MAINTAINER = 'ghp_maintainer_token'
const BOT = { login: 'github-actions[bot]', type: 'Bot' } as const
const HUMAN = { login: 'octocat', type: 'User' } as const
const SHA = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821'

let standIn: GitHubStandIn

beforeEach(async () => {
  standIn = await startGitHubStandIn()
  standIn.addToken(APP, { ...BOT, write: true })
  standIn.addToken(READ_ONLY, { ...BOT, write: false })
  standIn.addToken(MAINTAINER, { ...HUMAN, write: true })
})

afterEach(async () => {
  await standIn.close()
})

function octokit(token = APP): ReturnType<typeof getOctokit> {
  return getOctokit(token, { baseUrl: standIn.url })
}

function repo(): { owner: string; repo: string } {
  return { owner: standIn.owner, repo: standIn.repo }
}

function annotations(count: number, from = 1): Annotation[] {
  return Array.from({ length: count }, (_, i) => ({
    path: 'src/council.ts',
    start_line: from + i,
    end_line: from + i,
    annotation_level: 'warning' as const,
    message: `finding ${String(from + i)}`
  }))
}

/** The status and body of the error Octokit threw for a refused request. */
async function refusal(request: Promise<unknown>): Promise<{ status: unknown; data: unknown }> {
  try {
    await request
  } catch (error) {
    const { status, response } = error as { status?: unknown; response?: { data?: unknown } }
    return { status, data: response?.data }
  }
  throw new Error('the request succeeded')
}

interface Annotation {
  path: string
  start_line: number
  end_line: number
  annotation_level: 'warning'
  message: string
}

describe('issue comments', () => {
  it("pages through 250 comments with GitHub's Link headers, oldest first", async () => {
    const bodies = Array.from({ length: 250 }, (_, i) => `comment ${String(i + 1)}`)
    for (const [i, body] of bodies.entries()) standIn.addComment(7, body, i % 2 ? BOT : HUMAN)
    const client = octokit()

    const all = await client.paginate(client.rest.issues.listComments, {
      ...repo(),
      issue_number: 7,
      per_page: 100
    })

    expect(all.map(c => c.body)).toEqual(bodies)
    expect(all[1]?.user).toMatchObject({ login: 'github-actions[bot]', type: 'Bot' })
    // Octokit follows the links as GitHub writes them: by repository id after the first page.
    const byId = `/repositories/${String(standIn.repositoryId)}/issues/7/comments`
    expect(standIn.requests.map(r => [r.path, r.query.page, r.status])).toEqual([
      ['/repos/octo-org/octo-repo/issues/7/comments', undefined, 200],
      [byId, '2', 200],
      [byId, '3', 200]
    ])

    const page2 = await client.rest.issues.listComments({
      ...repo(),
      issue_number: 7,
      per_page: 100,
      page: 2
    })
    const base = `${standIn.url}${byId}`
    expect(page2.data.map(c => c.body)).toEqual(bodies.slice(100, 200))
    expect(page2.headers.link).toBe(
      `<${base}?per_page=100&page=1>; rel="prev", ` +
        `<${base}?per_page=100&page=3>; rel="next", ` +
        `<${base}?per_page=100&page=3>; rel="last", ` +
        `<${base}?per_page=100&page=1>; rel="first"`
    )

    // Without per_page GitHub sends 30; it never sends more than 100.
    const first = await client.rest.issues.listComments({ ...repo(), issue_number: 7 })
    expect(first.data).toHaveLength(30)
    expect(first.headers.link).toBe(`<${base}?page=2>; rel="next", <${base}?page=9>; rel="last"`)
    const capped = await client.rest.issues.listComments({
      ...repo(),
      issue_number: 7,
      per_page: 500
    })
    expect(capped.data).toHaveLength(100)
    expect(standIn.violations).toEqual([])
  })

  it('takes a body of exactly 65,536 code points and refuses one more, as GitHub does', async () => {
    const client = octokit()
    const create = (body: string) =>
      client.rest.issues.createComment({ ...repo(), issue_number: 3, body })

    await expect(create('a'.repeat(65_537))).rejects.toMatchObject({
      status: 422,
      response: {
        data: {
          message: 'Validation Failed',
          errors: [
            {
              resource: 'IssueComment',
              code: 'custom',
              field: 'body',
              message: 'body is too long (maximum is 65536 characters)'
            }
          ]
        }
      }
    })
    const created = await create('a'.repeat(65_536))
    expect(created.status).toBe(201)
    expect(created.headers.location).toBe(created.data.url)

    // Counted in code points, not UTF-16 units: 65,536 emoji are 131,072 units and still fit.
    expect((await create('😀'.repeat(65_536))).status).toBe(201)
    await expect(create('😀'.repeat(65_537))).rejects.toMatchObject({ status: 422 })
    await expect(
      client.rest.issues.updateComment({
        ...repo(),
        comment_id: created.data.id,
        body: 'b'.repeat(65_537)
      })
    ).rejects.toMatchObject({ status: 422 })

    expect(standIn.comments.get(3)?.map(c => c.body.length)).toEqual([65_536, 131_072])
    // The description sets no maxLength on a comment body: only GitHub itself refuses these.
    expect(standIn.violations).toEqual([])
  })

  it('lets an app token edit and delete only its own comments', async () => {
    const theirs = standIn.addComment(5, 'LGTM', HUMAN)
    const client = octokit()

    await expect(
      client.rest.issues.updateComment({ ...repo(), comment_id: theirs.id, body: 'edited' })
    ).rejects.toMatchObject({
      status: 403,
      response: { data: { message: 'Resource not accessible by integration' } }
    })
    await expect(
      client.rest.issues.deleteComment({ ...repo(), comment_id: theirs.id })
    ).rejects.toMatchObject({ status: 403 })

    const ours = await client.rest.issues.createComment({ ...repo(), issue_number: 5, body: 'v1' })
    const edited = await client.rest.issues.updateComment({
      ...repo(),
      comment_id: ours.data.id,
      body: 'v2'
    })
    expect(edited.data).toMatchObject({ id: ours.data.id, body: 'v2' })
    expect(edited.data.performed_via_github_app?.slug).toBe('github-actions')
    expect(standIn.comments.get(5)?.map(c => c.body)).toEqual(['LGTM', 'v2'])

    const deleted = await client.rest.issues.deleteComment({ ...repo(), comment_id: ours.data.id })
    expect(deleted.status).toBe(204)
    expect(standIn.comments.get(5)?.map(c => c.body)).toEqual(['LGTM'])
    await expect(
      client.rest.issues.updateComment({ ...repo(), comment_id: ours.data.id, body: 'v3' })
    ).rejects.toMatchObject({ status: 404, response: { data: { message: 'Not Found' } } })

    // A maintainer's own token may moderate others' comments.
    const moderated = await octokit(MAINTAINER).rest.issues.updateComment({
      ...repo(),
      comment_id: theirs.id,
      body: 'LGTM (edited)'
    })
    expect(moderated.data.author_association).toBe('COLLABORATOR')
    expect(standIn.violations).toEqual([])
  })
})

describe('tokens', () => {
  it('reads with a read-only token and refuses every write with 403', async () => {
    standIn.addComment(9, 'hello', HUMAN)
    const client = octokit(READ_ONLY)

    const listed = await client.rest.issues.listComments({ ...repo(), issue_number: 9 })
    expect(listed.data.map(c => c.body)).toEqual(['hello'])

    const refused = {
      status: 403,
      response: { data: { message: 'Resource not accessible by integration' } }
    }
    await expect(
      client.rest.issues.createComment({ ...repo(), issue_number: 9, body: 'hi' })
    ).rejects.toMatchObject(refused)
    await expect(
      client.rest.checks.create({ ...repo(), name: 'rubric-council', head_sha: SHA })
    ).rejects.toMatchObject(refused)
    expect(standIn.comments.get(9)).toHaveLength(1)
    expect(standIn.checkRuns).toEqual([])
    expect(standIn.requests.map(r => [r.method, r.status, r.token])).toEqual([
      ['GET', 200, READ_ONLY],
      ['POST', 403, READ_ONLY],
      ['POST', 403, READ_ONLY]
    ])
  })

  it('answers 401 without a known token, and GET /user only for a user', async () => {
    await expect(
      octokit('ghs_unknown').rest.issues.listComments({ ...repo(), issue_number: 1 })
    ).rejects.toMatchObject({ status: 401, response: { data: { message: 'Bad credentials' } } })

    const me = await octokit(MAINTAINER).rest.users.getAuthenticated()
    expect(me.data).toMatchObject({ login: 'octocat', type: 'User' })
    expect(me.data.id).toBeGreaterThan(0)
    // An installation token is not a user.
    await expect(octokit(APP).rest.users.getAuthenticated()).rejects.toMatchObject({
      status: 403,
      response: { data: { message: 'Resource not accessible by integration' } }
    })
  })
})

describe('check runs', () => {
  it('accumulates 50 + 10 annotations across create and update, and refuses 51 at once', async () => {
    const client = octokit()
    const created = await client.rest.checks.create({
      ...repo(),
      name: 'rubric-council',
      head_sha: SHA,
      status: 'in_progress',
      output: { title: 'Grading', summary: 'Judges at work', annotations: annotations(50) }
    })
    expect(created.status).toBe(201)
    expect(created.data).toMatchObject({ status: 'in_progress', conclusion: null })
    expect(created.data.output.annotations_count).toBe(50)

    const updated = await client.rest.checks.update({
      ...repo(),
      check_run_id: created.data.id,
      conclusion: 'failure',
      output: { title: 'Failed', summary: '2 gates failed', annotations: annotations(10, 51) }
    })
    // A conclusion completes the run.
    expect(updated.data).toMatchObject({ status: 'completed', conclusion: 'failure' })
    expect(updated.data.completed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect(updated.data.output.annotations_count).toBe(60)
    const [run] = standIn.checkRuns
    expect(run?.output.annotations.map(a => a.start_line)).toEqual(
      Array.from({ length: 60 }, (_, i) => i + 1)
    )
    expect(run?.output).toMatchObject({ title: 'Failed', summary: '2 gates failed' })
    expect(standIn.violations).toEqual([])

    await expect(
      client.rest.checks.update({
        ...repo(),
        check_run_id: created.data.id,
        output: { summary: 'too many', annotations: annotations(51) }
      })
    ).rejects.toMatchObject({ status: 422 })
    expect(run?.output.annotations).toHaveLength(60)
    // The description says so too (maxItems: 50).
    expect(standIn.violations).toEqual([
      expect.stringMatching(
        /^PATCH \/repos\/octo-org\/octo-repo\/check-runs\/\d+: checks\/update: body rejected: body\/output\/annotations must NOT have more than 50 items$/
      )
    ])
  })

  it('validates conclusions and output like GitHub', async () => {
    const client = octokit()
    const base = { ...repo(), name: 'rubric-council', head_sha: SHA }

    await expect(
      client.rest.checks.create({ ...base, conclusion: 'action_required' })
    ).rejects.toMatchObject({
      status: 422,
      response: {
        data: {
          message: 'Validation Failed',
          errors: [{ resource: 'CheckRun', code: 'missing_field', field: 'details_url' }]
        }
      }
    })
    const needsAction = await client.rest.checks.create({
      ...base,
      conclusion: 'action_required',
      details_url: 'https://example.com/council'
    })
    expect(needsAction.data).toMatchObject({
      status: 'completed',
      details_url: 'https://example.com/council'
    })

    await expect(client.rest.checks.create({ ...base, status: 'completed' })).rejects.toMatchObject(
      {
        status: 422,
        response: { data: { message: 'Invalid request.\n\n"conclusion" wasn\'t supplied.' } }
      }
    )
    await expect(
      client.rest.checks.create({
        ...base,
        output: { title: 'Too long', summary: 'x'.repeat(65_536) }
      })
    ).rejects.toMatchObject({ status: 422 })
    const longest = await client.rest.checks.create({
      ...base,
      output: { title: 'Just fits', summary: 'x'.repeat(65_535) }
    })
    expect(longest.status).toBe(201)
    // GitHub counts the limit in bytes, whatever its docs say: 30,000 emoji are 90,000 bytes.
    await expect(
      client.rest.checks.create({
        ...base,
        output: { title: 'Emoji', summary: '✅'.repeat(30_000) }
      })
    ).rejects.toMatchObject({
      status: 422,
      response: {
        data: {
          errors: [
            {
              resource: 'CheckRun',
              code: 'custom',
              field: 'summary',
              message: 'summary exceeds a maximum bytesize of 65535'
            }
          ]
        }
      }
    })
    expect(standIn.checkRuns).toHaveLength(2)
    expect(standIn.violations).toEqual([
      expect.stringContaining('body/output/summary must NOT have more than 65535 characters')
    ])
  })
})

describe('repository contents', () => {
  it('serves files as GitHub does: base64 in 60-character lines, by branch or sha', async () => {
    const rubric = `# Rubric\n\n${'- Tests cover the change.\n'.repeat(20)}`
    const greeting = 'Grüße, 世界 👋 — ✓\n'
    const binary = Buffer.from([0, 1, 2, 254, 255])
    standIn.setFile('main', '.github/rubric-council.md', rubric)
    standIn.setFile(SHA, 'docs/ünïcödé.md', greeting)
    standIn.setFile(SHA, 'docs/logo.bin', binary)
    const client = octokit(READ_ONLY)

    const file = async (path: string, ref?: string) => {
      const { data } = await client.rest.repos.getContent({
        ...repo(),
        path,
        ...(ref === undefined ? {} : { ref })
      })
      if (Array.isArray(data) || data.type !== 'file') throw new Error(`${path} is not a file`)
      return data
    }

    // Without `ref`, the default branch.
    const got = await file('.github/rubric-council.md')
    expect(got).toMatchObject({
      type: 'file',
      encoding: 'base64',
      name: 'rubric-council.md',
      path: '.github/rubric-council.md',
      size: Buffer.byteLength(rubric)
    })
    const lines = got.content.split('\n')
    expect(lines.at(-1)).toBe('')
    expect(lines.slice(0, -2).every(line => line.length === 60)).toBe(true)
    expect(Buffer.from(got.content, 'base64').toString('utf8')).toBe(rubric)
    // The git blob sha, as `git hash-object` computes it.
    const blob = createHash('sha1')
      .update(`blob ${String(Buffer.byteLength(rubric))}\0${rubric}`)
      .digest('hex')
    expect(got.sha).toBe(blob)

    const unicode = await file('docs/ünïcödé.md', SHA)
    expect(Buffer.from(unicode.content, 'base64').toString('utf8')).toBe(greeting)
    expect(unicode.size).toBe(Buffer.byteLength(greeting))
    expect(Buffer.from((await file('docs/logo.bin', SHA)).content, 'base64')).toEqual(binary)
    expect((await file('.github/rubric-council.md', 'refs/heads/main')).sha).toBe(blob)

    const raw = await client.rest.repos.getContent({
      ...repo(),
      path: 'docs/ünïcödé.md',
      ref: SHA,
      mediaType: { format: 'raw' }
    })
    expect(raw.data).toBe(greeting)
    const listing = await client.rest.repos.getContent({ ...repo(), path: 'docs', ref: SHA })
    expect(Array.isArray(listing.data) && listing.data.map(e => [e.name, e.type])).toEqual([
      ['logo.bin', 'file'],
      ['ünïcödé.md', 'file']
    ])

    // The file exists at the sha, not on main.
    await expect(
      client.rest.repos.getContent({ ...repo(), path: 'docs/ünïcödé.md' })
    ).rejects.toMatchObject({ status: 404, response: { data: { message: 'Not Found' } } })
    expect(standIn.violations).toEqual([])
  })
})

describe('pull requests', () => {
  it('serves the pull request it is given and pages its files', async () => {
    const require = createRequire(import.meta.url)
    const definitions = require('@octokit/webhooks-examples') as WebhookDefinition[]
    const example = definitions
      .find(d => d.name === 'pull_request')
      ?.examples.find(e => 'pull_request' in e)
    if (example === undefined || !('pull_request' in example)) throw new Error('no example')
    const pr = example.pull_request
    const files = Array.from({ length: 120 }, (_, i) => ({
      sha: SHA,
      filename: `src/file-${String(i)}.ts`,
      status: 'modified',
      additions: 1,
      deletions: 1,
      changes: 2,
      blob_url: `https://github.com/octo-org/octo-repo/blob/${SHA}/src/file-${String(i)}.ts`,
      raw_url: `https://github.com/octo-org/octo-repo/raw/${SHA}/src/file-${String(i)}.ts`,
      contents_url: `${standIn.url}/repos/octo-org/octo-repo/contents/src/file-${String(i)}.ts`,
      patch: '@@ -1 +1 @@\n-old\n+new'
    }))
    standIn.setPullRequest(pr.number, pr)
    standIn.setPullRequestFiles(pr.number, files)
    const client = octokit(READ_ONLY)

    const got = await client.rest.pulls.get({ ...repo(), pull_number: pr.number })
    expect(got.data).toEqual(pr)
    const listed = await client.paginate(client.rest.pulls.listFiles, {
      ...repo(),
      pull_number: pr.number,
      per_page: 100
    })
    expect(listed.map(f => f.filename)).toEqual(files.map(f => f.filename))
    await expect(
      client.rest.pulls.get({ ...repo(), pull_number: pr.number + 1 })
    ).rejects.toMatchObject({ status: 404 })
    expect(standIn.violations).toEqual([])
  })
})

describe("checks against GitHub's OpenAPI description", () => {
  it('records a route GitHub does not have', async () => {
    await expect(
      octokit().request('POST /repos/{owner}/{repo}/issues/{issue_number}/commentz', {
        ...repo(),
        issue_number: 1,
        body: 'typo'
      })
    ).rejects.toMatchObject({ status: 404 })
    await expect(
      octokit().request('PUT /repos/{owner}/{repo}/issues/comments/{comment_id}', {
        ...repo(),
        comment_id: 1,
        body: 'wrong method'
      })
    ).rejects.toMatchObject({ status: 404 })

    expect(standIn.violations).toEqual([
      'POST /repos/octo-org/octo-repo/issues/1/commentz: GitHub has no such route',
      'PUT /repos/octo-org/octo-repo/issues/comments/1: GitHub has no PUT operation on ' +
        '/repos/{owner}/{repo}/issues/comments/{comment_id} (only GET, PATCH, DELETE)'
    ])
  })

  it('records a body the schema rejects, with Ajv’s reason, and answers 422 as GitHub does', async () => {
    // Sent as a plain object: Octokit's own types would not let the value through.
    const invalid: Record<string, unknown> = {
      ...repo(),
      name: 'rubric-council',
      head_sha: SHA,
      conclusion: 'passed'
    }
    const refused = await refusal(
      octokit().request({ method: 'POST', url: '/repos/{owner}/{repo}/check-runs', ...invalid })
    )
    const allowed =
      '"action_required", "cancelled", "failure", "neutral", "success", "skipped", "stale", "timed_out"'
    expect(refused).toMatchObject({
      status: 422,
      data: { message: `Invalid request.\n\nFor 'conclusion': must be one of ${allowed}.` }
    })
    // On create, output needs a title as well as a summary (on update, only the summary).
    await expect(
      octokit().request('POST /repos/{owner}/{repo}/check-runs', {
        ...repo(),
        name: 'rubric-council',
        head_sha: SHA,
        output: { summary: 'no title' } as { title: string; summary: string }
      })
    ).rejects.toMatchObject({
      status: 422,
      response: { data: { message: 'Invalid request.\n\n"title" wasn\'t supplied.' } }
    })

    expect(standIn.violations).toEqual([
      `POST /repos/octo-org/octo-repo/check-runs: checks/create: body rejected: body/conclusion must be one of ${allowed}`,
      "POST /repos/octo-org/octo-repo/check-runs: checks/create: body rejected: body/output must have required property 'title'"
    ])
    expect(standIn.checkRuns).toEqual([])
  })

  it('records path and query parameters of the wrong type or missing', async () => {
    standIn.setPullRequest(1, { number: 1 })
    await expect(
      octokit().request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
        ...repo(),
        pull_number: 'one' as unknown as number
      })
    ).rejects.toMatchObject({ status: 404 })
    await expect(
      octokit().request('GET /search/issues', { q: undefined as unknown as string })
    ).rejects.toMatchObject({ status: 422 })

    expect(standIn.violations).toEqual([
      'GET /repos/octo-org/octo-repo/pulls/one: path parameter pull_number must be integer ' +
        '(got "one") in pulls/get',
      'GET /search/issues: search/issues-and-pull-requests: missing required query parameter q'
    ])
  })
})

describe('workflow runs, jobs and artifacts', () => {
  const RUN = 5_000_000_001

  it('answers with the shapes GitHub documents, for a fork’s run and its artifacts', async () => {
    standIn.setWorkflowRun({
      id: RUN,
      head_sha: SHA,
      head_repository: 'contributor/octo-repo',
      pull_requests: [3],
      run_attempt: 2
    })
    standIn.setRunJobs(RUN, [{ name: 'gates', status: 'in_progress' }, { name: 'council' }])
    const artifact = standIn.addArtifact(RUN, 'gates', Buffer.from('PK\x05\x06'))
    const expired = standIn.addArtifact(RUN, 'old', Buffer.from('PK'), { expired: true })
    const client = octokit(READ_ONLY)

    const run = await client.rest.actions.getWorkflowRun({ ...repo(), run_id: RUN })
    const jobs = await client.rest.actions.listJobsForWorkflowRun({ ...repo(), run_id: RUN })
    const attempt = await client.rest.actions.listJobsForWorkflowRunAttempt({
      ...repo(),
      run_id: RUN,
      attempt_number: 1
    })
    const listed = await client.rest.actions.listWorkflowRunArtifacts({ ...repo(), run_id: RUN })
    const one = await client.rest.actions.getArtifact({ ...repo(), artifact_id: artifact.id })
    const gone = await refusal(
      client.rest.actions.downloadArtifact({
        ...repo(),
        artifact_id: expired.id,
        archive_format: 'zip'
      })
    )
    const runs = `/repos/octo-org/octo-repo/actions/runs/${String(RUN)}`
    const artifacts = '/repos/octo-org/octo-repo/actions/artifacts'

    expect(run.data).toMatchObject({
      head_sha: SHA,
      run_attempt: 2,
      head_repository: { full_name: 'contributor/octo-repo', fork: true },
      repository: { full_name: 'octo-org/octo-repo', id: standIn.repositoryId },
      pull_requests: [{ number: 3 }]
    })
    expect(jobs.data.jobs.map(j => [j.name, j.status, j.conclusion])).toEqual([
      ['gates', 'in_progress', null],
      ['council', 'completed', 'success']
    ])
    expect(listed.data.artifacts.map(a => [a.name, a.expired])).toEqual([
      ['old', true],
      ['gates', false]
    ])
    expect(gone).toEqual({
      status: 410,
      data: {
        message: 'Artifact has expired',
        documentation_url: 'https://docs.github.com/rest/actions/artifacts#download-an-artifact',
        status: '410'
      }
    })
    const checks = await Promise.all([
      responseProblems('GET', runs, 200, run.data),
      responseProblems('GET', `${runs}/jobs`, 200, jobs.data),
      responseProblems('GET', `${runs}/attempts/1/jobs`, 200, attempt.data),
      responseProblems('GET', `${runs}/artifacts`, 200, listed.data),
      responseProblems('GET', `${artifacts}/${String(artifact.id)}`, 200, one.data),
      responseProblems('GET', `${artifacts}/${String(expired.id)}/zip`, 410, gone.data)
    ])
    expect(checks).toEqual([[], [], [], [], [], []])
    expect(standIn.violations).toEqual([])
  })

  it('lists the latest attempt’s jobs, or every attempt’s, and artifacts either way round', async () => {
    standIn.setWorkflowRun({ id: RUN, head_sha: SHA, run_attempt: 2 })
    standIn.setRunJobs(RUN, [{ name: 'gates', conclusion: 'failure' }], 1)
    standIn.setRunJobs(RUN, [{ name: 'gates' }], 2)
    standIn.addArtifact(RUN, 'first', Buffer.from('1'))
    standIn.addArtifact(RUN, 'second', Buffer.from('2'))
    const client = octokit()

    const latest = await client.rest.actions.listJobsForWorkflowRun({ ...repo(), run_id: RUN })
    const all = await client.rest.actions.listJobsForWorkflowRun({
      ...repo(),
      run_id: RUN,
      filter: 'all'
    })
    const asc = await client.rest.actions.listWorkflowRunArtifacts({
      ...repo(),
      run_id: RUN,
      direction: 'asc'
    })

    expect(latest.data.jobs.map(j => [j.run_attempt, j.conclusion])).toEqual([[2, 'success']])
    expect(all.data).toMatchObject({ total_count: 2 })
    expect(all.data.jobs.map(j => [j.run_attempt, j.conclusion])).toEqual([
      [1, 'failure'],
      [2, 'success']
    ])
    expect(asc.data.artifacts.map(a => a.name)).toEqual(['first', 'second'])
  })

  it('refuses every /actions/ route to a token without `actions: read`, and nothing else', async () => {
    standIn.addToken('ghs_no_actions', { ...BOT, write: true, actions: 'none' })
    standIn.addToken('github_pat_no_actions', { ...HUMAN, write: true, actions: 'none' })
    standIn.setWorkflowRun({ id: RUN, head_sha: SHA })

    const app = await refusal(
      octokit('ghs_no_actions').rest.actions.getWorkflowRun({ ...repo(), run_id: RUN })
    )
    const pat = await refusal(
      octokit('github_pat_no_actions').rest.actions.listWorkflowRunArtifacts({
        ...repo(),
        run_id: RUN
      })
    )
    await octokit('ghs_no_actions').rest.issues.listComments({ ...repo(), issue_number: 1 })

    expect(app).toMatchObject({
      status: 403,
      data: { message: 'Resource not accessible by integration' }
    })
    expect(pat).toMatchObject({
      status: 403,
      data: { message: 'Resource not accessible by personal access token' }
    })
    expect(standIn.requests.map(r => r.status)).toEqual([403, 403, 200])
  })

  it('validates the new routes’ parameters against the description', async () => {
    standIn.setWorkflowRun({ id: RUN, head_sha: SHA })

    const badFilter = await refusal(
      octokit().request('GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs', {
        ...repo(),
        run_id: RUN,
        filter: 'newest' as 'latest'
      })
    )
    const badRun = await refusal(
      octokit().request('GET /repos/{owner}/{repo}/actions/runs/{run_id}', {
        ...repo(),
        run_id: 'latest' as unknown as number
      })
    )

    expect(badFilter.status).toBe(422)
    expect(badRun.status).toBe(404)
    expect(standIn.violations).toEqual([
      `GET /repos/octo-org/octo-repo/actions/runs/${String(RUN)}/jobs?filter=newest: ` +
        'actions/list-jobs-for-workflow-run: query parameter filter must be one of "latest", "all"',
      'GET /repos/octo-org/octo-repo/actions/runs/latest: path parameter run_id must be integer ' +
        '(got "latest") in actions/get-workflow-run'
    ])
  })

  it('redirects a download to a signed blob URL that serves only its artifact', async () => {
    const one = standIn.addArtifact(RUN, 'one', Buffer.from('zip one'))
    const two = standIn.addArtifact(RUN, 'two', Buffer.from('zip two'))
    const client = octokit()

    const answer = await client.rest.actions.downloadArtifact({
      ...repo(),
      artifact_id: one.id,
      archive_format: 'zip',
      request: { redirect: 'manual' }
    })
    const location = new URL(answer.headers.location ?? '')
    const served = await fetch(location)
    const unsigned = await fetch(new URL(location.pathname, location))
    const elsewhere = await fetch(
      new URL(location.href.replace(`/${String(one.id)}/`, `/${String(two.id)}/`))
    )
    const tar = await refusal(
      client.rest.actions.downloadArtifact({
        ...repo(),
        artifact_id: one.id,
        archive_format: 'tar'
      })
    )

    expect(answer.status).toBe(302)
    expect(location.pathname.startsWith(`${BLOB_PATH}actions-results/${String(one.id)}/`)).toBe(
      true
    )
    expect(location.searchParams.get('sig')).toMatch(/^[0-9a-f]{32}$/)
    expect([served.status, served.headers.get('content-type'), await served.text()]).toEqual([
      200,
      'application/zip',
      'zip one'
    ])
    expect(unsigned.status).toBe(403)
    expect(elsewhere.status).toBe(403)
    expect(tar.status).toBe(404)
    expect(standIn.violations).toEqual([])
  })
})

describe('failures', () => {
  it('retries two 502s with the retry plugin', async () => {
    standIn.failNext(3, { status: 502 })
    standIn.addComment(4, 'hello', HUMAN)
    // Without the plugin, the first 502 (with GitHub's body for it) reaches the caller.
    expect(
      await refusal(octokit().rest.issues.listComments({ ...repo(), issue_number: 4 }))
    ).toMatchObject({ status: 502, data: { message: 'Server Error' } })
    // @actions/github takes extra plugins after the options; their options go in the options.
    const client = getOctokit(
      APP,
      { baseUrl: standIn.url, retry: { doNotRetry: [], retryAfterBaseValue: 5 } },
      retry
    )

    const listed = await client.rest.issues.listComments({ ...repo(), issue_number: 4 })

    expect(listed.data.map(c => c.body)).toEqual(['hello'])
    expect(standIn.requests.map(r => r.status)).toEqual([502, 502, 502, 200])
  })

  it('fails only the requests that match, whatever arrives in between', async () => {
    standIn.failNext(1, { status: 502 }, { method: 'POST', path: /\/issues\/\d+\/comments$/ })
    standIn.addComment(4, 'hello', HUMAN)
    const client = octokit()
    const listed = await client.rest.issues.listComments({ ...repo(), issue_number: 4 })
    expect(listed.status).toBe(200)
    expect(
      await refusal(client.rest.issues.createComment({ ...repo(), issue_number: 4, body: 'x' }))
    ).toMatchObject({ status: 502 })
    const created = await client.rest.issues.createComment({
      ...repo(),
      issue_number: 4,
      body: 'x'
    })
    expect(created.status).toBe(201)
    expect(standIn.requests.map(r => [r.method, r.status])).toEqual([
      ['GET', 200],
      ['POST', 502],
      ['POST', 201]
    ])
  })

  it('waits out a secondary rate limit with the throttling plugin', async () => {
    standIn.failNext(1, {
      status: 403,
      headers: { 'retry-after': '1' },
      body: {
        message:
          'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
        documentation_url:
          'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits'
      }
    })
    const waits: number[] = []
    const client = getOctokit(
      APP,
      {
        baseUrl: standIn.url,
        throttle: {
          onSecondaryRateLimit: (
            retryAfter: number,
            _options: unknown,
            _octokit: unknown,
            retryCount: number
          ) => {
            waits.push(retryAfter)
            return retryCount === 0
          },
          onRateLimit: () => false
        }
      },
      throttling
    )
    const started = performance.now()

    const listed = await client.rest.issues.listComments({ ...repo(), issue_number: 4 })

    expect(listed.status).toBe(200)
    expect(waits).toEqual([1])
    expect(performance.now() - started).toBeGreaterThanOrEqual(900)
    expect(standIn.requests.map(r => r.status)).toEqual([403, 200])
  })
})

describe('response shapes', () => {
  it('answers with the shapes GitHub documents', async () => {
    const client = octokit()
    standIn.setFile('main', 'README.md', 'hello')
    const comment = await client.rest.issues.createComment({
      ...repo(),
      issue_number: 2,
      body: 'x'
    })
    const listed = await client.rest.issues.listComments({ ...repo(), issue_number: 2 })
    const run = await client.rest.checks.create({
      ...repo(),
      name: 'rubric-council',
      head_sha: SHA,
      output: { title: 'Grading', summary: 'Judges at work', annotations: annotations(1) }
    })
    const done = await client.rest.checks.update({
      ...repo(),
      check_run_id: run.data.id,
      conclusion: 'success'
    })
    const content = await client.rest.repos.getContent({ ...repo(), path: 'README.md' })
    const me = await octokit(MAINTAINER).rest.users.getAuthenticated()
    const tooLong = await refusal(
      client.rest.issues.createComment({ ...repo(), issue_number: 2, body: 'x'.repeat(70_000) })
    )
    const comments = '/repos/octo-org/octo-repo/issues/2/comments'
    const runs = '/repos/octo-org/octo-repo/check-runs'

    const checks = await Promise.all([
      responseProblems('POST', comments, 201, comment.data),
      responseProblems('GET', comments, 200, listed.data),
      responseProblems('POST', runs, 201, run.data),
      responseProblems('PATCH', `${runs}/${String(run.data.id)}`, 200, done.data),
      responseProblems('GET', '/repos/octo-org/octo-repo/contents/README.md', 200, content.data),
      responseProblems('GET', '/user', 200, me.data),
      responseProblems('POST', comments, 422, tooLong.data)
    ])

    expect(checks).toEqual([[], [], [], [], [], [], []])
  })
})

/** GitHub's 403 for a token without the permission a route needs, as the stand-in sends it. */
function notAccessible(docs: string): { status: number; data: unknown } {
  return {
    status: 403,
    data: {
      message: 'Resource not accessible by integration',
      documentation_url: docs,
      status: '403'
    }
  }
}

/** A GITHUB_TOKEN whose workflow's `permissions:` are these. */
function tokenWith(name: string, permissions: NonNullable<TokenAccess['permissions']>): string {
  standIn.addToken(name, { ...BOT, permissions })
  return name
}

const DOCS_CREATE_COMMENT = 'https://docs.github.com/rest/issues/comments#create-an-issue-comment'
const DOCS_DISPATCH =
  'https://docs.github.com/rest/actions/workflows#create-a-workflow-dispatch-event'

describe('per-permission tokens', () => {
  it('lets issue comments through with issues: write, or pull-requests: write on a pull request', async () => {
    standIn.setPullRequest(5, { number: 5, state: 'open' })
    const issues = octokit(tokenWith('ghs_issues', { issues: 'write' }))
    const pulls = octokit(tokenWith('ghs_pulls', { 'pull-requests': 'write' }))
    const readsIssues = octokit(tokenWith('ghs_issues_read', { issues: 'read' }))
    const create = (client: typeof issues, issue: number) =>
      client.rest.issues.createComment({ ...repo(), issue_number: issue, body: 'hi' })

    expect((await create(issues, 6)).status).toBe(201)
    expect((await create(issues, 5)).status).toBe(201)
    expect((await create(pulls, 5)).status).toBe(201)
    // The Pull requests permission does not reach a plain issue.
    expect(await refusal(create(pulls, 6))).toEqual(notAccessible(DOCS_CREATE_COMMENT))
    // GitHub names the permissions that would have done, each set apart by a semicolon.
    const onPull = await create(issues, 5)
    expect(onPull.headers['x-accepted-github-permissions']).toBe(
      'issues=write; pull_requests=write'
    )
    const refusedHeaders = await create(pulls, 6).then(
      () => undefined,
      (error: unknown) =>
        (error as { response?: { headers?: Record<string, string> } }).response?.headers
    )
    expect(refusedHeaders?.['x-accepted-github-permissions']).toBe('issues=write')
    expect(await refusal(create(readsIssues, 6))).toEqual(notAccessible(DOCS_CREATE_COMMENT))
    const listed = await readsIssues.rest.issues.listComments({ ...repo(), issue_number: 6 })
    expect(listed.data.map(c => c.body)).toEqual(['hi'])

    expect(standIn.comments.get(5)).toHaveLength(3)
    expect(standIn.comments.get(6)).toHaveLength(1)
    expect(standIn.violations).toEqual([])
  })

  it('asks checks, contents, pull-requests, actions and metadata for their own routes', async () => {
    standIn.setPullRequest(5, { number: 5, state: 'open' })
    standIn.setFile('main', 'README.md', 'hello')
    standIn.setBranch('main', SHA)
    standIn.setWorkflow('rubric-council.yml', { dispatch: { inputs: {} } })
    const run = await octokit().rest.checks.create({ ...repo(), name: 'council', head_sha: SHA })
    const issuesOnly = octokit(tokenWith('ghs_issues', { issues: 'write' }))
    const checksRead = octokit(tokenWith('ghs_checks_read', { checks: 'read' }))
    const actionsRead = octokit(tokenWith('ghs_actions_read', { actions: 'read' }))
    const actionsWrite = octokit(tokenWith('ghs_actions_write', { actions: 'write' }))
    const noMetadata = octokit(tokenWith('ghs_no_metadata', { issues: 'write', metadata: 'none' }))
    const dispatch = (client: typeof issuesOnly) =>
      client.rest.actions.createWorkflowDispatch({
        ...repo(),
        workflow_id: 'rubric-council.yml',
        ref: 'main'
      })
    const permission = (client: typeof issuesOnly) =>
      client.rest.repos.getCollaboratorPermissionLevel({ ...repo(), username: 'octocat' })

    expect(
      await refusal(issuesOnly.rest.checks.create({ ...repo(), name: 'x', head_sha: SHA }))
    ).toEqual(notAccessible('https://docs.github.com/rest/reference/checks#create-a-check-run'))
    expect(
      (await checksRead.rest.checks.get({ ...repo(), check_run_id: run.data.id })).status
    ).toBe(200)
    expect(
      await refusal(
        checksRead.rest.checks.update({ ...repo(), check_run_id: run.data.id, name: 'renamed' })
      )
    ).toEqual(notAccessible('https://docs.github.com/rest/checks/runs#update-a-check-run'))
    expect(
      await refusal(issuesOnly.rest.repos.getContent({ ...repo(), path: 'README.md' }))
    ).toEqual(notAccessible('https://docs.github.com/rest/repos/contents#get-repository-content'))
    expect(await refusal(issuesOnly.rest.pulls.get({ ...repo(), pull_number: 5 }))).toEqual(
      notAccessible('https://docs.github.com/rest/pulls/pulls#get-a-pull-request')
    )
    expect(await refusal(dispatch(actionsRead))).toEqual(notAccessible(DOCS_DISPATCH))
    expect((await dispatch(actionsWrite)).status).toBe(204)
    // metadata: read comes with every GITHUB_TOKEN unless taken away.
    expect((await permission(issuesOnly)).status).toBe(200)
    expect(await refusal(permission(noMetadata))).toEqual(
      notAccessible(
        'https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user'
      )
    )
    // The older fields still work: `write: true` writes everywhere, `write: false` nowhere.
    expect((await dispatch(octokit(APP))).status).toBe(204)
    expect((await refusal(dispatch(octokit(READ_ONLY)))).status).toBe(403)

    expect(standIn.dispatches).toHaveLength(2)
    expect(standIn.checkRuns.map(r => r.name)).toEqual(['council'])
    expect(standIn.violations).toEqual([])
  })
})

describe('what a token may write, probed without writing', () => {
  it('checks the permission before the body, as GitHub does: an empty write is 403 without it, 422 with it, and creates nothing', async () => {
    const probe = (token: string) =>
      octokitPort(repo(), {
        token,
        baseUrl: standIn.url,
        warn: () => undefined
      }).writablePermissions(SHA)
    const readOnly = tokenWith('ghs_probe_read', { contents: 'read', 'pull-requests': 'read' })
    expect(await probe(readOnly)).toEqual([])
    expect(await probe(tokenWith('ghs_probe_checks', { checks: 'write' }))).toEqual(['checks'])
    expect(
      await probe(tokenWith('ghs_probe_some', { statuses: 'write', contents: 'write' }))
    ).toEqual(['statuses', 'contents'])
    expect(await probe(APP)).toEqual(['checks', 'statuses', 'contents', 'pull-requests', 'actions'])
    // The 422 GitHub gives a request it would have let through.
    const route = 'POST /repos/{owner}/{repo}/pulls' as string
    expect(await refusal(octokit(APP).request(route, { ...repo(), data: {} }))).toMatchObject({
      status: 422
    })
    expect(standIn.checkRuns).toEqual([])
    expect(standIn.dispatches).toEqual([])
    // The probes are requests GitHub's description rejects on purpose: recorded as such, nothing else.
    expect(standIn.violations.every(v => /^POST .*: /.test(v))).toBe(true)
  })
})

describe('listing pull requests', () => {
  const START = Date.parse('2026-01-01T00:00:00Z')
  const seed = (count: number): void => {
    for (let n = 1; n <= count; n++) {
      standIn.setPullRequest(n, {
        number: n,
        ...(n % 4 === 0 && { state: 'closed' }),
        created_at: new Date(START + n * 60_000).toISOString(),
        updated_at: new Date(START + (count - n) * 60_000).toISOString(),
        base: { ref: n % 2 === 0 ? 'release' : 'main' },
        head: { label: `octo-org:feature-${String(n)}`, ref: `feature-${String(n)}` }
      })
    }
  }
  const numbers = (list: readonly unknown[]) => list.map(pr => (pr as { number: number }).number)

  it('pages through 260 pull requests, open ones newest first by default', async () => {
    seed(260)
    const client = octokit(READ_ONLY)
    const open = Array.from({ length: 260 }, (_, i) => 260 - i).filter(n => n % 4 !== 0)

    const all = await client.paginate(client.rest.pulls.list, { ...repo(), per_page: 100 })
    expect(numbers(all)).toEqual(open)
    const byId = `/repositories/${String(standIn.repositoryId)}/pulls`
    expect(standIn.requests.map(r => [r.path, r.query.page])).toEqual([
      ['/repos/octo-org/octo-repo/pulls', undefined],
      [byId, '2']
    ])

    const first = await client.rest.pulls.list({ ...repo() })
    const base = `${standIn.url}${byId}`
    expect(numbers(first.data)).toEqual(open.slice(0, 30))
    expect(first.headers.link).toBe(`<${base}?page=2>; rel="next", <${base}?page=7>; rel="last"`)
    const capped = await client.rest.pulls.list({ ...repo(), per_page: 500 })
    expect(capped.data).toHaveLength(100)
    const oldest = await client.rest.pulls.list({ ...repo(), direction: 'asc', per_page: 3 })
    expect(numbers(oldest.data)).toEqual([1, 2, 3])
    const updated = await client.rest.pulls.list({ ...repo(), sort: 'updated', per_page: 3 })
    expect(numbers(updated.data)).toEqual([259, 258, 257])
    expect(standIn.violations).toEqual([])
  })

  it('filters by state, base and head as GitHub does', async () => {
    seed(260)
    const client = octokit(READ_ONLY)
    const list = async (query: {
      state?: 'open' | 'closed' | 'all'
      base?: string
      head?: string
    }) =>
      numbers(await client.paginate(client.rest.pulls.list, { ...repo(), per_page: 100, ...query }))

    const closed = await list({ state: 'closed' })
    expect(closed).toHaveLength(65)
    expect(closed.every(n => n % 4 === 0)).toBe(true)
    expect(await list({ state: 'all' })).toHaveLength(260)
    const release = await list({ state: 'all', base: 'release' })
    expect(release).toHaveLength(130)
    expect(release.every(n => n % 2 === 0)).toBe(true)
    expect(await list({ base: 'release' })).toHaveLength(65)
    expect(await list({ head: 'octo-org:feature-7' })).toEqual([7])
    expect(await list({ head: 'feature-7' })).toEqual([7])
    expect(await list({ head: 'someone-else:feature-7' })).toEqual([])
    expect(await list({ head: 'octo-org:feature-8' })).toEqual([])
    expect(await list({ head: 'octo-org:feature-8', state: 'closed' })).toEqual([8])

    const merged = await refusal(
      client.request('GET /repos/{owner}/{repo}/pulls', {
        ...repo(),
        state: 'merged' as 'open'
      })
    )
    expect(merged).toMatchObject({
      status: 422,
      data: { message: `Invalid request.\n\nFor 'state': must be one of "open", "closed", "all".` }
    })
    expect(standIn.violations).toEqual([
      'GET /repos/octo-org/octo-repo/pulls?state=merged: pulls/list: query parameter state must be one of "open", "closed", "all"'
    ])
  })
})

describe('workflow dispatch', () => {
  const dispatch = (
    workflow: string | number,
    ref: string,
    inputs?: Record<string, string>,
    token = APP
  ) =>
    octokit(token).rest.actions.createWorkflowDispatch({
      ...repo(),
      workflow_id: workflow,
      ref,
      ...(inputs !== undefined && { inputs })
    })
  const refused = (message: string) => ({
    status: 422,
    data: { message, documentation_url: DOCS_DISPATCH, status: '422' }
  })

  beforeEach(() => {
    standIn.setBranch('main', SHA)
  })

  it('answers 204 with no body, by file name or numeric id, and records the dispatch', async () => {
    const id = standIn.setWorkflow('rubric-council.yml', {
      dispatch: { inputs: { 'pull-request': { required: true }, reason: {} } }
    })

    const byName = await dispatch('rubric-council.yml', 'main', { 'pull-request': '7' })
    const byId = await dispatch(id, 'refs/heads/main', { 'pull-request': '8', reason: 'again' })

    expect([byName.status, byName.data]).toEqual([204, ''])
    expect(byId.status).toBe(204)
    expect(standIn.dispatches).toEqual([
      { workflow: 'rubric-council.yml', ref: 'main', inputs: { 'pull-request': '7' } },
      {
        workflow: 'rubric-council.yml',
        ref: 'refs/heads/main',
        inputs: { 'pull-request': '8', reason: 'again' }
      }
    ])
    expect(standIn.violations).toEqual([])
  })

  it("refuses what GitHub refuses, with GitHub's status and message", async () => {
    standIn.setWorkflow('rubric-council.yml', {
      dispatch: {
        inputs: { 'pull-request': { required: true }, mode: { required: true, default: 'full' } }
      }
    })
    standIn.setWorkflow('ci.yml')

    expect(await refusal(dispatch('missing.yml', 'main'))).toEqual({
      status: 404,
      data: { message: 'Not Found', documentation_url: DOCS_DISPATCH, status: '404' }
    })
    expect(await refusal(dispatch(999, 'main'))).toMatchObject({ status: 404 })
    expect(await refusal(dispatch('ci.yml', 'main'))).toEqual(
      refused("Workflow does not have 'workflow_dispatch' trigger")
    )
    expect(await refusal(dispatch('rubric-council.yml', 'nope', { 'pull-request': '7' }))).toEqual(
      refused('No ref found for: nope')
    )
    // A tag or another kind of ref is not one of the repository's branches.
    expect(
      await refusal(dispatch('rubric-council.yml', 'refs/tags/main', { 'pull-request': '7' }))
    ).toEqual(refused('No ref found for: refs/tags/main'))
    expect(
      await refusal(
        dispatch('rubric-council.yml', 'main', { 'pull-request': '7', extra: '1', other: '2' })
      )
    ).toEqual(refused('Unexpected inputs provided: ["extra", "other"]'))
    // A required input with a default may be left out; one without may not.
    expect(await refusal(dispatch('rubric-council.yml', 'main', { mode: 'quick' }))).toEqual(
      refused("Required input 'pull-request' not provided")
    )
    expect(standIn.dispatches).toEqual([])
    expect(standIn.violations).toEqual([])
  })

  it(`takes ${String(DISPATCH_INPUTS_LIMIT)} inputs and refuses one more, as the description says`, async () => {
    const names = Array.from({ length: DISPATCH_INPUTS_LIMIT + 1 }, (_, i) => `input-${String(i)}`)
    standIn.setWorkflow('wide.yml', {
      dispatch: { inputs: Object.fromEntries(names.map(name => [name, {}])) }
    })
    const values = (count: number) => Object.fromEntries(names.slice(0, count).map(n => [n, 'x']))

    expect((await dispatch('wide.yml', 'main', values(DISPATCH_INPUTS_LIMIT))).status).toBe(204)
    const tooMany = await refusal(dispatch('wide.yml', 'main', values(DISPATCH_INPUTS_LIMIT + 1)))

    expect(tooMany).toMatchObject({
      status: 422,
      data: { message: "Invalid request.\n\nFor 'inputs': must NOT have more than 25 properties." }
    })
    expect(standIn.dispatches).toHaveLength(1)
    expect(standIn.violations).toEqual([
      expect.stringContaining(
        'actions/create-workflow-dispatch: body rejected: body/inputs must NOT have more than 25 properties'
      )
    ])
  })

  it('answers 200 with the run when asked for its details', async () => {
    standIn.setWorkflow('rubric-council.yml', { dispatch: { inputs: {} } })

    const answer = await octokit().request(
      'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
      { ...repo(), workflow_id: 'rubric-council.yml', ref: 'main', return_run_details: true }
    )
    const run = await octokit().rest.actions.getWorkflowRun({
      ...repo(),
      run_id: (answer.data as { workflow_run_id: number }).workflow_run_id
    })

    expect(answer.status).toBe(200)
    expect(
      await responseProblems(
        'POST',
        '/repos/octo-org/octo-repo/actions/workflows/rubric-council.yml/dispatches',
        200,
        answer.data
      )
    ).toEqual([])
    expect(run.data).toMatchObject({
      event: 'workflow_dispatch',
      head_sha: SHA,
      head_branch: 'main'
    })
    expect(standIn.violations).toEqual([])
  })
})

describe('workflow runs: the list and the re-run', () => {
  const DOCS_RERUN = 'https://docs.github.com/rest/actions/workflow-runs#re-run-a-workflow'
  const refused = (status: number, message: string) => ({
    status,
    data: { message, documentation_url: DOCS_RERUN, status: String(status) }
  })
  const rerun = (runId: number, token = APP) =>
    octokit(token).rest.actions.reRunWorkflow({ ...repo(), run_id: runId })
  const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString()

  it('lists a workflow’s runs newest first, by file name or id, filtered by event and commit', async () => {
    const id = standIn.setWorkflow('rubric-council.yml')
    standIn.setWorkflowRun({
      id: 11,
      workflow: 'rubric-council.yml',
      head_sha: SHA,
      pull_requests: [7],
      created_at: daysAgo(2)
    })
    standIn.setWorkflowRun({
      id: 12,
      workflow: 'rubric-council.yml',
      head_sha: SHA,
      pull_requests: [7],
      created_at: daysAgo(1)
    })
    standIn.setWorkflowRun({ id: 13, workflow: 'rubric-council.yml', head_sha: 'f'.repeat(40) })
    standIn.setWorkflowRun({
      id: 14,
      workflow: 'rubric-council.yml',
      head_sha: SHA,
      event: 'workflow_dispatch'
    })
    standIn.setWorkflowRun({ id: 15, workflow: 'other.yml', head_sha: SHA })
    const client = octokit(READ_ONLY)

    const byName = await client.rest.actions.listWorkflowRuns({
      ...repo(),
      workflow_id: 'rubric-council.yml',
      head_sha: SHA,
      event: 'pull_request'
    })
    const byId = await client.rest.actions.listWorkflowRuns({ ...repo(), workflow_id: id })
    const missing = await refusal(
      client.rest.actions.listWorkflowRuns({ ...repo(), workflow_id: 'missing.yml' })
    )

    expect(byName.data.total_count).toBe(2)
    expect(byName.data.workflow_runs.map(r => [r.id, r.path, r.workflow_id])).toEqual([
      [12, '.github/workflows/rubric-council.yml', id],
      [11, '.github/workflows/rubric-council.yml', id]
    ])
    expect(byId.data.workflow_runs.map(r => r.id).sort()).toEqual([11, 12, 13, 14])
    expect(missing).toMatchObject({ status: 404, data: { message: 'Not Found' } })
    expect(
      await responseProblems(
        'GET',
        '/repos/octo-org/octo-repo/actions/workflows/rubric-council.yml/runs',
        200,
        byName.data
      )
    ).toEqual([])
    expect(standIn.violations).toEqual([])
  })

  it('re-runs a finished run as its next attempt with the same event, commit and ref: 201 and {}', async () => {
    standIn.setWorkflowRun({
      id: 21,
      workflow: 'rubric-council.yml',
      head_sha: SHA,
      pull_requests: [7],
      run_attempt: 1,
      conclusion: 'failure'
    })

    const answer = await rerun(21)
    const run = await octokit().rest.actions.getWorkflowRun({ ...repo(), run_id: 21 })

    expect([answer.status, answer.data]).toEqual([201, {}])
    expect(
      await responseProblems(
        'POST',
        '/repos/octo-org/octo-repo/actions/runs/21/rerun',
        201,
        answer.data
      )
    ).toEqual([])
    expect(run.data).toMatchObject({
      run_attempt: 2,
      status: 'queued',
      conclusion: null,
      event: 'pull_request',
      head_sha: SHA,
      previous_attempt_url: expect.stringMatching(/\/actions\/runs\/21\/attempts\/1$/) as unknown
    })
    expect(standIn.runStarts).toEqual([
      {
        runId: 21,
        attempt: 2,
        workflow: 'rubric-council.yml',
        how: 'rerun',
        event: 'pull_request',
        head_sha: SHA,
        ref: 'refs/pull/7/merge'
      }
    ])
    expect(standIn.violations).toEqual([])
  })

  it("refuses what GitHub refuses, with GitHub's status and message", async () => {
    standIn.setWorkflowRun({ id: 31, head_sha: SHA, status: 'in_progress' })
    standIn.setWorkflowRun({ id: 32, head_sha: SHA, created_at: daysAgo(31) })
    standIn.setWorkflowRun({ id: 33, head_sha: SHA, run_attempt: 51 })
    standIn.setWorkflowRun({ id: 34, head_sha: SHA, created_at: daysAgo(29) })

    expect(await refusal(rerun(30))).toEqual(refused(404, 'Not Found'))
    expect(await refusal(rerun(31))).toEqual(refused(403, 'This workflow is already running'))
    expect(await refusal(rerun(32))).toEqual(
      refused(403, 'Unable to retry this workflow run because it was created over a month ago')
    )
    expect(await refusal(rerun(33))).toEqual(refused(403, 'This workflow run cannot be retried'))
    // Without actions: write, before anything else is looked at.
    expect(await refusal(rerun(34, READ_ONLY))).toEqual(notAccessible(DOCS_RERUN))
    expect(await refusal(rerun(34, tokenWith('ghs_actions_read', { actions: 'read' })))).toEqual(
      notAccessible(DOCS_RERUN)
    )
    expect(standIn.runStarts).toEqual([])
    expect((await rerun(34, tokenWith('ghs_actions_write', { actions: 'write' }))).status).toBe(201)
    expect(standIn.runStarts.map(r => [r.runId, r.attempt])).toEqual([[34, 2]])
    expect(standIn.violations).toEqual([])
  })

  it('starts a run for every dispatch, on the branch it names', async () => {
    standIn.setBranch('main', SHA)
    standIn.setWorkflow('rubric-council.yml', { dispatch: { inputs: { 'pull-request': {} } } })

    await octokit().rest.actions.createWorkflowDispatch({
      ...repo(),
      workflow_id: 'rubric-council.yml',
      ref: 'main',
      inputs: { 'pull-request': '7' }
    })

    expect(standIn.runStarts).toEqual([
      {
        runId: expect.any(Number) as unknown,
        attempt: 1,
        workflow: 'rubric-council.yml',
        how: 'dispatch',
        event: 'workflow_dispatch',
        head_sha: SHA,
        ref: 'refs/heads/main'
      }
    ])
  })
})

describe('collaborator permission', () => {
  const permissionOf = (username: string, client = octokit()) =>
    client.rest.repos.getCollaboratorPermissionLevel({ ...repo(), username })
  const path = (username: string) =>
    `/repos/octo-org/octo-repo/collaborators/${username}/permission`

  it('maps maintain to write and triage to read, and names the role', async () => {
    const roles = ['admin', 'maintain', 'write', 'triage', 'read'] as const
    for (const role of roles) standIn.setPermission(`${role}-user`, role)

    const answers = await Promise.all(roles.map(role => permissionOf(`${role}-user`)))
    const owner = await permissionOf('octo-org')

    expect(answers.map(a => [a.data.permission, a.data.role_name])).toEqual([
      ['admin', 'admin'],
      ['write', 'maintain'],
      ['write', 'write'],
      ['read', 'triage'],
      ['read', 'read']
    ])
    expect(answers[1]?.data.user).toMatchObject({
      login: 'maintain-user',
      permissions: { admin: false, maintain: true, push: true, triage: true, pull: true }
    })
    expect([owner.data.permission, owner.data.role_name]).toEqual(['admin', 'admin'])
    const problems = await Promise.all(
      answers.map(a => responseProblems('GET', path(a.data.user?.login ?? ''), 200, a.data))
    )
    expect(problems).toEqual([[], [], [], [], []])
    expect(standIn.violations).toEqual([])
  })

  it('answers read for a user with no role on a public repository, none on a private one', async () => {
    standIn.setPermission('passer-by', 'none')
    const publicAnswer = await permissionOf('passer-by')
    // Commenting makes no one a collaborator.
    standIn.addComment(3, 'drive-by', { login: 'commenter', type: 'User' })
    const commenter = await permissionOf('commenter')

    const closed = await startGitHubStandIn({ private: true })
    try {
      closed.addToken(APP, { ...BOT, write: true })
      closed.setPermission('passer-by', 'none')
      closed.setPermission('member', 'triage')
      const client = getOctokit(APP, { baseUrl: closed.url })
      const privateAnswer = await client.rest.repos.getCollaboratorPermissionLevel({
        ...repo(),
        username: 'passer-by'
      })
      const member = await client.rest.repos.getCollaboratorPermissionLevel({
        ...repo(),
        username: 'member'
      })
      expect([privateAnswer.data.permission, privateAnswer.data.role_name]).toEqual([
        'none',
        'none'
      ])
      expect(privateAnswer.data.user?.permissions?.pull).toBe(false)
      expect([member.data.permission, member.data.role_name]).toEqual(['read', 'triage'])
      expect(closed.violations).toEqual([])
    } finally {
      await closed.close()
    }

    expect([publicAnswer.data.permission, publicAnswer.data.role_name]).toEqual(['read', 'read'])
    expect(commenter.data.permission).toBe('read')
  })

  it('answers 404 for a login GitHub does not know', async () => {
    expect(await refusal(permissionOf('no-such-user-here'))).toEqual({
      status: 404,
      data: {
        message: 'Not Found',
        documentation_url:
          'https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user',
        status: '404'
      }
    })
  })
})

describe('comments and their reactions', () => {
  const react = (commentId: number, content: '+1' | 'eyes' | 'rocket', token = APP) =>
    octokit(token).rest.reactions.createForIssueComment({
      ...repo(),
      comment_id: commentId,
      content
    })

  it('gets one comment, or 404', async () => {
    const comment = standIn.addComment(4, '/council review', HUMAN)

    const got = await octokit(READ_ONLY).rest.issues.getComment({
      ...repo(),
      comment_id: comment.id
    })
    const missing = await refusal(
      octokit(READ_ONLY).rest.issues.getComment({ ...repo(), comment_id: comment.id + 1 })
    )

    expect(got.data).toMatchObject({
      id: comment.id,
      body: '/council review',
      user: { login: 'octocat' }
    })
    expect(
      await responseProblems(
        'GET',
        `/repos/octo-org/octo-repo/issues/comments/${String(comment.id)}`,
        200,
        got.data
      )
    ).toEqual([])
    expect(missing).toEqual({
      status: 404,
      data: {
        message: 'Not Found',
        documentation_url: 'https://docs.github.com/rest/issues/comments',
        status: '404'
      }
    })
  })

  it('answers 201 for a new reaction and 200 for one the user already left', async () => {
    const comment = standIn.addComment(4, '/council review', HUMAN)

    const first = await react(comment.id, 'eyes')
    const again = await react(comment.id, 'eyes')
    const rocket = await react(comment.id, 'rocket')
    const theirs = await react(comment.id, 'eyes', MAINTAINER)

    expect([first.status, again.status, rocket.status, theirs.status]).toEqual([201, 200, 201, 201])
    expect(again.data.id).toBe(first.data.id)
    expect(first.data).toMatchObject({ content: 'eyes', user: { login: 'github-actions[bot]' } })
    expect(standIn.reactions(comment.id).map(r => [r.content, r.user.login])).toEqual([
      ['eyes', 'github-actions[bot]'],
      ['rocket', 'github-actions[bot]'],
      ['eyes', 'octocat']
    ])
    const got = await octokit().rest.issues.getComment({ ...repo(), comment_id: comment.id })
    expect(got.data.reactions).toMatchObject({ total_count: 3, eyes: 2, rocket: 1, '+1': 0 })
    const reactions = `/repos/octo-org/octo-repo/issues/comments/${String(comment.id)}/reactions`
    expect(await responseProblems('POST', reactions, 201, first.data)).toEqual([])
    expect(await responseProblems('POST', reactions, 200, again.data)).toEqual([])
    expect(standIn.violations).toEqual([])
  })

  it('refuses a content outside the enum with 422, and an unknown comment with 404', async () => {
    const comment = standIn.addComment(4, '/council review', HUMAN)

    const thumbs = await refusal(
      octokit().request('POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', {
        ...repo(),
        comment_id: comment.id,
        content: 'thumbsup' as 'eyes'
      })
    )
    const unknown = await refusal(react(comment.id + 1, 'eyes'))

    expect(thumbs).toMatchObject({
      status: 422,
      data: {
        message:
          `Invalid request.\n\nFor 'content': must be one of "+1", "-1", "laugh", "confused", ` +
          `"heart", "hooray", "rocket", "eyes".`
      }
    })
    expect(unknown).toEqual({
      status: 404,
      data: {
        message: 'Not Found',
        documentation_url:
          'https://docs.github.com/rest/reactions/reactions#create-reaction-for-an-issue-comment',
        status: '404'
      }
    })
    expect(standIn.reactions(comment.id)).toEqual([])
    expect(standIn.violations).toEqual([
      expect.stringContaining(
        'reactions/create-for-issue-comment: body rejected: body/content must be one of'
      )
    ])
  })

  it('lets pull-requests: write react only on a pull request’s comments', async () => {
    standIn.setPullRequest(5, { number: 5, state: 'open' })
    const onPull = standIn.addComment(5, '/council review', HUMAN)
    const onIssue = standIn.addComment(6, '/council review', HUMAN)
    const pulls = tokenWith('ghs_pulls', { 'pull-requests': 'write' })
    const issuesRead = tokenWith('ghs_issues_read', { issues: 'read', 'pull-requests': 'read' })

    expect((await react(onPull.id, '+1', pulls)).status).toBe(201)
    expect(await refusal(react(onIssue.id, '+1', pulls))).toEqual(
      notAccessible(
        'https://docs.github.com/rest/reactions/reactions#create-reaction-for-an-issue-comment'
      )
    )
    expect((await refusal(react(onPull.id, '+1', issuesRead))).status).toBe(403)
    expect(standIn.reactions(onPull.id)).toHaveLength(1)
    expect(standIn.reactions(onIssue.id)).toEqual([])
  })
})

describe('check runs from in_progress to completed', () => {
  it('lets only an app write check runs; a user’s token reads them', async () => {
    const created = await octokit().rest.checks.create({
      ...repo(),
      name: 'rubric-council',
      head_sha: SHA
    })
    const human = octokit(MAINTAINER)
    const notApp = {
      status: 403,
      data: {
        message: 'You must authenticate via a GitHub App.',
        documentation_url: 'https://docs.github.com/rest/checks/runs',
        status: '403'
      }
    }

    expect(
      await refusal(human.rest.checks.create({ ...repo(), name: 'mine', head_sha: SHA }))
    ).toEqual(notApp)
    expect(
      await refusal(
        human.rest.checks.update({
          ...repo(),
          check_run_id: created.data.id,
          conclusion: 'success'
        })
      )
    ).toEqual(notApp)
    expect((await human.rest.checks.get({ ...repo(), check_run_id: created.data.id })).status).toBe(
      200
    )
    expect(standIn.checkRuns.map(r => [r.name, r.status])).toEqual([['rubric-council', 'queued']])
  })

  it('stores in_progress with started_at, completes on a conclusion, and keeps the history', async () => {
    const client = octokit()
    const created = await client.rest.checks.create({
      ...repo(),
      name: 'rubric-council',
      head_sha: SHA,
      status: 'in_progress'
    })
    const [run] = standIn.checkRuns
    expect(run).toMatchObject({ status: 'in_progress', conclusion: null, completed_at: null })
    expect(run?.started_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect(created.data.started_at).toBe(run?.started_at)

    const done = await client.rest.checks.update({
      ...repo(),
      check_run_id: created.data.id,
      status: 'completed',
      conclusion: 'success',
      completed_at: '2026-01-01T00:05:00Z'
    })

    expect(done.data).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      completed_at: '2026-01-01T00:05:00Z'
    })
    expect(run?.history).toEqual([
      { status: 'in_progress', conclusion: null },
      { status: 'completed', conclusion: 'success' }
    ])
    expect(
      standIn.requests.map(r => [r.method, r.status, (r.body as { status?: string }).status])
    ).toEqual([
      ['POST', 201, 'in_progress'],
      ['PATCH', 200, 'completed']
    ])
    expect(standIn.violations).toEqual([])
  })

  it('refuses status completed without a conclusion, on create and on update', async () => {
    const client = octokit()
    const missing = {
      status: 422,
      data: { message: 'Invalid request.\n\n"conclusion" wasn\'t supplied.' }
    }
    const started = await client.rest.checks.create({
      ...repo(),
      name: 'rubric-council',
      head_sha: SHA,
      status: 'in_progress'
    })

    expect(
      await refusal(
        client.rest.checks.create({ ...repo(), name: 'x', head_sha: SHA, status: 'completed' })
      )
    ).toMatchObject(missing)
    // The update's schema says it too (`anyOf`: completed requires a conclusion), so its wording
    // joins GitHub's line about the missing conclusion.
    const onUpdate = {
      status: 422,
      data: { message: expect.stringContaining('"conclusion" wasn\'t supplied.') as unknown }
    }
    expect(
      await refusal(
        client.rest.checks.update({ ...repo(), check_run_id: started.data.id, status: 'completed' })
      )
    ).toMatchObject(onUpdate)
    expect(
      await refusal(
        client.rest.checks.update({
          ...repo(),
          check_run_id: started.data.id,
          completed_at: '2026-01-01T00:05:00Z'
        })
      )
    ).toMatchObject(missing)
    expect(standIn.checkRuns.map(r => [r.status, r.history.length])).toEqual([['in_progress', 1]])
    expect(standIn.violations).toEqual([
      `PATCH /repos/octo-org/octo-repo/check-runs/${String(started.data.id)}: checks/update: ` +
        "body rejected: body must have required property 'conclusion'; " +
        'body/status must be one of "queued", "in_progress"; body must match a schema in anyOf'
    ])
  })

  it('keeps a completed run completed: a later in_progress or conclusion is answered and ignored', async () => {
    const client = octokit()
    const created = await client.rest.checks.create({
      ...repo(),
      name: 'rubric-council',
      head_sha: SHA,
      conclusion: 'failure',
      output: { title: 'Failed', summary: 'first' }
    })
    const completedAt = created.data.completed_at

    const back = await client.rest.checks.update({
      ...repo(),
      check_run_id: created.data.id,
      status: 'in_progress',
      output: { summary: 'second' }
    })
    const flipped = await client.rest.checks.update({
      ...repo(),
      check_run_id: created.data.id,
      conclusion: 'success'
    })

    expect(back.status).toBe(200)
    expect(back.data).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      completed_at: completedAt
    })
    expect(back.data.output.summary).toBe('second')
    expect(flipped.data).toMatchObject({ status: 'completed', conclusion: 'failure' })
    expect(standIn.checkRuns[0]?.history).toEqual([
      { status: 'completed', conclusion: 'failure' },
      { status: 'completed', conclusion: 'failure' },
      { status: 'completed', conclusion: 'failure' }
    ])
  })
})

describe('artifact uploads through the results service, as @actions/artifact makes them', () => {
  const RUN_ID = 6_000_000_123
  const TWIRP = '/twirp/github.actions.results.api.v1.ArtifactService/'

  /** The client as a job's action runs it: the runner's variables for run `runId`, job `job`. */
  async function upload(
    runtime: { ACTIONS_RUNTIME_TOKEN: string; ACTIONS_RESULTS_URL: string },
    name: string,
    text: string
  ): Promise<{ id?: number | undefined; error?: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'rc-upload-'))
    writeFileSync(join(dir, 'record.json'), text)
    vi.stubEnv('ACTIONS_RUNTIME_TOKEN', runtime.ACTIONS_RUNTIME_TOKEN)
    vi.stubEnv('ACTIONS_RESULTS_URL', runtime.ACTIONS_RESULTS_URL)
    vi.stubEnv('GITHUB_SERVER_URL', 'https://github.com')
    // The client logs to the runner (::debug::, ::add-mask::, its progress) on stdout, which is
    // here the terminal of the tests: kept from it, as the runner keeps a step's log.
    const runnerLog = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
    try {
      const result = await new DefaultArtifactClient().uploadArtifact(
        name,
        [join(dir, 'record.json')],
        dir
      )
      return { id: result.id }
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) }
    } finally {
      runnerLog.mockRestore()
      vi.unstubAllEnvs()
    }
  }

  /** A raw Twirp call, for what the client itself never sends. */
  async function twirp(
    method: string,
    token: string,
    body: Record<string, unknown>
  ): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${standIn.url}${TWIRP}${method}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body)
    })
    return { status: response.status, body: await response.json() }
  }

  /** The ids the client would send, read from the token's scope as it reads them. */
  function idsOf(token: string): Record<string, string> {
    const claims = JSON.parse(
      Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')
    ) as { scp: string }
    const [, run = '', job = ''] =
      claims.scp
        .split(' ')
        .find(s => s.startsWith('Actions.Results:'))
        ?.split(':') ?? []
    return { workflow_run_backend_id: run, workflow_job_run_backend_id: job }
  }

  it('makes the upload an artifact of the run, listed and downloaded through the REST API', async () => {
    const runtime = standIn.runtimeFor(RUN_ID, 'gates')
    const uploaded = await upload(runtime, 'rubric-council-gates', '{"schema":"x"}\n')
    expect(uploaded.error).toBeUndefined()

    const client = octokit()
    const listed = await client.rest.actions.listWorkflowRunArtifacts({ ...repo(), run_id: RUN_ID })
    expect(listed.data.artifacts.map(a => [a.id, a.name])).toEqual([
      [uploaded.id, 'rubric-council-gates']
    ])
    const answer = await client.rest.actions.downloadArtifact({
      ...repo(),
      artifact_id: uploaded.id ?? 0,
      archive_format: 'zip',
      request: { redirect: 'manual' }
    })
    const zip = Buffer.from(await (await fetch(answer.headers.location ?? '')).arrayBuffer())
    expect(
      readZipEntry(zip, 'record.json', { maxBytes: 1024, maxEntries: 10 }).toString('utf8')
    ).toBe('{"schema":"x"}\n')
    expect(standIn.violations).toEqual([])
  })

  it('refuses a name already used in the run, with GitHub’s error', async () => {
    const first = await upload(standIn.runtimeFor(RUN_ID, 'gates'), 'results', 'one')
    // Another job of the same run.
    const second = await upload(standIn.runtimeFor(RUN_ID, 'council'), 'results', 'two')
    // Another run may use the name.
    const elsewhere = await upload(standIn.runtimeFor(RUN_ID + 1, 'gates'), 'results', 'three')
    expect(first.error).toBeUndefined()
    expect(second.error).toBe(
      'Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: an artifact with this name already exists on the workflow run'
    )
    expect(elsewhere.error).toBeUndefined()
  })

  it('refuses a token it did not sign, and one for another job', async () => {
    const real = standIn.runtimeFor(RUN_ID, 'gates')
    const [header, payload] = real.ACTIONS_RUNTIME_TOKEN.split('.')
    const unsigned = `${header ?? ''}.${payload ?? ''}.forged`
    const forged = await upload({ ...real, ACTIONS_RUNTIME_TOKEN: unsigned }, 'results', 'x')
    expect(forged.error).toBe(
      'Failed to CreateArtifact: Received non-retryable error: Failed request: (401) Unauthorized: invalid token'
    )
    const other = standIn.runtimeFor(RUN_ID + 2, 'gates').ACTIONS_RUNTIME_TOKEN
    const crossed = await twirp('CreateArtifact', real.ACTIONS_RUNTIME_TOKEN, {
      ...idsOf(other),
      name: 'results',
      version: 4
    })
    expect(crossed).toEqual({
      status: 403,
      body: {
        code: 'permission_denied',
        msg: 'the token does not grant this workflow run or job'
      }
    })
    expect(standIn.requests.filter(r => r.path.startsWith(TWIRP)).map(r => r.status)).toEqual([
      401, 403
    ])
  })

  it('finalizes only an upload that was made, of the size and hash it says', async () => {
    const token = standIn.runtimeFor(RUN_ID, 'gates').ACTIONS_RUNTIME_TOKEN
    const ids = idsOf(token)
    const unknown = await twirp('FinalizeArtifact', token, { ...ids, name: 'never', size: '1' })
    const created = await twirp('CreateArtifact', token, { ...ids, name: 'results', version: 4 })
    const early = await twirp('FinalizeArtifact', token, { ...ids, name: 'results', size: '0' })

    const url = new URL((created.body as { signed_upload_url: string }).signed_upload_url)
    const put = (query: Record<string, string>, body: string, sig?: string) => {
      const target = new URL(url)
      for (const [k, v] of Object.entries(query)) target.searchParams.set(k, v)
      if (sig !== undefined) target.searchParams.set('sig', sig)
      return fetch(target, { method: 'PUT', body }).then(async r => [r.status, await r.text()])
    }
    const badSig = await put({ comp: 'block', blockid: 'YQ==' }, 'zip', 'forged')
    expect(await put({ comp: 'block', blockid: 'YQ==' }, 'zip bytes')).toEqual([201, ''])
    const badList = await put({ comp: 'blocklist' }, '<BlockList><Latest>Yg==</Latest></BlockList>')
    expect(
      await put({ comp: 'blocklist' }, '<BlockList><Latest>YQ==</Latest></BlockList>')
    ).toEqual([201, ''])
    const hash = `sha256:${createHash('sha256').update('zip bytes').digest('hex')}`
    const wrongSize = await twirp('FinalizeArtifact', token, {
      ...ids,
      name: 'results',
      size: '3',
      hash
    })
    const wrongHash = await twirp('FinalizeArtifact', token, {
      ...ids,
      name: 'results',
      size: '9',
      hash: `sha256:${'0'.repeat(64)}`
    })
    const done = await twirp('FinalizeArtifact', token, {
      ...ids,
      name: 'results',
      size: '9',
      hash
    })

    const notFound = {
      status: 404,
      body: { code: 'not_found', msg: 'artifact not found or its upload is not complete' }
    }
    expect(unknown).toEqual(notFound)
    expect(early).toEqual(notFound)
    expect(badSig[0]).toBe(403)
    expect(badSig[1]).toContain('<Code>AuthenticationFailed</Code>')
    expect(badList[0]).toBe(400)
    expect(badList[1]).toContain('<Code>InvalidBlockList</Code>')
    expect(wrongSize).toEqual({
      status: 400,
      body: {
        code: 'invalid_argument',
        msg: "size 3 does not match the uploaded blob's 9 bytes"
      }
    })
    expect(wrongHash.status).toBe(400)
    expect(done.status).toBe(200)
    expect(standIn.violations).toEqual([])
  })
})
