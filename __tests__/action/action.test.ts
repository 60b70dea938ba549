import { describe, expect, it, vi } from 'vitest'
import { readState } from '../../src/publish/memory.js'
import { rubricHash } from '../../src/rubric/hash.js'
import { baseBranch, pullRequestEvent, pullRequestJson } from '../helpers/action-run.js'
import {
  IN_PROCESS_KEY,
  pullRequest,
  runInProcess as run,
  type PullRequest
} from '../helpers/in-process.js'
import { MemoryGitHub, REFUSED } from '../helpers/memory-github.js'
import { wireAnswer } from '../helpers/judge-answers.js'
import { startProviderStandIn } from '../helpers/provider-standin.js'
import { fastTicker } from '../helpers/fast-ticker.js'

/**
 * The action's flow in process (__tests__/helpers/in-process.ts): GitHub in memory, gates and git
 * for real. The bundle end to end is in __tests__/action.test.ts.
 */

const KEY = IN_PROCESS_KEY

const gates = (...commands: string[]): string =>
  `## Gates\n${commands.map(c => `- \`${c}\``).join('\n')}\n`
const NEEDS_JUDGES = '---\ndimensions: false\n---\n## Criteria\n- a: Needs judges\n'

const lastCheck = (pr: PullRequest) =>
  pr.github.checkRuns.filter(c => c.head_sha === pr.repo.headSha).at(-1)
const commentBody = (pr: PullRequest): string => pr.github.commentsOn(pr.number)[0]?.body ?? ''

describe('the step result and the check run, for every fail-on', () => {
  // What a user sees: whether the step fails (and its exit code), and the check's conclusion.
  const cases = [
    { rubric: gates('true'), verdict: 'PASS', failOn: 'unclear', code: 0, check: 'success' },
    { rubric: gates('true'), verdict: 'PASS', failOn: 'never', code: 0, check: 'success' },
    { rubric: gates('false'), verdict: 'FAIL', failOn: 'fail', code: 1, check: 'failure' },
    { rubric: gates('false'), verdict: 'FAIL', failOn: 'unclear', code: 1, check: 'failure' },
    { rubric: gates('false'), verdict: 'FAIL', failOn: 'never', code: 0, check: 'failure' },
    { rubric: NEEDS_JUDGES, verdict: 'UNCLEAR', failOn: 'fail', code: 0, check: 'neutral' },
    {
      rubric: NEEDS_JUDGES,
      verdict: 'UNCLEAR',
      failOn: 'unclear',
      code: 2,
      check: 'action_required'
    },
    { rubric: NEEDS_JUDGES, verdict: 'UNCLEAR', failOn: 'never', code: 0, check: 'neutral' },
    {
      rubric: '## Critera\n',
      verdict: 'UNCLEAR',
      failOn: 'fail',
      code: 2,
      check: 'action_required'
    },
    // fail-on: never lets every step pass; the check run still says it.
    {
      rubric: '## Critera\n',
      verdict: 'UNCLEAR',
      failOn: 'never',
      code: 0,
      check: 'action_required'
    }
  ] as const
  it.each(cases)(
    '$verdict with fail-on: $failOn → exit $code, check $check',
    async ({ rubric, verdict, failOn, code, check }) => {
      const pr = pullRequest({ '.github/rubric.md': rubric })
      const result = await run(pr, { inputs: { 'fail-on': failOn } })
      expect([result.outputs.verdict, result.code, lastCheck(pr)?.conclusion]).toEqual([
        verdict,
        code,
        check
      ])
      expect(lastCheck(pr)?.details_url).toBe(
        'https://github.com/octo-org/octo-repo/actions/runs/4242'
      )
    }
  )
})

describe('the sticky comment', () => {
  it('and the job summary tell the author what to do next', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates('true', 'false') })
    const result = await run(pr)
    const next =
      '**Next:** Run <code>false</code> locally to see why it failed, fix it and push; the check runs again on every push.'
    expect(commentBody(pr)).toContain(`**gates 1/2**\n\n${next}\n`)
    expect(result.summaryText).toContain(`**gates 1/2**\n\n${next}\n`)
  })

  it('is created once, then updated in place on the next push with both iterations', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates('test -f feature.ts') })
    const first = await run(pr)
    expect(first.outputs['comment-url']).toMatch(/^https:\/\/github\.com\/.+#issuecomment-/)
    pr.repo.commit({ 'feature.ts': null }, 'remove it')
    pr.github.setPullRequest(pr.number, pullRequestJson(pr.repo, pr.number))
    const second = await run(pr)
    expect([first.outputs.verdict, second.outputs.verdict]).toEqual(['PASS', 'FAIL'])
    const id = pr.github.commentsOn(pr.number)[0]?.id ?? 0
    expect(pr.github.writes.filter(w => w.includes('comment'))).toEqual([
      `POST comment #${pr.number}`,
      `PATCH comment ${id}`
    ])
    expect(pr.github.checkRuns.map(c => c.conclusion)).toEqual(['success', 'failure'])
    expect(readState(commentBody(pr)).history.map(h => h.verdict)).toEqual(['PASS', 'FAIL'])
  })

  it('does not review a commit a push replaced before the run started: the newer one’s review decides', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates('true') })
    const olderEvent = pullRequestEvent(pr.repo, { number: pr.number })
    const older = pr.repo.headSha
    pr.repo.commit({ 'other.ts': 'export const other = 2\n' }, 'push')
    pr.github.setPullRequest(pr.number, pullRequestJson(pr.repo, pr.number))
    const newer = pr.repo.headSha
    pr.repo.git('checkout', '-q', older)
    const late = await run(pr, { event: olderEvent })
    expect(late.log).toContain(
      `notice: Rubric Council: pull request #${pr.number} is now at ${newer.slice(0, 7)}, not at ${older.slice(0, 7)}: the review of the newer commit decides`
    )
    expect(late.outputs.verdict).toBeUndefined()
    expect(pr.github.checkRuns).toEqual([])
    expect(pr.github.commentsOn(pr.number)).toEqual([])
  })

  it('keeps the newer commit’s report when a run for an older commit finishes after it, adding that run to the history', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates('true') })
    const olderEvent = pullRequestEvent(pr.repo, { number: pr.number })
    const olderJson = pullRequestJson(pr.repo, pr.number)
    const older = pr.repo.headSha
    pr.repo.commit({ 'other.ts': 'export const other = 2\n' }, 'push')
    const newerJson = pullRequestJson(pr.repo, pr.number)
    pr.github.setPullRequest(pr.number, newerJson)
    const newer = pr.repo.headSha
    await run(pr)
    const newest = commentBody(pr)
    pr.repo.git('checkout', '-q', older)
    // The older run starts while its commit is the head; the push lands while it works.
    pr.github.setPullRequest(pr.number, olderJson)
    pr.github.setPullRequestAfter(pr.number, 1, newerJson)
    const late = await run(pr, { event: olderEvent })
    expect(late.log).toContain(
      `notice: Rubric Council: this run reviewed ${older.slice(0, 7)}, but the pull request is now at ${newer.slice(0, 7)}: its verdict is added to the history, the report is left as it is`
    )
    const report = (body: string) => body.slice(0, body.indexOf('<!-- rubric-council-state:'))
    expect(report(commentBody(pr))).toBe(report(newest))
    expect(readState(commentBody(pr)).history.map(h => h.commit)).toEqual([older, newer])
    expect(pr.github.commentsOn(pr.number)).toHaveLength(1)
    // Its own commit still gets its check run: it is that commit's result.
    expect(pr.github.checkRuns.map(c => c.head_sha)).toContain(older)
  })

  it('when the comments cannot be read, warns and still reports', async () => {
    const pr = pullRequest(
      { '.github/rubric.md': gates('true') },
      {},
      new MemoryGitHub({ write: true, commentsFail: 502 })
    )
    const result = await run(pr)
    expect(result.log).toContain("warning: Could not read the pull request's comments: HTTP 502")
    expect(result.outputs.verdict).toBe('PASS')
    expect(commentBody(pr)).toContain('Rubric Council')
  })
})

describe('without write permission', () => {
  it('keeps the verdict, the summary and the outputs, and says why there is no comment or check run', async () => {
    const pr = pullRequest(
      { '.github/rubric.md': gates('false') },
      {},
      new MemoryGitHub({ write: false })
    )
    const result = await run(pr)
    expect([result.code, result.outputs.verdict, result.outputs['comment-url']]).toEqual([
      1,
      'FAIL',
      ''
    ])
    expect(result.summaryText).toContain('### ❌ Rubric Council: FAIL')
    // Each refused write (the pending check run, the comment, the check run) is warned about
    // with GitHub's answer; the words for a 403 are the port's (__tests__/faults.test.ts).
    expect(result.log.filter(l => l === `warning: Rubric Council: ${REFUSED}`)).toHaveLength(3)
    expect(pr.github.writes).toEqual([])
  })

  it('without a token at all, grades by the working tree’s rubric and says so', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates('true') })
    const result = await run(pr, { token: '' })
    expect(result.outputs.verdict).toBe('PASS')
    expect(result.log).toContain(
      'warning: Rubric Council: no github-token, so no comment and no check run; the report is in the job summary'
    )
    expect(result.summaryText).toContain(
      'the rubric in the working tree (.github/rubric.md) is used'
    )
  })
})

describe('dry-run', () => {
  it('evaluates fully, writes nothing to GitHub, and prints what it would post', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates('false') })
    const result = await run(pr, { inputs: { 'dry-run': 'true' } })
    expect([result.code, result.outputs.verdict]).toEqual([1, 'FAIL'])
    expect(pr.github.writes).toEqual([])
    const group = result.log.find(l =>
      l.startsWith(`[Rubric Council (dry run): the comment it would post on #${pr.number}] `)
    )
    expect(group).toContain('<!-- rubric-council:rubric-council -->')
    expect(result.log).toContain(
      `Rubric Council (dry run): it would create the check run "rubric-council" on ${pr.repo.headSha.slice(0, 7)} concluding failure, with 0 annotations`
    )
  })
})

describe('secrets', () => {
  it('are registered with the runner before anything is said, and appear nowhere', async () => {
    // The gates try to print the key: from their environment, and from the action's process.
    const pr = pullRequest({
      '.github/rubric.md': gates('echo "$OPENAI_API_KEY"', 'env', 'cat /proc/$PPID/environ')
    })
    const result = await run(pr)
    expect(result.secrets).toContain(KEY)
    const everything = [
      ...result.log,
      result.summaryText,
      commentBody(pr),
      ...Object.values(result.outputs)
    ]
    // Which texts, never the texts: a gate printed the action's whole environment into them.
    expect(
      everything.flatMap((text, i) => (text.includes(KEY) ? [i] : [])),
      'texts with the key'
    ).toEqual([])
    expect(result.outputs.verdict).toBe('PASS')
  })
})

describe('the job log', () => {
  it('holds each gate’s output in its group, through the runner’s port: nothing reaches the terminal the tests run in', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates('echo gate-says-hello') })
    const terminal = vi.spyOn(process.stdout, 'write')
    let result
    try {
      result = await run(pr)
    } finally {
      terminal.mockRestore()
    }
    expect(result.log).toContainEqual(
      expect.stringMatching(/^\[echo gate-says-hello\] gate-says-hello\n→ pass in [\d.]+ s\n$/)
    )
    const written = terminal.mock.calls.map(([chunk]) => String(chunk))
    expect(written.filter(text => text.includes('::'))).toEqual([])
  })
})

describe('the rubric as a trust boundary', () => {
  const BASE_RUBRIC = gates('test -f feature.ts', 'test ! -f forbidden.txt')

  it('grades by the base’s rubric when the PR edits it, and shows what changed', async () => {
    const pr = pullRequest(
      { '.github/rubric.md': BASE_RUBRIC },
      { '.github/rubric.md': gates('test -f feature.ts', 'true'), 'forbidden.txt': 'x' }
    )
    const result = await run(pr)
    expect(result.outputs).toMatchObject({
      verdict: 'FAIL',
      'rubric-hash': rubricHash(BASE_RUBRIC)
    })
    const body = commentBody(pr)
    expect(body).toContain(
      'This pull request **weakens the rubric** that grades it; the verdict uses the rubric from the base branch.'
    )
    expect(body).toContain('gate \\`test ! -f forbidden.txt\\` removed')
    expect(body).toContain('read from the base · changed by this PR, weakened')
  })

  it('reads the base branch’s rubric as it is now, not at the event’s base commit', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates('true') })
    // The base branch got stricter after the pull request was opened.
    const stricter = gates('true', 'test -f missing.txt')
    pr.github.setFile('tip-of-main', '.github/rubric.md', stricter)
    pr.github.setBranch(baseBranch(pr.repo), 'tip-of-main')
    const result = await run(pr)
    expect(result.outputs).toMatchObject({ verdict: 'FAIL', 'rubric-hash': rubricHash(stricter) })
  })

  it('with rubric-source: head, grades by the PR’s rubric and still flags the weakening', async () => {
    const head = gates('test -f feature.ts', 'true')
    const pr = pullRequest(
      { '.github/rubric.md': BASE_RUBRIC },
      { '.github/rubric.md': head, 'forbidden.txt': 'x' }
    )
    const result = await run(pr, { inputs: { 'rubric-source': 'head' } })
    expect(result.outputs).toMatchObject({ verdict: 'PASS', 'rubric-hash': rubricHash(head) })
    expect(commentBody(pr)).toContain('> [!CAUTION]')
  })

  it('shows a strengthened rubric without a warning', async () => {
    const pr = pullRequest(
      { '.github/rubric.md': gates('true') },
      { '.github/rubric.md': gates('true', 'test -f feature.ts') }
    )
    await run(pr, { inputs: { 'rubric-source': 'head' } })
    expect(commentBody(pr)).toContain('- gate \\`test -f feature.ts\\` added')
    expect(commentBody(pr)).not.toContain('weakens the rubric')
  })

  it('uses the PR’s own rubric, with a note, when the base has none yet', async () => {
    const pr = pullRequest({ 'README.md': '# repo\n' }, { '.github/rubric.md': gates('true') })
    const result = await run(pr)
    expect(result.outputs.verdict).toBe('PASS')
    expect(commentBody(pr)).toContain('The base branch has no rubric at .github/rubric.md yet')
  })

  it('under pull_request_target, never uses the PR’s rubric', async () => {
    const pr = pullRequest({ 'README.md': '# repo\n' }, { '.github/rubric.md': gates('true') })
    const result = await run(pr, { eventName: 'pull_request_target' })
    expect([result.code, result.outputs.verdict, result.outputs.reasons]).toEqual([
      2,
      'UNCLEAR',
      'invalid_rubric'
    ])
    expect(result.summaryText).toContain('pull_request_target uses only the base branch’s rubric')
  })
})

describe('the job log while a judge is slow to answer', () => {
  it('says whom the council still waits for, and stops once every judge answered', async () => {
    // gpt-5.5 answers 400 ms after gpt-5.4-nano; the interval of 15 s is played by one of 20 ms.
    const providers = await startProviderStandIn(call =>
      call.model === 'gpt-5.5'
        ? { delayMs: 400, then: { json: wireAnswer(call.schema) } }
        : { json: wireAnswer(call.schema) }
    )
    const ticker = fastTicker()
    try {
      const pr = pullRequest({ '.github/rubric.md': NEEDS_JUDGES })
      const result = await run(pr, {
        inputs: { models: 'openai:gpt-5.4-nano, openai:gpt-5.5' },
        providers: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: providers.openaiBaseUrl },
        ticker
      })
      expect(result.outputs.verdict).toBe('PASS')
      const slowAnswered = result.log.findIndex(l => l.startsWith('✓ openai:gpt-5.5 #1'))
      const waiting = result.log.slice(0, slowAnswered).filter(l => l.startsWith('Judges:'))
      expect(waiting.at(-1)).toMatch(
        /^Judges: 1 of 2 done; still waiting on openai:gpt-5\.5 \(\d+ s\)$/
      )
      expect(result.log.slice(slowAnswered).filter(l => l.startsWith('Judges:'))).toEqual([])
      expect(ticker.running()).toBe(0)
    } finally {
      await providers.close()
    }
  })
})

describe('the job log while a gate runs', () => {
  it('says which gate is still running and for how long, and stops once it ended', async () => {
    // The interval of 15 s is played by one of 20 ms.
    const ticker = fastTicker()
    const pr = pullRequest({ '.github/rubric.md': gates('sleep 0.3') })
    const result = await run(pr, { ticker })
    expect(result.outputs.verdict).toBe('PASS')
    expect(result.log).toContainEqual(
      expect.stringMatching(/^Gates: still running: sleep 0\.3 \(\d+ s\)$/)
    )
    expect(ticker.running()).toBe(0)
  })
})

describe('a member whose model retires', () => {
  const MEMBERS = 'openai:gpt-5.4-mini, anthropic:claude-sonnet-4-5'

  async function on(date: string) {
    // The stand-ins keep the same calendar as the action.
    const providers = await startProviderStandIn(call => ({ json: wireAnswer(call.schema) }), {
      today: () => date
    })
    try {
      const pr = pullRequest({ '.github/rubric.md': NEEDS_JUDGES })
      const result = await run(pr, {
        inputs: { models: MEMBERS },
        providers: {
          OPENAI_API_KEY: KEY,
          OPENAI_BASE_URL: providers.openaiBaseUrl,
          ANTHROPIC_API_KEY: 'sk-ant-test-retiring-0123456789',
          ANTHROPIC_BASE_URL: providers.anthropicBaseUrl
        },
        now: () => Date.parse(`${date}T12:00:00Z`)
      })
      return { result, models: providers.calls.map(c => c.model) }
    } finally {
      await providers.close()
    }
  }

  it('within 30 days: a warning annotation with the date and the replacement; still asked', async () => {
    const { result, models } = await on('2026-11-27')
    expect(result.outputs.verdict).toBe('PASS')
    expect(models.sort()).toEqual(['claude-sonnet-4-5', 'gpt-5.4-mini'])
    expect(result.log).toContain(
      'warning: Rubric Council: "anthropic:claude-sonnet-4-5" retires on 2026-11-30, in 3 days; use "anthropic:claude-sonnet-4-6" before then'
    )
  })

  it('after its date: not asked, and the report says the date and the model to use', async () => {
    const { result, models } = await on('2026-12-01')
    expect(models).toEqual(['gpt-5.4-mini'])
    expect(result.outputs.verdict).toBe('UNCLEAR')
    expect(result.summaryText).toContain(
      '"anthropic:claude-sonnet-4-5" retired on 2026-11-30; use "anthropic:claude-sonnet-4-6"'
    )
  })
})

describe('judge-after-failed-gate', () => {
  const RUBRIC = `${gates('false')}\n## Criteria\n- a: Needs judges\n`

  async function review(inputs: Record<string, string>) {
    const providers = await startProviderStandIn(call => ({ json: wireAnswer(call.schema) }))
    try {
      const pr = pullRequest({ '.github/rubric.md': `---\ndimensions: false\n---\n${RUBRIC}` })
      const result = await run(pr, {
        inputs: { models: 'openai:gpt-5.4-mini', ...inputs },
        providers: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: providers.openaiBaseUrl }
      })
      return { result, pr, calls: providers.calls.length }
    } finally {
      await providers.close()
    }
  }

  it('by default, the judges are still asked after a failed gate, for their feedback', async () => {
    const { result, pr, calls } = await review({})
    expect(result.outputs.verdict).toBe('FAIL')
    expect(calls).toBe(1)
    expect(commentBody(pr)).not.toContain('The judges were not asked')
  })

  it('false: no provider is called, the verdict is FAIL, and the comment says why no judge was asked', async () => {
    const { result, pr, calls } = await review({ 'judge-after-failed-gate': 'false' })
    expect(result.outputs.verdict).toBe('FAIL')
    expect(calls).toBe(0)
    expect(commentBody(pr)).toContain(
      'The judges were not asked: a gate failed, which decides FAIL whatever they would say, and `judge-after-failed-gate` is `false`'
    )
  })
})
