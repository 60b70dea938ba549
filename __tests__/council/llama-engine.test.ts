import { execFile, execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Ajv } from 'ajv'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { judgeJsonSchema } from '../../src/council/judge-schema.js'
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
  it('answers within the schema the product sends: whole and satisfying it, or cut at its cap', async () => {
    const schema = judgeJsonSchema(parse(RUBRIC))
    const answered = await chat({
      messages: ASK,
      max_tokens: 2000,
      response_format: { type: 'json_schema', json_schema: { name: 'judge', strict: true, schema } }
    })
    expect(answered.status).toBe(200)
    const { finish_reason, message } = choice(answered)
    // Random weights under the grammar rarely close a string (the keyed schema bounds everything
    // else): an answer either ends whole, and then satisfies the schema, or stops at the cap.
    if (finish_reason === 'length') {
      expect(answered.json.usage.completion_tokens).toBe(2000)
      expect(message.content.startsWith('{')).toBe(true)
    } else {
      const answer: unknown = JSON.parse(message.content)
      const validate = new Ajv({ strict: false }).compile(schema)
      expect(validate(answer), JSON.stringify(validate.errors)).toBe(true)
    }
  }, 60_000)

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
    const ask = { messages: ASK, max_tokens: 24 }
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

/**
 * A repository whose feature branch adds a ranking function, with `member` (YAML: a name, or a
 * mapping with its window) as its one judge.
 */
function repository(member: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'rc-llama-e2e-'))
  git(dir, 'init', '-q', '-b', 'main')
  mkdirSync(join(dir, '.github'))
  const rubric = RUBRIC.replace(
    'dimensions: false',
    `council:\n  models: [${member}]\n  timeout: ${REQUEST_SECONDS}\ndimensions: false`
  )
  writeFileSync(join(dir, '.github/rubric.md'), rubric)
  writeFileSync(join(dir, 'README.md'), '# Search\n')
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', 'base')
  git(dir, 'checkout', '-q', '-b', 'feature')
  mkdirSync(join(dir, 'src'))
  const rank =
    'export function rank(xs: number[]): number[] {\n  return [...xs].sort((a, b) => b - a)\n}\n'
  writeFileSync(join(dir, 'src/rank.ts'), rank)
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', 'Add ranking')
  return dir
}

/** What the engine recorded of one run, for the test log. */
function described(calls: readonly EngineCall[]): string {
  return calls
    .map(c => {
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

interface CheckRun {
  readonly code: number
  readonly ms: number
  readonly calls: readonly EngineCall[]
  readonly report: {
    readonly verdict: string
    readonly reasons: readonly { readonly code: string; readonly message: string }[]
    readonly judges: readonly {
      readonly status: string
      readonly failure: string | null
      readonly error: string | null
    }[]
  }
}

/** The Done-when of issue 41: a check against the engine ends within two minutes; we ask less. */
const RUN_BOUND_MS = 90_000

async function check(member: string, env: Record<string, string>): Promise<CheckRun> {
  const cwd = repository(member)
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
  console.log(
    `check with ${member}: exit ${code} in ${ms} ms; ${stdout.split('\n')[0]}\n` +
      `the engine recorded ${calls.length} request(s):\n${described(calls)}`
  )
  const report = JSON.parse(readFileSync(join(cwd, 'report.json'), 'utf8')) as CheckRun['report']
  return { code, ms, calls, report }
}

/**
 * What issue 41 asks of every request the product sends a real engine: a cap, temperature 0, and
 * room in the window for the prompt and the whole capped answer (by the model's own count); and of
 * the run: a PASS only from an answer the model finished (random weights under the schema's grammar
 * may finish one, and a valid shape is a verdict, however it was reached), never from a cut or
 * refused one; an answer cut at its cap named as such; an end within the bound.
 */
function expectSound(run: CheckRun): void {
  expect(run.calls.length).toBeGreaterThan(0)
  for (const call of run.calls) {
    expect(call.cap, described([call])).toBeDefined()
    expect(call.temperature, described([call])).toBe(0)
    expect(call.promptTokens + (call.cap ?? Infinity), described([call])).toBeLessThanOrEqual(
      call.window
    )
  }
  const whole = run.calls.filter(c => c.status === 200 && c.finishReason === 'stop')
  if (run.report.verdict === 'PASS')
    expect(whole.length, 'a PASS from no whole answer').toBeGreaterThan(0)
  else expect([1, 2]).toContain(run.code)
  const cut = run.calls.filter(c => c.finishReason === 'length')
  const named = run.report.judges.filter(j => j.failure === 'answer_cut')
  expect(named.length > 0).toBe(cut.length > 0)
  for (const judge of named) expect(judge.error).toMatch(/^the answer was cut at [\d,]+ tokens/)
  expect(run.ms).toBeLessThan(RUN_BOUND_MS)
}

describe('rubric-council check against the real engine', () => {
  it('an openai-compatible member with its window: every request capped and within the window, a cut answer named, a PASS only from a whole answer', async () => {
    const run = await check('{ model: openai-compatible:tiny-llama, window: 8192 }', {
      OPENAI_COMPATIBLE_BASE_URL: engine.openaiBaseUrl
    })
    expectSound(run)
  }, 110_000)

  it('an ollama member: every request capped and within the num_ctx it asks, a cut answer named, a PASS only from a whole answer', async () => {
    const run = await check(`"ollama:${engine.ollamaModel}"`, {
      OLLAMA_BASE_URL: engine.ollamaBaseUrl
    })
    expectSound(run)
  }, 110_000)

  it('a window declared smaller than the prompt: no request, and a reason naming the member, the window, the prompt’s size and max-evidence-tokens', async () => {
    const run = await check('{ model: openai-compatible:tiny-llama, window: 2048 }', {
      OPENAI_COMPATIBLE_BASE_URL: engine.openaiBaseUrl
    })
    expect(run.calls).toHaveLength(0)
    expect(run.code).toBe(2)
    expect(run.report.reasons[0]?.code).toBe('context_overflow')
    expect(run.report.reasons[0]?.message).toMatch(
      /the prompt \(about [\d,]+ tokens by our count\) and the [\d,]+ kept for the answer do not fit openai-compatible:tiny-llama's context window of 2,048 tokens; re-running will not help: lower max-evidence-tokens/
    )
  }, 110_000)
})
