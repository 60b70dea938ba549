import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { readState } from '../src/report/history.js'
import { rubricHash } from '../src/rubric/hash.js'
import {
  baseBranch,
  issueCommentEvent,
  openPullRequest,
  OWNER,
  pullRequestEvent,
  pullRequestJson,
  pushEvent,
  REPO,
  runAction,
  webhookExample,
  writeEvent,
  type ActionRun,
  type Repository
} from './helpers/action-run.js'
import { startGitHubStandIn, type Actor, type GitHubStandIn } from './helpers/github-standin.js'
import { wireAnswer } from './helpers/judge-answers.js'
import { startProviderStandIn, type StandIn } from './helpers/provider-standin.js'

/**
 * The PR bot end to end (docs/pr-bot.md): the bundled action run as the runner runs it, with real
 * webhook payloads, against the GitHub stand-in (every request checked against GitHub's OpenAPI
 * description, permissions as the workflow grants them) and the provider stand-in.
 */

const TOKEN = 'ghs_bot_token_0001'
const BOT: Actor = { login: 'github-actions[bot]', type: 'Bot' }
const MAINTAINER: Actor = { login: 'octo-maintainer', type: 'User' }
const READER: Actor = { login: 'octo-reader', type: 'User' }
const RUBRIC = '---\ndimensions: false\n---\n## Criteria\n- tested: The change is tested\n'
const WORKFLOW = 'rubric-council.yml'

let github: GitHubStandIn
let providers: StandIn
/** Check runs on the watched commit, as each provider call found them. */
let watch: { sha: string; seen: string[] } | undefined
let nextPr = 1

beforeAll(async () => {
  github = await startGitHubStandIn({ owner: OWNER, repo: REPO })
  // What the review and bot workflows `init` writes grant their jobs.
  github.addToken(TOKEN, {
    ...BOT,
    permissions: {
      contents: 'read',
      'pull-requests': 'write',
      checks: 'write',
      actions: 'write'
    }
  })
  github.setWorkflow(WORKFLOW, { dispatch: { inputs: { 'pull-request': { required: true } } } })
  github.setPermission(MAINTAINER.login, 'write')
  github.setPermission(READER.login, 'read')
  providers = await startProviderStandIn(call => {
    if (watch) {
      const sha = watch.sha
      watch.seen.push(...github.checkRuns.filter(c => c.head_sha === sha).map(c => c.status))
    }
    return { json: wireAnswer(call.schema) }
  })
})
afterEach(() => {
  expect(github.violations).toEqual([])
})
afterAll(async () => {
  await Promise.all([github.close(), providers.close()])
})

interface PullRequest {
  readonly repo: Repository
  readonly number: number
}

function pullRequest(): PullRequest {
  const number = nextPr++
  const repo = openPullRequest(
    github,
    number,
    { '.github/rubric.md': RUBRIC },
    {
      'feature.ts': 'export const feature = 1\n'
    }
  )
  return { repo, number }
}

const KEYS = (): Record<string, string> => ({
  OPENAI_API_KEY: 'sk-pr-bot-0123456789',
  OPENAI_BASE_URL: providers.openaiBaseUrl
})

function act(
  pr: PullRequest,
  eventName: string,
  eventPath: string,
  env: Record<string, string> = {}
): Promise<ActionRun> {
  return runAction({
    workspace: pr.repo.dir,
    eventName,
    eventPath,
    apiUrl: github.url,
    inputs: {
      'github-token': TOKEN,
      models: 'openai:gpt-5-mini',
      'allow-gates-with-secrets': 'true'
    },
    env
  })
}

const review = (pr: PullRequest, env: Record<string, string> = KEYS()) =>
  act(pr, 'pull_request', pullRequestEvent(pr.repo, { number: pr.number }), env)
const dispatchedReview = (pr: PullRequest, env: Record<string, string> = KEYS()) =>
  act(
    pr,
    'workflow_dispatch',
    writeEvent({
      ...webhookExample('workflow_dispatch'),
      inputs: { 'pull-request': String(pr.number) }
    }),
    env
  )
function comment(pr: PullRequest, body: string, user: Actor): Promise<ActionRun> {
  const { id } = github.addComment(pr.number, body, user)
  return act(
    pr,
    'issue_comment',
    issueCommentEvent({ number: pr.number, body, user, commentId: id })
  )
}

const ours = (pr: PullRequest): string =>
  (github.comments.get(pr.number) ?? []).find(
    c => c.user.login === BOT.login && c.body.startsWith('<!-- rubric-council:')
  )?.body ?? ''
const checksOn = (sha: string) => github.checkRuns.filter(c => c.head_sha === sha)
const dispatchesFor = (pr: PullRequest) =>
  github.dispatches.filter(d => d.inputs['pull-request'] === String(pr.number))

describe('the check while the run works', () => {
  it('exists as in_progress before any provider is called, and that same check run completes', async () => {
    const pr = pullRequest()
    watch = { sha: pr.repo.headSha, seen: [] }
    try {
      expect((await review(pr)).outputs.verdict).toBe('PASS')
      expect(watch.seen).toEqual(['in_progress'])
    } finally {
      watch = undefined
    }
    expect(checksOn(pr.repo.headSha).map(c => c.history)).toEqual([
      [
        { status: 'in_progress', conclusion: null },
        { status: 'completed', conclusion: 'success' }
      ]
    ])
  })
})

describe('re-runs and /council rerun', () => {
  it('a re-run with nothing changed makes no provider request and gives the same verdict; /council rerun asks again', async () => {
    const pr = pullRequest()
    const first = await review(pr)
    const calls = providers.calls.length
    const again = await review(pr)
    expect(providers.calls.length).toBe(calls)
    expect([first.outputs.verdict, again.outputs.verdict]).toEqual(['PASS', 'PASS'])
    expect(ours(pr)).toContain("The judges' answers are reused from iteration 1")

    const command = await comment(pr, '/council rerun', MAINTAINER)
    expect(command.code).toBe(0)
    expect(dispatchesFor(pr)).toEqual([
      {
        workflow: WORKFLOW,
        ref: baseBranch(pr.repo),
        inputs: { 'pull-request': String(pr.number) }
      }
    ])
    const taken = (github.comments.get(pr.number) ?? []).find(c => c.body === '/council rerun')
    expect(github.reactions(taken?.id ?? 0).map(r => [r.content, r.user.login])).toEqual([
      ['eyes', BOT.login]
    ])
    // The run GitHub starts for that dispatch.
    const rerun = await dispatchedReview(pr)
    expect(rerun.outputs.verdict).toBe('PASS')
    expect(providers.calls.length).toBe(calls + 1)
    expect(readState(ours(pr)).history.map(h => h.note)).toEqual([
      undefined,
      'answers reused from iteration 1',
      '/council rerun by @octo-maintainer'
    ])
  })

  it('from someone with read permission: no evaluation, a reply; from a bot: ignored', async () => {
    const pr = pullRequest()
    await review(pr)
    const before = github.comments.get(pr.number)?.length ?? 0
    const calls = providers.calls.length
    await comment(pr, '/council rerun', READER)
    expect(github.comments.get(pr.number)?.at(-1)?.body).toMatch(
      /^@octo-reader only people with write permission on the repository may run `\/council rerun`/
    )
    await comment(pr, '/council rerun', { login: 'renovate[bot]', type: 'Bot' })
    // The two commands, and one reply.
    expect(github.comments.get(pr.number)).toHaveLength(before + 3)
    expect(dispatchesFor(pr)).toEqual([])
    expect(providers.calls.length).toBe(calls)
  })
})

describe('/council accept', () => {
  it('on an UNCLEAR: the check succeeds, the comment and the history say who and why; a push is judged again', async () => {
    const pr = pullRequest()
    // No provider key: UNCLEAR missing_credentials.
    const unclear = await review(pr, {})
    expect(unclear.outputs.reasons).toBe('missing_credentials')
    const accepted = await comment(pr, '/council accept flaky judge', MAINTAINER)
    expect(accepted.code).toBe(0)
    const check = checksOn(pr.repo.headSha).at(-1)
    expect([check?.status, check?.conclusion, check?.output.title]).toEqual([
      'completed',
      'success',
      'Accepted by @octo-maintainer: flaky judge'
    ])
    expect(check?.output.summary).toContain('(UNCLEAR: missing_credentials): flaky judge')
    expect(ours(pr)).toContain(
      `> **Accepted by @octo-maintainer** for <code>${pr.repo.headSha.slice(0, 7)}</code>: flaky judge`
    )
    expect(readState(ours(pr)).history.at(-1)?.note).toBe(
      'accepted by @octo-maintainer: flaky judge'
    )

    pr.repo.commit({ 'more.ts': 'export const more = 1\n' }, 'push')
    github.setPullRequest(pr.number, pullRequestJson(pr.repo, pr.number))
    const pushed = await act(
      pr,
      'pull_request',
      pullRequestEvent(pr.repo, { number: pr.number, action: 'synchronize' }),
      {}
    )
    expect([pushed.code, pushed.outputs.verdict]).toEqual([2, 'UNCLEAR'])
    expect(checksOn(pr.repo.headSha).at(-1)?.conclusion).toBe('action_required')
    expect(ours(pr)).not.toContain('Accepted by')
  })
})

describe('a push that changes the base rubric', () => {
  const STRICTER = `${RUBRIC}- documented: The change is documented\n`

  /** A push to `pr`'s base branch from its base commit to `tip`, which holds `rubric`. */
  function pushTo(pr: PullRequest, rubric: string): Promise<ActionRun> {
    const tip = pr.repo.git(
      'commit-tree',
      '-p',
      pr.repo.baseSha,
      '-m',
      'rubric',
      `${pr.repo.baseSha}^{tree}`
    )
    github.setFile(tip, '.github/rubric.md', rubric)
    github.setBranch(baseBranch(pr.repo), tip)
    return act(
      pr,
      'push',
      pushEvent({ ref: `refs/heads/${baseBranch(pr.repo)}`, before: pr.repo.baseSha, after: tip })
    )
  }

  it('marks two open pull requests pending and dispatches a review of each; the third, on another base, is left alone', async () => {
    const pr = pullRequest()
    await review(pr)
    const sibling = {
      ...pullRequestJson(pr.repo, 990),
      head: { ...(pullRequestJson(pr.repo, 990).head as object), sha: 'a'.repeat(40) }
    }
    github.setPullRequest(990, sibling)
    const elsewhere = pullRequestJson(pr.repo, 991)
    github.setPullRequest(991, {
      ...elsewhere,
      base: { ...(elsewhere.base as object), ref: 'release' }
    })
    const result = await pushTo(pr, STRICTER)
    expect(result.code).toBe(0)
    expect(
      github.dispatches
        .filter(d => ['990', '991', String(pr.number)].includes(String(d.inputs['pull-request'])))
        .map(d => d.inputs['pull-request'])
        .sort()
    ).toEqual([String(pr.number), '990'].sort())
    const change = `${rubricHash(RUBRIC)} → ${rubricHash(STRICTER)}`
    for (const sha of [pr.repo.headSha, 'a'.repeat(40)]) {
      expect(
        checksOn(sha)
          .map(c => [c.status, c.output.title])
          .at(-1)
      ).toEqual(['in_progress', `The rubric changed: ${change}; re-verifying`])
    }
    // The dispatched review says why it ran.
    await dispatchedReview(pr)
    expect(readState(ours(pr)).history.at(-1)?.note).toBe(`base rubric changed (${change})`)
  })

  it('finds every open pull request through pagination: 250 of them', async () => {
    const pr = pullRequest()
    for (let n = 0; n < 249; n++) {
      github.setPullRequest(5000 + n, pullRequestJson(pr.repo, 5000 + n))
    }
    const before = github.dispatches.length
    await pushTo(pr, STRICTER)
    expect(github.dispatches.length - before).toBe(250)
  })

  it('does not dispatch anything when the push leaves the rubric as it was', async () => {
    const pr = pullRequest()
    const before = github.dispatches.length
    const result = await pushTo(pr, RUBRIC)
    expect(result.code).toBe(0)
    expect(github.dispatches.length).toBe(before)
    expect(checksOn(pr.repo.headSha)).toEqual([])
  })
})
