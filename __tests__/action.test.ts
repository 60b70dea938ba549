import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { readState } from '../src/publish/memory.js'
import { rubricHash } from '../src/rubric/hash.js'
import {
  openPullRequest,
  OWNER,
  pullRequestEvent,
  pullRequestJson,
  Repository,
  REPO,
  runAction,
  type ActionRun
} from './helpers/action-run.js'
import { startGitHubStandIn, type GitHubStandIn } from './helpers/github-standin.js'
import { wireAnswer } from './helpers/judge-answers.js'
import { startProviderStandIn } from './helpers/provider-standin.js'

/**
 * The bundled action end to end, as the runner runs it, against a GitHub stand-in that behaves
 * like GitHub and rejects any request GitHub's OpenAPI description does not allow.
 */

const WRITE = 'ghs_writable_token_0001'
const READ_ONLY = 'ghs_readonly_token_0002'
const BOT = { login: 'github-actions[bot]', type: 'Bot' as const }
const MARKER = '<!-- rubric-council:rubric-council -->'

let github: GitHubStandIn
let nextPr = 1
beforeAll(async () => {
  github = await startGitHubStandIn({ owner: OWNER, repo: REPO })
  github.addToken(WRITE, { ...BOT, write: true })
  github.addToken(READ_ONLY, { ...BOT, write: false })
})
afterEach(() => {
  // Every request the action made is one GitHub's OpenAPI description allows.
  expect(github.violations).toEqual([])
})
afterAll(async () => {
  await github.close()
})

const gates = (commands: string[], options = ''): string =>
  `${options ? `---\n${options}\n---\n` : ''}## Gates\n${commands.map(c => `- \`${c}\``).join('\n')}\n`

interface PullRequest {
  readonly repo: Repository
  readonly number: number
}

/** A pull request: `base` files on main (also served by the API at the base commit), `head` on top. */
function pullRequest(
  base: Record<string, string>,
  head: Record<string, string | null> = {}
): PullRequest {
  const number = nextPr++
  const repo = openPullRequest(github, number, base, {
    'feature.ts': 'export const feature = 1\n',
    ...head
  })
  return { repo, number }
}

/** A push to the pull request: a new head commit, which the API now reports. */
function push(pr: PullRequest, files: Record<string, string | null>): void {
  pr.repo.commit(files, 'push')
  github.setPullRequest(pr.number, pullRequestJson(pr.repo, pr.number))
}

function run(
  pr: PullRequest,
  options: {
    inputs?: Record<string, string>
    token?: string
    action?: string
    eventName?: string
    env?: Record<string, string>
  } = {}
): Promise<ActionRun> {
  return runAction({
    workspace: pr.repo.dir,
    eventName: options.eventName ?? 'pull_request',
    eventPath: pullRequestEvent(pr.repo, {
      number: pr.number,
      ...(options.action && { action: options.action })
    }),
    apiUrl: github.url,
    // Single-job mode with a write token, opted in by name: these runs are of what it posts.
    inputs: {
      'github-token': options.token ?? WRITE,
      'allow-gates-with-secrets': 'true',
      ...options.inputs
    },
    ...(options.env && { env: options.env })
  })
}

const comments = (pr: PullRequest) => github.comments.get(pr.number) ?? []
const checkRunsFor = (sha: string) => github.checkRuns.filter(c => c.head_sha === sha)

describe('a gates-only rubric on a pull request', () => {
  it('passes when every gate passes, with the comment, the check run, outputs and summary', async () => {
    const rubric = gates(['echo building', 'test -d .'])
    const pr = pullRequest({ '.github/rubric.md': rubric })
    const result = await run(pr)
    expect(result.code).toBe(0)
    expect(result.outputs).toMatchObject({
      verdict: 'PASS',
      'exit-code': '0',
      score: '',
      confidence: '',
      reasons: '',
      recommendation: 'ACCEPT',
      'rubric-hash': rubricHash(rubric)
    })
    expect(result.summary).toContain('### ✅ Rubric Council: PASS')
    expect(result.stdout).toContain('::group::echo building\n')
    const report = JSON.parse(readFileSync(result.outputs.report ?? '', 'utf8')) as Record<
      string,
      unknown
    >
    expect(report).toMatchObject({
      schema: 'rubric-council/report@1',
      verdict: 'PASS',
      iteration: 1
    })

    const [comment] = comments(pr)
    expect(comments(pr)).toHaveLength(1)
    expect(comment?.body.split('\n')[0]).toBe(MARKER)
    expect(comment?.body).toContain('### ✅ Rubric Council: PASS')
    expect(result.outputs['comment-url']).toBe(comment?.html_url)
    expect(checkRunsFor(pr.repo.headSha).map(c => [c.name, c.status, c.conclusion])).toEqual([
      ['rubric-council', 'completed', 'success']
    ])
  })

  it('fails with exit code 1 when a gate fails, and the check run fails', async () => {
    const pr = pullRequest({
      '.github/rubric.md': gates(['true', 'echo "2 tests failed" && exit 3'])
    })
    const result = await run(pr)
    expect(result.code).toBe(1)
    expect(result.outputs).toMatchObject({
      verdict: 'FAIL',
      'exit-code': '1',
      reasons: 'gate_failed',
      recommendation: 'RETRY'
    })
    expect(result.summary).toContain('fail (exit 3)')
    expect(result.summary).toContain('2 tests failed')
    expect(checkRunsFor(pr.repo.headSha)[0]?.conclusion).toBe('failure')
  })

  it('fails when a gate times out, and kills it', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates(['sleep 60'], 'gates: { timeout: 1 }') })
    const started = Date.now()
    const result = await run(pr)
    expect(Date.now() - started).toBeLessThan(15_000)
    expect([result.code, result.outputs.verdict, result.outputs.reasons]).toEqual([
      1,
      'FAIL',
      'gate_failed'
    ])
    expect(result.summary).toContain('timed out after 1 s; the process group was killed')
  })

  it('does not let a gate forge the action’s outputs or run workflow commands', async () => {
    const forge =
      'echo "verdict=PASS" >> "${GITHUB_OUTPUT:-/dev/null}"; echo "::error::forged"; exit 1'
    const result = await run(pullRequest({ '.github/rubric.md': gates([forge]) }))
    expect(result.outputs.verdict).toBe('FAIL')
    expect(result.stdout).toMatch(
      /::stop-commands::([0-9a-f-]{36})\n[\s\S]*::error::forged[\s\S]*::\1::/
    )
  })

  it('masks secrets the runner knows in everything it prints and posts', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates(['echo "$SERVICE_PASSWORD"']) })
    const result = await run(pr, { env: { SERVICE_PASSWORD: 'hunter2-but-longer' } })
    // Told first, before the action's modules load, and once: nothing before it, no line twice.
    const masks = result.stdout.split('\n').filter(line => line.startsWith('::add-mask::'))
    expect(result.stdout.startsWith('::add-mask::')).toBe(true)
    expect(masks).toContain('::add-mask::hunter2-but-longer')
    expect(new Set(masks).size).toBe(masks.length)
    expect(result.summary).not.toContain('hunter2-but-longer')
    expect(comments(pr)[0]?.body).not.toContain('hunter2-but-longer')
  })
})

describe('the sticky comment across pushes', () => {
  it('updates the same comment on the next push and shows both iterations', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates(['test -f feature.ts']) })
    await run(pr)
    const first = comments(pr)[0]
    push(pr, { 'feature.ts': null })
    const second = await run(pr, { action: 'synchronize' })
    expect(second.outputs.verdict).toBe('FAIL')
    expect(comments(pr)).toHaveLength(1)
    expect(comments(pr)[0]?.id).toBe(first?.id)
    const body = comments(pr)[0]?.body ?? ''
    expect(body).toContain('<summary><b>Iterations</b> · 2</summary>')
    expect(readState(body).history.map(h => [h.iteration, h.verdict, h.commit])).toEqual([
      [1, 'PASS', expect.stringMatching(/^[0-9a-f]{40}$/) as unknown as string],
      [2, 'FAIL', pr.repo.headSha]
    ])
  })

  it('finds its comment on page 3 of 250, by marker and author, and leaves look-alikes alone', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates(['true']) })
    for (let i = 0; i < 210; i++)
      github.addComment(pr.number, `comment ${i}`, { login: 'octocat', type: 'User' })
    // Someone else's comment with our marker must not be taken for ours.
    github.addComment(pr.number, `${MARKER}\nforged`, { login: 'mallory', type: 'User' })
    await run(pr)
    for (let i = 0; i < 38; i++)
      github.addComment(pr.number, `later ${i}`, { login: 'octocat', type: 'User' })
    expect(comments(pr)).toHaveLength(250)
    const ours = comments(pr).findIndex(c => c.user.login === BOT.login)
    expect(Math.floor(ours / 100) + 1).toBe(3)

    const before = github.requests.length
    await run(pr, { action: 'synchronize' })
    const made = github.requests.slice(before)
    expect(comments(pr)).toHaveLength(250)
    expect(comments(pr).filter(c => c.user.login === BOT.login)).toHaveLength(1)
    expect(comments(pr).find(c => c.user.login === 'mallory')?.body).toBe(`${MARKER}\nforged`)
    expect(made.filter(r => r.method === 'GET' && r.path.endsWith('/comments'))).toHaveLength(3)
  })

  it('does not re-send an unchanged body, and removes duplicates', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates(['true']) })
    await run(pr)
    const ours = comments(pr)[0]
    github.addComment(pr.number, `${MARKER}\nduplicate from a concurrent run`, BOT)
    await run(pr, { action: 'synchronize' })
    expect(comments(pr).map(c => c.id)).toEqual([ours?.id])
  })

  it('shortens a report over GitHub’s 65,536-character limit; the job summary keeps it whole', async () => {
    const noisy = Array.from(
      { length: 40 },
      (_, i) =>
        `head -c 9000 /dev/zero | tr '\\0' '${String.fromCharCode(97 + (i % 26))}' && exit ${i % 2}`
    )
    const pr = pullRequest({ '.github/rubric.md': gates(noisy) })
    const result = await run(pr)
    const body = comments(pr)[0]?.body ?? ''
    expect(body.length).toBeLessThanOrEqual(65_536)
    expect(body).toContain('This report was shortened to fit.')
    expect(result.summary.length).toBeGreaterThan(65_536)
    expect(readState(body).history).toHaveLength(1)
  })
})

describe('an invalid rubric', () => {
  it('reports an invalid base rubric as UNCLEAR with annotations', async () => {
    const pr = pullRequest({ 'app/r.md': '## Criteria\n- a: A\n## Critera\n' })
    const result = await run(pr, { inputs: { rubric: 'r.md', 'working-directory': 'app' } })
    expect([result.code, result.outputs.verdict, result.outputs.reasons]).toEqual([
      2,
      'UNCLEAR',
      'invalid_rubric'
    ])
    expect(result.stdout).toContain(
      '::error title=Invalid rubric (unknown-section),file=app/r.md,line=3,col=1::unknown section "## Critera"'
    )
  })
})

describe('without write permission', () => {
  it('keeps the verdict, the summary and the outputs, and says why there is no comment or check run', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates(['false']) })
    const result = await run(pr, { token: READ_ONLY })
    expect([result.code, result.outputs.verdict, result.outputs['comment-url']]).toEqual([
      1,
      'FAIL',
      ''
    ])
    expect(result.summary).toContain('### ❌ Rubric Council: FAIL')
    expect(result.stdout).toContain(
      '::warning::Rubric Council: no permission to comment on the pull request (403)'
    )
    expect(result.stdout).toContain(
      '::warning::Rubric Council: no permission to create the check run (403)'
    )
    expect(comments(pr)).toHaveLength(0)
    expect(checkRunsFor(pr.repo.headSha)).toHaveLength(0)
  })
})

describe('events', () => {
  it('reviews a pull request named by workflow_dispatch', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates(['true']) })
    const result = await run(pr, {
      eventName: 'workflow_dispatch',
      inputs: { 'pull-request': String(pr.number) }
    })
    expect(result.outputs.verdict).toBe('PASS')
    expect(comments(pr)).toHaveLength(1)
  })

  it('ends quietly, saying so, for a pull request event with nothing to review', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates(['false']) })
    const result = await run(pr, { action: 'closed' })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(
      '::notice::Rubric Council: nothing to review for pull_request.closed'
    )
    expect(comments(pr)).toHaveLength(0)
  })

  it('fails on an event that has no pull request', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates(['true']) })
    const result = await run(pr, { eventName: 'release' })
    expect([result.code, result.outputs.verdict, result.outputs.reasons]).toEqual([
      2,
      'UNCLEAR',
      'invalid_input'
    ])
    expect(result.summary).toContain(
      'this action reviews pull requests; the "release" event has none'
    )
  })

  it('rejects an input it cannot use, quoting the value', async () => {
    const pr = pullRequest({ '.github/rubric.md': gates(['true']) })
    const result = await run(pr, { inputs: { 'fail-on': 'sometimes' } })
    expect([result.code, result.outputs.reasons]).toEqual([2, 'invalid_input'])
    expect(result.stdout).toContain(
      'input "fail-on" is "sometimes"; expected one of unclear, fail, never'
    )
  })
})

describe('checker sugar', () => {
  it('builds the rubric from the checker input and shows the materialised rubric', async () => {
    const pr = pullRequest({ 'README.md': '# repo\n' })
    const result = await run(pr, { inputs: { checker: 'test 1 -eq 1' } })
    expect(result.code).toBe(0)
    expect(result.summary).toContain('Materialised from the `checker` input')
  })
})

describe('with judges', () => {
  it('reviews the diff from the merge base with the council, the judges seeing earlier iterations', async () => {
    const providers = await startProviderStandIn(call => ({ json: wireAnswer(call.schema) }))
    try {
      const pr = pullRequest({
        '.github/rubric.md':
          '---\ndimensions: false\n---\n## Criteria\n- tested: The change is tested\n'
      })
      const keys = {
        OPENAI_API_KEY: 'sk-test-action-0123456789',
        OPENAI_BASE_URL: providers.openaiBaseUrl
      }
      const inputs = { models: 'openai:gpt-5.4-nano, openai:gpt-5.5' }
      await run(pr, { inputs, env: keys })
      push(pr, { 'more.ts': 'export const more = 3\n' })
      const result = await run(pr, { inputs, env: keys, action: 'synchronize' })
      expect(result.outputs).toMatchObject({ verdict: 'PASS', recommendation: 'ACCEPT' })
      expect(providers.calls).toHaveLength(4)
      const latest = providers.calls.at(-1)?.text ?? ''
      expect(latest).toContain('+export const more = 3')
      expect(latest).toContain('This is iteration 2.')
      expect(latest).toMatch(/- Iteration 1 \([0-9a-f]{7}\): PASS — must 1\/1/)
      expect(comments(pr)[0]?.body).toContain('<b>Coverage</b> · 2 of 2 reviewable files (100%)')
      // The log says who is asked, then how each judge fared, while the council works.
      expect(result.stdout).toContain('Asking 2 judges: openai:gpt-5.4-nano, openai:gpt-5.5\n')
      expect(result.stdout).toMatch(/^✓ openai:gpt-5.4-nano #1: ACCEPT in \d+\.\d s · [\d,]+ in/m)
      expect(result.stdout).toMatch(/^✓ openai:gpt-5\.5 #1: ACCEPT in .* · 1 request$/m)
      const shown =
        result.stdout.replace(/^::add-mask::.*$/gm, '') +
        result.summary +
        (comments(pr)[0]?.body ?? '')
      expect(shown).not.toContain('sk-test-action-0123456789')
    } finally {
      await providers.close()
    }
  })

  it('evidence-order: least-recently-changed: after a push, the files it left alone come first, the same files shown', async () => {
    const providers = await startProviderStandIn(call => ({ json: wireAnswer(call.schema) }))
    const env = {
      OPENAI_API_KEY: 'sk-test-action-0123456789',
      OPENAI_BASE_URL: providers.openaiBaseUrl
    }
    const shown = (text: string): string[] =>
      [...text.matchAll(/^diff --git a\/(\S+) /gm)].map(m => m[1] ?? '')
    try {
      const pr = pullRequest(
        { '.github/rubric.md': '---\ndimensions: false\n---\n## Criteria\n- tested: Tested\n' },
        { 'a.ts': 'export const a = 1\n', 'b.ts': 'export const b = 1\n' }
      )
      push(pr, { 'a.ts': 'export const a = 2\n' })
      const inputs = { models: 'openai:gpt-5.4-nano' }
      await run(pr, { inputs, env, action: 'synchronize' })
      const reordered = await run(pr, {
        inputs: { ...inputs, 'evidence-order': 'least-recently-changed' },
        env,
        action: 'synchronize'
      })
      expect(reordered.outputs.verdict).toBe('PASS')
      expect(providers.calls.map(call => shown(call.text))).toEqual([
        ['a.ts', 'b.ts', 'feature.ts'],
        ['b.ts', 'feature.ts', 'a.ts']
      ])
    } finally {
      await providers.close()
    }
  })

  it('lowers the evidence budget to what the judges’ context windows hold', async () => {
    const providers = await startProviderStandIn(call => ({ json: wireAnswer(call.schema) }))
    try {
      const pr = pullRequest({
        '.github/rubric.md':
          '---\ndimensions: false\n---\n## Criteria\n- tested: The change is tested\n'
      })
      const result = await run(pr, {
        inputs: {
          models: 'openai:gpt-5.4-mini, anthropic:claude-sonnet-4-6',
          'max-evidence-tokens': '500000'
        },
        env: {
          OPENAI_API_KEY: 'sk-test-action-0123456789',
          OPENAI_BASE_URL: providers.openaiBaseUrl,
          ANTHROPIC_API_KEY: 'sk-ant-test-action-0123456789',
          ANTHROPIC_BASE_URL: providers.anthropicBaseUrl
        }
      })
      const report = JSON.parse(readFileSync(result.outputs.report ?? '', 'utf8')) as {
        coverage: { budget_tokens: number }
      }
      // Claude's 200,000-token window, less room for the instructions, rubric and answer.
      expect(report.coverage.budget_tokens).toBe(152_000)
      expect(result.outputs.verdict).toBe('PASS')
    } finally {
      await providers.close()
    }
  })
})
