import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { runAction } from '../../src/action/action.js'
import { octokitPort } from '../../src/github/port.js'
import { COMMANDS_HELP } from '../../src/bot/replies.js'
import { readState, refusalMarker } from '../../src/publish/memory.js'
import {
  issueCommentEvent,
  OWNER,
  openPullRequest,
  prepareRunner,
  pullRequestEvent,
  pullRequestJson,
  REPO,
  type Repository
} from '../helpers/action-run.js'
import { startGitHubStandIn, type Actor, type GitHubStandIn } from '../helpers/github-standin.js'
import { recordingIO, type RecordingIO } from '../helpers/recording-io.js'

/**
 * What the sticky comment remembers, against the GitHub stand-in (every request checked against
 * GitHub's OpenAPI description; a comment body over 65,536 characters refused with 422 "body is
 * too long", as GitHub does; our comments told apart by their author): the action's flow in
 * process, Octokit's port talking HTTP to the stand-in.
 */

const TOKEN = 'ghs_comment_limit_0001'
const BOT: Actor = { login: 'github-actions[bot]', type: 'Bot' }
const MAINTAINER: Actor = { login: 'octo-maintainer', type: 'User' }
const STRANGER: Actor = { login: 'octo-stranger', type: 'User' }
const RUBRIC = '---\ndimensions: false\n---\n## Criteria\n- tested: The change is tested\n'
const MARKER = '<!-- rubric-council:rubric-council -->'
const ROOT = join(import.meta.dirname, '..', '..')

let github: GitHubStandIn

beforeAll(async () => {
  github = await startGitHubStandIn({ owner: OWNER, repo: REPO })
  github.addToken(TOKEN, {
    ...BOT,
    permissions: { contents: 'read', 'pull-requests': 'write', checks: 'write' }
  })
  github.setPermission(MAINTAINER.login, 'write')
})
afterEach(() => {
  expect(github.violations).toEqual([])
})
afterAll(async () => {
  await github.close()
})

let nextNumber = 1

function pullRequest(): { readonly repo: Repository; readonly number: number } {
  const number = nextNumber++
  const repo = openPullRequest(
    github,
    number,
    { '.github/rubric.md': RUBRIC, 'README.md': `Pull request ${String(number)}\n` },
    { 'feature.ts': 'export const feature = 1\n' }
  )
  return { repo, number }
}

/** One run of the action on `eventName`, no provider key (the judges cannot be asked: UNCLEAR). */
async function act(repo: Repository, eventName: string, eventPath: string): Promise<RecordingIO> {
  const { env } = prepareRunner({
    workspace: repo.dir,
    eventName,
    eventPath,
    apiUrl: github.url,
    inputs: { 'github-token': TOKEN }
  })
  const io = recordingIO()
  await runAction({
    env,
    getInput: name => (env[`INPUT_${name.toUpperCase()}`] ?? '').trim(),
    io,
    github: token =>
      octokitPort({ owner: OWNER, repo: REPO }, { token, baseUrl: github.url, warn: io.warning }),
    bundleDir: join(ROOT, 'dist')
  })
  return io
}

interface PullRequest {
  readonly repo: Repository
  readonly number: number
}

const review = (pr: PullRequest) =>
  act(pr.repo, 'pull_request', pullRequestEvent(pr.repo, { number: pr.number }))

/** A comment written now; `deliver` runs the bot on it. */
function written(pr: PullRequest, body: string, user: Actor) {
  const { id } = github.addComment(pr.number, body, user)
  const event = issueCommentEvent({
    number: pr.number,
    body,
    user: { login: user.login, type: 'User' },
    commentId: id
  })
  return { deliver: () => act(pr.repo, 'issue_comment', event) }
}

/** A history entry as the state's schema allows it at its longest. */
const entry = (iteration: number) => ({
  iteration,
  commit: iteration.toString(16).padStart(40, '0'),
  verdict: 'FAIL',
  summary: `gates 3/4 · must 2/3 · ${'s'.repeat(470)}`,
  rubricHash: 'a1b2c3d4e5f6',
  reasons: ['gate_failed', 'criterion_failed'],
  note: 'n'.repeat(500),
  at: '2026-01-01T00:00:00.000Z'
})

/** The state block as the comment keeps it: base64 JSON in an HTML comment at the end. */
const stateBlock = (history: readonly unknown[]): string =>
  `<!-- rubric-council-state:${Buffer.from(JSON.stringify({ v: 1, history })).toString('base64')} -->`

describe('a comment whose history fills it', () => {
  it('is updated with the new iteration, the whole comment within 65,536 characters', async () => {
    const { repo, number } = pullRequest()
    // As many iterations as a comment of 65,536 characters holds.
    const history = []
    let body = ''
    for (let i = 1; ; i++) {
      const next = `${MARKER}\n### ❌ Rubric Council: FAIL\n\n${stateBlock([...history, entry(i)])}\n`
      if (next.length > 65_536) break
      history.push(entry(i))
      body = next
    }
    expect(body.length).toBeGreaterThan(60_000)
    const seeded = github.addComment(number, body, BOT)

    const io = await act(repo, 'pull_request', pullRequestEvent(repo, { number }))

    expect(io.log.filter(l => l.startsWith('warning:'))).toEqual([])
    const comments = github.comments.get(number) ?? []
    expect(comments.map(c => c.id)).toEqual([seeded.id])
    const updated = comments[0]?.body ?? ''
    expect(Array.from(updated).length).toBeLessThanOrEqual(65_536)
    const kept = readState(updated).history
    expect(kept.at(-1)).toMatchObject({ iteration: history.length + 1, commit: repo.headSha })
    // Every iteration is still there; the oldest have given up their text to make room.
    expect(kept.map(h => h.iteration)).toEqual(
      Array.from({ length: history.length + 1 }, (_, i) => i + 1)
    )
    expect(kept[0]?.summary).toBe('')
  })
})

describe('attack: /council accept', () => {
  it('is not taken for a push made between the command and the bot run', async () => {
    const pr = pullRequest()
    await review(pr)
    const command = written(pr, '/council accept flaky judge', MAINTAINER)
    // The author pushes, and the review of the push finishes, before the bot runs.
    pr.repo.commit({ 'feature.ts': 'export const feature = 2\n' }, 'push')
    github.setPullRequest(pr.number, pullRequestJson(pr.repo, pr.number))
    await review(pr)
    await command.deliver()
    const checks = github.checkRuns.filter(c => c.head_sha === pr.repo.headSha)
    expect(checks.map(c => c.conclusion)).toEqual(['action_required'])
    expect(github.comments.get(pr.number)?.at(-1)?.body).toContain(
      '@octo-maintainer the pull request changed after your comment'
    )
  })
})

describe('attack: a stranger’s commands', () => {
  it('get one reply on the pull request, however many', async () => {
    const pr = pullRequest()
    await review(pr)
    const before = github.comments.get(pr.number)?.length ?? 0
    // Twenty in __tests__/action/bot.test.ts; here, that the bot finds its reply through the API.
    for (let i = 0; i < 6; i++) {
      await written(pr, i % 2 ? '/council rerun' : '/council approve', STRANGER).deliver()
    }
    const added = (github.comments.get(pr.number) ?? []).slice(before)
    expect(added).toHaveLength(7)
    expect(added.filter(c => c.user.login === BOT.login).map(c => c.body.split('\n')[1])).toEqual([
      `@octo-stranger <code>/council approve</code> is not a command I know. ${COMMANDS_HELP}`
    ])
  }, 60_000)

  it('is answered although someone else posted a look-alike of the bot’s refusal to them', async () => {
    const pr = pullRequest()
    github.addComment(pr.number, `${refusalMarker(STRANGER.login)}\nfake`, {
      login: 'mallory',
      type: 'User'
    })
    await written(pr, '/council rerun', STRANGER).deliver()
    expect(github.comments.get(pr.number)?.at(-1)?.user.login).toBe(BOT.login)
  })
})
