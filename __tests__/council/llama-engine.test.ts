import { execFile, execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Ajv } from 'ajv'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { judgeJsonSchema } from '../../src/council/judge-schema.js'
import { REPAIR_ROOM_TOKENS } from '../../src/council/providers/common.js'
import { startLlamaEngine, type EngineCall, type LlamaEngine } from '../helpers/llama-engine.js'
import { lines, parse } from '../helpers/rubric.js'

/**
 * The real-engine stand-in (llama.cpp on a tiny model written by the test) behaves as llama.cpp's
 * server and Ollama do for what the product sends, and the bundled CLI meets it.
 */

const ROOT = join(import.meta.dirname, '../..')

const RUBRIC = lines(
  '---',
  'dimensions: false',
  '---',
  '# Ranking',
  '',
  '## Criteria',
  '- tested: The ranking is covered by tests',
  '- errors: Errors are handled',
  '',
  '## Nice to Have',
  '- docs: The README mentions ranking'
)

/**
 * An answer that cannot end: at least a thousand strings of a thousand characters (llama.cpp's
 * grammar takes repetitions up to 2,000), so only a cap or a full window stops it.
 */
const ENDLESS = {
  type: 'object',
  properties: {
    notes: { type: 'array', minItems: 1000, items: { type: 'string', minLength: 1000 } }
  },
  required: ['notes'],
  additionalProperties: false
}

/** Seconds each judge request may take in the CLI runs (`council.timeout`): the run's bound. */
const REQUEST_SECONDS = 15

let engine: LlamaEngine
beforeAll(async () => {
  engine = await startLlamaEngine(mkdtempSync(join(tmpdir(), 'rc-llama-')))
}, 60_000)
afterAll(async () => {
  await engine.close()
})

interface ChatAnswer {
  readonly choices: readonly {
    readonly message: { readonly content: string }
    readonly finish_reason: string
  }[]
  readonly usage: { readonly prompt_tokens: number; readonly completion_tokens: number }
  readonly error: {
    readonly message: string
    readonly type: string
    readonly n_prompt_tokens: number
    readonly n_ctx: number
  }
}

interface OllamaAnswer {
  readonly done_reason: string
  readonly prompt_eval_count: number
  readonly eval_count: number
  readonly model_info: Readonly<Record<string, unknown>>
  readonly error: string
}

interface Answered<T> {
  readonly status: number
  readonly json: T
}

async function post<T>(url: string, body: object): Promise<Answered<T>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body)
  })
  return { status: res.status, json: (await res.json()) as T }
}

function chat(body: object): Promise<Answered<ChatAnswer>> {
  return post(`${engine.openaiBaseUrl}/chat/completions`, { model: 'tiny-llama', ...body })
}

function ollama(body: object): Promise<Answered<OllamaAnswer>> {
  return post(`${engine.ollamaBaseUrl}/api/chat`, {
    model: engine.ollamaModel,
    stream: false,
    ...body
  })
}

/** The first choice of an answer, which a 200 always has. */
function choice(answer: Answered<ChatAnswer>): ChatAnswer['choices'][number] {
  const first = answer.json.choices[0]
  if (first === undefined) throw new Error(`no choice in ${JSON.stringify(answer.json)}`)
  return first
}

function lastCall(): EngineCall | undefined {
  return engine.calls.at(-1)
}

const ASK = [
  { role: 'system', content: 'You are a judge.' },
  { role: 'user', content: 'Grade the change.' }
]

describe('the llama.cpp engine, as llama.cpp server', () => {
  it('answers within the schema the product sends: short, whole, and satisfying it', async () => {
    const schema = judgeJsonSchema(parse(RUBRIC))
    const answered = await chat({
      messages: ASK,
      max_tokens: 2000,
      response_format: { type: 'json_schema', json_schema: { name: 'judge', strict: true, schema } }
    })
    expect(answered.status).toBe(200)
    const { finish_reason, message } = choice(answered)
    // The model ends what it may as soon as it may: the grammar decides the rest.
    expect(finish_reason).toBe('stop')
    expect(answered.json.usage.completion_tokens).toBeLessThan(400)
    const answer: unknown = JSON.parse(message.content)
    const validate = new Ajv({ strict: false }).compile(schema)
    expect(validate(answer), JSON.stringify(validate.errors)).toBe(true)
  }, 60_000)

  it('as a server that drops the schema: 200, and text the schema does not hold (here none)', async () => {
    const schema = judgeJsonSchema(parse(RUBRIC))
    const answered = await post<ChatAnswer>(`${engine.unconstrainedBaseUrl}/chat/completions`, {
      model: 'tiny-llama',
      messages: ASK,
      max_tokens: 2000,
      response_format: { type: 'json_schema', json_schema: { name: 'judge', strict: true, schema } }
    })
    expect(answered.status).toBe(200)
    expect(choice(answered)).toMatchObject({ finish_reason: 'stop', message: { content: '' } })
  }, 30_000)

  it('with no max_tokens, generates until the window is full: finish_reason "length"', async () => {
    // A prompt of about 7,800 tokens leaves little room, so the run to the window is short.
    const sample = 'word '.repeat(100)
    const { json: counted } = await post<{ tokens: number[] }>(
      `${engine.openaiBaseUrl.replace(/\/v1$/, '')}/tokenize`,
      { content: sample }
    )
    const words = Math.floor((7800 / counted.tokens.length) * 100)
    const answered = await chat({
      messages: [{ role: 'user', content: 'word '.repeat(words) }],
      response_format: { type: 'json_schema', json_schema: { schema: ENDLESS } }
    })
    expect(answered.status).toBe(200)
    expect(choice(answered).finish_reason).toBe('length')
    const { prompt_tokens, completion_tokens } = answered.json.usage
    expect(completion_tokens).toBeGreaterThan(200)
    // llama.cpp stops when the next token would not fit: the window less one.
    expect(prompt_tokens + completion_tokens).toBeGreaterThanOrEqual(engine.model.window - 1)
    expect(prompt_tokens + completion_tokens).toBeLessThanOrEqual(engine.model.window)
    expect(lastCall()).toMatchObject({ cap: undefined, finishReason: 'length' })
  }, 60_000)

  it('stops at max_tokens with finish_reason "length"', async () => {
    const answered = await chat({
      messages: ASK,
      max_tokens: 40,
      response_format: { type: 'json_schema', json_schema: { schema: ENDLESS } }
    })
    expect(choice(answered).finish_reason).toBe('length')
    expect(answered.json.usage.completion_tokens).toBe(40)
  }, 30_000)

  it('refuses a prompt over the window with the server’s 400 and error body', async () => {
    const { status, json } = await chat({
      messages: [{ role: 'user', content: 'word '.repeat(12_000) }]
    })
    expect(status).toBe(400)
    expect(json.error.type).toBe('exceed_context_size_error')
    expect(json.error.n_ctx).toBe(8192)
    expect(json.error.n_prompt_tokens).toBeGreaterThanOrEqual(8192)
    expect(json.error.message).toBe(
      `request (${String(json.error.n_prompt_tokens)} tokens) exceeds the available context size (8192 tokens), try increasing it`
    )
  }, 30_000)

  it('honours temperature: 0 gives the same answer twice, the default 0.8 does not', async () => {
    // An answer that cannot end within its 24 tokens: random text, but for the temperature.
    const format = { type: 'json_schema', json_schema: { schema: ENDLESS } }
    const ask = { messages: ASK, max_tokens: 24, response_format: format }
    const text = async (body: object): Promise<string> => choice(await chat(body)).message.content
    const greedy = [await text({ ...ask, temperature: 0 }), await text({ ...ask, temperature: 0 })]
    const sampled = [await text(ask), await text(ask)]
    expect(greedy[0]).toBe(greedy[1])
    expect(sampled[0]).not.toBe(sampled[1])
  }, 30_000)
})

describe('the llama.cpp engine, as Ollama', () => {
  it('/api/show reports the model’s window in model_info', async () => {
    const { status, json } = await post<OllamaAnswer>(`${engine.ollamaBaseUrl}/api/show`, {
      model: engine.ollamaModel
    })
    expect(status).toBe(200)
    expect(json.model_info['llama.context_length']).toBe(8192)
  })

  it('caps at num_predict with done_reason "length", in the num_ctx window asked', async () => {
    const { status, json } = await ollama({
      messages: ASK,
      format: ENDLESS,
      options: { num_predict: 30, num_ctx: 2048 }
    })
    expect(status).toBe(200)
    expect(json.done_reason).toBe('length')
    expect(json.eval_count).toBe(30)
    expect(lastCall()).toMatchObject({ window: 2048, cap: 30 })
  }, 30_000)

  it('cuts a prompt over its window without a word, as Ollama does', async () => {
    const { status, json } = await ollama({
      messages: [{ role: 'user', content: 'word '.repeat(6_000) }],
      options: { num_predict: 4 }
    })
    expect(status).toBe(200)
    expect(json.prompt_eval_count).toBe(4096)
    expect(lastCall()?.promptTokens).toBeGreaterThan(4096)
  }, 30_000)

  it('answers 404 for a model it has not pulled', async () => {
    const { status, json } = await ollama({ model: 'llama3.1:8b', messages: ASK })
    expect(status).toBe(404)
    expect(json.error).toBe('model "llama3.1:8b" not found, try pulling it first')
  })
})

function git(cwd: string, ...args: string[]): void {
  const who = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e' }
  const env = { ...process.env, ...who, GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' }
  execFileSync('git', args, { cwd, env, stdio: 'ignore' })
}

const RANK =
  'export function rank(xs: number[]): number[] {\n  return [...xs].sort((a, b) => b - a)\n}\n'

/**
 * A large change: about 20,000 tokens of TypeScript, more than the model's window holds. Each
 * function differs, so that no two hunks are alike.
 */
const LARGE = Array.from(
  { length: 400 },
  (_, i) =>
    `export function score${i}(xs: readonly number[]): number {\n  // Weighs item ${i} by its rank.\n  return xs.reduce((sum, x, j) => sum + x * ${i + 1} / (j + ${i + 2}), 0)\n}\n`
).join('\n')

/** What a repository holds besides its council: the change beside the ranking, the rubric. */
interface Holding {
  readonly change?: Readonly<Record<string, string>>
  readonly rubric?: string
}

/**
 * A repository whose feature branch adds a ranking function and `change`, judged by `rubric`
 * (RUBRIC unless said) with the council `council` (YAML under `council:`, one line per key).
 */
function repository(council: string, { change = {}, rubric: text = RUBRIC }: Holding): string {
  const dir = mkdtempSync(join(tmpdir(), 'rc-llama-e2e-'))
  git(dir, 'init', '-q', '-b', 'main')
  mkdirSync(join(dir, '.github'))
  const indented = council.replace(/^/gm, '  ')
  const rubric = text.replace(
    'dimensions: false',
    `council:\n${indented}\n  timeout: ${REQUEST_SECONDS}\ndimensions: false`
  )
  writeFileSync(join(dir, '.github/rubric.md'), rubric)
  writeFileSync(join(dir, 'README.md'), '# Search\n')
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', 'base')
  git(dir, 'checkout', '-q', '-b', 'feature')
  mkdirSync(join(dir, 'src'))
  for (const [path, text] of Object.entries({ 'src/rank.ts': RANK, ...change }))
    writeFileSync(join(dir, path), text)
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', 'Add ranking')
  return dir
}

/** What the engine recorded of one run, for the test log. */
function described(calls: readonly EngineCall[]): string {
  return calls
    .map(c => {
      if (c.api === 'ollama-show') return `  ollama-show ${c.model ?? ''}: ${c.status} (${c.ms} ms)`
      const cap = c.cap === undefined ? 'no cap' : `cap ${c.cap}`
      const temperature =
        c.temperature === undefined ? 'no temperature' : `temperature ${c.temperature}`
      const answered =
        c.status === 200 ? `${c.finishReason} after ${c.completionTokens} tokens` : c.answer
      // A repair says why the answer before it was refused.
      const refused = /Your answer cannot be used: ([^"]{0,300})/.exec(JSON.stringify(c.body))?.[1]
      const repair = refused === undefined ? '' : ` (a repair: ${refused})`
      return `  ${c.api}${repair}: prompt ${c.promptTokens} tokens, window ${c.window}, ${cap}, ${temperature} → ${c.status} ${answered} (${c.ms} ms)`
    })
    .join('\n')
}

/** A repair: the request that returns an invalid answer with its problem. */
function isRepair(call: EngineCall): boolean {
  return JSON.stringify(call.body).includes('Your answer cannot be used')
}

/** A request answered in full under the schema sent: its answer satisfies the schema. */
function answeredWhole(call: EngineCall): boolean {
  const generated = call.api === 'openai-chat' || call.api === 'ollama-chat'
  return generated && call.status === 200 && call.finishReason === 'stop'
}

interface CheckRun {
  readonly code: number
  readonly ms: number
  readonly calls: readonly EngineCall[]
  readonly report: {
    readonly verdict: string
    readonly reasons: readonly { readonly code: string; readonly message: string }[]
    readonly judges: readonly {
      readonly judge: string
      readonly status: string
      readonly failure: string | null
      readonly error: string | null
      readonly window: number | null
    }[]
    readonly criteria: readonly {
      readonly id: string
      readonly extra_votes: readonly unknown[]
    }[]
    readonly coverage: { readonly ratio: number; readonly budget_tokens: number } | null
  }
}

/** The Done-when of issue 41: a check against the engine ends within two minutes; we ask less. */
const RUN_BOUND_MS = 90_000

async function check(
  council: string,
  env: Record<string, string>,
  holding: Holding = {}
): Promise<CheckRun> {
  const cwd = repository(council, holding)
  const before = engine.calls.length
  const started = Date.now()
  const { code, stdout } = await promisify(execFile)(
    process.execPath,
    [join(ROOT, 'bin/rubric-council.js'), 'check', '--base', 'main', '--json', 'report.json'],
    { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env }, maxBuffer: 16 * 1024 * 1024 }
  ).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: unknown) => error as { code: number; stdout: string }
  )
  const ms = Date.now() - started
  const calls = engine.calls.slice(before)
  const report = JSON.parse(readFileSync(join(cwd, 'report.json'), 'utf8')) as CheckRun['report']
  console.log(
    `check with ${council.replace(/\n/g, '; ')}: exit ${code} in ${ms} ms; ${stdout.split('\n')[0]}\n` +
      `coverage ${JSON.stringify(report.coverage?.ratio)} of a budget of ${report.coverage?.budget_tokens} tokens\n` +
      `the engine recorded ${calls.length} request(s):\n${described(calls)}`
  )
  return { code, ms, calls, report }
}

/**
 * What issue 41 asks of every request the product sends a real engine (first calls, repairs,
 * extra votes): a cap, temperature 0, and room in the window for the prompt and the whole capped
 * answer (by the model's own count); and of the run: every answer that satisfies the schema
 * accepted (no repair follows it, its judge is counted), a PASS only from such answers, never from
 * a cut or refused one; an answer cut at its cap named as such; an end within the bound.
 */
function expectSound(run: CheckRun): void {
  const asked = run.calls.filter(c => c.api !== 'ollama-show')
  expect(asked.length).toBeGreaterThan(0)
  for (const call of asked) {
    expect(call.cap, described([call])).toBeDefined()
    expect(call.temperature, described([call])).toBe(0)
    expect(call.promptTokens + (call.cap ?? Infinity), described([call])).toBeLessThanOrEqual(
      call.window
    )
  }
  const whole = asked.filter(answeredWhole)
  const counted = run.report.judges.filter(j => j.status === 'ok')
  expect(counted.length, 'an answer in the schema refused').toBe(whole.length)
  if (run.report.verdict === 'PASS')
    expect(whole.length, 'a PASS from no answer').toBeGreaterThan(0)
  else expect([1, 2]).toContain(run.code)
  const cut = asked.filter(c => c.finishReason === 'length')
  const named = run.report.judges.filter(j => j.failure === 'answer_cut')
  expect(named.length).toBe(cut.length)
  for (const judge of named) expect(judge.error).toMatch(/^the answer was cut at [\d,]+ tokens/)
  expect(run.ms).toBeLessThan(RUN_BOUND_MS)
}

/** The environment of an `openai-compatible` member on llama.cpp server's API. */
const compatible = (): Record<string, string> => ({
  OPENAI_COMPATIBLE_BASE_URL: engine.openaiBaseUrl
})

describe('rubric-council check against the real engine', () => {
  it('two members that disagree and a reserve: first calls and the extra vote capped and within the window, each answer in the schema counted', async () => {
    const run = await check(
      [
        `models: [{ model: openai-compatible:tiny-llama, window: 8192 }, "ollama:${engine.strictModel}"]`,
        `reserve: ["ollama:${engine.ollamaModel}"]`
      ].join('\n'),
      { ...compatible(), OLLAMA_BASE_URL: engine.ollamaBaseUrl }
    )
    expectSound(run)
    // PASS against FAIL on each must-have: the reserve is asked for an extra vote on both.
    const chats = run.calls.filter(c => c.api !== 'ollama-show')
    expect(chats.map(c => [c.api, c.model])).toEqual([
      ['openai-chat', 'tiny-llama'],
      ['ollama-chat', engine.strictModel],
      ['ollama-chat', engine.ollamaModel]
    ])
    const voted = run.report.criteria.filter(c => c.extra_votes.length > 0).map(c => c.id)
    expect(voted).toEqual(['tested', 'errors'])
    expect(run.report.judges.map(j => j.window)).toEqual([8192, 8192, 8192])
  }, 110_000)

  it('an ollama member and a change larger than its window: the evidence sized to the window /api/show reports, no prompt cut', async () => {
    const run = await check(
      `models: ["ollama:${engine.ollamaModel}"]`,
      { OLLAMA_BASE_URL: engine.ollamaBaseUrl },
      { change: { 'src/score.ts': LARGE } }
    )
    expectSound(run)
    expect(run.calls.filter(c => c.api === 'ollama-show')).toHaveLength(1)
    expect(run.report.judges[0]?.window).toBe(engine.model.window)
    // Not all of it: the rest is named as not shown, and the verdict cannot be PASS.
    expect(run.report.coverage?.ratio).toBeLessThan(1)
    expect(run.report.verdict).not.toBe('PASS')
  }, 110_000)

  it('a server that drops the schema: a repair and two re-asks, each capped and within the window, then invalid_output', async () => {
    const run = await check('models: [{ model: openai-compatible:tiny-llama, window: 8192 }]', {
      OPENAI_COMPATIBLE_BASE_URL: engine.unconstrainedBaseUrl
    })
    expectSound(run)
    expect(run.calls.map(isRepair)).toEqual([false, true, false, false])
    const [first, repair] = run.calls
    expect(repair?.promptTokens).toBeLessThanOrEqual(
      (first?.promptTokens ?? 0) + REPAIR_ROOM_TOKENS
    )
    expect(run.report.judges[0]).toMatchObject({
      failure: 'invalid_output',
      error:
        'no valid answer after 4 attempts (1 repair, 2 re-asks); last problem: the answer is empty'
    })
    expect(run.code).toBe(2)
  }, 110_000)

  it('an answer longer than its cap (max_output_tokens): cut, named, not repaired', async () => {
    // Twelve criteria: an answer of about 500 tokens, over the least cap a member may set.
    const many = Array.from({ length: 10 }, (_, i) => `- extra${i}: Extra concern ${i}`)
    const run = await check(
      'models: [{ model: openai-compatible:tiny-llama, window: 8192, max_output_tokens: 256 }]',
      compatible(),
      { rubric: lines(RUBRIC, ...many) }
    )
    expectSound(run)
    expect(run.calls).toHaveLength(1)
    expect(run.calls[0]).toMatchObject({ cap: 256, finishReason: 'length', completionTokens: 256 })
    expect(run.report.judges[0]?.error).toMatch(
      /^the answer was cut at 256 tokens, the cap on its length/
    )
    expect(run.code).toBe(2)
  }, 110_000)

  it('a window declared smaller than the prompt: no request, and a reason naming the member, the window, the prompt’s size and max-evidence-tokens', async () => {
    const run = await check(
      'models: [{ model: openai-compatible:tiny-llama, window: 2048 }]',
      compatible()
    )
    expect(run.calls).toHaveLength(0)
    expect(run.code).toBe(2)
    expect(run.report.reasons[0]?.code).toBe('context_overflow')
    expect(run.report.reasons[0]?.message).toMatch(
      /the prompt \(about [\d,]+ tokens by our count\), the 512 kept for the answer and the 1,500 for a repair do not fit openai-compatible:tiny-llama's context window of 2,048 tokens; re-running will not help: lower max-evidence-tokens/
    )
  }, 110_000)
})
