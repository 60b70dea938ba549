/**
 * A real inference engine for the tests: llama.cpp (through node-llama-cpp's prebuilt CPU binary)
 * running a tiny model the test writes (`./gguf.ts`), behind a local HTTP server that speaks
 * llama.cpp server's OpenAI-compatible API and Ollama's native API for what our requests exercise.
 *
 * Real: tokenization, the chat template, inference, and the JSON-schema grammar (node-llama-cpp
 * turns the schema into a GBNF grammar that llama.cpp's sampler enforces token by token). Ours:
 * the HTTP layer below, which applies each server's rules as their sources state them:
 *
 * llama.cpp server (tools/server/README.md, tools/server/server-context.cpp):
 * - One window for every request, the server's `--ctx-size` (here the model's 8,192).
 * - A prompt of `n_ctx` tokens or more is refused before any generation: 400
 *   `{"error":{"code":400,"message":"request (N tokens) exceeds the available context size
 *   (M tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":N,"n_ctx":M}}`.
 * - `max_tokens` (or `max_completion_tokens`) caps the answer; none is `n_predict: -1`, "infinity": the answer
 *   runs until the window is full (context shift is off by default), `finish_reason: "length"`.
 *   An end-of-generation token gives `"stop"`.
 * - `response_format: {type: "json_schema", json_schema: {schema}}` (or `{type, schema}`) and
 *   `{type: "json_object"}` constrain the answer with a grammar.
 * - `temperature` defaults to 0.8 (`--temp`); `usage` counts prompt and completion tokens.
 * - `GET /v1/models` lists the one model it serves, whatever name a request gives.
 * - `POST /tokenize` `{content}` answers `{tokens}`, the content's tokens with no template.
 *
 * Ollama (docs/api.md, docs/modelfile.md, llm/server.go, runner):
 * - `POST /api/chat` with `stream: false` answers one object: `message`, `done_reason`
 *   ("stop" | "length"), `prompt_eval_count`, `eval_count`. `format` is `"json"` or a schema.
 * - The window is `options.num_ctx`, 4,096 when unset (./providers/ollama.ts has the sources), and
 *   never more than the model's own (`requested context size too large for model`, llm/server.go).
 * - A longer prompt is cut, not refused: the first `num_keep` (4) tokens and the last ones, to the
 *   window (`truncating input prompt`, runner).
 * - `options.num_predict` caps the answer; unset or -1 is "infinite": llm/server.go turns it into
 *   ten windows, the runner shifting the context when it fills; -2 fills the window.
 * - `options.temperature` defaults to 0.8 (docs/modelfile.md). `think` on a model that cannot
 *   think is 400 (`"m" does not support thinking`).
 * - `POST /api/show` reports `model_info["llama.context_length"]`; `GET /api/tags` lists the model.
 * - A model not pulled is 404 `model "x" not found, try pulling it first`.
 *
 * A llama.cpp server that drops the schema: under `/unconstrained/v1`, the same API answers 200
 * with unconstrained text whatever `response_format` says, as llama-server does where its chat
 * template's handler loses the schema (ggml-org/llama.cpp#21537, #24097).
 *
 * The models (./gguf.ts) prefer to end: their answer as soon as they may, a string, an array, an
 * object as soon as the grammar lets them. Under a grammar their answers are short and whole, with
 * random choices wherever the schema leaves one (scores, findings' details); without one they say
 * nothing. `tiny-llama` (both APIs) prefers PASS and ACCEPT, `tiny-llama-strict` (Ollama only,
 * as a second model pulled) FAIL and RETRY: two judges that disagree.
 *
 * A client that closes its connection stops its generation, as both servers do (recorded with
 * status 499, ours). Not served: streaming (`stream: true` is refused with a 400 of ours; the product does not stream)
 * and every endpoint not named here (404).
 *
 * One request generates at a time (one sequence), as a server started with one slot (`-np 1`) or
 * `OLLAMA_NUM_PARALLEL=1` with `OLLAMA_MAX_LOADED_MODELS=1`; others wait their turn. Every request is recorded: its body, the prompt's
 * tokens, the window, the cap it sent, what was answered. A recorder only: no product logic.
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { join } from 'node:path'
import {
  getLlama,
  LlamaLogLevel,
  JinjaTemplateChatWrapper,
  LlamaCompletion,
  type ChatHistoryItem,
  type Llama,
  type LlamaContext,
  type LlamaGrammar,
  type LlamaModel,
  type Token
} from 'node-llama-cpp'
import { writeTinyModel, type TinyModel } from './gguf.js'
import { listenOnLoopback } from './listen.js'
import { DEFAULT_NUM_CTX, cannotThink, notPulled } from './providers/ollama.js'
import { isRecord, list, record, type Json } from './providers/schema.js'

export type EngineApi = 'openai-chat' | 'openai-chat-unconstrained' | 'ollama-chat' | 'ollama-show'

export interface EngineCall {
  readonly api: EngineApi
  /** The model that answered; undefined for a request refused before one was chosen. */
  readonly model?: string
  readonly body: Json
  /** The rendered prompt's tokens, as the model's tokenizer counts them (before any cut). */
  readonly promptTokens: number
  readonly window: number
  /** `max_tokens` / `options.num_predict` as sent; undefined when the request set none. */
  readonly cap: number | undefined
  /** The sampling temperature as sent; undefined when the request set none. */
  readonly temperature: number | undefined
  readonly status: number
  readonly finishReason?: 'stop' | 'length'
  readonly completionTokens?: number
  /** The answer's text, or the error body. */
  readonly answer: string
  readonly ms: number
}

export interface LlamaEngine {
  /** For `OPENAI_COMPATIBLE_BASE_URL`: llama.cpp server's OpenAI-compatible API. */
  readonly openaiBaseUrl: string
  /** The same API on a server that drops the schema it is sent. */
  readonly unconstrainedBaseUrl: string
  /** For `OLLAMA_BASE_URL`. */
  readonly ollamaBaseUrl: string
  /** The model name Ollama serves (`ollama:<name>` in a council), as llama.cpp server does. */
  readonly ollamaModel: string
  /** The second model Ollama serves, which FAILs what the first PASSes. */
  readonly strictModel: string
  readonly model: TinyModel
  readonly calls: readonly EngineCall[]
  close(): Promise<void>
}

/** What a handler learns of a call as it goes. */
type Draft = { -readonly [K in keyof EngineCall]?: EngineCall[K] | undefined }

/** llama.cpp server's and Ollama's default temperature. */
const DEFAULT_TEMPERATURE = 0.8
/** Ollama's `num_keep`: the prompt's first tokens kept through a cut or a shift. */
const NUM_KEEP = 4
const MODEL = 'tiny-llama'
const STRICT_MODEL = 'tiny-llama-strict'
/** The chat template's end of a turn: the model's end of generation. */
const END_OF_ANSWER = '<|im_end|>'

interface Generation {
  readonly schema: Json | 'json' | undefined
  readonly window: number
  readonly maxTokens: number
  readonly temperature: number
  /** Ollama shifts the context when it fills; llama.cpp server stops. */
  readonly shift: boolean
  /** The client went away: the servers stop generating for a closed connection. */
  readonly signal: AbortSignal
}

interface Generated {
  readonly text: string
  readonly tokens: number
  readonly finishReason: 'stop' | 'length'
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Json
  ) {
    super(JSON.stringify(body))
  }
}

/** The repository's docs: the text the tiny model's vocabulary is learned from. */
function repositoryText(): string {
  const root = join(import.meta.dirname, '../..')
  const docs = readdirSync(join(root, 'docs')).filter(f => f.endsWith('.md'))
  return ['README.md', ...docs.map(f => `docs/${f}`)]
    .map(f => readFileSync(join(root, f), 'utf8'))
    .join('\n')
}

/** One generation at a time, in arrival order, whichever model answers. */
class Queue {
  private last: Promise<unknown> = Promise.resolve()

  run<T>(job: () => Promise<T>): Promise<T> {
    const next = this.last.then(job, job)
    this.last = next.catch(() => undefined)
    return next
  }
}

class Engine {
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>()
  private context: { window: number; context: LlamaContext } | undefined
  private seed = 41

  constructor(
    readonly name: string,
    readonly llama: Llama,
    readonly model: LlamaModel,
    private readonly chat: JinjaTemplateChatWrapper
  ) {}

  /** The prompt's tokens, rendered with the model's own chat template. */
  promptOf(messages: readonly Json[]): Token[] {
    const history: ChatHistoryItem[] = messages.map(m => {
      const text = textOf(m.content)
      if (m.role === 'system') return { type: 'system', text }
      if (m.role === 'assistant') return { type: 'model', response: [text] }
      return { type: 'user', text }
    })
    history.push({ type: 'model', response: [] })
    const { contextText } = this.chat.generateContextState({ chatHistory: history })
    return contextText.tokenize(this.model.tokenizer)
  }

  private async grammar(schema: Json | 'json'): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema)
    let grammar = this.grammars.get(key)
    if (grammar === undefined) {
      grammar =
        schema === 'json'
          ? this.llama.getGrammarFor('json')
          : // The schema is the client's: the grammar builder takes what it can express.
            this.llama.createGrammarForJsonSchema(schema as never)
      this.grammars.set(key, grammar)
    }
    return grammar
  }

  private async contextOf(window: number): Promise<LlamaContext> {
    if (this.context?.window !== window) {
      await this.context?.context.dispose()
      // One thread: the tests share two cores, and llama.cpp's threads spin while they wait.
      const context = await this.model.createContext({
        contextSize: window,
        sequences: 1,
        threads: 1
      })
      this.context = { window, context }
    }
    return this.context.context
  }

  async generate(prompt: Token[], g: Generation): Promise<Generated> {
    const grammar = g.schema === undefined ? undefined : await this.grammar(g.schema)
    const context = await this.contextOf(g.window)
    const sequence = context.getSequence()
    try {
      const completion = new LlamaCompletion({ contextSequence: sequence })
      let tokens = 0
      const { response, metadata } = await completion.generateCompletionWithMeta(prompt, {
        ...(grammar !== undefined && { grammar }),
        maxTokens: g.maxTokens,
        temperature: g.temperature,
        seed: this.seed++,
        signal: g.signal,
        stopOnAbortSignal: true,
        onToken: chunk => {
          tokens += chunk.length
        },
        ...(g.shift
          ? { contextShiftSize: Math.floor((g.window - NUM_KEEP) / 2) }
          : { disableContextShift: true })
      })
      if (metadata.stopReason === 'abort')
        throw new HttpError(499, { error: 'client closed the connection' })
      const length = metadata.stopReason === 'maxTokens'
      return { text: response, tokens, finishReason: length ? 'length' : 'stop' }
    } finally {
      await sequence.dispose()
    }
  }
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  return list(content)
    .map(part => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .join('')
}

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined
}

/** llama.cpp server: `/v1/chat/completions`; the schema dropped under `/unconstrained`. */
async function openaiChat(
  engine: Engine,
  body: Json,
  call: Draft,
  signal: AbortSignal
): Promise<Json> {
  const constrained = call.api === 'openai-chat'
  const window = engine.model.trainContextSize
  const prompt = engine.promptOf(list(body.messages).filter(isRecord))
  const cap = numberOr(body.max_tokens) ?? numberOr(body.max_completion_tokens)
  Object.assign(call, { promptTokens: prompt.length, window, cap })
  if (body.stream === true) {
    throw new HttpError(400, {
      error: {
        code: 400,
        message: 'the engine answers stream: false only',
        type: 'invalid_request_error'
      }
    })
  }
  if (prompt.length >= window) {
    throw new HttpError(400, {
      error: {
        code: 400,
        message: `request (${prompt.length} tokens) exceeds the available context size (${window} tokens), try increasing it`,
        type: 'exceed_context_size_error',
        n_prompt_tokens: prompt.length,
        n_ctx: window
      }
    })
  }
  const format = record(body.response_format)
  const jsonSchema = record(format?.json_schema)?.schema ?? format?.schema
  const schema = !constrained
    ? undefined
    : format?.type === 'json_object'
      ? 'json'
      : isRecord(jsonSchema)
        ? jsonSchema
        : undefined
  const room = window - prompt.length
  const out = await engine.generate(prompt, {
    schema,
    window,
    maxTokens: cap !== undefined && cap >= 0 ? Math.min(cap, room) : room,
    temperature: numberOr(body.temperature) ?? DEFAULT_TEMPERATURE,
    shift: false,
    signal
  })
  Object.assign(call, {
    finishReason: out.finishReason,
    completionTokens: out.tokens,
    answer: out.text
  })
  return {
    id: `chatcmpl-${randomBytes(8).toString('hex')}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: typeof body.model === 'string' ? body.model : 'tiny-llama',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: out.text },
        finish_reason: out.finishReason
      }
    ],
    usage: {
      prompt_tokens: prompt.length,
      completion_tokens: out.tokens,
      total_tokens: prompt.length + out.tokens
    }
  }
}

/** What the engine serves: llama.cpp server's one model, Ollama's by name, one at a time. */
interface Served {
  readonly main: Engine
  readonly pulled: ReadonlyMap<string, Engine>
  readonly queue: Queue
}

/** The Ollama model a request names (`name` is `name:latest`), or its 404. */
function ollamaModelOf(served: Served, body: Json): Engine {
  const name = typeof body.model === 'string' ? body.model : ''
  const engine = served.pulled.get(name.replace(/:latest$/, ''))
  if (engine === undefined) throw new HttpError(404, { error: notPulled(name) })
  return engine
}

/** Ollama: `/api/chat`. */
async function ollamaChat(
  engine: Engine,
  body: Json,
  call: Draft,
  signal: AbortSignal
): Promise<Json> {
  const name = typeof body.model === 'string' ? body.model : engine.name
  const options = record(body.options) ?? {}
  const trained = engine.model.trainContextSize
  const asked = numberOr(options.num_ctx)
  const window = Math.min(asked !== undefined && asked > 0 ? asked : DEFAULT_NUM_CTX, trained)
  const whole = engine.promptOf(list(body.messages).filter(isRecord))
  const cap = numberOr(options.num_predict)
  Object.assign(call, { promptTokens: whole.length, window, cap })
  if (body.think === true) throw new HttpError(400, { error: cannotThink(name) })
  if (body.stream !== false) {
    throw new HttpError(400, { error: 'the engine answers stream: false only' })
  }
  const prompt =
    whole.length > window
      ? [...whole.slice(0, NUM_KEEP), ...whole.slice(whole.length - (window - NUM_KEEP))]
      : whole
  const maxTokens =
    cap === undefined || cap === -1 ? 10 * window : cap === -2 ? window - prompt.length : cap
  const schema = body.format === 'json' ? 'json' : isRecord(body.format) ? body.format : undefined
  const out = await engine.generate(prompt, {
    schema,
    window,
    maxTokens,
    temperature: numberOr(options.temperature) ?? DEFAULT_TEMPERATURE,
    shift: true,
    signal
  })
  Object.assign(call, {
    finishReason: out.finishReason,
    completionTokens: out.tokens,
    answer: out.text
  })
  return {
    model: name,
    created_at: new Date().toISOString(),
    message: { role: 'assistant', content: out.text },
    done: true,
    done_reason: out.finishReason,
    prompt_eval_count: prompt.length,
    eval_count: out.tokens
  }
}

/** Ollama: `/api/show`, the model's details with its window in `model_info`. */
function ollamaShow(engine: Engine): Json {
  return {
    modelfile: '',
    parameters: '',
    template: '',
    details: {
      format: 'gguf',
      family: 'llama',
      families: ['llama'],
      parameter_size: '1M',
      quantization_level: 'F32'
    },
    model_info: {
      'general.architecture': 'llama',
      'llama.context_length': engine.model.trainContextSize,
      'llama.embedding_length': engine.model.embeddingVectorSize
    },
    capabilities: ['completion']
  }
}

async function readBody(req: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  if (text === '') return {}
  try {
    const parsed: unknown = JSON.parse(text)
    if (isRecord(parsed)) return parsed
  } catch {
    // answered below
  }
  throw new HttpError(400, {
    error: { code: 400, message: 'invalid JSON body', type: 'invalid_request_error' }
  })
}

function send(res: ServerResponse, status: number, body: Json): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

const ROUTES: Readonly<Record<string, EngineApi>> = {
  '/v1/chat/completions': 'openai-chat',
  '/unconstrained/v1/chat/completions': 'openai-chat-unconstrained',
  '/api/chat': 'ollama-chat',
  '/api/show': 'ollama-show'
}

function answer(
  served: Served,
  api: EngineApi,
  body: Json,
  call: Draft,
  signal: AbortSignal
): Promise<Json> {
  if (api === 'ollama-show') {
    const engine = ollamaModelOf(served, { model: body.model ?? body.name ?? '' })
    call.model = engine.name
    return Promise.resolve(ollamaShow(engine))
  }
  const options = record(body.options)
  const openai = api !== 'ollama-chat'
  call.temperature = numberOr(openai ? body.temperature : options?.temperature)
  const engine = openai ? served.main : ollamaModelOf(served, body)
  call.model = engine.name
  return served.queue.run(() => (openai ? openaiChat : ollamaChat)(engine, body, call, signal))
}

async function handle(
  served: Served,
  calls: EngineCall[],
  req: IncomingMessage,
  res: ServerResponse
): Promise<void> {
  const path = (req.url ?? '').split('?')[0] ?? ''
  if (req.method === 'GET' && path === '/v1/models') {
    const data = [{ id: served.main.name, object: 'model', owned_by: 'llamacpp' }]
    send(res, 200, { object: 'list', data })
    return
  }
  if (req.method === 'POST' && path === '/tokenize') {
    const { content } = await readBody(req).catch((): Json => ({}))
    const text = typeof content === 'string' ? content : ''
    send(res, 200, { tokens: served.main.model.tokenize(text) })
    return
  }
  if (req.method === 'GET' && path === '/api/tags') {
    const details = { format: 'gguf', family: 'llama' }
    const models = [...served.pulled.keys()].map(name => `${name}:latest`)
    send(res, 200, { models: models.map(name => ({ name, model: name, details })) })
    return
  }
  const api = ROUTES[path]
  if (req.method !== 'POST' || api === undefined) {
    send(res, 404, { error: `no route ${req.method ?? ''} ${path}` })
    return
  }
  const started = Date.now()
  const call: Draft = { api, status: 200, body: {}, promptTokens: 0, window: 0, answer: '' }
  const gone = new AbortController()
  res.on('close', () => {
    if (!res.writableEnded) gone.abort()
  })
  try {
    call.body = await readBody(req)
    send(res, 200, await answer(served, api, call.body, call, gone.signal))
  } catch (err) {
    call.status = err instanceof HttpError ? err.status : 500
    const body: Json = err instanceof HttpError ? err.body : { error: String(err) }
    call.answer = JSON.stringify(body)
    send(res, call.status, body)
  } finally {
    calls.push({ ...call, ms: Date.now() - started } as EngineCall)
  }
}

/**
 * Writes a tiny model into `dir` that ends what it may at once and prefers `opinion` (a criterion's
 * verdict and a recommendation), and loads it in llama.cpp.
 */
async function loadTiny(
  llama: Llama,
  dir: string,
  name: string,
  opinion: readonly [string, string]
): Promise<{ readonly model: TinyModel; readonly engine: Engine }> {
  mkdirSync(dir, { recursive: true })
  const model = writeTinyModel(dir, {
    corpus: repositoryText(),
    prefers: [END_OF_ANSWER, '"', ']', '}', ...opinion]
  })
  const loaded = await llama.loadModel({ modelPath: model.path })
  const template = loaded.fileInfo.metadata.tokenizer.chat_template
  if (typeof template !== 'string') throw new Error(`${model.path} has no tokenizer.chat_template`)
  return {
    model,
    engine: new Engine(name, llama, loaded, new JinjaTemplateChatWrapper({ template }))
  }
}

/** Writes the tiny models into `dir`, loads them in llama.cpp and serves them on loopback. */
export async function startLlamaEngine(dir: string): Promise<LlamaEngine> {
  // The prebuilt CPU binary from npm (@node-llama-cpp/linux-x64): never a download or a build.
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error })
  const main = await loadTiny(llama, join(dir, MODEL), MODEL, ['PASS', 'ACCEPT'])
  const strict = await loadTiny(llama, join(dir, STRICT_MODEL), STRICT_MODEL, ['FAIL', 'RETRY'])
  const served: Served = {
    main: main.engine,
    pulled: new Map([main.engine, strict.engine].map(e => [e.name, e])),
    queue: new Queue()
  }
  const calls: EngineCall[] = []
  const server = createServer((req, res) => void handle(served, calls, req, res))
  const listening = await listenOnLoopback(server)
  return {
    openaiBaseUrl: `${listening.url}/v1`,
    unconstrainedBaseUrl: `${listening.url}/unconstrained/v1`,
    ollamaBaseUrl: listening.url,
    ollamaModel: MODEL,
    strictModel: STRICT_MODEL,
    model: main.model,
    calls,
    close: async () => {
      await listening.close()
      await llama.dispose()
    }
  }
}
