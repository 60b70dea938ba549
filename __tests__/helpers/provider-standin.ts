/**
 * A local HTTP server that plays the LLM providers on their real wire protocols, so the real AI SDK
 * provider code (request building, response parsing, error mapping) runs in tests with no network.
 *
 * It is as strict as the services it stands for: every request rule a client can break (schema
 * keywords, limits, required parameters, model names, sampling parameters, cache breakpoints) is
 * enforced by the rules in `./providers/`, each with its source, and answered with the real
 * status and error body. It also behaves as they do where a client cannot see an error: OpenRouter
 * without `require_parameters` may route to a provider that ignores the schema, Ollama cuts a
 * prompt longer than its context window without a word, and the prompt caches bill a repeated
 * prefix as cached input.
 *
 * Each test scripts the answers; every request is recorded (parsed) before it is answered.
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { listenOnLoopback } from './listen.js'
import { ANTHROPIC_MODELS, anthropicRequestProblem } from './providers/anthropic.js'
import { googleRequestProblem } from './providers/google.js'
import {
  cannotThink,
  contextWindow,
  notPulled,
  OLLAMA_MODELS,
  OLLAMA_THINKING,
  truncate
} from './providers/ollama.js'
import { OPENAI_MODELS, openaiRequestProblem } from './providers/openai.js'
import { openrouterRequest } from './providers/openrouter.js'
import {
  probeAnswer,
  probeKeyOf,
  probeRefusal,
  probeRouteOf,
  type ProbeService
} from './providers/probes.js'
import {
  GEMINI_DEFAULT_MIN_CACHE_TOKENS,
  GEMINI_MIN_CACHE_TOKENS,
  PromptCache,
  tokensOf,
  type BlockPrefix,
  type CacheLookup,
  type CacheUse
} from './providers/prompt-cache.js'
import { isRecord, list, record, type Json } from './providers/schema.js'

export type Protocol =
  'openai-responses' | 'openai-chat' | 'anthropic-messages' | 'google-generate' | 'ollama-chat'

/** Whose rules a request meets: the wire protocol alone does not say (OpenRouter speaks OpenAI's). */
export type Service = 'openai' | 'anthropic' | 'google' | 'openrouter' | 'ollama' | 'compatible'

export interface RecordedCall {
  readonly protocol: Protocol
  readonly service: Service
  /** From the body (`model`), or for Google from the path; '' when the request names none. */
  readonly model: string
  /** From `Authorization: Bearer`, `x-api-key`, `x-goog-api-key` or `?key=`, as the protocol reads it. */
  readonly apiKey: string | undefined
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON request body; the raw text when it is not JSON. */
  readonly body: unknown
  /**
   * All prompt text of the request (system + messages), joined with newlines, as the model sees
   * it: for Ollama, what is left after its context window cut the prompt.
   */
  readonly text: string
  /** The JSON schema the client asked the answer to follow, if any. */
  readonly schema: unknown
  /** `performance.now()` when the request arrived. */
  readonly receivedAt: number
  /** Bytes of response body written; an `endless` reply counts what went out before the client left. */
  readonly sent: { bytes: number }
}

export type Reply =
  /** A structured answer, in the form this protocol and request expect (JSON text or tool call). */
  | { readonly json: unknown }
  /** Plain prose, as the model's text. */
  | { readonly text: string }
  /** An HTTP error; without `body`, the provider's own error body for that status. */
  | {
      readonly status: number
      readonly headers?: Readonly<Record<string, string>>
      /** A string is sent as it is; anything else as JSON. */
      readonly body?: unknown
    }
  | { readonly delayMs: number; readonly then: Reply }
  /** Never answers: the request stays open until the client aborts or the stand-in closes. */
  | { readonly hang: true }
  /** Sent verbatim as `application/json` (e.g. a truncated body); status 200 unless given. */
  | { readonly raw: string; readonly status?: number }
  /** A 200 whose body never ends: chunks are written until the client goes away. */
  | { readonly endless: true }

/** A GET of the cheap endpoint the bot's healing probe asks (./providers/probes.ts). */
export interface RecordedProbe {
  readonly service: ProbeService
  /** The path and query, as sent. */
  readonly path: string
  readonly apiKey: string | undefined
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string>>
}

/** What a probe is answered: the service's 200, or an error of this status in its own shape. */
export type ProbeReply =
  'answer' | { readonly status: number; readonly headers?: Readonly<Record<string, string>> }

/** Probes are answered 200 unless the test says otherwise. */
export type ProbeScript = (probe: RecordedProbe) => ProbeReply

/** `index` is this call's position in `calls` (rejected requests count too). */
export type Script = (call: RecordedCall, index: number) => Reply | Promise<Reply>

export interface StandIn {
  /** http://127.0.0.1:PORT */
  readonly url: string
  /** For `OPENAI_BASE_URL` / `createOpenAI({ baseURL })`. */
  readonly openaiBaseUrl: string
  /** For `ANTHROPIC_BASE_URL` / `createAnthropic({ baseURL })`. */
  readonly anthropicBaseUrl: string
  /** For `createGoogleGenerativeAI({ baseURL })`. */
  readonly googleBaseUrl: string
  /** For `OPENROUTER_BASE_URL`: OpenRouter's Chat Completions. */
  readonly openrouterBaseUrl: string
  /** For `OLLAMA_BASE_URL`: the server's address; `/api/chat` and `/v1/chat/completions` below it. */
  readonly ollamaBaseUrl: string
  /** For `createOpenAICompatible({ baseURL })`: a self-hosted endpoint (vLLM, LiteLLM). */
  readonly compatibleBaseUrl: string
  readonly calls: readonly RecordedCall[]
  /** The probes, apart from `calls`: they ask no model. */
  readonly probes: readonly RecordedProbe[]
  setScript(script: Script): void
  setProbeScript(script: ProbeScript): void
  close(): Promise<void>
}

/** A script must be set before a call is answered: an unscripted call fails loudly, as a 500. */
const NO_SCRIPT: Script = () => {
  throw new Error('no script set: pass one to startProviderStandIn or call setScript')
}

export interface StandInOptions {
  /**
   * Today, `YYYY-MM-DD` (UTC), for the models' retirement dates: the real day by default, as the
   * services go by it; a test of a retirement fixes it.
   */
  readonly today?: () => string
}

export async function startProviderStandIn(
  script: Script = NO_SCRIPT,
  options: StandInOptions = {}
): Promise<StandIn> {
  let current = script
  const today = options.today ?? (() => new Date().toISOString().slice(0, 10))
  const calls: RecordedCall[] = []
  const probes: RecordedProbe[] = []
  let probeScript: ProbeScript = () => 'answer'
  const cache = new PromptCache()

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in')
    const headers = headersOf(req)
    const probe = req.method === 'GET' ? probeRouteOf(url.pathname, headers) : undefined
    if (probe !== undefined) {
      const apiKey = probeKeyOf(probe.service, headers, url)
      const recorded = {
        service: probe.service,
        path: `${url.pathname}${url.search}`,
        apiKey,
        headers
      }
      probes.push(recorded)
      // The service's own rules first: a request it refuses never reaches the script.
      const reply = probeRefusal(probe.service, apiKey, headers) ?? probeScript(recorded)
      if (reply === 'answer') sendJson(res, 200, {}, probeAnswer(probe.service))
      else if ('message' in reply) sendError(res, probe, reply.status, {}, reply.message)
      else sendError(res, probe, reply.status, reply.headers ?? {})
      return
    }
    handle(req, res, { calls, cache, script: () => current, today }).catch((error: unknown) => {
      // A bug in the stand-in itself: answer rather than leave the client waiting.
      if (!res.headersSent && !res.destroyed) {
        sendJson(res, 500, {}, { error: { message: messageOf(error), type: 'server_error' } })
      }
    })
  })
  // listenOnLoopback ends open sockets (a `hang` request, or keep-alive) on close.
  const { url, close } = await listenOnLoopback(server)
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: `${url}/v1`,
    googleBaseUrl: `${url}/v1beta`,
    openrouterBaseUrl: `${url}/openrouter/api/v1`,
    ollamaBaseUrl: `${url}/ollama`,
    compatibleBaseUrl: `${url}/compatible/v1`,
    calls,
    probes,
    setScript: next => {
      current = next
    },
    setProbeScript: next => {
      probeScript = next
    },
    close
  }
}

// ---------------------------------------------------------------------------------------------
// Request handling

/** What the model "said": a structured value or prose. */
type Answer =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'text'; readonly text: string }

interface Route {
  readonly protocol: Protocol
  readonly service: Service
  /** Google names the model in the path. */
  readonly pathModel?: string
}

interface State {
  readonly calls: RecordedCall[]
  readonly cache: PromptCache
  readonly script: () => Script
  readonly today: () => string
}

/** How the request is served once its rules are met. */
interface Serving {
  /** The provider answering ignores the schema: a JSON answer comes back as fenced prose. */
  readonly schemaIgnored: boolean
  /** Input tokens the model saw (after a context window cut them). */
  readonly promptTokens: number
}

async function handle(req: IncomingMessage, res: ServerResponse, state: State): Promise<void> {
  const receivedAt = performance.now()
  const url = new URL(req.url ?? '/', 'http://stand-in')
  const route = routeOf(req.method ?? 'GET', url.pathname)
  const rawBody = await readBody(req)
  if (route === undefined) {
    sendJson(
      res,
      404,
      {},
      {
        error: { message: `provider stand-in: no route for ${req.method ?? ''} ${url.pathname}` }
      }
    )
    return
  }
  const { protocol, service } = route
  let body: unknown
  let parsed = true
  try {
    body = JSON.parse(rawBody) as unknown
  } catch {
    body = rawBody
    parsed = false
  }
  const headers = headersOf(req)
  const model =
    route.pathModel ?? (isRecord(body) && typeof body.model === 'string' ? body.model : '')
  let text = promptTextOf(protocol, body)
  let promptTokens = tokensOf(text)
  if (service === 'ollama' && isRecord(body)) {
    // What the model sees of a prompt longer than the window (the server only logs the cut).
    const seen = truncate(text, promptTokens, contextWindow(body, protocol === 'ollama-chat'))
    text = seen.text
    promptTokens = seen.tokens
  }
  const call: RecordedCall = {
    protocol,
    service,
    model,
    apiKey: apiKeyOf(protocol, headers, url),
    headers,
    body,
    text,
    schema: schemaOf(protocol, body),
    receivedAt,
    sent: { bytes: 0 }
  }
  const index = state.calls.length
  state.calls.push(call)

  // The real services check the key before looking at the request (Ollama asks for none).
  if (call.apiKey === undefined && service !== 'ollama') {
    sendError(res, call, 401, {}, missingKeyMessage(protocol))
    return
  }
  if (!parsed || !isRecord(body)) {
    sendError(res, call, 400, {}, unparsableMessage(protocol))
    return
  }
  const rules = checkRules(call, body, headers, state.today())
  if ('status' in rules) {
    sendJson(res, rules.status, {}, rules.body)
    return
  }

  // What the provider's prompt cache holds for this request is decided on arrival.
  const cached = cacheLookup(call, state.cache)
  // The client going away (abort, timeout) ends any delay early, and nothing is written after it.
  const gone = new AbortController()
  res.on('close', () => {
    if (!res.writableEnded) gone.abort()
  })
  let reply: Reply
  try {
    reply = await state.script()(call, index)
  } catch (error) {
    sendError(res, call, 500, {}, `provider stand-in script failed: ${messageOf(error)}`)
    return
  }
  await answer(res, call, reply, gone.signal, { cached, serving: { ...rules, promptTokens } })
}

/** The service's rules for this request: a rejection in its own shape, or how it is served. */
function checkRules(
  call: RecordedCall,
  body: Json,
  headers: Readonly<Record<string, string>>,
  today: string
): { readonly status: number; readonly body: unknown } | Omit<Serving, 'promptTokens'> {
  const served = { schemaIgnored: false }
  switch (call.service) {
    case 'openai': {
      const problem = openaiRequestProblem(
        body,
        call.protocol === 'openai-responses' ? 'responses' : 'chat',
        today
      )
      return problem
        ? {
            status: problem.status,
            body: {
              error: {
                message: problem.message,
                type: problem.type,
                param: problem.param,
                code: problem.code
              }
            }
          }
        : served
    }
    case 'anthropic': {
      const problem = anthropicRequestProblem(body, headers, today)
      return problem
        ? {
            status: problem.status,
            body: {
              type: 'error',
              error: { type: problem.type, message: problem.message },
              request_id: `req_01${base62(22)}`
            }
          }
        : served
    }
    case 'google': {
      const problem = googleRequestProblem(call.model, body)
      return problem
        ? {
            status: problem.status,
            body: {
              error: { code: problem.status, message: problem.message, status: problem.code }
            }
          }
        : served
    }
    case 'openrouter': {
      const routing = openrouterRequest(body, today)
      return 'status' in routing ? routing : { schemaIgnored: routing.kind === 'schema ignored' }
    }
    case 'ollama': {
      if (!OLLAMA_MODELS.includes(call.model)) {
        const message = notPulled(call.model)
        return {
          status: 404,
          body:
            call.protocol === 'ollama-chat'
              ? { error: message }
              : { error: { message, type: 'not_found_error', param: null, code: null } }
        }
      }
      if (call.protocol === 'ollama-chat' && body.stream !== false)
        return { status: 400, body: { error: 'provider stand-in: streaming is not supported' } }
      if (
        call.protocol === 'ollama-chat' &&
        body.think !== undefined &&
        body.think !== false &&
        !OLLAMA_THINKING.includes(call.model)
      )
        return { status: 400, body: { error: cannotThink(call.model) } }
      return served
    }
    case 'compatible': {
      // A self-hosted server serves whatever model it was started with; it checks the basics.
      const problem = compatibleProblem(body)
      return problem ? { status: 400, body: errorBody(call, 400, problem) } : served
    }
  }
}

function compatibleProblem(body: Json): string | undefined {
  if (typeof body.model !== 'string') return 'you must provide a model parameter'
  if (body.stream === true) return 'provider stand-in: streaming is not supported'
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return "Missing required parameter: 'messages'."
  return undefined
}

async function answer(
  res: ServerResponse,
  call: RecordedCall,
  reply: Reply,
  gone: AbortSignal,
  context: { readonly cached: CacheLookup; readonly serving: Serving }
): Promise<void> {
  if (gone.aborted) return
  if ('delayMs' in reply) {
    await sleep(reply.delayMs, gone)
    await answer(res, call, reply.then, gone, context)
    return
  }
  if ('hang' in reply) return
  if ('endless' in reply) {
    await endless(res, call, gone)
    return
  }
  if ('raw' in reply) {
    send(res, reply.status ?? 200, { 'content-type': 'application/json' }, reply.raw, call)
    return
  }
  if ('status' in reply) {
    const headers = reply.headers ?? {}
    if (reply.body === undefined) sendError(res, call, reply.status, headers)
    else if (typeof reply.body === 'string') {
      send(res, reply.status, { 'content-type': 'application/json', ...headers }, reply.body, call)
    } else sendJson(res, reply.status, headers, reply.body, call)
    return
  }
  let said: Answer =
    'json' in reply ? { kind: 'json', value: reply.json } : { kind: 'text', text: reply.text }
  if (said.kind === 'json' && context.serving.schemaIgnored) {
    // A provider that ignores the schema answers in its own way: the JSON fenced in prose.
    said = {
      kind: 'text',
      text: `Here is my assessment.\n\n\`\`\`json\n${JSON.stringify(said.value, null, 2)}\n\`\`\`\n`
    }
  }
  sendJson(
    res,
    200,
    successHeaders(call.protocol),
    successBody(call, said, {
      promptTokens: context.serving.promptTokens,
      cached: context.cached.use
    }),
    call
  )
  // Readable by later requests only now that this one has its answer.
  context.cached.commit()
}

/** Writes 64 KiB chunks until the client closes the connection. */
async function endless(res: ServerResponse, call: RecordedCall, gone: AbortSignal): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json' })
  const chunk = Buffer.alloc(64 * 1024, 0x20)
  res.write('{"padding":"')
  while (!gone.aborted && !res.destroyed) {
    const more = res.write(chunk)
    call.sent.bytes += chunk.length
    if (!more) {
      await new Promise<void>(resolve => {
        const done = (): void => {
          res.off('drain', done)
          res.off('close', done)
          resolve()
        }
        res.once('drain', done)
        res.once('close', done)
      })
    }
  }
}

/**
 * What the provider's prompt cache serves of this request. The lifecycle bench replays recorded
 * requests through it under other prompt layouts (scripts/bench/layouts.ts).
 */
export function cacheLookup(call: RecordedCall, cache: PromptCache): CacheLookup {
  switch (call.service) {
    case 'openai':
      return OPENAI_MODELS[call.model]?.cacheWrites === true
        ? cache.breakpoints(`openai:${call.model}`, openaiBlocks(call.body), 1024, Infinity)
        : cache.automatic(`${call.service}:${call.model}`, call.text, 128)
    case 'openrouter': {
      // Claude through OpenRouter caches as Anthropic does, at the parts' `cache_control`
      // breakpoints (https://openrouter.ai/docs/features/prompt-caching); the others as their
      // vendors do, on their own.
      const minimum = ANTHROPIC_MODELS[anthropicId(call.model)]?.minCacheTokens
      return minimum === undefined
        ? cache.automatic(`${call.service}:${call.model}`, call.text, 128)
        : cache.breakpoints(`openrouter:${call.model}`, anthropicBlocks(call.body), minimum)
    }
    case 'google':
      return cache.automatic(
        `google:${call.model}`,
        call.text,
        1,
        GEMINI_MIN_CACHE_TOKENS[call.model] ?? GEMINI_DEFAULT_MIN_CACHE_TOKENS
      )
    case 'anthropic': {
      const minimum = ANTHROPIC_MODELS[call.model]?.minCacheTokens ?? 1024
      return cache.breakpoints(call.model, anthropicBlocks(call.body), minimum)
    }
    case 'ollama':
      return cache.automatic(`ollama:${call.model}`, call.text, 1, 1)
    case 'compatible':
      return { use: { read: 0, written: 0 }, commit: () => undefined }
  }
}

/**
 * An OpenAI request's text up to the end of each content part (`instructions`, then each input
 * item's or message's parts), and whether the part carries a `prompt_cache_breakpoint`; unless
 * `prompt_cache_options.mode` is `explicit`, OpenAI's own breakpoint ends the last part.
 */
function openaiBlocks(body: unknown): BlockPrefix[] {
  if (!isRecord(body)) return []
  const asParts = (content: unknown): readonly unknown[] =>
    typeof content === 'string' ? [{ text: content }] : list(content)
  const parts = [
    ...(typeof body.instructions === 'string' ? [{ text: body.instructions }] : []),
    ...[...list(body.input), ...list(body.messages)].flatMap(item => asParts(record(item)?.content))
  ]
  const implicit = record(body.prompt_cache_options)?.mode !== 'explicit'
  let text = ''
  return parts.map((part, i) => {
    text += `${textsOf(part).join('\n')}\n`
    const marked = isRecord(part) && isRecord(part.prompt_cache_breakpoint)
    return { text, breakpoint: marked || (implicit && i === parts.length - 1) }
  })
}

/** `anthropic/claude-sonnet-4.6` as Anthropic names it, `claude-sonnet-4-6`. */
function anthropicId(model: string): string {
  return model.startsWith('anthropic/')
    ? model.slice('anthropic/'.length).replace(/(\d)\.(\d)/g, '$1-$2')
    : ''
}

/**
 * The prompt text up to the end of each content block, in order (system, then messages), and
 * whether the block carries a `cache_control` breakpoint (or is the last block of a request with a
 * top-level `cache_control`: automatic caching, on the prompt-caching page).
 */
function anthropicBlocks(body: unknown): BlockPrefix[] {
  if (!isRecord(body)) return []
  const asBlocks = (content: unknown): readonly unknown[] =>
    typeof content === 'string' ? [{ text: content }] : list(content)
  const blocks = [
    ...asBlocks(body.system),
    ...list(body.messages).flatMap(m => asBlocks(record(m)?.content))
  ]
  // Automatic caching: a top-level `cache_control` sets the breakpoint on the last block.
  const automatic = body.cache_control !== undefined
  let text = ''
  return blocks.map((block, i) => {
    text += `${textsOf(block).join('\n')}\n`
    const marked = isRecord(block) && block.cache_control !== undefined
    return { text, breakpoint: marked || (automatic && i === blocks.length - 1) }
  })
}

function routeOf(method: string, pathname: string): Route | undefined {
  if (method !== 'POST') return undefined
  switch (pathname) {
    case '/v1/responses':
      return { protocol: 'openai-responses', service: 'openai' }
    case '/v1/chat/completions':
      return { protocol: 'openai-chat', service: 'openai' }
    case '/v1/messages':
      return { protocol: 'anthropic-messages', service: 'anthropic' }
    case '/openrouter/api/v1/chat/completions':
      return { protocol: 'openai-chat', service: 'openrouter' }
    case '/ollama/api/chat':
      return { protocol: 'ollama-chat', service: 'ollama' }
    case '/ollama/v1/chat/completions':
      return { protocol: 'openai-chat', service: 'ollama' }
    case '/compatible/v1/chat/completions':
      return { protocol: 'openai-chat', service: 'compatible' }
  }
  const google = /^\/v1beta\/models\/([^/]+):generateContent$/.exec(pathname)
  if (google?.[1] !== undefined) {
    return {
      protocol: 'google-generate',
      service: 'google',
      pathModel: decodeURIComponent(google[1])
    }
  }
  return undefined
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return headers
}

/** Only where the protocol's service reads it: a key in the wrong header is a missing key. */
function apiKeyOf(
  protocol: Protocol,
  headers: Readonly<Record<string, string>>,
  url: URL
): string | undefined {
  const bearer = /^Bearer\s+(\S+)/i.exec(headers.authorization ?? '')?.[1]
  const nonEmpty = (value: string | null | undefined): string | undefined =>
    value === undefined || value === null || value.trim() === '' ? undefined : value
  switch (protocol) {
    case 'openai-responses':
    case 'openai-chat':
      return bearer
    case 'anthropic-messages':
      // `createAnthropic({ authToken })` sends a bearer token instead of x-api-key.
      return nonEmpty(headers['x-api-key']) ?? bearer
    case 'google-generate':
      return nonEmpty(headers['x-goog-api-key']) ?? nonEmpty(url.searchParams.get('key'))
    case 'ollama-chat':
      return bearer
  }
}

// ---------------------------------------------------------------------------------------------
// What the request asks for

/** Strings under `text`, else inside `content` / `parts`: covers every protocol's message shapes. */
function textsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(textsOf)
  if (!isRecord(value)) return []
  if (typeof value.text === 'string') return [value.text]
  return [...textsOf(value.content), ...textsOf(value.parts)]
}

function promptTextOf(protocol: Protocol, body: unknown): string {
  if (!isRecord(body)) return ''
  const parts: string[] = (() => {
    switch (protocol) {
      case 'openai-responses':
        return [...textsOf(body.instructions), ...textsOf(body.input)]
      case 'openai-chat':
      case 'ollama-chat':
        return textsOf(body.messages)
      case 'anthropic-messages':
        return [...textsOf(body.system), ...textsOf(body.messages)]
      case 'google-generate':
        return [...textsOf(body.systemInstruction), ...textsOf(body.contents)]
    }
  })()
  return parts.join('\n')
}

function schemaOf(protocol: Protocol, body: unknown): unknown {
  if (!isRecord(body)) return undefined
  switch (protocol) {
    case 'openai-responses': {
      const format = record(record(body.text)?.format)
      return format?.type === 'json_schema' ? format.schema : undefined
    }
    case 'openai-chat': {
      // `json_object` (what openai-compatible sends by default) carries no schema at all.
      const format = record(body.response_format)
      return format?.type === 'json_schema' ? record(format.json_schema)?.schema : undefined
    }
    case 'ollama-chat':
      // `format` is "json" (any JSON) or a JSON Schema the answer must follow.
      return isRecord(body.format) ? body.format : undefined
    case 'anthropic-messages':
      return anthropicNativeSchema(body) ?? anthropicAnswerTool(body)?.input_schema
    case 'google-generate': {
      const config = record(body.generationConfig)
      const tool = googleAnswerTool(body)
      return (
        config?.responseJsonSchema ??
        config?.responseSchema ??
        tool?.parametersJsonSchema ??
        tool?.parameters
      )
    }
  }
}

/** `output_config.format` (current), or the older beta's top-level `output_format`. */
function anthropicNativeSchema(body: Json): unknown {
  for (const format of [record(record(body.output_config)?.format), record(body.output_format)]) {
    if (format?.type === 'json_schema') return format.schema
  }
  return undefined
}

/**
 * The tool the request forces the answer through: the SDK's `json` tool when the model has no
 * native structured output (e.g. claude-3-5-haiku), or whichever tool `tool_choice` names.
 */
function anthropicAnswerTool(body: Json): Json | undefined {
  if (anthropicNativeSchema(body) !== undefined) return undefined
  const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : []
  const choice = record(body.tool_choice)
  if (choice?.type === 'tool') return tools.find(tool => tool.name === choice.name)
  if (choice?.type === 'any' && tools.length === 1) return tools[0]
  return choice?.type === 'any' ? tools.find(tool => tool.name === 'json') : undefined
}

/** The SDK only falls back to a `json` function (json, json_1, …) when the caller passes tools. */
function googleAnswerTool(body: Json): Json | undefined {
  if (record(body.generationConfig)?.responseJsonSchema !== undefined) return undefined
  const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : []
  const declarations = tools.flatMap(tool =>
    Array.isArray(tool.functionDeclarations) ? tool.functionDeclarations.filter(isRecord) : []
  )
  return declarations.find(fn => typeof fn.name === 'string' && /^json(_\d+)?$/.test(fn.name))
}

function unparsableMessage(protocol: Protocol): string {
  switch (protocol) {
    case 'openai-responses':
    case 'openai-chat':
      return "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)"
    case 'anthropic-messages':
      return 'There was an error parsing the body'
    case 'google-generate':
      return 'Invalid JSON payload received.'
    case 'ollama-chat':
      return 'invalid character looking for beginning of value'
  }
}

function missingKeyMessage(protocol: Protocol): string {
  switch (protocol) {
    case 'openai-responses':
    case 'openai-chat':
      return "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
    case 'anthropic-messages':
      return 'x-api-key header is required'
    case 'google-generate':
      // The real service answers a keyless call 403 PERMISSION_DENIED ("Method doesn't allow
      // unregistered callers"); the stand-in answers 401 like the others, so tests treat them alike.
      return 'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.'
    case 'ollama-chat':
      return 'unauthorized'
  }
}

// ---------------------------------------------------------------------------------------------
// Successful answers

function successHeaders(protocol: Protocol): Record<string, string> {
  switch (protocol) {
    case 'openai-responses':
    case 'openai-chat':
      return { 'x-request-id': `req_${hex(16)}`, 'openai-processing-ms': '42' }
    case 'anthropic-messages':
      return { 'request-id': `req_01${base62(22)}` }
    case 'google-generate':
    case 'ollama-chat':
      return {}
  }
}

function successBody(
  call: RecordedCall,
  said: Answer,
  usage: { readonly promptTokens: number; readonly cached: CacheUse }
): unknown {
  const body = isRecord(call.body) ? call.body : {}
  const inputTokens = usage.promptTokens
  const { read, written } = usage.cached
  const created = Math.floor(Date.now() / 1000)
  const asText = said.kind === 'json' ? JSON.stringify(said.value) : said.text
  const outputTokens = tokensOf(asText)
  const ollamaCount = Math.max(1, inputTokens - read)
  switch (call.protocol) {
    case 'openai-responses': {
      return {
        id: `resp_${hex(25)}`,
        object: 'response',
        created_at: created,
        status: 'completed',
        error: null,
        incomplete_details: null,
        instructions: body.instructions ?? null,
        model: call.model,
        output: [
          {
            type: 'message',
            id: `msg_${hex(25)}`,
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: asText, annotations: [], logprobs: [] }]
          }
        ],
        parallel_tool_calls: true,
        previous_response_id: null,
        // As the API echoes it: kept unless the request said `store: false`.
        store: body.store !== false,
        text: body.text ?? { format: { type: 'text' } },
        tool_choice: 'auto',
        tools: [],
        usage: {
          input_tokens: inputTokens,
          // Both are required in the API's `ResponseUsage`: writes are 0 before GPT-5.6.
          input_tokens_details: { cached_tokens: read, cache_write_tokens: written },
          output_tokens: outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: inputTokens + outputTokens
        }
      }
    }
    case 'openai-chat': {
      return {
        id: `chatcmpl-${base62(29)}`,
        object: 'chat.completion',
        created,
        model: call.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: asText, refusal: null, annotations: [] },
            logprobs: null,
            finish_reason: 'stop'
          }
        ],
        // Ollama's endpoint maps its prompt_eval_count here, and reports no cached tokens.
        usage: {
          prompt_tokens: call.service === 'ollama' ? ollamaCount : inputTokens,
          completion_tokens: outputTokens,
          total_tokens: inputTokens + outputTokens,
          prompt_tokens_details: {
            cached_tokens: call.service === 'ollama' ? 0 : read,
            // OpenRouter says what it wrote to the provider's cache (its usage-accounting page).
            ...(call.service === 'openrouter' && { cache_write_tokens: written })
          },
          completion_tokens_details: { reasoning_tokens: 0 },
          // OpenRouter reports what the call cost; the stand-in's price is nominal.
          ...(call.service === 'openrouter' && { cost: (inputTokens + outputTokens) / 1_000_000 })
        },
        system_fingerprint: `fp_${hex(5)}`
      }
    }
    case 'ollama-chat': {
      return {
        model: call.model,
        created_at: new Date().toISOString(),
        message: { role: 'assistant', content: asText },
        done: true,
        done_reason: 'stop',
        total_duration: 1_200_000_000,
        load_duration: 50_000_000,
        // As the builds that count only what the KV cache did not hold (ollama/ollama#16428
        // restored the full count for llama-server builds; older ones drop the field once all of
        // the prompt was cached, #2068): a repeated prompt reads as a short one.
        prompt_eval_count: ollamaCount,
        prompt_eval_duration: 400_000_000,
        eval_count: outputTokens,
        eval_duration: 700_000_000
      }
    }
    case 'anthropic-messages': {
      // Prose is always a text block: a model ignoring the forced tool, which the SDK falls back on.
      const tool = said.kind === 'json' ? anthropicAnswerTool(body) : undefined
      const content =
        said.kind === 'json' && tool !== undefined
          ? [{ type: 'tool_use', id: `toolu_01${base62(22)}`, name: tool.name, input: said.value }]
          : [{ type: 'text', text: asText }]
      return {
        id: `msg_01${base62(22)}`,
        type: 'message',
        role: 'assistant',
        model: call.model,
        content,
        stop_reason: tool === undefined ? 'end_turn' : 'tool_use',
        stop_sequence: null,
        usage: {
          // Anthropic's input_tokens are those after the last breakpoint read or written.
          input_tokens: Math.max(0, inputTokens - read - written),
          cache_creation_input_tokens: written,
          cache_read_input_tokens: read,
          output_tokens: outputTokens,
          service_tier: 'standard'
        }
      }
    }
    case 'google-generate': {
      const tool = said.kind === 'json' ? googleAnswerTool(body) : undefined
      const part =
        said.kind === 'json' && tool !== undefined
          ? { functionCall: { name: tool.name, args: said.value } }
          : { text: asText }
      return {
        candidates: [{ content: { parts: [part], role: 'model' }, finishReason: 'STOP', index: 0 }],
        usageMetadata: {
          promptTokenCount: inputTokens,
          ...(read > 0 && { cachedContentTokenCount: read }),
          candidatesTokenCount: outputTokens,
          totalTokenCount: inputTokens + outputTokens,
          promptTokensDetails: [{ modality: 'TEXT', tokenCount: inputTokens }]
        },
        modelVersion: call.model,
        responseId: base62(23)
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Errors, in each provider's own body shape

const OPENAI_ERRORS: Readonly<
  Record<number, readonly [type: string, code: string | null, message: string]>
> = {
  400: ['invalid_request_error', null, 'Invalid request.'],
  401: ['invalid_request_error', 'invalid_api_key', 'Incorrect API key provided.'],
  403: [
    'invalid_request_error',
    'unsupported_country_region_territory',
    'Country, region, or territory not supported'
  ],
  404: [
    'invalid_request_error',
    'model_not_found',
    'The model does not exist or you do not have access to it.'
  ],
  429: [
    'requests',
    'rate_limit_exceeded',
    'Rate limit reached for requests. Please try again in 2s.'
  ],
  500: [
    'server_error',
    null,
    'The server had an error while processing your request. Sorry about that!'
  ],
  503: ['server_error', null, 'The engine is currently overloaded, please try again later']
}

const ANTHROPIC_ERRORS: Readonly<Record<number, readonly [type: string, message: string]>> = {
  400: ['invalid_request_error', 'Invalid request.'],
  401: ['authentication_error', 'invalid x-api-key'],
  403: ['permission_error', 'Your API key does not have permission to use the specified resource.'],
  404: ['not_found_error', 'The requested resource could not be found.'],
  413: ['request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
  429: ['rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit.'],
  500: ['api_error', 'Internal server error'],
  504: ['timeout_error', 'Request timed out'],
  // The API is overloaded for everyone, not a limit of the account: the request may be retried.
  // https://docs.anthropic.com/en/api/errors
  529: ['overloaded_error', 'Overloaded']
}

const UNKNOWN_OPENAI = ['server_error', null, 'Error'] as const
const UNKNOWN_ANTHROPIC = ['api_error', 'Error'] as const
const UNKNOWN_GOOGLE = ['UNKNOWN', 'Error'] as const

const GOOGLE_ERRORS: Readonly<Record<number, readonly [status: string, message: string]>> = {
  400: ['INVALID_ARGUMENT', 'Request contains an invalid argument.'],
  401: ['UNAUTHENTICATED', 'Request is missing required authentication credential.'],
  403: ['PERMISSION_DENIED', 'The caller does not have permission.'],
  404: ['NOT_FOUND', 'Requested entity was not found.'],
  429: ['RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).'],
  500: [
    'INTERNAL',
    'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting'
  ],
  503: ['UNAVAILABLE', 'The model is overloaded. Please try again later.'],
  504: ['DEADLINE_EXCEEDED', 'The request timed out. Please try again.']
}

/** The body Gemini sends for a key it does not know (google-gemini/gemini-cli#4690 and others quote it). */
export const GEMINI_UNKNOWN_KEY = {
  error: {
    code: 400,
    message: 'API key not valid. Please pass a valid API key.',
    status: 'INVALID_ARGUMENT',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' }
      },
      {
        '@type': 'type.googleapis.com/google.rpc.LocalizedMessage',
        locale: 'en-US',
        message: 'API key not valid. Please pass a valid API key.'
      }
    ]
  }
}

/**
 * What each service answers a call whose key it does not accept (set, but unknown or revoked), in
 * its own status and body:
 * - OpenAI: 401 `invalid_api_key`, echoing the key with all but its first 8 and last 4 characters
 *   starred (a short one whole), https://platform.openai.com/docs/guides/error-codes#api-errors;
 * - Anthropic: 401 `authentication_error` "invalid x-api-key", https://docs.anthropic.com/en/api/errors;
 * - Gemini: 400 `INVALID_ARGUMENT` with a `google.rpc.ErrorInfo` of reason `API_KEY_INVALID`, not a
 *   401, https://ai.google.dev/gemini-api/docs/troubleshooting (the body as google-gemini/gemini-cli
 *   issues quote it);
 * - OpenRouter: 401 "User not found.", https://openrouter.ai/docs/api-reference/errors;
 * - Ollama asks for no key: 401 "unauthorized" from a proxy in front of it.
 */
export function rejectedKey(call: RecordedCall): Reply {
  const key = call.apiKey ?? ''
  if (call.service === 'openrouter') {
    return { status: 401, body: { error: { message: 'User not found.', code: 401 } } }
  }
  switch (call.protocol) {
    case 'openai-responses':
    case 'openai-chat': {
      const shown =
        key.length > 12 ? `${key.slice(0, 8)}${'*'.repeat(key.length - 12)}${key.slice(-4)}` : key
      return {
        status: 401,
        body: {
          error: {
            message: `Incorrect API key provided: ${shown}. You can find your API key at https://platform.openai.com/account/api-keys.`,
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_api_key'
          }
        }
      }
    }
    case 'anthropic-messages':
      return { status: 401 }
    case 'google-generate':
      return { status: 400, body: GEMINI_UNKNOWN_KEY }
    case 'ollama-chat':
      return { status: 401 }
  }
}

/**
 * Gemini's 429 for a spent quota, as the API sends it: the wait is in the body, in a
 * `google.rpc.RetryInfo` detail (`retryDelay`, a protobuf Duration: "38s"), beside the quota that
 * ran out; no `retry-after` header. Per-minute quotas ask for seconds, daily ones for hours.
 * https://ai.google.dev/gemini-api/docs/troubleshooting,
 * https://cloud.google.com/java/docs/reference/proto-google-common-protos/latest/com.google.rpc.RetryInfo
 */
export function geminiQuotaExhausted(retryDelay: string, model = 'gemini-3.5-flash'): Reply {
  const seconds = Number.parseFloat(retryDelay)
  const daily = seconds >= 3600
  const metric = 'generate_content_free_tier_requests'
  return {
    status: 429,
    body: {
      error: {
        code: 429,
        message:
          'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n' +
          `* Quota exceeded for metric: generativelanguage.googleapis.com/${metric}, limit: ${daily ? 250 : 10}, model: ${model}\n` +
          `Please retry in ${seconds}s.`,
        status: 'RESOURCE_EXHAUSTED',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
            violations: [
              {
                quotaMetric: `generativelanguage.googleapis.com/${metric}`,
                quotaId: daily
                  ? 'GenerateRequestsPerDayPerProjectPerModel-FreeTier'
                  : 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
                quotaDimensions: { location: 'global', model },
                quotaValue: daily ? '250' : '10'
              }
            ]
          },
          {
            '@type': 'type.googleapis.com/google.rpc.Help',
            links: [
              {
                description: 'Learn more about Gemini API quotas',
                url: 'https://ai.google.dev/gemini-api/docs/rate-limits'
              }
            ]
          },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay }
        ]
      }
    }
  }
}

/**
 * Anthropic's 429 with its rate-limit headers: `retry-after` (seconds) when `retryAfter` is
 * given, and for each limit `anthropic-ratelimit-*-limit`, `-remaining` and `-reset` (an RFC 3339
 * time); the requests limit is the one spent, replenished `resetInMs` from now. The body is the
 * stock `rate_limit_error`. https://docs.anthropic.com/en/api/rate-limits#response-headers,
 * https://docs.anthropic.com/en/api/errors
 */
export function anthropicRateLimited(resetInMs: number, retryAfter?: number): Reply {
  const reset = new Date(Date.now() + resetInMs).toISOString().replace(/\.\d{3}Z$/, 'Z')
  const soon = new Date(Date.now() + 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')
  return {
    status: 429,
    headers: {
      ...(retryAfter !== undefined && { 'retry-after': String(retryAfter) }),
      'anthropic-ratelimit-requests-limit': '50',
      'anthropic-ratelimit-requests-remaining': '0',
      'anthropic-ratelimit-requests-reset': reset,
      'anthropic-ratelimit-tokens-limit': '50000',
      'anthropic-ratelimit-tokens-remaining': '49000',
      'anthropic-ratelimit-tokens-reset': soon
    }
  }
}

/**
 * The provider's error body for `status`. A `message` of the stand-in's own (validation, missing
 * key) replaces the stock one, and then OpenAI's `code` is null, as it is for those errors.
 */
function errorBody(
  call: Pick<RecordedCall, 'protocol' | 'service'>,
  status: number,
  message?: string
): unknown {
  const fallback = status >= 500 ? 500 : 400
  if (call.service === 'openrouter') {
    const [, , stock] = OPENAI_ERRORS[status] ?? OPENAI_ERRORS[fallback] ?? UNKNOWN_OPENAI
    return { error: { code: status, message: message ?? stock } }
  }
  switch (call.protocol) {
    case 'ollama-chat':
      return { error: message ?? (status >= 500 ? 'internal server error' : 'bad request') }
    case 'openai-responses':
    case 'openai-chat': {
      const [type, code, stock] = OPENAI_ERRORS[status] ?? OPENAI_ERRORS[fallback] ?? UNKNOWN_OPENAI
      return {
        error: {
          message: message ?? stock,
          type,
          param: null,
          code: message === undefined ? code : null
        }
      }
    }
    case 'anthropic-messages': {
      const [type, stock] =
        ANTHROPIC_ERRORS[status] ?? ANTHROPIC_ERRORS[fallback] ?? UNKNOWN_ANTHROPIC
      return {
        type: 'error',
        error: { type, message: message ?? stock },
        request_id: `req_01${base62(22)}`
      }
    }
    case 'google-generate': {
      const [name, stock] = GOOGLE_ERRORS[status] ?? GOOGLE_ERRORS[fallback] ?? UNKNOWN_GOOGLE
      return { error: { code: status, message: message ?? stock, status: name } }
    }
  }
}

function sendError(
  res: ServerResponse,
  call: Pick<RecordedCall, 'protocol' | 'service'> & { readonly sent?: RecordedCall['sent'] },
  status: number,
  headers: Readonly<Record<string, string>>,
  message?: string
): void {
  sendJson(res, status, headers, errorBody(call, status, message), call)
}

// ---------------------------------------------------------------------------------------------
// Small pieces

function sendJson(
  res: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string>>,
  body: unknown,
  call?: { readonly sent?: RecordedCall['sent'] }
): void {
  send(res, status, { 'content-type': 'application/json', ...headers }, JSON.stringify(body), call)
}

function send(
  res: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string>>,
  text: string,
  call?: { readonly sent?: RecordedCall['sent'] }
): void {
  if (res.destroyed || res.writableEnded) return
  res.writeHead(status, headers)
  res.end(text)
  if (call?.sent) call.sent.bytes += Buffer.byteLength(text)
}

async function sleep(ms: number, signal: AbortSignal): Promise<void> {
  await new Promise<void>(resolve => {
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
    function done(): void {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
  })
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex')
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

function base62(length: number): string {
  return Array.from(randomBytes(length), byte => BASE62.charAt(byte % 62)).join('')
}
