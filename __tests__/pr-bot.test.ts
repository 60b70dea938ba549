import { Evaluator, Lexer, Parser, data } from '@actions/expressions'
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { initFiles } from '../src/init/layout.js'
import { WORKFLOW_FILE } from '../src/init/workflows.js'
import { readState } from '../src/publish/memory.js'
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
import {
  startGitHubStandIn,
  type Actor,
  type GitHubStandIn,
  type RunStart
} from './helpers/github-standin.js'
import { wireAnswer } from './helpers/judge-answers.js'
import { startProviderStandIn, type StandIn } from './helpers/provider-standin.js'
import { GATES_TOKEN, gatesJob } from './helpers/split-layout.js'
import type { WorkflowJob } from './helpers/workflow-runner.js'

/**
 * The PR bot end to end (docs/pr-bot.md): the bundled action run as the runner runs it, with real
 * webhook payloads, against the GitHub stand-in (every request checked against GitHub's OpenAPI
 * description, permissions as the workflow grants them) and the provider stand-in.
 */

const TOKEN = 'ghs_bot_token_0001'
/** The bot's token when its workflow grants `actions: read` only. */
const READS_ACTIONS = 'ghs_bot_token_0002'
const BOT: Actor = { login: 'github-actions[bot]', type: 'Bot' }
const MAINTAINER: Actor = { login: 'octo-maintainer', type: 'User' }
const READER: Actor = { login: 'octo-reader', type: 'User' }
const RUBRIC = '---\ndimensions: false\n---\n## Criteria\n- tested: The change is tested\n'
const WORKFLOW = 'rubric-council.yml'
/** The review workflow as `init` writes it (the split layout): what the bot starts again. */
const REVIEW_WORKFLOW = parseYaml(
  initFiles(
    import.meta.dirname,
    { forks: false },
    { commit: '0123456789abcdef0123456789abcdef01234567', version: '0.1.0' }
  ).files.find(f => f.path === WORKFLOW_FILE)?.text ?? ''
) as {
  readonly on: Record<string, { readonly inputs?: Record<string, { required?: boolean }> } | null>
  readonly jobs: Record<string, WorkflowJob>
}

let github: GitHubStandIn
let providers: StandIn
/** Check runs on the watched commit, as each provider call found them. */
let watch: { sha: string; seen: string[] } | undefined
let nextPr = 1
let nextRun = 7_000_000_001

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
  github.addToken(READS_ACTIONS, {
    ...BOT,
    permissions: {
      contents: 'read',
      'pull-requests': 'write',
      checks: 'write',
      actions: 'read'
    }
  })
  // Its triggers as init writes them: a dispatch is accepted only if it listens to one.
  const dispatch = REVIEW_WORKFLOW.on.workflow_dispatch
  github.setWorkflow(WORKFLOW, {
    ...(dispatch !== undefined && { dispatch: { inputs: dispatch?.inputs ?? {} } })
  })
  // The fork layout's gates job: `permissions: { contents: read }`.
  github.addToken(GATES_TOKEN, { ...BOT, write: false, actions: 'none' })
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
  // A base of its own: pull requests made in the same second would otherwise share their commits,
  // base branch and runs.
  const repo = openPullRequest(
    github,
    number,
    { '.github/rubric.md': RUBRIC, 'README.md': `Pull request ${String(number)}\n` },
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
  env: Record<string, string> = {},
  token = TOKEN,
  inputs: Record<string, string> = {}
): Promise<ActionRun> {
  return runAction({
    workspace: pr.repo.dir,
    eventName,
    eventPath,
    apiUrl: github.url,
    inputs: {
      'github-token': token,
      models: 'openai:gpt-5.4-nano',
      'allow-gates-with-secrets': 'true',
      ...inputs
    },
    env
  })
}

/**
 * The review workflow's run on the pull request's `pull_request` event, as GitHub lists it (an
 * hour ago, finished, unless `options` say otherwise); its re-run is the same event again.
 */
function reviewRun(
  pr: { readonly number: number; readonly headSha: string },
  options: { readonly status?: string; readonly created_at?: string } = {}
): number {
  const id = nextRun++
  github.setWorkflowRun({
    id,
    workflow: WORKFLOW,
    head_sha: pr.headSha,
    event: 'pull_request',
    pull_requests: [pr.number],
    ref: `refs/pull/${String(pr.number)}/merge`,
    ...options
  })
  return id
}

/** A review on the pull request event: the first run, or a re-run of it (the same payload). */
const review = (pr: PullRequest, env: Record<string, string> = KEYS()) =>
  act(pr, 'pull_request', pullRequestEvent(pr.repo, { number: pr.number }), env)
function comment(pr: PullRequest, body: string, user: Actor, token = TOKEN): Promise<ActionRun> {
  const { id } = github.addComment(pr.number, body, user)
  return act(
    pr,
    'issue_comment',
    issueCommentEvent({ number: pr.number, body, user, commentId: id }),
    {},
    token
  )
}

const ours = (pr: PullRequest): string =>
  (github.comments.get(pr.number) ?? []).find(
    c => c.user.login === BOT.login && c.body.startsWith('<!-- rubric-council:')
  )?.body ?? ''
const checksOn = (sha: string) => github.checkRuns.filter(c => c.head_sha === sha)
const head = (pr: PullRequest) => ({ number: pr.number, headSha: pr.repo.headSha })
/** The runs GitHub started, or started again, since `from` (an index into `runStarts`). */
const startedSince = (from: number): RunStart[] => github.runStarts.slice(from)
/** The re-run of run `runId` as its next attempt: the same event, commit and ref. */
const rerunOf = (runId: number, pr: PullRequest, attempt = 2): RunStart => ({
  runId,
  attempt,
  workflow: WORKFLOW,
  how: 'rerun',
  event: 'pull_request',
  head_sha: pr.repo.headSha,
  ref: `refs/pull/${String(pr.number)}/merge`
})
/** What the bot replied last on the pull request. */
const lastReply = (pr: PullRequest): string => github.comments.get(pr.number)?.at(-1)?.body ?? ''

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
  it('a re-run with nothing changed makes no provider request and gives the same verdict; /council rerun re-runs the review, which asks again', async () => {
    const pr = pullRequest()
    const run = reviewRun(head(pr))
    const first = await review(pr)
    const calls = providers.calls.length
    const again = await review(pr)
    expect(providers.calls.length).toBe(calls)
    expect([first.outputs.verdict, again.outputs.verdict]).toEqual(['PASS', 'PASS'])
    expect(ours(pr)).toContain("The judges' answers are reused from iteration 1")

    const from = github.runStarts.length
    const command = await comment(pr, '/council rerun', MAINTAINER)
    expect(command.code).toBe(0)
    expect(startedSince(from)).toEqual([rerunOf(run, pr)])
    expect(github.dispatches).toEqual([])
    const taken = (github.comments.get(pr.number) ?? []).find(c => c.body === '/council rerun')
    expect(github.reactions(taken?.id ?? 0).map(r => [r.content, r.user.login])).toEqual([
      ['eyes', BOT.login]
    ])
    // The attempt GitHub starts: the pull_request event again.
    const rerun = await review(pr)
    expect(rerun.outputs.verdict).toBe('PASS')
    expect(providers.calls.length).toBe(calls + 1)
    expect(readState(ours(pr)).history.map(h => h.note)).toEqual([
      undefined,
      'answers reused from iteration 1',
      '/council rerun by @octo-maintainer'
    ])
  })

  it('re-runs the newest run of this pull request, never a run on the default branch or another pull request’s', async () => {
    const pr = pullRequest()
    const own = reviewRun(head(pr), { created_at: new Date(Date.now() - 7200_000).toISOString() })
    // Newer, on the same commit: a run dispatched on the base branch, and another pull request's.
    github.setWorkflowRun({
      id: nextRun++,
      workflow: WORKFLOW,
      head_sha: pr.repo.headSha,
      event: 'workflow_dispatch',
      ref: `refs/heads/${baseBranch(pr.repo)}`
    })
    reviewRun({ number: pr.number + 5000, headSha: pr.repo.headSha })
    const from = github.runStarts.length
    await comment(pr, '/council rerun', MAINTAINER)
    expect(startedSince(from)).toEqual([rerunOf(own, pr)])
  })

  it('from someone with read permission: no evaluation, a reply; from a bot: ignored', async () => {
    const pr = pullRequest()
    reviewRun(head(pr))
    await review(pr)
    const before = github.comments.get(pr.number)?.length ?? 0
    const calls = providers.calls.length
    const from = github.runStarts.length
    await comment(pr, '/council rerun', READER)
    // After the hidden line that marks a refusal to this user (one per pull request).
    expect(lastReply(pr)).toContain(
      '@octo-reader only people with write permission on the repository may run `/council rerun`'
    )
    await comment(pr, '/council rerun', { login: 'renovate[bot]', type: 'Bot' })
    // The two commands, and one reply.
    expect(github.comments.get(pr.number)).toHaveLength(before + 3)
    expect(startedSince(from)).toEqual([])
    expect(providers.calls.length).toBe(calls)
  })

  describe('says why when there is nothing it may re-run, and starts nothing else', () => {
    const replied = async (pr: PullRequest, problem: string) => {
      const from = github.runStarts.length
      const result = await comment(pr, '/council rerun', MAINTAINER)
      expect(result.code).toBe(0)
      expect(lastReply(pr)).toBe(`@octo-maintainer I could not start the review again: ${problem}`)
      expect(startedSince(from)).toEqual([])
    }
    const at = (pr: PullRequest) => `#${String(pr.number)} at ${pr.repo.headSha.slice(0, 7)}`
    const url = (run: number) => `https://github.com/${OWNER}/${REPO}/actions/runs/${String(run)}`

    it('no review run on the head commit (the workflow was added after the last push)', async () => {
      const pr = pullRequest()
      await replied(
        pr,
        `${WORKFLOW} has no run on pull_request for ${at(pr)} to re-run: push a commit to the pull request, or close and reopen it, and GitHub starts a new review. (Nothing is started on the default branch instead: the pull request's code would run there with its ref, cache and token.)`
      )
    })

    it('the review is still running: GitHub answers 403 "This workflow is already running"', async () => {
      const pr = pullRequest()
      const running = reviewRun(head(pr), { status: 'in_progress' })
      await replied(
        pr,
        `the review of ${at(pr)} is still running (${url(running)}), and GitHub re-runs only finished runs: once it has finished, comment \`/council rerun\` on the pull request`
      )
    })

    it('the review run is 40 days old: GitHub answers 403 "… created over a month ago"', async () => {
      const pr = pullRequest()
      const created = new Date(Date.now() - 40 * 86_400_000).toISOString()
      const old = reviewRun(head(pr), { created_at: created })
      await replied(
        pr,
        `the review run of ${at(pr)} (${url(old)}) started on ${created.slice(0, 10)}, and GitHub re-runs a run only within 30 days: push a commit to the pull request, or close and reopen it, and GitHub starts a new review`
      )
    })
  })

  it('without "actions: write": a reply naming the permission, and nothing started', async () => {
    const pr = pullRequest()
    reviewRun(head(pr))
    const from = github.runStarts.length
    const result = await comment(pr, '/council rerun', MAINTAINER, READS_ACTIONS)
    expect(result.code).toBe(0)
    expect(lastReply(pr)).toBe(
      `@octo-maintainer I could not start the review again: cannot re-run ${WORKFLOW} (403: Resource not accessible by integration): give the bot's job "actions: write"`
    )
    expect(startedSince(from)).toEqual([])
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
    expect(lastReply(pr)).toBe(
      `@octo-maintainer accepted the whole check for ${pr.repo.headSha.slice(0, 7)}: its check run concludes success until the next push.`
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
  function pushTo(pr: PullRequest, rubric: string, token = TOKEN): Promise<ActionRun> {
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
      pushEvent({ ref: `refs/heads/${baseBranch(pr.repo)}`, before: pr.repo.baseSha, after: tip }),
      {},
      token
    )
  }

  /** Another open pull request, on `pr`'s base branch unless `base` says otherwise. */
  function sibling(pr: PullRequest, number: number, sha: string, base?: string): void {
    const json = pullRequestJson(pr.repo, number)
    github.setPullRequest(number, {
      ...json,
      head: { ...(json.head as object), sha },
      ...(base !== undefined && { base: { ...(json.base as object), ref: base } })
    })
  }

  const shaOf = (n: number): string => n.toString(16).padStart(40, 'b')

  it('marks two open pull requests pending and re-runs the review of each; the third, on another base, is left alone', async () => {
    const pr = pullRequest()
    const run = reviewRun(head(pr))
    await review(pr)
    sibling(pr, 990, 'a'.repeat(40))
    const siblingRun = reviewRun({ number: 990, headSha: 'a'.repeat(40) })
    sibling(pr, 991, 'c'.repeat(40), 'release')
    reviewRun({ number: 991, headSha: 'c'.repeat(40) })
    const from = github.runStarts.length
    const result = await pushTo(pr, STRICTER)
    expect(result.code).toBe(0)
    expect(startedSince(from).sort((x, y) => x.runId - y.runId)).toEqual([
      rerunOf(run, pr),
      { ...rerunOf(siblingRun, pr), head_sha: 'a'.repeat(40), ref: 'refs/pull/990/merge' }
    ])
    const change = `${rubricHash(RUBRIC)} → ${rubricHash(STRICTER)}`
    for (const sha of [pr.repo.headSha, 'a'.repeat(40)]) {
      expect(
        checksOn(sha)
          .map(c => [c.status, c.output.title])
          .at(-1)
      ).toEqual(['in_progress', `The rubric changed: ${change}; re-verifying`])
    }
    expect(checksOn('c'.repeat(40))).toEqual([])
    // The re-run review says why it ran.
    await review(pr)
    expect(readState(ours(pr)).history.at(-1)?.note).toBe(`base rubric changed (${change})`)
  })

  it('finds every open pull request through pagination: 250 of them', async () => {
    const pr = pullRequest()
    reviewRun(head(pr))
    for (let n = 0; n < 249; n++) {
      sibling(pr, 5000 + n, shaOf(5000 + n))
      reviewRun({ number: 5000 + n, headSha: shaOf(5000 + n) })
    }
    const from = github.runStarts.length
    await pushTo(pr, STRICTER)
    expect(startedSince(from).map(s => s.how)).toEqual(Array(250).fill('rerun'))
    // Three requests each (the runs, the re-run, the pending check), the writes one at a time.
  }, 90_000)

  it('re-runs the others when one review is still running and another has no run, and names both', async () => {
    const pr = pullRequest()
    const run = reviewRun(head(pr))
    sibling(pr, 7001, shaOf(7001))
    const running = reviewRun({ number: 7001, headSha: shaOf(7001) }, { status: 'queued' })
    sibling(pr, 7002, shaOf(7002))
    const from = github.runStarts.length
    const result = await pushTo(pr, STRICTER)
    expect(result.code).toBe(0)
    expect(startedSince(from)).toEqual([rerunOf(run, pr)])
    const warning = result.stdout
      .split('\n')
      .find(line => line.startsWith('::warning::') && line.includes('not re-verified'))
    expect(warning).toContain('2 pull requests were not re-verified')
    expect(warning).toContain(
      `/actions/runs/${String(running)}), and GitHub re-runs only finished runs`
    )
    expect(warning).toContain(`${WORKFLOW} has no run on pull_request for #7002`)
    expect(checksOn(shaOf(7001))).toEqual([])
    expect(checksOn(shaOf(7002))).toEqual([])
  })

  it('without "actions: write": one warning naming it, and no check left pending', async () => {
    const pr = pullRequest()
    reviewRun(head(pr))
    sibling(pr, 7101, shaOf(7101))
    reviewRun({ number: 7101, headSha: shaOf(7101) })
    const from = github.runStarts.length
    const result = await pushTo(pr, STRICTER, READS_ACTIONS)
    expect(result.code).toBe(0)
    expect(startedSince(from)).toEqual([])
    expect(result.stdout).toContain(
      `::warning::Rubric Council: cannot re-run ${WORKFLOW} (403: Resource not accessible by integration): give the bot's job "actions: write"; the verdicts already posted are left as they are`
    )
    expect(checksOn(pr.repo.headSha)).toEqual([])
    expect(checksOn(shaOf(7101))).toEqual([])
  })

  it('does not start anything when the push leaves the rubric as it was', async () => {
    const pr = pullRequest()
    reviewRun(head(pr))
    const from = github.runStarts.length
    const result = await pushTo(pr, RUBRIC)
    expect(result.code).toBe(0)
    expect(startedSince(from)).toEqual([])
    expect(checksOn(pr.repo.headSha)).toEqual([])
  })
})

/**
 * The attack (issue 21): a gate of the pull request reads the job's runtime token and writes the
 * default branch's Actions cache. It can when a review the bot starts runs the gates job on the
 * default branch's ref (a dispatch there that checks out the pull request). Whatever the bot
 * starts, the job that runs the gates must have the pull request's event and ref.
 */
describe('attack: a review the bot starts again runs the pull request’s code in the default branch’s scope', () => {
  /** The event and ref of the gates job in a run of the review workflow `init` writes. */
  function gatesJobOf(
    start: RunStart,
    pr: PullRequest
  ): { event: string; ref: string; checkout: string } {
    expect(Object.keys(REVIEW_WORKFLOW.on)).toContain(start.event)
    const gates = REVIEW_WORKFLOW.jobs.gates
    const checkout = gates?.steps.find(step => step.uses?.startsWith('actions/checkout@'))
    const github = { event_name: start.event, ref: start.ref, sha: start.head_sha }
    // A dispatch names the pull request in its inputs, as the bot's dispatches did.
    const inputs = start.event === 'workflow_dispatch' ? { 'pull-request': String(pr.number) } : {}
    const given = checkout?.with?.ref
    const asked = typeof given === 'string' ? given : ''
    const ref = asked.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, expression: string) => {
      const tree = new Parser(new Lexer(expression).lex().tokens, ['github', 'inputs'], []).parse()
      const contexts = JSON.parse(
        JSON.stringify({ github, inputs }),
        data.reviver
      ) as data.Dictionary
      return new Evaluator(tree, contexts, new Map()).evaluate().coerceString()
    })
    // actions/checkout without a ref checks out the run's own ref.
    return { event: start.event, ref: start.ref, checkout: ref === '' ? start.ref : ref }
  }

  const inScope = (pr: PullRequest) => ({
    event: 'pull_request',
    ref: `refs/pull/${String(pr.number)}/merge`,
    checkout: `refs/pull/${String(pr.number)}/merge`
  })

  it('after /council rerun', async () => {
    const pr = pullRequest()
    reviewRun(head(pr))
    await review(pr)
    const from = github.runStarts.length
    await comment(pr, '/council rerun', MAINTAINER)
    const started = startedSince(from)
    expect(started.length).toBeGreaterThan(0)
    for (const start of started) expect(gatesJobOf(start, pr)).toEqual(inScope(pr))
  })

  it('after a push that changes the base rubric', async () => {
    const pr = pullRequest()
    reviewRun(head(pr))
    await review(pr)
    const tip = pr.repo.git(
      'commit-tree',
      '-p',
      pr.repo.baseSha,
      '-m',
      'rubric',
      `${pr.repo.baseSha}^{tree}`
    )
    github.setFile(tip, '.github/rubric.md', `${RUBRIC}- documented: The change is documented\n`)
    github.setBranch(baseBranch(pr.repo), tip)
    const from = github.runStarts.length
    await act(
      pr,
      'push',
      pushEvent({ ref: `refs/heads/${baseBranch(pr.repo)}`, before: pr.repo.baseSha, after: tip })
    )
    const started = startedSince(from)
    expect(started.length).toBeGreaterThan(0)
    for (const start of started) expect(gatesJobOf(start, pr)).toEqual(inScope(pr))
  })
})

describe('the fork layout', () => {
  const GATES_WORKFLOW = 'rubric-council-gates.yml'
  const GATED = `---\ndimensions: false\n---\n## Gates\n- \`bash check.sh\`\n## Criteria\n- tested: The change is tested\n`

  it('/council rerun re-runs the gates run; its completion starts the council again, which reads the new attempt and asks the judges again', async () => {
    const number = nextPr++
    const repo = openPullRequest(
      github,
      number,
      // A gate that fails the first time, as a flaky one does.
      { '.github/rubric.md': GATED, 'check.sh': 'test "${RC_FLAKY:-}" != 1\n' },
      { 'feature.ts': 'export const feature = 1\n' }
    )
    const pr: PullRequest = { repo, number }
    // GitHub keeps the head at refs/pull/N/head, where the council fetches it from as data.
    repo.git('update-ref', `refs/pull/${String(number)}/head`, repo.headSha)
    repo.git('config', 'uploadpack.allowReachableSHA1InWant', 'true')
    const runId = nextRun++
    const eventPath = pullRequestEvent(repo, { number })
    github.setWorkflowRun({
      id: runId,
      workflow: GATES_WORKFLOW,
      name: 'Rubric Council gates',
      head_sha: repo.headSha,
      pull_requests: [number],
      ref: `refs/pull/${String(number)}/merge`
    })
    const base = mkdtempSync(join(tmpdir(), 'rc-bot-council-'))
    execFileSync('git', [
      'clone',
      '-q',
      '--depth=1',
      '--branch',
      'main',
      `file://${repo.dir}`,
      base
    ])
    /** The council workflow on workflow_run after attempt `attempt` of the gates run. */
    const council = (attempt: number, conclusion: string) => {
      const example = webhookExample('workflow_run', 'completed')
      return runAction({
        workspace: base,
        eventName: 'workflow_run',
        eventPath: writeEvent({
          ...example,
          action: 'completed',
          workflow_run: {
            ...(example.workflow_run as object),
            id: runId,
            run_attempt: attempt,
            head_sha: repo.headSha,
            conclusion,
            event: 'pull_request',
            pull_requests: [{ number }]
          },
          repository: {
            ...(example.repository as object),
            name: REPO,
            full_name: `${OWNER}/${REPO}`
          }
        }),
        apiUrl: github.url,
        inputs: { 'github-token': TOKEN, models: 'openai:gpt-5.4-nano', gates: 'recorded' },
        env: { ...KEYS(), GITHUB_RUN_ID: '9999' }
      })
    }

    const first = await gatesJob(github, {
      workspace: repo.dir,
      eventPath,
      runId,
      env: { RC_FLAKY: '1' }
    })
    expect(first.code).not.toBe(0)
    github.setWorkflowRun({
      ...(github.workflowRun(runId) ?? { id: runId, head_sha: '' }),
      conclusion: 'failure'
    })
    expect((await council(1, 'failure')).outputs.reasons).toBe('gate_failed')
    const calls = providers.calls.length

    const from = github.runStarts.length
    await act(
      pr,
      'issue_comment',
      issueCommentEvent({
        number,
        body: '/council rerun',
        user: MAINTAINER,
        commentId: github.addComment(number, '/council rerun', MAINTAINER).id
      }),
      {},
      TOKEN,
      { 'review-workflow': GATES_WORKFLOW }
    )
    expect(startedSince(from)).toEqual([{ ...rerunOf(runId, pr), workflow: GATES_WORKFLOW }])

    // Attempt 2 of the gates run, as GitHub runs it: the same pull_request event; then its jobs.
    // Its artifact is named for the attempt: the name attempt 1 used is taken for the whole run.
    const second = await gatesJob(github, {
      workspace: repo.dir,
      eventPath,
      runId,
      env: { GITHUB_RUN_ATTEMPT: '2' }
    })
    expect(second.code).toBe(0)
    github.setRunJobs(runId, [{ name: 'gates' }, { name: 'council', status: 'in_progress' }], 2)
    // The council reads attempt 2's record and its gates job: the gate passed this time.
    const again = await council(2, 'success')
    expect(again.outputs.verdict).toBe('PASS')
    expect(providers.calls.length).toBe(calls + 1)
    expect(readState(ours(pr)).history.map(h => h.note)).toEqual([
      undefined,
      '/council rerun by @octo-maintainer'
    ])
    // Five runs of the bundled actions, one after the other.
  }, 60_000)
})
