/**
 * A local HTTP server that plays the LLM providers on their real wire protocols, so the real AI SDK
 * provider code (request building, response parsing, error mapping) runs in tests with no network.
 *
 * Each test scripts the answers; every request is recorded (parsed) before it is answered. The
 * shapes below were taken from what `@ai-sdk/openai` 4, `@ai-sdk/anthropic` 4, `@ai-sdk/google` 4
 * and `@ai-sdk/openai-compatible` 3 send and parse, and from the providers' documented error bodies.
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { listenOnLoopback } from './listen.js'

export type Protocol = 'openai-responses' | 'openai-chat' | 'anthropic-messages' | 'google-generate'

export interface RecordedCall {
  readonly protocol: Protocol
  /** From the body (`model`), or for Google from the path; '' when the request names none. */
  readonly model: string
  /** From `Authorization: Bearer`, `x-api-key`, `x-goog-api-key` or `?key=`, as the protocol reads it. */
  readonly apiKey: string | undefined
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON request body; the raw text when it is not JSON. */
  readonly body: unknown
  /** All prompt text of the request (system + messages), joined with newlines, for assertions. */
  readonly text: string
  /** The JSON schema the client asked the answer to follow, if any. */
  readonly schema: unknown
  /** `performance.now()` when the request arrived. */
  readonly receivedAt: number
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
  /** For `createOpenAICompatible({ baseURL })`: the Chat Completions route. */
  readonly compatibleBaseUrl: string
  readonly calls: readonly RecordedCall[]
  setScript(script: Script): void
  close(): Promise<void>
}

/** A script must be set before a call is answered: an unscripted call fails loudly, as a 500. */
const NO_SCRIPT: Script = () => {
  throw new Error('no script set: pass one to startProviderStandIn or call setScript')
}

export async function startProviderStandIn(script: Script = NO_SCRIPT): Promise<StandIn> {
  let current = script
  const calls: RecordedCall[] = []

  const server = createServer((req, res) => {
    handle(req, res, calls, () => current).catch((error: unknown) => {
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
    compatibleBaseUrl: `${url}/v1`,
    calls,
    setScript: next => {
      current = next
    },
    close
  }
}

// ---------------------------------------------------------------------------------------------
// Request handling

type Json = Readonly<Record<string, unknown>>

/** What the model "said": a structured value or prose. */
type Answer =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'text'; readonly text: string }

interface Route {
  readonly protocol: Protocol
  /** Google names the model in the path. */
  readonly pathModel?: string
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  calls: RecordedCall[],
  script: () => Script
): Promise<void> {
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
  const { protocol } = route
  let body: unknown
  let parsed = true
  try {
    body = JSON.parse(rawBody) as unknown
  } catch {
    body = rawBody
    parsed = false
  }
  const headers = headersOf(req)
  const call: RecordedCall = {
    protocol,
    model: route.pathModel ?? (isRecord(body) && typeof body.model === 'string' ? body.model : ''),
    apiKey: apiKeyOf(protocol, headers, url),
    headers,
    body,
    text: promptTextOf(protocol, body),
    schema: schemaOf(protocol, body),
    receivedAt
  }
  const index = calls.length
  calls.push(call)

  // The real services check the key before looking at the request.
  if (call.apiKey === undefined) {
    sendError(res, protocol, 401, {}, missingKeyMessage(protocol))
    return
  }
  const problem = parsed ? requestProblem(protocol, body, headers) : unparsableMessage(protocol)
  if (problem !== undefined) {
    sendError(res, protocol, 400, {}, problem)
    return
  }

  // The client going away (abort, timeout) ends any delay early, and nothing is written after it.
  const gone = new AbortController()
  res.on('close', () => {
    if (!res.writableEnded) gone.abort()
  })
  let reply: Reply
  try {
    reply = await script()(call, index)
  } catch (error) {
    sendError(res, protocol, 500, {}, `provider stand-in script failed: ${messageOf(error)}`)
    return
  }
  await answer(res, call, reply, gone.signal)
}

async function answer(
  res: ServerResponse,
  call: RecordedCall,
  reply: Reply,
  gone: AbortSignal
): Promise<void> {
  if (gone.aborted) return
  if ('delayMs' in reply) {
    await sleep(reply.delayMs, gone)
    await answer(res, call, reply.then, gone)
    return
  }
  if ('hang' in reply) return
  if ('raw' in reply) {
    send(res, reply.status ?? 200, { 'content-type': 'application/json' }, reply.raw)
    return
  }
  if ('status' in reply) {
    const headers = reply.headers ?? {}
    if (reply.body === undefined) sendError(res, call.protocol, reply.status, headers)
    else if (typeof reply.body === 'string') {
      send(res, reply.status, { 'content-type': 'application/json', ...headers }, reply.body)
    } else sendJson(res, reply.status, headers, reply.body)
    return
  }
  const said: Answer =
    'json' in reply ? { kind: 'json', value: reply.json } : { kind: 'text', text: reply.text }
  sendJson(res, 200, successHeaders(call.protocol), successBody(call, said))
}

function routeOf(method: string, pathname: string): Route | undefined {
  if (method !== 'POST') return undefined
  if (pathname === '/v1/responses') return { protocol: 'openai-responses' }
  if (pathname === '/v1/chat/completions') return { protocol: 'openai-chat' }
  if (pathname === '/v1/messages') return { protocol: 'anthropic-messages' }
  const google = /^\/v1beta\/models\/([^/]+):generateContent$/.exec(pathname)
  if (google?.[1] !== undefined) {
    return { protocol: 'google-generate', pathModel: decodeURIComponent(google[1]) }
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

// ---------------------------------------------------------------------------------------------
// Validation, as the real services do it (the checks that catch client-side mistakes)

function requestProblem(
  protocol: Protocol,
  body: unknown,
  headers: Readonly<Record<string, string>>
): string | undefined {
  if (!isRecord(body)) return unparsableMessage(protocol)
  switch (protocol) {
    case 'openai-responses': {
      if (typeof body.model !== 'string') return "Missing required parameter: 'model'."
      if (body.stream === true) return 'provider stand-in: streaming is not supported'
      if (body.input === undefined && body.previous_response_id === undefined) {
        return "Missing required parameter: 'input'."
      }
      const format = record(record(body.text)?.format)
      return format?.type === 'json_schema'
        ? jsonSchemaFormatProblem('text.format', format.name, format.schema, format.strict)
        : undefined
    }
    case 'openai-chat': {
      if (typeof body.model !== 'string') return 'you must provide a model parameter'
      if (body.stream === true) return 'provider stand-in: streaming is not supported'
      if (!Array.isArray(body.messages)) return "Missing required parameter: 'messages'."
      if (body.messages.length === 0) {
        return "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead."
      }
      const format = record(body.response_format)
      if (format?.type === 'json_object' && !/json/i.test(textsOf(body.messages).join('\n'))) {
        return "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'."
      }
      const jsonSchema = record(format?.json_schema)
      return format?.type === 'json_schema'
        ? jsonSchemaFormatProblem(
            'response_format',
            jsonSchema?.name,
            jsonSchema?.schema,
            jsonSchema?.strict
          )
        : undefined
    }
    case 'anthropic-messages':
      if (headers['anthropic-version'] === undefined) return 'anthropic-version: header is required'
      if (typeof body.model !== 'string') return 'model: Field required'
      if (typeof body.max_tokens !== 'number') return 'max_tokens: Field required'
      if (!Array.isArray(body.messages)) return 'messages: Field required'
      if (body.stream === true) return 'provider stand-in: streaming is not supported'
      return undefined
    case 'google-generate':
      if (!Array.isArray(body.contents) || body.contents.length === 0) {
        return '* GenerateContentRequest.contents: contents is not specified\n'
      }
      return undefined
  }
}

/** OpenAI rejects a strict schema where any object leaves keys optional or allows extra ones. */
function jsonSchemaFormatProblem(
  param: string,
  name: unknown,
  schema: unknown,
  strict: unknown
): string | undefined {
  if (typeof name !== 'string' || name === '') return `Missing required parameter: '${param}.name'.`
  if (!isRecord(schema)) return `Missing required parameter: '${param}.schema'.`
  if (strict !== true) return undefined
  const problem = strictSchemaProblem(schema, [])
  return problem === undefined
    ? undefined
    : `Invalid schema for response_format '${name}': ${problem}`
}

function strictSchemaProblem(schema: unknown, context: readonly string[]): string | undefined {
  if (!isRecord(schema)) return undefined
  const where = `In context=(${context.map(part => `'${part}'`).join(', ')})`
  const properties = record(schema.properties)
  if (schema.type === 'object' || properties !== undefined) {
    if (schema.additionalProperties !== false) {
      return `${where}, 'additionalProperties' is required to be supplied and to be false.`
    }
    const required = Array.isArray(schema.required) ? schema.required : []
    const missing = Object.keys(properties ?? {}).filter(key => !required.includes(key))
    if (missing.length > 0) {
      return `${where}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing.join("', '")}'.`
    }
  }
  const children: [string[], unknown][] = [
    ...Object.entries(properties ?? {}).map(([key, value]): [string[], unknown] => [
      ['properties', key],
      value
    ]),
    ...Object.entries(record(schema.$defs) ?? {}).map(([key, value]): [string[], unknown] => [
      ['$defs', key],
      value
    ]),
    [['items'], schema.items],
    ...(Array.isArray(schema.anyOf) ? schema.anyOf : []).map((value, i): [string[], unknown] => [
      ['anyOf', String(i)],
      value
    ])
  ]
  for (const [path, child] of children) {
    const problem = strictSchemaProblem(child, [...context, ...path])
    if (problem !== undefined) return problem
  }
  return undefined
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
  }
}

// ---------------------------------------------------------------------------------------------
// Successful answers

/** A rough tokeniser: about four characters a token, never zero. */
function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4))
}

function successHeaders(protocol: Protocol): Record<string, string> {
  switch (protocol) {
    case 'openai-responses':
    case 'openai-chat':
      return { 'x-request-id': `req_${hex(16)}`, 'openai-processing-ms': '42' }
    case 'anthropic-messages':
      return { 'request-id': `req_01${base62(22)}` }
    case 'google-generate':
      return {}
  }
}

function successBody(call: RecordedCall, said: Answer): unknown {
  const body = isRecord(call.body) ? call.body : {}
  const inputTokens = tokens(call.text)
  const created = Math.floor(Date.now() / 1000)
  const asText = said.kind === 'json' ? JSON.stringify(said.value) : said.text
  const outputTokens = tokens(asText)
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
        store: true,
        text: body.text ?? { format: { type: 'text' } },
        tool_choice: 'auto',
        tools: [],
        usage: {
          input_tokens: inputTokens,
          input_tokens_details: { cached_tokens: 0 },
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
        usage: {
          prompt_tokens: inputTokens,
          completion_tokens: outputTokens,
          total_tokens: inputTokens + outputTokens,
          prompt_tokens_details: { cached_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0 }
        },
        system_fingerprint: `fp_${hex(5)}`
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
          input_tokens: inputTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
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

/**
 * The provider's error body for `status`. A `message` of the stand-in's own (validation, missing
 * key) replaces the stock one, and then OpenAI's `code` is null, as it is for those errors.
 */
function errorBody(protocol: Protocol, status: number, message?: string): unknown {
  const fallback = status >= 500 ? 500 : 400
  switch (protocol) {
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
  protocol: Protocol,
  status: number,
  headers: Readonly<Record<string, string>>,
  message?: string
): void {
  sendJson(res, status, headers, errorBody(protocol, status, message))
}

// ---------------------------------------------------------------------------------------------
// Small pieces

function sendJson(
  res: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string>>,
  body: unknown
): void {
  send(res, status, { 'content-type': 'application/json', ...headers }, JSON.stringify(body))
}

function send(
  res: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string>>,
  text: string
): void {
  if (res.destroyed || res.writableEnded) return
  res.writeHead(status, headers)
  res.end(text)
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

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function record(value: unknown): Json | undefined {
  return isRecord(value) ? value : undefined
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
