import { readFileSync } from 'node:fs'
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readState, replaceState, type CommentState } from '../../src/publish/memory.js'
import type { JsonReport } from '../../src/report/json.js'
import { rubricHash } from '../../src/rubric/hash.js'
import {
  baseBranch,
  pullRequestEvent,
  pullRequestJson,
  webhookExample,
  writeEvent
} from '../helpers/action-run.js'
import { commented, delivered, written } from '../helpers/comment-event.js'
import { pullRequest, runInProcess, type PullRequest } from '../helpers/in-process.js'
import { wireAnswer } from '../helpers/judge-answers.js'
import { MemoryGitHub } from '../helpers/memory-github.js'
import { startProviderStandIn, type StandIn } from '../helpers/provider-standin.js'

/**
 * The PR bot in process (docs/pr-bot.md): the check pending while the run works, the verdict
 * cache, `/council rerun` and `/council accept`, and re-verifying open pull requests when the base
 * rubric changes. GitHub is in memory; the judges are the provider stand-in.
 */

const RUBRIC = '---\ndimensions: false\n---\n## Criteria\n- tested: The change is tested\n'
const MAINTAINER = { login: 'octo-maintainer', type: 'User' }
const READER = { login: 'octo-reader', type: 'User' }

let providers: StandIn
/** What the judges answer: FAIL while this is set. */
let failing = false
/** The check runs of the pull request being judged, as each provider call found them. */
let seenAtCall: string[] = []
let watched: PullRequest | undefined
/** Called on each judge call, when set. */
let onJudge: (() => void) | undefined

beforeAll(async () => {
  providers = await startProviderStandIn(call => {
    onJudge?.()
    if (watched) {
      seenAtCall.push(
        ...watched.github.checkRuns
          .filter(c => c.head_sha === watched?.repo.headSha)
          .map(c => c.status)
      )
    }
    return { json: wireAnswer(call.schema, failing ? { fail: ['tested'] } : {}) }
  })
})
afterAll(async () => {
  await providers.close()
})

const keys = (): Record<string, string> => ({
  OPENAI_API_KEY: 'sk-bot-test-0123456789',
  OPENAI_BASE_URL: providers.openaiBaseUrl
})
const INPUTS = { models: 'openai:gpt-5.4-nano' }

function judged(github = new MemoryGitHub()): PullRequest {
  const pr = pullRequest({ '.github/rubric.md': RUBRIC }, {}, github)
  github.setPermission(MAINTAINER.login, 'write')
  github.setPermission(READER.login, 'read')
  return pr
}

/** A review on the pull request event: a push, or the re-run of one (the same payload). */
const review = (pr: PullRequest) => runInProcess(pr, { inputs: INPUTS, providers: keys() })

const ours = (pr: PullRequest): string => pr.github.commentsOn(pr.number)[0]?.body ?? ''
const checksOnHead = (pr: PullRequest) =>
  pr.github.checkRuns.filter(c => c.head_sha === pr.repo.headSha)

/** The sticky comment's state changed by hand, as anyone who may edit the comment can. */
const editState = (pr: PullRequest, change: (state: CommentState) => CommentState) =>
  pr.github.upsertComment(
    pr.number,
    replaceState(ours(pr), change(readState(ours(pr)))),
    pr.github.commentsOn(pr.number).slice(0, 1)
  )

/** The state as the version before `check` was recorded wrote it. */
function withoutCheck(state: CommentState): CommentState {
  const { check, ...older } = state
  expect(check).toBeDefined()
  return older
}

/**
 * The pull request reviewed as one into the branch `weak` (with the same rubric, and no provider
 * key: UNCLEAR); returns its JSON into the default branch, for retargeting it there.
 */
async function reviewedIntoWeak(pr: PullRequest): Promise<Record<string, unknown>> {
  const intoMain = pullRequestJson(pr.repo, pr.number)
  const intoWeak = { ...intoMain, base: { ...(intoMain.base as object), ref: 'weak' } }
  pr.github.setFile('weak', '.github/rubric.md', RUBRIC)
  pr.github.setPullRequest(pr.number, intoWeak)
  const event = pullRequestEvent(pr.repo, { number: pr.number, pullRequest: intoWeak })
  expect((await runInProcess(pr, { event, providers: {} })).code).toBe(2)
  return intoMain
}

describe('the check while the run works', () => {
  it('is in_progress on the head commit before any provider is asked, then that same run completes', async () => {
    const pr = judged()
    watched = pr
    seenAtCall = []
    try {
      const result = await review(pr)
      expect(result.outputs.verdict).toBe('PASS')
    } finally {
      watched = undefined
    }
    expect(seenAtCall).toEqual(['in_progress'])
    expect(checksOnHead(pr).map(c => [c.status, c.conclusion])).toEqual([['completed', 'success']])
    expect(pr.github.writes.filter(w => w.includes('check'))).toEqual([
      'POST check in_progress',
      'PATCH check completed'
    ])
  })
})

describe('the verdict cache', () => {
  it('a re-run with nothing changed asks no provider and gives the same verdict, saying so', async () => {
    failing = true
    try {
      const pr = judged()
      const first = await review(pr)
      const calls = providers.calls.length
      const again = await review(pr)
      expect(providers.calls.length).toBe(calls)
      expect([first.outputs.verdict, again.outputs.verdict]).toEqual(['FAIL', 'FAIL'])
      expect(ours(pr)).toContain("♻️ The judges' answers are reused from iteration 1")
      const report = JSON.parse(readFileSync(again.outputs.report ?? '', 'utf8')) as JsonReport
      expect([report.reused_from, report.history.map(h => h.note)]).toEqual([
        1,
        [null, 'answers reused from iteration 1']
      ])
      expect(readState(ours(pr)).history.map(h => h.note)).toEqual([
        undefined,
        'answers reused from iteration 1'
      ])
      // A third run still reuses the first judgement.
      await review(pr)
      expect(providers.calls.length).toBe(calls)
      expect(ours(pr)).toContain('reused from iteration 1')
    } finally {
      failing = false
    }
  })

  it('asks again after a push', async () => {
    const pr = judged()
    await review(pr)
    const calls = providers.calls.length
    pr.repo.commit({ 'more.ts': 'export const more = 1\n' }, 'push')
    pr.github.setPullRequest(pr.number, pullRequestJson(pr.repo, pr.number))
    await review(pr)
    expect(providers.calls.length).toBe(calls + 1)
    expect(ours(pr)).not.toContain('reused')
  })

  it('never takes answers edited into the comment for a verdict: it asks the judges again', async () => {
    failing = true
    try {
      const pr = judged()
      await review(pr)
      const calls = providers.calls.length
      // Someone with access to the comment turns the stored FAIL into a PASS.
      const state = readState(ours(pr))
      const judgement = state.judgement
      if (!judgement) throw new Error('no judgement kept')
      const runs = inflateRawSync(Buffer.from(judgement.runs, 'base64')).toString('utf8')
      const forged = deflateRawSync(runs.replaceAll('"FAIL"', '"PASS"')).toString('base64')
      expect(forged).not.toBe(judgement.runs)
      const body = replaceState(ours(pr), { ...state, judgement: { ...judgement, runs: forged } })
      await pr.github.upsertComment(pr.number, body, pr.github.commentsOn(pr.number))
      const again = await review(pr)
      expect(providers.calls.length).toBe(calls + 1)
      expect(again.outputs.verdict).toBe('FAIL')
    } finally {
      failing = false
    }
  })
})

describe('/council rerun', () => {
  it('by a maintainer: 👀, the review run re-run, and the judges asked again', async () => {
    const pr = judged()
    const run = pr.github.addRun('rubric-council.yml', pr.number, pr.repo.headSha)
    await review(pr)
    const result = await commented(pr, '/council rerun', MAINTAINER)
    expect(result.code).toBe(0)
    expect(pr.github.reruns).toEqual([run.id])
    const command = pr.github.commentsOn(pr.number).find(c => c.body === '/council rerun')
    expect(pr.github.reactions.get(command?.id ?? 0)).toEqual(['eyes'])
    const calls = providers.calls.length
    await review(pr)
    expect(providers.calls.length).toBe(calls + 1)
    expect(readState(ours(pr)).history.at(-1)?.note).toBe('/council rerun by @octo-maintainer')
  })

  it('attack: a fork pull request at the same commit neither takes the re-run nor blocks it', async () => {
    const pr = judged()
    // A pull request from Alice's fork: its runs list no pull request, as GitHub lists a fork's.
    const fromAlice = { sha: pr.repo.headSha, ref: 'fix', repo: { full_name: 'alice/octo-repo' } }
    pr.github.setPullRequest(pr.number, { ...pullRequestJson(pr.repo, pr.number), head: fromAlice })
    const fork = { pullRequests: [], headRepository: 'alice/octo-repo', headBranch: 'fix' }
    const own = pr.github.addRun('rubric-council.yml', pr.number, pr.repo.headSha, fork)
    await review(pr)
    // Mallory opens a pull request of the same commit from her fork, into any branch: its run is
    // newer, and waits for a maintainer's approval.
    pr.github.addRun('rubric-council.yml', pr.number + 1, pr.repo.headSha, {
      pullRequests: [],
      headRepository: 'mallory/octo-repo',
      headBranch: 'twin',
      status: 'waiting'
    })
    const result = await commented(pr, '/council rerun', MAINTAINER)
    expect(result.code).toBe(0)
    expect(pr.github.reruns).toEqual([own.id])
    expect(result.log.join('\n')).toContain(
      `/actions/runs/${String(own.id)} for #${String(pr.number)}`
    )
  })

  it('re-runs the run of a fork pull request whose fork was deleted', async () => {
    const pr = judged()
    const gone = { sha: pr.repo.headSha, ref: 'fix', repo: null }
    pr.github.setPullRequest(pr.number, { ...pullRequestJson(pr.repo, pr.number), head: gone })
    const own = pr.github.addRun('rubric-council.yml', pr.number, pr.repo.headSha, {
      pullRequests: [],
      headRepository: '',
      headBranch: 'fix'
    })
    await review(pr)
    expect((await commented(pr, '/council rerun', MAINTAINER)).code).toBe(0)
    expect(pr.github.reruns).toEqual([own.id])
  })

  it('by someone without write permission: a reply saying who may, nothing else', async () => {
    const pr = judged()
    await review(pr)
    pr.github.addRun('rubric-council.yml', pr.number, pr.repo.headSha)
    await commented(pr, '/council rerun', READER)
    expect(pr.github.reruns).toEqual([])
    expect([...pr.github.reactions.values()]).toEqual([])
    expect(pr.github.commentsOn(pr.number).at(-1)?.body).toContain(
      '@octo-reader only people with write permission on the repository may run `/council rerun`'
    )
  })

  it('by a bot, or not a command: ignored without a reply', async () => {
    const pr = judged()
    await review(pr)
    const before = pr.github.commentsOn(pr.number).length
    await commented(pr, '/council rerun', { login: 'renovate[bot]', type: 'Bot' })
    await commented(pr, 'LGTM, thanks', MAINTAINER)
    expect(pr.github.reruns).toEqual([])
    expect(pr.github.commentsOn(pr.number)).toHaveLength(before + 2)
  })

  it('attack: a payload whose comment names no author runs nothing, and says which field', async () => {
    const pr = judged()
    await review(pr)
    const before = pr.github.commentsOn(pr.number).length
    const checks = checksOnHead(pr).map(c => [c.conclusion, c.title])
    const event = JSON.parse(
      readFileSync(written(pr, '/council accept ship it', MAINTAINER), 'utf8')
    ) as { comment: Record<string, unknown> }
    delete event.comment.user
    const result = await delivered(pr, writeEvent(event))
    expect(result.log).toContain(
      'notice: Rubric Council: the issue_comment event payload cannot be read: comment.user holds nothing (Invalid input: expected object, received undefined); nothing to do'
    )
    expect(pr.github.reruns).toEqual([])
    expect(pr.github.commentsOn(pr.number)).toHaveLength(before + 1)
    expect(checksOnHead(pr).map(c => [c.conclusion, c.title])).toEqual(checks)
  })

  it('an unknown command gets the list of commands', async () => {
    const pr = judged()
    await commented(pr, '/council approve', MAINTAINER)
    expect(pr.github.commentsOn(pr.number).at(-1)?.body).toMatch(
      /^@octo-maintainer <code>\/council approve<\/code> is not a command I know\. Commands: `\/council rerun`/
    )
  })

  it('does not let a stranger’s unknown command make the bot post their markup or mentions', async () => {
    const pr = judged()
    await commented(pr, '/council `x` <img src=x onerror=alert(1)> @everyone **hi**', READER)
    const reply = pr.github.commentsOn(pr.number).at(-1)?.body ?? ''
    // Their text stays inside one <code> element, escaped: no tag, no mention, no emphasis.
    const quoted = /<code>(.*)<\/code>/.exec(reply)?.[1] ?? ''
    expect(quoted).toContain('&lt;img')
    expect(reply.replace(/<code>.*<\/code>/, '')).not.toMatch(/<img|@everyone|\*\*hi/)
  })
})

describe('/council accept', () => {
  const unclear = () => {
    const github = new MemoryGitHub()
    const pr = pullRequest({ '.github/rubric.md': RUBRIC }, {}, github)
    github.setPermission(MAINTAINER.login, 'write')
    return pr
  }
  // No provider key: the council cannot run, UNCLEAR missing_credentials.
  const noKeys = (pr: PullRequest) => runInProcess(pr, { providers: {} })

  it('on an UNCLEAR: the check passes for that commit, and the comment and history say who and why', async () => {
    const pr = unclear()
    expect((await noKeys(pr)).outputs.reasons).toBe('missing_credentials')
    await commented(pr, '/council accept flaky judge', MAINTAINER)
    const check = checksOnHead(pr).at(-1)
    expect([check?.conclusion, check?.title]).toEqual([
      'success',
      'Accepted by @octo-maintainer: flaky judge'
    ])
    expect(ours(pr)).toContain('> **Accepted by @octo-maintainer** for')
    expect(readState(ours(pr)).history.at(-1)?.note).toBe(
      'accepted by @octo-maintainer: flaky judge'
    )

    // The same commit judged again (the base rubric changed, a re-run): still accepted.
    const again = await noKeys(pr)
    expect([again.code, checksOnHead(pr).at(-1)?.conclusion]).toEqual([0, 'success'])
    const report = JSON.parse(readFileSync(again.outputs.report ?? '', 'utf8')) as JsonReport
    expect(report.accepted).toEqual({
      by: 'octo-maintainer',
      reason: 'flaky judge',
      commit: pr.repo.headSha
    })
    expect(ours(pr)).toContain('> **Accepted by @octo-maintainer** for')

    // A push is judged normally.
    pr.repo.commit({ 'more.ts': 'export const more = 1\n' }, 'push')
    pr.github.setPullRequest(pr.number, pullRequestJson(pr.repo, pr.number))
    const pushed = await noKeys(pr)
    expect([pushed.code, checksOnHead(pr).at(-1)?.conclusion]).toEqual([2, 'action_required'])
    expect(ours(pr)).not.toContain('Accepted by')
  })

  it('from someone without write permission: refused, nothing recorded', async () => {
    const pr = unclear()
    await noKeys(pr)
    await commented(pr, '/council accept trust me', READER)
    expect(pr.github.commentsOn(pr.number).at(-1)?.body.split('\n')[1]).toMatch(
      /^@octo-reader only people with write permission on the repository may run `\/council accept`/
    )
    expect(checksOnHead(pr).map(c => c.conclusion)).toEqual(['action_required'])
    expect(readState(ours(pr)).accepted).toBeUndefined()
  })

  it('does not count when the comment names an acceptance nobody with write permission gave', async () => {
    const pr = unclear()
    await noKeys(pr)
    // A reader's own "/council accept", written into the state by hand.
    const id = pr.github.addComment(pr.number, '/council accept trust me', READER)
    await editState(pr, state => ({
      ...state,
      accepted: { commit: pr.repo.headSha, by: READER.login, reason: 'trust me', commentId: id }
    }))
    const result = await noKeys(pr)
    expect([result.code, checksOnHead(pr).at(-1)?.conclusion]).toEqual([2, 'action_required'])
    expect(result.log.some(l => l.includes('does not match a /council accept comment'))).toBe(true)
  })

  it('attack: a push between the command and the bot run is not accepted, however quickly its review ran', async () => {
    failing = true
    try {
      const pr = judged()
      await review(pr)
      // The maintainer reads the FAIL on A and accepts it...
      const command = written(pr, '/council accept flaky', MAINTAINER)
      // ...and before the bot runs, the author pushes B, and B's review (FAIL) finishes.
      pr.repo.commit({ 'feature.ts': 'export const feature = eval(process.argv[2])\n' }, 'push')
      pr.github.setPullRequest(pr.number, pullRequestJson(pr.repo, pr.number))
      expect((await review(pr)).outputs.verdict).toBe('FAIL')
      const result = await delivered(pr, command)
      expect(result.code).toBe(0)
      expect(checksOnHead(pr).map(c => c.conclusion)).toEqual(['failure'])
      expect(readState(ours(pr)).accepted).toBeUndefined()
      expect(ours(pr)).not.toContain('Accepted by')
      expect(pr.github.commentsOn(pr.number).at(-1)?.body).toBe(
        `@octo-maintainer the pull request changed after your comment: the verdict on its head commit ${pr.repo.headSha.slice(0, 7)} was given after it, so it is not accepted. Read the report on ${pr.repo.headSha.slice(0, 7)}, then accept it again.`
      )
      // Accepting again, now that B's verdict is there to read, accepts B.
      await commented(pr, '/council accept flaky', MAINTAINER)
      expect(checksOnHead(pr).at(-1)?.conclusion).toBe('success')
    } finally {
      failing = false
    }
  })

  it('attack: an acceptance given on another pull request, written into this one’s state, does not count', async () => {
    const pr = unclear()
    await noKeys(pr)
    // A maintainer's real "/council accept" on another pull request, which the bot never took.
    const elsewhere = pr.github.addComment(
      pr.number + 1000,
      '/council accept docs-only change',
      MAINTAINER
    )
    await editState(pr, state => ({
      ...state,
      accepted: {
        commit: pr.repo.headSha,
        by: MAINTAINER.login,
        reason: 'docs-only change',
        commentId: elsewhere
      }
    }))
    const result = await noKeys(pr)
    expect([result.code, checksOnHead(pr).at(-1)?.conclusion]).toEqual([2, 'action_required'])
    expect(result.log.some(l => l.includes('does not match a /council accept comment'))).toBe(true)
    expect(ours(pr)).not.toContain('Accepted by')
  })

  it('attack: check names written into the state are not completed: only this check’s own', async () => {
    const pr = unclear()
    await noKeys(pr)
    const entry = readState(ours(pr)).history.at(-1)
    if (!entry) throw new Error('no history')
    // Another workflow's required check, and this check's name for another base.
    await editState(pr, state => ({
      ...state,
      rubrics: {
        'ci / unit-tests': { history: [entry] },
        'rubric-council (release-1.x)': { history: [entry] },
        'rubric-council / api (release-1.x)': { history: [entry] },
        'rubric-council / api': { history: [entry] }
      }
    }))
    await commented(pr, '/council accept flaky judge', MAINTAINER)
    expect(
      checksOnHead(pr)
        .filter(c => c.conclusion === 'success')
        .map(c => c.name)
    ).toEqual([])
    expect(pr.github.commentsOn(pr.number).at(-1)?.body).toContain('nothing was accepted')
  })

  it('attack: a pull request retargeted after the accept command never gets a success under the name its new base requires', async () => {
    const pr = unclear()
    const intoMain = await reviewedIntoWeak(pr)
    expect(checksOnHead(pr).map(c => c.name)).toEqual(['rubric-council (weak)'])
    // The maintainer accepts it for the experimental branch; the author retargets it to the
    // default branch before the bot runs.
    const command = written(pr, '/council accept fine for the experimental branch', MAINTAINER)
    pr.github.setPullRequest(pr.number, intoMain)
    expect((await delivered(pr, command)).code).toBe(0)
    expect(checksOnHead(pr).filter(c => c.name === 'rubric-council')).toEqual([])
    expect(checksOnHead(pr).map(c => c.conclusion)).toEqual(['action_required'])
    const reply = pr.github.commentsOn(pr.number).at(-1)?.body
    expect(reply).toContain("was not posted on the check run that this pull request's base branch")
    expect(reply).toContain(
      "(the pull request was retargeted, or the base's rubrics changed, since its review): nothing was accepted"
    )
  })

  it('accepts a verdict whose state an earlier version wrote, once this check has a run on the head', async () => {
    const pr = unclear()
    await noKeys(pr)
    // The state as the version before this one wrote it: no `check`.
    expect(readState(ours(pr)).check).toBe('rubric-council')
    await editState(pr, withoutCheck)
    expect(readState(ours(pr)).check).toBeUndefined()
    await commented(pr, '/council accept flaky judge', MAINTAINER)
    const accepted = checksOnHead(pr).at(-1)
    expect([accepted?.name, accepted?.conclusion]).toEqual(['rubric-council', 'success'])

    // Such a state, on a pull request reviewed under another base and retargeted: no run of the
    // name its base now gives is on the head, so nothing is accepted.
    const other = unclear()
    const intoMain = await reviewedIntoWeak(other)
    expect(readState(ours(other)).check).toBe('rubric-council (weak)')
    await editState(other, withoutCheck)
    other.github.setPullRequest(other.number, intoMain)
    await commented(other, '/council accept flaky judge', MAINTAINER)
    expect(checksOnHead(other).map(c => [c.name, c.conclusion])).toEqual([
      ['rubric-council (weak)', 'action_required']
    ])
  })

  it('tells the commenter when the check runs to accept cannot be read, after its 👀', async () => {
    const pr = unclear()
    await noKeys(pr)
    // A state without `check` makes the bot look for this check's run on the head.
    expect(readState(ours(pr)).check).toBe('rubric-council')
    await editState(pr, withoutCheck)
    pr.github.checkRunsNamed = () => Promise.reject(new Error('Server Error (502)'))
    const result = await commented(pr, '/council accept flaky judge', MAINTAINER)
    expect(result.code).toBe(0)
    expect(pr.github.commentsOn(pr.number).at(-1)?.body).toBe(
      '@octo-maintainer I could not read which check runs to accept (Server Error (502)): nothing was accepted. Accept it again in a moment.'
    )
    expect(checksOnHead(pr).map(c => c.conclusion)).toEqual(['action_required'])
  })

  it('needs a reason, and a verdict on the head commit', async () => {
    const pr = unclear()
    await commented(pr, '/council accept', MAINTAINER)
    expect(pr.github.commentsOn(pr.number).at(-1)?.body).toBe(
      '@octo-maintainer say why: `/council accept <reason>`.'
    )
    await commented(pr, '/council accept looks fine', MAINTAINER)
    expect(pr.github.commentsOn(pr.number).at(-1)?.body).toContain(
      'there is no verdict on the head commit'
    )
    expect(pr.github.checkRuns).toEqual([])
  })
})

describe('refused commands', () => {
  it('a stranger gets one reply per pull request, however many commands they post', async () => {
    const pr = judged()
    const other = judged()
    const before = pr.github.commentsOn(pr.number).length
    const commands = ['/council rerun', '/council accept please', '/council approve']
    const logs: string[][] = []
    for (let i = 0; i < 20; i++) {
      logs.push((await commented(pr, commands[i % 3] ?? '', READER)).log)
    }
    // Twenty commands, one reply.
    const added = pr.github.commentsOn(pr.number).slice(before)
    expect(added).toHaveLength(21)
    expect(added.filter(c => c.body.includes('@octo-reader only people with write'))).toHaveLength(
      1
    )
    expect(logs.slice(1).every(log => log.some(l => l.includes('was already answered')))).toBe(true)
    expect(pr.github.checkRuns).toEqual([])
    // Another stranger, and the same stranger on another pull request, get theirs.
    await commented(pr, '/council rerun', { login: 'someone-else', type: 'User' })
    await commented(other, '/council rerun', READER)
    expect(pr.github.commentsOn(pr.number).at(-1)?.body).toContain('@someone-else only people')
    expect(other.github.commentsOn(other.number).at(-1)?.body).toContain('@octo-reader only people')
    // A maintainer's unknown commands are answered each time.
    await commented(pr, '/council approve', MAINTAINER)
    await commented(pr, '/council approve', MAINTAINER)
    expect(
      pr.github.commentsOn(pr.number).filter(c => c.body.startsWith('@octo-maintainer'))
    ).toHaveLength(2)
  }, 60_000)
})

describe('two reviews of one pull request at once', () => {
  /**
   * A review of head A whose judges say FAIL, during which the author pushes B and B's review
   * (PASS) runs from start to end: at the moment `when` says, just before A's review writes.
   */
  async function overlapping(when: 'before its re-read' | 'after its re-read') {
    const pr = judged()
    const older = pullRequestEvent(pr.repo, { number: pr.number })
    const a = pr.repo.headSha
    const newer = async () => {
      failing = false
      pr.repo.commit({ 'more.ts': 'export const more = 1\n' }, 'push')
      pr.github.setPullRequest(pr.number, pullRequestJson(pr.repo, pr.number))
      expect((await review(pr)).outputs.verdict).toBe('PASS')
    }
    const { pullRequest, comments } = pr.github
    let asked = false
    let next: 'pull request' | 'comments' | undefined
    onJudge = () => {
      asked = true
    }
    pr.github.pullRequest = async (number: number) => {
      if (asked && next === undefined) {
        next = 'comments'
        onJudge = undefined
        if (when === 'before its re-read') await newer()
      }
      return pullRequest(number)
    }
    pr.github.comments = async (issue: number, marker: string) => {
      const listed = await comments(issue, marker)
      if (next === 'comments' && when === 'after its re-read') {
        next = 'pull request'
        await newer()
      }
      return listed
    }
    failing = true
    try {
      const result = await runInProcess(pr, { inputs: INPUTS, providers: keys(), event: older })
      expect(result.outputs.verdict).toBe('FAIL')
    } finally {
      failing = false
      onJudge = undefined
    }
    return { pr, a, b: pr.repo.headSha }
  }

  const sticky = (pr: PullRequest) =>
    pr.github.commentsOn(pr.number).filter(c => c.body.startsWith('<!-- rubric-council:'))

  it.each(['before its re-read', 'after its re-read'] as const)(
    'the older head’s review finishing last (the newer one done %s): the newest head’s verdict shows, the history has both, one comment',
    async when => {
      const { pr, a, b } = await overlapping(when)
      const [comment, ...more] = sticky(pr)
      expect(more).toEqual([])
      expect(comment?.body).toContain('### ✅ Rubric Council: PASS')
      expect(readState(comment?.body ?? '').history.map(h => [h.commit, h.verdict])).toEqual([
        [a, 'FAIL'],
        [b, 'PASS']
      ])
      // Each check run is on its own head.
      expect(pr.github.checkRuns.map(c => [c.head_sha, c.conclusion])).toEqual(
        expect.arrayContaining([
          [a, 'failure'],
          [b, 'success']
        ])
      )
    },
    60_000
  )
})

describe('a push that changes the base rubric', () => {
  function pushed(pr: PullRequest, before: string, after: string) {
    const event = writeEvent({
      ...webhookExample('push'),
      ref: `refs/heads/${baseBranch(pr.repo)}`,
      before,
      after
    })
    return runInProcess(pr, { eventName: 'push', event, providers: {} })
  }

  it('marks the open pull requests on that branch pending and re-runs the review of each', async () => {
    const github = new MemoryGitHub()
    const pr = pullRequest({ '.github/rubric.md': RUBRIC }, {}, github)
    const branch = baseBranch(pr.repo)
    const stricter = `${RUBRIC}- documented: The change is documented\n`
    github.setFile('new-tip', '.github/rubric.md', stricter)
    // Another open PR on the same base, and one on another base.
    github.setPullRequest(900, { ...pullRequestJson(pr.repo, 900), head: { sha: 'a'.repeat(40) } })
    github.setPullRequest(901, {
      ...pullRequestJson(pr.repo, 901),
      base: { ref: 'release', sha: pr.repo.baseSha }
    })
    const runs = [
      github.addRun('rubric-council.yml', pr.number, pr.repo.headSha),
      github.addRun('rubric-council.yml', 900, 'a'.repeat(40)),
      github.addRun('rubric-council.yml', 901, pr.repo.headSha)
    ]
    const result = await pushed(pr, pr.repo.baseSha, 'new-tip')
    expect(result.code).toBe(0)
    expect([...github.reruns].sort()).toEqual([runs[0]?.id, runs[1]?.id].sort())
    expect(result.log).toContain(
      `Rubric Council: the rubric changed on ${branch} (${rubricHash(RUBRIC)} → ${rubricHash(stricter)}); re-verifying 2 open pull requests`
    )
    const change = `${rubricHash(RUBRIC)} → ${rubricHash(stricter)}`
    expect(github.checkRuns.map(c => [c.head_sha, c.status, c.title]).sort()).toEqual(
      [
        [pr.repo.headSha, 'in_progress', `The rubric changed: ${change}; re-verifying`],
        ['a'.repeat(40), 'in_progress', `The rubric changed: ${change}; re-verifying`]
      ].sort()
    )
  })

  it('re-runs the reviews when a rubric in .github/rubrics/ changes, leaving each rubric its own pending check', async () => {
    const github = new MemoryGitHub()
    const scoped = '---\npaths: [src/**]\n---\n## Criteria\n- tested: Tested\n'
    const pr = pullRequest({ '.github/rubrics/src.md': scoped }, {}, github)
    github.setFile('new-tip', '.github/rubrics/src.md', `${scoped}- typed: Typed\n`)
    const run = github.addRun('rubric-council.yml', pr.number, pr.repo.headSha)
    const result = await pushed(pr, pr.repo.baseSha, 'new-tip')
    expect(github.reruns).toEqual([run.id])
    expect(result.log).toContain(
      `Rubric Council: the rubric changed on ${baseBranch(pr.repo)} (${rubricHash(scoped)} → ${rubricHash(`${scoped}- typed: Typed\n`)}); re-verifying 1 open pull request`
    )
    // No pending "rubric-council" check: the re-run review starts each rubric's own.
    expect(github.checkRuns).toEqual([])
  })

  it('does nothing when no rubric in .github/rubrics/ changed either', async () => {
    const github = new MemoryGitHub()
    const scoped = '---\npaths: [src/**]\n---\n## Criteria\n- tested: Tested\n'
    const pr = pullRequest({ '.github/rubrics/src.md': scoped }, {}, github)
    github.setFile('new-tip', '.github/rubrics/src.md', scoped)
    github.setFile('new-tip', 'src/other.ts', 'export {}\n')
    github.addRun('rubric-council.yml', pr.number, pr.repo.headSha)
    const result = await pushed(pr, pr.repo.baseSha, 'new-tip')
    expect(github.reruns).toEqual([])
    expect(result.log).toContain(
      `Rubric Council: .github/rubric.md and .github/rubrics/ did not change on ${baseBranch(pr.repo)}; nothing to re-verify`
    )
  })

  it('does nothing when the rubric did not change', async () => {
    const pr = judged()
    pr.github.setFile('new-tip', '.github/rubric.md', RUBRIC)
    pr.github.addRun('rubric-council.yml', pr.number, pr.repo.headSha)
    const result = await pushed(pr, pr.repo.baseSha, 'new-tip')
    expect(pr.github.reruns).toEqual([])
    expect(result.log).toContain(
      `Rubric Council: .github/rubric.md did not change on ${baseBranch(pr.repo)}; nothing to re-verify`
    )
  })

  it('without permission to re-run, warns naming it and leaves the verdicts as they are', async () => {
    const pr = pullRequest({ '.github/rubric.md': RUBRIC }, {}, new MemoryGitHub({ write: false }))
    pr.github.addRun('rubric-council.yml', pr.number, pr.repo.headSha)
    pr.github.setFile('new-tip', '.github/rubric.md', `${RUBRIC}- more: More\n`)
    const result = await pushed(pr, pr.repo.baseSha, 'new-tip')
    expect(result.code).toBe(0)
    expect(result.log.some(l => l.startsWith('warning:') && l.includes('"actions: write"'))).toBe(
      true
    )
    expect(pr.github.checkRuns).toEqual([])
  })

  it('the review it re-runs records why it ran', async () => {
    const pr = judged()
    await review(pr)
    const stricter = `${RUBRIC}- documented: The change is documented\n`
    pr.github.setFile('new-tip', '.github/rubric.md', stricter)
    pr.github.setBranch(baseBranch(pr.repo), 'new-tip')
    await review(pr)
    expect(readState(ours(pr)).history.at(-1)?.note).toBe(
      `base rubric changed (${rubricHash(RUBRIC)} → ${rubricHash(stricter)})`
    )
  })
})
