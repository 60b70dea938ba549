import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  openPullRequest,
  OWNER,
  pullRequestEvent,
  REPO,
  runAction,
  type Repository
} from './helpers/action-run.js'
import { startGitHubStandIn, type GitHubStandIn } from './helpers/github-standin.js'
import { wireAnswer } from './helpers/judge-answers.js'
import { startProviderStandIn, type StandIn } from './helpers/provider-standin.js'

/**
 * What a review costs in GitHub requests (docs/performance.md, figure 3): each fact is read once
 * a run. At the start one GraphQL request reads the pull request's head and the base's rubrics;
 * then the comment list; the pull request's head again before the comment is written; and the
 * token's identity comes with the first check run it starts.
 */

const WRITE = 'ghs_requests_write_0001'
const READ = 'ghs_requests_read_0001'
const RUBRIC = '---\ndimensions: false\n---\n## Criteria\n- safe: The change is safe\n'

let github: GitHubStandIn
let providers: StandIn
let next = 1
beforeAll(async () => {
  github = await startGitHubStandIn({ owner: OWNER, repo: REPO })
  github.addToken(WRITE, { login: 'github-actions[bot]', type: 'Bot', write: true })
  github.addToken(READ, { login: 'github-actions[bot]', type: 'Bot', write: false })
  providers = await startProviderStandIn(call => ({ json: wireAnswer(call.schema) }))
})
afterAll(async () => {
  await Promise.all([github.close(), providers.close()])
})

/** One judged review of `repo`'s pull request: the requests it made, as `METHOD path`. */
async function review(
  repo: Repository,
  number: number,
  job: { readonly token: string; readonly models: string; readonly env: Record<string, string> } = {
    token: WRITE,
    models: 'openai:gpt-5.4-nano',
    env: {
      OPENAI_API_KEY: 'sk-requests-0123456789abcdef',
      OPENAI_BASE_URL: providers.openaiBaseUrl
    }
  }
): Promise<string[]> {
  const from = github.requests.length
  const result = await runAction({
    workspace: repo.dir,
    eventName: 'pull_request',
    eventPath: pullRequestEvent(repo, { number }),
    apiUrl: github.url,
    inputs: { 'github-token': job.token, models: job.models },
    env: job.env
  })
  expect(result.outputs.verdict).toBe('PASS')
  const repoPath = `/repos/${OWNER}/${REPO}`
  return github.requests.slice(from).map(
    r =>
      `${r.method} ${decodeURIComponent(r.path)
        .replace(repoPath, '')
        .replace(/[0-9a-f]{40}/, '{sha}')
        .replace(/\d{6,}/, '{id}')}`
  )
}

describe('GitHub requests of a judged review', () => {
  it('one rubric: 8 on the first push, 8 on the next, /user never read', async () => {
    const number = next++
    const repo = openPullRequest(
      github,
      number,
      { '.github/rubric.md': RUBRIC, 'a.ts': '1\n' },
      { 'a.ts': '2\n' }
    )
    const first = await review(repo, number)
    expect(first).toEqual([
      // The pull request's head now, the base's rubric and its rubrics/ folder: one request.
      'POST /graphql',
      'POST /check-runs',
      `GET /issues/${number}/comments`,
      'GET /commits/{sha}/check-runs',
      `GET /pulls/${number}`,
      'PATCH /check-runs/{id}',
      `POST /issues/${number}/comments`,
      // Another run may have written one at the same time: two are made one.
      `GET /issues/${number}/comments`
    ])
    const again = await review(repo, number)
    expect(again).toEqual([
      'POST /graphql',
      'POST /check-runs',
      `GET /issues/${number}/comments`,
      'GET /commits/{sha}/check-runs',
      `GET /pulls/${number}`,
      // Read again before it is written: what another run wrote meanwhile is kept.
      'GET /issues/comments/{id}',
      'PATCH /check-runs/{id}',
      'PATCH /issues/comments/{id}'
    ])
  })

  it('gates in the job: 13, the five write-permission probes included', async () => {
    // The gates run only in a job that holds no provider key and no token that can write: a
    // self-hosted judge, and a read-only token (whose check run and comment GitHub refuses).
    const number = next++
    const gated = `${RUBRIC}## Gates\n- \`true\`\n`
    const repo = openPullRequest(
      github,
      number,
      { '.github/rubric.md': gated, 'a.ts': '1\n' },
      { 'a.ts': '2\n' }
    )
    const made = await review(repo, number, {
      token: READ,
      models: 'ollama:llama3.1:8b',
      env: { OLLAMA_BASE_URL: providers.ollamaBaseUrl }
    })
    // The probes go out at once, in any order.
    const ordered = [...made.slice(0, 4), ...made.slice(4, 9).sort(), ...made.slice(9)]
    expect(ordered).toEqual([
      'POST /graphql',
      // Refused (403): the token cannot write, so its identity is read for finding our comment.
      'POST /check-runs',
      'GET /user',
      `GET /issues/${number}/comments`,
      // The five probes: empty writes GitHub refuses (403) or rejects (422); nothing is written.
      'POST /actions/workflows/rubric-council-write-probe.yml/dispatches',
      'POST /check-runs',
      'POST /git/refs',
      'POST /pulls',
      'POST /statuses/{sha}',
      'GET /commits/{sha}/check-runs',
      `GET /pulls/${number}`,
      'POST /check-runs',
      `POST /issues/${number}/comments`
    ])
  })

  it('each further rubric: its check run started and completed; its file and its name’s check runs come with the others', async () => {
    const counts: number[] = []
    for (const n of [2, 3]) {
      const number = next++
      const rubrics = Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`.github/rubrics/r${i}.md`, RUBRIC])
      )
      const repo = openPullRequest(github, number, { ...rubrics, 'a.ts': '1\n' }, { 'a.ts': '2\n' })
      await review(repo, number)
      counts.push((await review(repo, number)).length)
    }
    const [two = 0, three = 0] = counts
    expect(three - two).toBe(2)
  }, 120_000)
})
