import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readState, replaceState } from '../../src/publish/memory.js'
import type { JsonReport } from '../../src/report/json.js'
import { pullRequestJson } from '../helpers/action-run.js'
import { commented } from '../helpers/comment-event.js'
import { pullRequest, runInProcess, type PullRequest } from '../helpers/in-process.js'
import { wireAnswer } from '../helpers/judge-answers.js'
import { MemoryGitHub } from '../helpers/memory-github.js'
import { startProviderStandIn, type StandIn } from '../helpers/provider-standin.js'

/**
 * Per-criterion waivers (docs/pr-bot.md#commands): `/council waive <criterion-id> <reason>`
 * waives one must-have for the head commit; the review run again reuses the judges' answers and
 * shows it WAIVED; everything else still binds. GitHub is in memory; the judges are the provider
 * stand-in.
 */

const RUBRIC = [
  '---',
  'dimensions: false',
  '---',
  '## Criteria',
  '- tested: The change is tested',
  '- documented: The change is documented',
  '## Nice to Have',
  '- tidy: The code is tidy',
  ''
].join('\n')
const MAINTAINER = { login: 'octo-maintainer', type: 'User' }
const READER = { login: 'octo-reader', type: 'User' }
const REASON = 'the test harness is broken upstream, tracked in #12'

let providers: StandIn
/** The criteria the judges FAIL. */
let failing: string[] = []

beforeAll(async () => {
  providers = await startProviderStandIn(call => ({
    json: wireAnswer(call.schema, { fail: failing })
  }))
})
afterAll(async () => {
  await providers.close()
})

const keys = (): Record<string, string> => ({
  OPENAI_API_KEY: 'sk-waiver-test-0123456789',
  OPENAI_BASE_URL: providers.openaiBaseUrl
})

/** A pull request judged once, failing `fails`, with its review run there to be re-run. */
async function judged(fails: string[], rubric = RUBRIC): Promise<PullRequest> {
  failing = fails
  const github = new MemoryGitHub()
  const pr = pullRequest({ '.github/rubric.md': rubric }, {}, github)
  github.setPermission(MAINTAINER.login, 'write')
  github.setPermission(READER.login, 'read')
  github.addRun('rubric-council.yml', pr.number, pr.repo.headSha)
  expect((await review(pr)).outputs.verdict).not.toBe('PASS')
  return pr
}

const review = (pr: PullRequest) =>
  runInProcess(pr, { inputs: { models: 'openai:gpt-5.4-nano' }, providers: keys() })

const ours = (pr: PullRequest): string => pr.github.commentsOn(pr.number)[0]?.body ?? ''
const lastReply = (pr: PullRequest): string => pr.github.commentsOn(pr.number).at(-1)?.body ?? ''
const checkOnHead = (pr: PullRequest) =>
  pr.github.checkRuns.filter(c => c.head_sha === pr.repo.headSha).at(-1)
const report = (path: string | undefined): JsonReport =>
  JSON.parse(readFileSync(path ?? '', 'utf8')) as JsonReport

describe('/council waive <criterion-id> <reason>', () => {
  it('waives that must-have for the head: the review runs again at no provider cost and passes, showing who and why', async () => {
    const pr = await judged(['tested'])
    const result = await commented(pr, `/council waive tested ${REASON}`, MAINTAINER)
    expect(result.code).toBe(0)
    const command = pr.github.commentsOn(pr.number).find(c => c.body.startsWith('/council'))
    expect(pr.github.reactions.get(command?.id ?? 0)).toEqual(['eyes'])
    expect(pr.github.reruns).toHaveLength(1)
    const state = readState(ours(pr))
    expect(state.waivers).toEqual([
      {
        commit: pr.repo.headSha,
        criterion: 'tested',
        by: MAINTAINER.login,
        commentId: command?.id
      }
    ])
    expect(state.history.at(-1)?.note).toBe(`waived tested by @octo-maintainer: ${REASON}`)
    // Not an acceptance of the whole check.
    expect(state.accepted).toBeUndefined()
    expect(lastReply(pr)).toBe(
      `@octo-maintainer waived <code>tested</code> for ${pr.repo.headSha.slice(0, 7)}: the review runs again with it WAIVED, and the gates and every other must-have still bind.`
    )

    // The re-run review: the judges' answers reused, the verdict computed with the waiver.
    const calls = providers.calls.length
    const again = await review(pr)
    expect(providers.calls.length).toBe(calls)
    expect([again.outputs.verdict, checkOnHead(pr)?.conclusion]).toEqual(['PASS', 'success'])
    expect(checkOnHead(pr)?.title).toMatch(/^PASS: must 1\/2 \(1 waived\)/)
    const tested = report(again.outputs.report).criteria.find(c => c.id === 'tested')
    expect(tested).toMatchObject({
      status: 'WAIVED',
      waived: { by: MAINTAINER.login, reason: REASON }
    })
    expect(tested?.votes.map(v => v.verdict)).toEqual(['FAIL'])
    expect(ours(pr)).toContain('<b>tested</b> · WAIVED by @octo-maintainer')
    expect(ours(pr)).toContain('**Waived by @octo-maintainer** for this commit')
    // Still waived when the same head is judged again.
    expect(readState(ours(pr)).waivers).toHaveLength(1)
  })

  it('attack: waiving one must-have does not pass a pull request that fails another', async () => {
    const pr = await judged(['tested', 'documented'])
    await commented(pr, `/council waive tested ${REASON}`, MAINTAINER)
    const again = await review(pr)
    expect([again.outputs.verdict, again.outputs.reasons]).toEqual(['FAIL', 'criterion_failed'])
    expect(checkOnHead(pr)?.conclusion).toBe('failure')
    const statuses = report(again.outputs.report).criteria.map(c => [c.id, c.status])
    expect(statuses).toEqual([
      ['tested', 'WAIVED'],
      ['documented', 'FAIL'],
      ['tidy', 'PASS']
    ])
  })

  it('attack: a waiver for an older head does not carry to a new push', async () => {
    const pr = await judged(['tested'])
    await commented(pr, `/council waive tested ${REASON}`, MAINTAINER)
    expect((await review(pr)).outputs.verdict).toBe('PASS')
    pr.repo.commit({ 'more.ts': 'export const more = 1\n' }, 'push')
    pr.github.setPullRequest(pr.number, pullRequestJson(pr.repo, pr.number))
    const pushed = await review(pr)
    expect([pushed.outputs.verdict, checkOnHead(pr)?.conclusion]).toEqual(['FAIL', 'failure'])
    expect(readState(ours(pr)).waivers).toBeUndefined()
    expect(ours(pr)).not.toContain('WAIVED')
  })

  it('attack: a waiver edited into the comment by hand, with no command behind it, is ignored with a warning', async () => {
    const pr = await judged(['tested'])
    // A reader's comment that is not a waiver, and a maintainer's name it was not written by.
    const id = pr.github.addComment(pr.number, `/council waive tested ${REASON}`, READER)
    const state = readState(ours(pr))
    for (const commentId of [id, 999_999]) {
      const body = replaceState(ours(pr), {
        ...state,
        waivers: [
          {
            commit: pr.repo.headSha,
            criterion: 'tested',
            by: MAINTAINER.login,
            commentId
          }
        ]
      })
      await pr.github.upsertComment(pr.number, body, pr.github.commentsOn(pr.number).slice(0, 1))
      const result = await review(pr)
      expect([result.outputs.verdict, checkOnHead(pr)?.conclusion]).toEqual(['FAIL', 'failure'])
      expect(result.log.some(l => l.includes('the waiver of tested recorded for'))).toBe(true)
      expect(ours(pr)).not.toContain('WAIVED')
    }
  })

  it('attack: a maintainer’s waiver on another pull request, edited into this one’s state, does not count', async () => {
    const pr = await judged(['tested'])
    const elsewhere = pr.github.addComment(
      pr.number + 1000,
      `/council waive tested ${REASON}`,
      MAINTAINER
    )
    const body = replaceState(ours(pr), {
      ...readState(ours(pr)),
      waivers: [
        { commit: pr.repo.headSha, criterion: 'tested', by: MAINTAINER.login, commentId: elsewhere }
      ]
    })
    await pr.github.upsertComment(pr.number, body, pr.github.commentsOn(pr.number).slice(0, 1))
    const result = await review(pr)
    expect([result.outputs.verdict, checkOnHead(pr)?.conclusion]).toEqual(['FAIL', 'failure'])
    expect(result.log.some(l => l.includes('the waiver of tested recorded for'))).toBe(true)
    expect(ours(pr)).not.toContain('WAIVED')
  })

  it('attack: a waiver command edited into the state as an acceptance of the whole check does not count', async () => {
    const pr = await judged(['tested', 'documented'])
    await commented(pr, `/council waive tested ${REASON}`, MAINTAINER)
    const command = pr.github.commentsOn(pr.number).find(c => c.body.startsWith('/council'))
    const state = readState(ours(pr))
    const body = replaceState(ours(pr), {
      ...state,
      accepted: {
        commit: pr.repo.headSha,
        by: MAINTAINER.login,
        reason: `tested ${REASON}`,
        commentId: command?.id ?? 0
      }
    })
    await pr.github.upsertComment(pr.number, body, pr.github.commentsOn(pr.number).slice(0, 1))
    const result = await review(pr)
    expect([result.outputs.verdict, checkOnHead(pr)?.conclusion]).toEqual(['FAIL', 'failure'])
    expect(result.log.some(l => l.includes('does not match a /council accept comment'))).toBe(true)
    expect(ours(pr)).not.toContain('Accepted by')
  })

  it('attack: the author without write permission waiving their own failed must-have is refused, nothing recorded', async () => {
    const pr = await judged(['tested'])
    await commented(pr, `/council waive tested ${REASON}`, READER)
    expect(lastReply(pr)).toContain(
      '@octo-reader only people with write permission on the repository may run `/council waive`'
    )
    expect(pr.github.reruns).toEqual([])
    expect(readState(ours(pr)).waivers).toBeUndefined()
    expect((await review(pr)).outputs.verdict).toBe('FAIL')
  })

  it('a waiver whose author lost write permission before the review does not count', async () => {
    const pr = await judged(['tested'])
    await commented(pr, `/council waive tested ${REASON}`, MAINTAINER)
    pr.github.setPermission(MAINTAINER.login, 'read')
    const again = await review(pr)
    expect(again.outputs.verdict).toBe('FAIL')
    expect(again.log.some(l => l.includes('the waiver of tested recorded for'))).toBe(true)
  })

  it('says so, and waives nothing, for a nice-to-have, a must-have that passed, an unknown id, or no reason', async () => {
    const pr = await judged(['tested'])
    await commented(pr, '/council waive tidy not needed', MAINTAINER)
    expect(lastReply(pr)).toBe(
      '@octo-maintainer <code>tidy</code> is a nice-to-have: it never fails the check, so there is nothing to waive. Nothing was waived.'
    )
    await commented(pr, '/council waive documented not needed', MAINTAINER)
    expect(lastReply(pr)).toBe(
      `@octo-maintainer <code>documented</code> did not fail or split on the head commit ${pr.repo.headSha.slice(0, 7)}: there is nothing to waive, and nothing was waived.`
    )
    await commented(pr, '/council waive tested', MAINTAINER)
    expect(lastReply(pr)).toBe('@octo-maintainer say why: `/council waive tested <reason>`.')
    await commented(pr, '/council waive testd the harness is broken', MAINTAINER)
    expect(lastReply(pr)).toBe(
      "@octo-maintainer <code>testd</code> is not a criterion of the base branch's rubric: nothing was waived. Its must-haves: <code>tested</code>, <code>documented</code>; `/council waive <criterion-id> <reason>` names one of them."
    )
    await commented(pr, '/council waive', MAINTAINER)
    expect(lastReply(pr)).toBe(
      '@octo-maintainer say which must-have, and why: `/council waive <criterion-id> <reason>`.'
    )
    expect(readState(ours(pr)).waivers).toBeUndefined()
    expect(pr.github.reruns).toEqual([])
    expect(checkOnHead(pr)?.conclusion).toBe('failure')
  })

  it('the whole-check form stays: a reason that does not start with a criterion id accepts the check', async () => {
    const pr = await judged(['tested'])
    await commented(pr, '/council accept the judges misread the diff', MAINTAINER)
    expect(checkOnHead(pr)?.conclusion).toBe('success')
    expect(readState(ours(pr)).accepted?.reason).toBe('the judges misread the diff')
    expect(readState(ours(pr)).waivers).toBeUndefined()
    expect(lastReply(pr)).toBe(
      `@octo-maintainer accepted the whole check for ${pr.repo.headSha.slice(0, 7)}: its check run concludes success until the next push.`
    )
  })

  it('attack: a waiver written as an earlier version spelled it (`/council accept <id>`) waives nothing when edited into the state', async () => {
    const pr = await judged(['tested'])
    const id = pr.github.addComment(pr.number, `/council accept tested ${REASON}`, MAINTAINER)
    const body = replaceState(ours(pr), {
      ...readState(ours(pr)),
      waivers: [
        { commit: pr.repo.headSha, criterion: 'tested', by: MAINTAINER.login, commentId: id }
      ]
    })
    await pr.github.upsertComment(pr.number, body, pr.github.commentsOn(pr.number).slice(0, 1))
    const result = await review(pr)
    expect([result.outputs.verdict, checkOnHead(pr)?.conclusion]).toEqual(['FAIL', 'failure'])
    expect(result.log.some(l => l.includes('does not match a /council waive tested comment'))).toBe(
      true
    )
  })
})

describe('attack: a criterion id that is also a word', () => {
  // The base's rubric has a must-have named `tests`, which a reason may well start with.
  const WORDY = RUBRIC.replace('- tested: The change is tested', '- tests: The change has tests')

  it('`/council accept tests are flaky today` accepts the whole check, and says so', async () => {
    const pr = await judged(['tests', 'documented'], WORDY)
    await commented(pr, '/council accept tests are flaky today', MAINTAINER)
    // Every failed must-have is accepted, not only `tests`: the check passes for this head.
    expect(checkOnHead(pr)?.conclusion).toBe('success')
    expect(checkOnHead(pr)?.title).toBe('Accepted by @octo-maintainer: tests are flaky today')
    const state = readState(ours(pr))
    expect(state.accepted?.reason).toBe('tests are flaky today')
    expect(state.waivers).toBeUndefined()
    expect(pr.github.reruns).toEqual([])
    expect(lastReply(pr)).toBe(
      `@octo-maintainer accepted the whole check for ${pr.repo.headSha.slice(0, 7)}: its check run concludes success until the next push. Your reason starts with the must-have <code>tests</code>: \`/council accept\` always accepts the whole check, and \`/council waive <criterion-id> <reason>\` excuses one must-have only.`
    )
    // The review of the same head counts it as the acceptance it is.
    const again = await review(pr)
    expect([again.outputs.verdict, checkOnHead(pr)?.conclusion]).toEqual(['FAIL', 'success'])
    expect(again.log.some(l => l.includes('does not match a /council accept comment'))).toBe(false)
  })

  it('`/council waive tests flaky` waives `tests` alone: the other failed must-have still fails the check', async () => {
    const pr = await judged(['tests', 'documented'], WORDY)
    await commented(pr, '/council waive tests flaky', MAINTAINER)
    expect(readState(ours(pr)).accepted).toBeUndefined()
    expect(readState(ours(pr)).waivers?.map(w => w.criterion)).toEqual(['tests'])
    expect(lastReply(pr)).toContain('@octo-maintainer waived <code>tests</code> for')
    const again = await review(pr)
    expect([again.outputs.verdict, checkOnHead(pr)?.conclusion]).toEqual(['FAIL', 'failure'])
    const statuses = report(again.outputs.report).criteria.map(c => [c.id, c.status])
    expect(statuses).toEqual([
      ['tests', 'WAIVED'],
      ['documented', 'FAIL'],
      ['tidy', 'PASS']
    ])
  })
})
