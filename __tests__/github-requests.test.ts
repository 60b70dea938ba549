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
const RUBRIC = '---\ndimensions: false\n---\n## Criteria\n- safe: The change is safe\n'

let github: GitHubStandIn
let providers: StandIn
let next = 1
beforeAll(async () => {
  github = await startGitHubStandIn({ owner: OWNER, repo: REPO })
  github.addToken(WRITE, { login: 'github-actions[bot]', type: 'Bot', write: true })
  providers = await startProviderStandIn(call => ({ json: wireAnswer(call.schema) }))
})
afterAll(async () => {
  await Promise.all([github.close(), providers.close()])
})

/** One judged review of `repo`'s pull request: the requests it made, as `METHOD path`. */
async function review(repo: Repository, number: number): Promise<string[]> {
  const from = github.requests.length
  const result = await runAction({
    workspace: repo.dir,
    eventName: 'pull_request',
    eventPath: pullRequestEvent(repo, { number }),
    apiUrl: github.url,
    inputs: { 'github-token': WRITE, models: 'openai:gpt-5.4-nano' },
    env: {
      OPENAI_API_KEY: 'sk-requests-0123456789abcdef',
      OPENAI_BASE_URL: providers.openaiBaseUrl
    }
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
