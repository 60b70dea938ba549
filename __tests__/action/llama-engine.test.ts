import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  openPullRequest,
  OWNER,
  pullRequestEvent,
  REPO,
  runAction,
  type ActionRun
} from '../helpers/action-run.js'
import { startGitHubStandIn, type GitHubStandIn } from '../helpers/github-standin.js'
import { startLlamaEngine, type EngineCall, type LlamaEngine } from '../helpers/llama-engine.js'
import { lines } from '../helpers/rubric.js'

/**
 * The bundled action against the real engine (llama.cpp on the tiny models
 * ../helpers/llama-engine.ts writes), GitHub played by its stand-in: what issue 41 asks of a
 * self-hosted judge holds in a pull request's job as it does for `check`
 * (__tests__/council/llama-engine.test.ts).
 */

const TOKEN = 'ghs_llama_engine_write_0001'
const rubric = (council: string): string =>
  lines(
    '---',
    `council: { ${council}, timeout: 15 }`,
    'dimensions: false',
    '---',
    '## Criteria',
    '- tested: The ranking is covered by tests',
    '- errors: Errors are handled',
    ''
  )
const RANK =
  'export function rank(xs: number[]): number[] {\n  return [...xs].sort((a, b) => b - a)\n}\n'

let github: GitHubStandIn
let engine: LlamaEngine
let next = 1
beforeAll(async () => {
  github = await startGitHubStandIn({ owner: OWNER, repo: REPO })
  github.addToken(TOKEN, { login: 'github-actions[bot]', type: 'Bot', write: true })
  engine = await startLlamaEngine(mkdtempSync(join(tmpdir(), 'rc-llama-action-')))
}, 60_000)
afterAll(async () => {
  await Promise.all([github.close(), engine.close()])
})

interface Reviewed {
  readonly result: ActionRun
  readonly calls: readonly EngineCall[]
  readonly comment: string
  readonly ms: number
}

/** One pull request adding the ranking, reviewed by the bundled action with `council`. */
async function review(council: string, env: Record<string, string>): Promise<Reviewed> {
  const number = next++
  const repo = openPullRequest(
    github,
    number,
    { '.github/rubric.md': rubric(council), 'README.md': '# Search\n' },
    { 'src/rank.ts': RANK }
  )
  const before = engine.calls.length
  const started = Date.now()
  const result = await runAction({
    workspace: repo.dir,
    eventName: 'pull_request',
    eventPath: pullRequestEvent(repo, { number }),
    apiUrl: github.url,
    inputs: { 'github-token': TOKEN },
    env
  })
  const ms = Date.now() - started
  const calls = engine.calls.slice(before)
  const comment = github.comments.get(number)?.[0]?.body ?? ''
  console.log(
    `the action with ${council}: exit ${result.code} in ${ms} ms, verdict ${result.outputs.verdict}\n` +
      calls
        .map(c =>
          c.api === 'ollama-show'
            ? `  ${c.api} ${c.model ?? ''}: ${c.status}`
            : `  ${c.api} ${c.model ?? ''}: prompt ${c.promptTokens}, window ${c.window}, cap ${c.cap}, temperature ${c.temperature} → ${c.status} ${c.finishReason ?? ''}`
        )
        .join('\n')
  )
  return { result, calls, comment, ms }
}

/** Every request a judge was sent: capped, at temperature 0, the prompt and the cap within the window. */
function expectCappedWithin(calls: readonly EngineCall[]): void {
  const asked = calls.filter(c => c.api !== 'ollama-show')
  expect(asked.length).toBeGreaterThan(0)
  for (const call of asked) {
    expect(call.cap).toBeDefined()
    expect(call.temperature).toBe(0)
    expect(call.promptTokens + (call.cap ?? Infinity)).toBeLessThanOrEqual(call.window)
  }
}

describe('the action against the real engine', () => {
  it('an Ollama judge: its window read from /api/show, every request capped and within it, the answer in the schema counted, and the comment says what was sent', async () => {
    const { result, calls, comment, ms } = await review(
      `models: ["ollama:${engine.ollamaModel}"]`,
      {
        OLLAMA_BASE_URL: engine.ollamaBaseUrl
      }
    )
    expect(calls.filter(c => c.api === 'ollama-show')).toHaveLength(1)
    expectCappedWithin(calls)
    // The model PASSes every criterion it is asked about, in an answer the schema holds.
    expect(calls.filter(c => c.api === 'ollama-chat').map(c => c.finishReason)).toEqual(['stop'])
    expect(result.outputs.verdict).toBe('PASS')
    expect(result.code).toBe(0)
    expect(comment).toContain(
      `answers capped at 2,048 tokens, temperature 0, window 8,192 tokens (ollama:${engine.ollamaModel})`
    )
    expect(ms).toBeLessThan(90_000)
  }, 110_000)

  it('a server that drops the schema: the repair and re-asks capped and within the window too, and UNCLEAR with the reason', async () => {
    const { result, calls, comment } = await review(
      'models: [{ model: openai-compatible:tiny-llama, window: 8192 }]',
      { OPENAI_COMPATIBLE_BASE_URL: engine.unconstrainedBaseUrl }
    )
    expectCappedWithin(calls)
    expect(calls).toHaveLength(4)
    expect(result.outputs.verdict).toBe('UNCLEAR')
    expect(result.code).toBe(2)
    expect(comment).toContain(
      'no valid answer after 4 attempts (1 repair, 2 re-asks); last problem: the answer is empty'
    )
  }, 110_000)
})
