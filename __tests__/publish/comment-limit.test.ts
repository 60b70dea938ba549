import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runAction } from '../../src/action/action.js'
import { octokitPort } from '../../src/github/port.js'
import { readState } from '../../src/publish/memory.js'
import {
  OWNER,
  openPullRequest,
  prepareRunner,
  pullRequestEvent,
  REPO
} from '../helpers/action-run.js'
import { startGitHubStandIn, type Actor, type GitHubStandIn } from '../helpers/github-standin.js'
import { recordingIO } from '../helpers/recording-io.js'

/**
 * The sticky comment against the GitHub stand-in, which refuses a body over 65,536 characters as
 * GitHub does (422 "body is too long"): a pull request whose comment already holds as long a
 * history as fits still gets its comment updated. The action's flow runs in process, Octokit's
 * port talking HTTP to the stand-in.
 */

const TOKEN = 'ghs_comment_limit_0001'
const BOT: Actor = { login: 'github-actions[bot]', type: 'Bot' }
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
})
afterAll(async () => {
  await github.close()
})

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
    const number = 1
    const repo = openPullRequest(
      github,
      number,
      { '.github/rubric.md': RUBRIC },
      {
        'feature.ts': 'export const feature = 1\n'
      }
    )
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

    const { env } = prepareRunner({
      workspace: repo.dir,
      eventName: 'pull_request',
      eventPath: pullRequestEvent(repo, { number }),
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

    expect(io.log.filter(l => l.startsWith('warning:'))).toEqual([])
    expect(github.violations).toEqual([])
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
