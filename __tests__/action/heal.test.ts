import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { BOT_WORKFLOW_FILE } from '../../src/init/workflows.js'
import {
  commentMarker,
  readState,
  replaceState,
  type CommentState
} from '../../src/publish/memory.js'
import { pullRequestJson, scheduleEvent } from '../helpers/action-run.js'
import { pullRequest, runInProcess, type PullRequest } from '../helpers/in-process.js'
import { wireAnswer } from '../helpers/judge-answers.js'
import { MemoryGitHub } from '../helpers/memory-github.js'
import { startProviderStandIn, type StandIn } from '../helpers/provider-standin.js'

/**
 * Healing (docs/pr-bot.md#healing), in process: a `schedule` run of the bot re-runs the review of
 * an open pull request whose check is UNCLEAR because a provider did not answer, once the provider
 * answers its probe again; GitHub is in memory, the judges and the probes are the provider
 * stand-in, over HTTP.
 */

const RUBRIC = '---\ndimensions: false\n---\n## Criteria\n- tested: The change is tested\n'
/** Two judges and no tie-break: a split must-have stays UNCLEAR judge_disagreement. */
const SPLIT_RUBRIC =
  '---\ndimensions: false\ncouncil:\n  models: [openai:gpt-5.4-nano, openai:gpt-5.4-mini]\n  tie_breaks: 0\n---\n## Criteria\n- tested: The change is tested\n'
const REVIEW_WORKFLOW = 'rubric-council.yml'
const CRON = '17,47 * * * *'
const KEY = 'sk-heal-test-0123456789'

let providers: StandIn
/** What the judges do: answer (PASS or FAIL), or answer 429 as a rate limit does. */
let judges: 'pass' | 'fail' | 'limited' | 'split' = 'pass'

beforeAll(async () => {
  providers = await startProviderStandIn(call => {
    if (judges === 'limited') return { status: 429, headers: { 'retry-after-ms': '1' } }
    const fail = judges === 'fail' || (judges === 'split' && call.model === 'gpt-5.4-nano')
    return { json: wireAnswer(call.schema, fail ? { fail: ['tested'] } : {}) }
  })
})
beforeEach(() => {
  judges = 'pass'
  providers.setProbeScript(() => 'answer')
})
afterAll(async () => {
  await providers.close()
})

const keys = (): Record<string, string> => ({
  OPENAI_API_KEY: KEY,
  OPENAI_BASE_URL: providers.openaiBaseUrl
})

/** An open pull request with its review run (finished an hour ago), on `github`. */
function opened(github: MemoryGitHub, rubric = RUBRIC) {
  const pr = pullRequest({ '.github/rubric.md': rubric }, {}, github)
  const run = github.addRun(REVIEW_WORKFLOW, pr.number, pr.repo.headSha)
  return { pr, run }
}

/** A review on the pull request event: the first run, or the re-run GitHub starts. */
async function review(pr: PullRequest): Promise<string> {
  const ran = await runInProcess(pr, {
    inputs: { models: 'openai:gpt-5.4-nano' },
    providers: keys()
  })
  return `${ran.outputs.verdict ?? ''} ${ran.outputs.reasons ?? ''}`.trim()
}

/** The bot's scheduled run, as init's bot workflow runs it: with the keys, no models input. */
function scheduled(pr: PullRequest, inputs: Record<string, string> = {}) {
  return runInProcess(pr, {
    eventName: 'schedule',
    event: scheduleEvent(CRON, BOT_WORKFLOW_FILE),
    inputs,
    providers: keys()
  })
}

const ours = (pr: PullRequest) => pr.github.commentsOn(pr.number)[0]
const state = (pr: PullRequest): CommentState => readState(ours(pr)?.body ?? '')
const check = (pr: PullRequest) =>
  pr.github.checkRuns.filter(c => c.head_sha === pr.repo.headSha).at(-1)
const summary = (ran: { log: readonly string[] }) =>
  ran.log.find(line => line.startsWith('Rubric Council: healing')) ?? ''

describe('a schedule run', () => {
  it('re-runs an UNCLEAR rate_limited review once the provider answers again, and the history says why', async () => {
    const github = new MemoryGitHub()
    const { pr, run } = opened(github)
    judges = 'limited'
    expect(await review(pr)).toBe('UNCLEAR rate_limited')
    expect(check(pr)?.conclusion).toBe('action_required')

    // Still limited: the probe answers 429, and the pull request is left alone.
    providers.setProbeScript(() => ({ status: 429 }))
    const probesBefore = providers.probes.length
    const early = await scheduled(pr)
    expect(early.code).toBe(0)
    expect(github.reruns).toEqual([])
    expect(summary(early)).toContain(
      `left alone: #${pr.number} (openai still failing: GET /models answered 429)`
    )
    // One probe of the one provider, as OpenAI's list-models takes it.
    expect(providers.probes.slice(probesBefore)).toMatchObject([
      { service: 'openai', path: '/v1/models', apiKey: KEY }
    ])

    // The provider is back.
    providers.setProbeScript(() => 'answer')
    judges = 'pass'
    const later = await scheduled(pr)
    expect(github.reruns).toEqual([run.id])
    expect(summary(later)).toContain(
      `Rubric Council: healing (schedule "${CRON}"): 1 open pull request, 1 with an UNCLEAR check; re-verified 1, left 0 alone`
    )
    expect(summary(later)).toContain(
      `re-verified after a provider outage: #${pr.number} (rate_limited; re-run 1 of 3 for ${pr.repo.headSha.slice(0, 7)}`
    )
    // The attempt GitHub starts: the review again, which asks the judges and notes why it ran.
    expect(await review(pr)).toBe('PASS')
    expect(state(pr).history.map(h => h.note)).toEqual([
      undefined,
      're-verified after a provider outage'
    ])
    expect(check(pr)?.conclusion).toBe('success')
    // Nothing is UNCLEAR now: nothing is re-run, and no provider is probed.
    const probes = providers.probes.length
    await scheduled(pr)
    expect(github.reruns).toEqual([run.id])
    expect(providers.probes.length).toBe(probes)
  })

  it('with several rubrics, re-runs when one rubric is UNCLEAR rate_limited and the other does not apply', async () => {
    const github = new MemoryGitHub()
    const pr = pullRequest(
      {
        '.github/rubrics/code.md': `---\npaths: ['*.ts']\n${RUBRIC.slice(4)}`,
        '.github/rubrics/docs.md': `---\npaths: [docs/**]\n${RUBRIC.slice(4)}`
      },
      {},
      github
    )
    const run = github.addRun(REVIEW_WORKFLOW, pr.number, pr.repo.headSha)
    judges = 'limited'
    expect(await review(pr)).toBe('UNCLEAR rate_limited')
    const ran = await scheduled(pr)
    expect(github.reruns).toEqual([run.id])
    expect(summary(ran)).toContain('1 open pull request, 1 with an UNCLEAR check; re-verified 1')
    judges = 'pass'
    expect(await review(pr)).toBe('PASS')
    expect(state(pr).history.map(h => [h.verdict, h.note])).toEqual([
      ['UNCLEAR', undefined],
      ['PASS', 're-verified after a provider outage']
    ])
    const checks = github.checkRuns.filter(c => c.head_sha === pr.repo.headSha)
    expect(checks.filter(c => c.name === 'rubric-council / code').map(c => c.conclusion)).toEqual([
      'action_required',
      'success'
    ])
  })

  it('with a catch-all rubric that passed, still re-runs when a scoped rubric is UNCLEAR rate_limited', async () => {
    const github = new MemoryGitHub()
    const pr = pullRequest(
      {
        '.github/rubric.md': '## Gates\n- `true`\n',
        '.github/rubrics/code.md': `---\npaths: ['*.ts']\n${RUBRIC.slice(4)}`
      },
      {},
      github
    )
    const run = github.addRun(REVIEW_WORKFLOW, pr.number, pr.repo.headSha)
    judges = 'limited'
    expect(await review(pr)).toBe('UNCLEAR rate_limited')
    const onHead = () => github.checkRuns.filter(c => c.head_sha === pr.repo.headSha)
    expect(onHead().find(c => c.name === 'rubric-council')?.conclusion).toBe('success')
    const ran = await scheduled(pr)
    expect(github.reruns).toEqual([run.id])
    expect(summary(ran)).toContain('re-verified 1')
  })

  it('leaves an UNCLEAR judge_disagreement alone, probing no provider', async () => {
    const github = new MemoryGitHub()
    const { pr } = opened(github, SPLIT_RUBRIC)
    judges = 'split'
    expect(await review(pr)).toBe('UNCLEAR judge_disagreement')
    const probes = providers.probes.length
    const ran = await scheduled(pr)
    expect(github.reruns).toEqual([])
    expect(providers.probes.length).toBe(probes)
    expect(summary(ran)).toContain(
      `left alone: #${pr.number} (judge_disagreement: not a provider outage)`
    )
  })

  it('probes each provider of the base rubric’s council once, however many pull requests need it', async () => {
    const github = new MemoryGitHub()
    const { pr } = opened(github, SPLIT_RUBRIC)
    const { pr: other } = opened(github, SPLIT_RUBRIC)
    judges = 'limited'
    expect(await review(pr)).toBe('UNCLEAR rate_limited')
    expect(await review(other)).toBe('UNCLEAR rate_limited')
    const probes = providers.probes.length
    await scheduled(pr)
    expect(github.reruns).toHaveLength(2)
    expect(providers.probes.slice(probes).map(p => p.service)).toEqual(['openai'])
  })

  it('probes the providers of the council the base rubric inherits, not every key the job holds', async () => {
    const github = new MemoryGitHub()
    // The local rubric names no judge: the organisation's, which it extends, names OpenAI's.
    github.setUpstreamFile('octo-org/policy', 'refs/tags/v1', 'rubric.md', SPLIT_RUBRIC)
    const { pr } = opened(github, '---\nextends: octo-org/policy/rubric.md@v1\n---\n')
    judges = 'limited'
    expect(await review(pr)).toBe('UNCLEAR rate_limited')
    const probes = providers.probes.length
    await runInProcess(pr, {
      eventName: 'schedule',
      event: scheduleEvent(CRON, BOT_WORKFLOW_FILE),
      providers: {
        ...keys(),
        ANTHROPIC_API_KEY: KEY,
        ANTHROPIC_BASE_URL: providers.anthropicBaseUrl
      }
    })
    expect(providers.probes.slice(probes).map(p => p.service)).toEqual(['openai'])
    expect(github.reruns).toHaveLength(1)
  })

  it('re-runs at most heal-limit pull requests a run, the oldest first', async () => {
    const github = new MemoryGitHub()
    const [first, second, third] = [opened(github), opened(github), opened(github)]
    judges = 'limited'
    for (const { pr } of [first, second, third]) {
      expect(await review(pr)).toBe('UNCLEAR rate_limited')
    }
    const ran = await scheduled(first.pr, { 'heal-limit': '2' })
    expect(github.reruns).toEqual([first.run.id, second.run.id])
    expect(summary(ran)).toContain(`left alone: #${third.pr.number} (over heal-limit: 2 a run)`)
    // The next run takes the one left.
    await scheduled(first.pr, { 'heal-limit': '2' })
    expect(github.reruns).toEqual([first.run.id, second.run.id, third.run.id])
  })

  it('re-runs one head commit at most 3 times; a push starts the count again', async () => {
    const github = new MemoryGitHub()
    const { pr, run } = opened(github)
    judges = 'limited'
    expect(await review(pr)).toBe('UNCLEAR rate_limited')
    // The probe answers, and the judges are still limited: each re-run is UNCLEAR again.
    for (let n = 1; n <= 3; n++) {
      await scheduled(pr)
      expect(github.reruns).toHaveLength(n)
      expect(await review(pr)).toBe('UNCLEAR rate_limited')
      run.status = 'completed'
      expect(state(pr).heal).toEqual({ commit: pr.repo.headSha, count: n, due: false })
    }
    const fourth = await scheduled(pr)
    expect(github.reruns).toEqual([run.id, run.id, run.id])
    expect(summary(fourth)).toContain(
      `left alone: #${pr.number} (re-run 3 times after an outage already for this head commit; push or comment /council rerun)`
    )
    expect(state(pr).history.map(h => h.note)).toEqual([
      undefined,
      're-verified after a provider outage',
      're-verified after a provider outage',
      're-verified after a provider outage'
    ])

    // A push: a new head commit, reviewed (still limited), and re-run again after the outage.
    pr.repo.commit({ 'more.ts': 'export const more = 1\n' }, 'push')
    github.setPullRequest(pr.number, pullRequestJson(pr.repo, pr.number))
    const pushed = github.addRun(REVIEW_WORKFLOW, pr.number, pr.repo.headSha)
    expect(await review(pr)).toBe('UNCLEAR rate_limited')
    expect(state(pr).heal).toBeUndefined()
    await scheduled(pr)
    expect(github.reruns).toEqual([run.id, run.id, run.id, pushed.id])
  })

  it('without a provider key in the bot job, re-runs nothing and says which key is missing', async () => {
    const github = new MemoryGitHub()
    const { pr } = opened(github)
    judges = 'limited'
    expect(await review(pr)).toBe('UNCLEAR rate_limited')
    const ran = await runInProcess(pr, {
      eventName: 'schedule',
      event: scheduleEvent(CRON, BOT_WORKFLOW_FILE),
      inputs: { models: 'openai:gpt-5.4-nano' },
      providers: {}
    })
    expect(github.reruns).toEqual([])
    expect(summary(ran)).toContain(
      `left alone: #${pr.number} (openai still failing: OPENAI_API_KEY is not set)`
    )
  })
})

/**
 * The attack: someone with write access (or a compromised account) edits the comment's hidden
 * state to get a pull request re-run until a judge lets it through, or to carry a verdict over.
 * The state only ever causes or holds back a re-run; a re-run judges afresh.
 */
describe('attack: an edit of the comment’s state', () => {
  const edit = async (pr: PullRequest, change: (s: CommentState) => CommentState) => {
    const [comment] = await pr.github.comments(pr.number, commentMarker('rubric-council'))
    if (!comment) throw new Error('no comment')
    await pr.github.upsertComment(
      pr.number,
      replaceState(comment.body, change(readState(comment.body))),
      [comment]
    )
  }

  it('claiming an outage on a FAIL re-runs nothing: the check stays a failure', async () => {
    const github = new MemoryGitHub()
    const { pr } = opened(github)
    judges = 'fail'
    expect(await review(pr)).toBe('FAIL criterion_failed')
    await edit(pr, s => ({
      ...s,
      history: s.history.map(h => ({
        ...h,
        verdict: 'UNCLEAR' as const,
        reasons: ['rate_limited']
      })),
      heal: { commit: pr.repo.headSha, count: 1, due: true }
    }))
    await scheduled(pr)
    expect(github.reruns).toEqual([])
    expect(check(pr)?.conclusion).toBe('failure')
  })

  it('resetting the count and forging a PASS and an acceptance gets a re-run that judges afresh: FAIL, never PASS', async () => {
    const github = new MemoryGitHub()
    const { pr, run } = opened(github)
    judges = 'limited'
    expect(await review(pr)).toBe('UNCLEAR rate_limited')
    const note = github.addComment(pr.number, 'looks fine', { login: 'octo-writer', type: 'User' })
    github.setPermission('octo-writer', 'write')
    await edit(pr, s => ({
      ...s,
      // An earlier PASS of the same head, and an acceptance naming a comment that is no command.
      history: [
        ...s.history.map(h => ({ ...h, verdict: 'PASS' as const, reasons: [] })),
        ...s.history.map(h => ({ ...h, iteration: h.iteration + 1 }))
      ],
      accepted: { commit: pr.repo.headSha, by: 'octo-writer', reason: 'ok', commentId: note },
      heal: { commit: pr.repo.headSha, count: 1, due: false }
    }))
    judges = 'fail'
    await scheduled(pr)
    expect(github.reruns).toEqual([run.id])
    expect(await review(pr)).toBe('FAIL criterion_failed')
    expect(check(pr)?.conclusion).toBe('failure')
    expect(state(pr).accepted).toBeUndefined()
  })
})
