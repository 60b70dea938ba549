import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import {
  APICallError,
  JSONParseError,
  NoObjectGeneratedError,
  Output,
  RetryError,
  generateText,
  jsonSchema
} from 'ai'
import type { JSONSchema7, LanguageModel } from 'ai'
import type { ProviderOptions } from '@ai-sdk/provider-utils'
import { createOllama } from 'ollama-ai-provider-v2'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startProviderStandIn } from './helpers/provider-standin.js'
import type { Protocol, RecordedCall, Reply, StandIn } from './helpers/provider-standin.js'

const SCHEMA: JSONSchema7 = {
  type: 'object',
  properties: {
    score: { type: 'integer' },
    reason: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } }
  },
  required: ['score', 'reason', 'tags'],
  additionalProperties: false
}

const JUDGEMENT = { score: 3, reason: 'Tests cover the new parser.', tags: ['tests', 'parser'] }
const SYSTEM = 'You are a strict reviewer of pull requests.'
// "JSON" in the prompt: OpenAI refuses json_object mode without it (see the openai-compatible case).
const PROMPT = 'Grade this diff and answer in JSON: +const parse = (s: string) => s.trim()'

interface Case {
  readonly name: string
  readonly protocol: Protocol
  readonly modelId: string
  readonly model: (standIn: StandIn, apiKey: string) => LanguageModel
  /** openai-compatible's default `json_object` mode sends no schema at all. */
  readonly sendsSchema: boolean
  /** What the call sends along, as the council does (OpenRouter: only schema-keeping routes). */
  readonly providerOptions?: ProviderOptions
  /** Ollama serves without a key. */
  readonly needsKey?: false
}

const CASES: readonly Case[] = [
  {
    name: 'openai (default: Responses API)',
    protocol: 'openai-responses',
    modelId: 'gpt-5.4-nano',
    model: (s, apiKey) => createOpenAI({ baseURL: s.openaiBaseUrl, apiKey })('gpt-5.4-nano'),
    sendsSchema: true
  },
  {
    name: 'openai.chat (Chat Completions)',
    protocol: 'openai-chat',
    modelId: 'gpt-4o-mini',
    model: (s, apiKey) => createOpenAI({ baseURL: s.openaiBaseUrl, apiKey }).chat('gpt-4o-mini'),
    sendsSchema: true
  },
  {
    name: 'anthropic (native output_config.format)',
    protocol: 'anthropic-messages',
    modelId: 'claude-haiku-4-5',
    model: (s, apiKey) =>
      createAnthropic({ baseURL: s.anthropicBaseUrl, apiKey })('claude-haiku-4-5'),
    sendsSchema: true
  },
  {
    name: 'google (generateContent, responseJsonSchema)',
    protocol: 'google-generate',
    modelId: 'gemini-3.5-flash',
    model: (s, apiKey) =>
      createGoogleGenerativeAI({ baseURL: s.googleBaseUrl, apiKey })('gemini-3.5-flash'),
    sendsSchema: true
  },
  {
    name: 'openrouter (Chat Completions, Anthropic only, require_parameters)',
    protocol: 'openai-chat',
    modelId: 'anthropic/claude-sonnet-4.6',
    model: (s, apiKey) =>
      createOpenAICompatible({
        name: 'openrouter',
        baseURL: s.openrouterBaseUrl,
        apiKey,
        supportsStructuredOutputs: true
      })('anthropic/claude-sonnet-4.6'),
    sendsSchema: true,
    providerOptions: {
      openrouter: { provider: { require_parameters: true, only: ['anthropic'] } }
    }
  },
  {
    name: 'ollama (native /api/chat)',
    protocol: 'ollama-chat',
    modelId: 'llama3.1:8b',
    model: (s, apiKey) =>
      createOllama({
        baseURL: `${s.ollamaBaseUrl}/api`,
        ...(apiKey !== '' && { headers: { authorization: `Bearer ${apiKey}` } })
      })('llama3.1:8b'),
    sendsSchema: true,
    needsKey: false
  },
  {
    name: 'openai-compatible (default json_object)',
    protocol: 'openai-chat',
    modelId: 'meta-llama/llama-3.3-70b-instruct',
    model: (s, apiKey) =>
      createOpenAICompatible({ name: 'vllm', baseURL: s.compatibleBaseUrl, apiKey })(
        'meta-llama/llama-3.3-70b-instruct'
      ),
    sendsSchema: false
  },
  {
    name: 'openai-compatible (supportsStructuredOutputs)',
    protocol: 'openai-chat',
    modelId: 'llama3.1',
    model: (s, apiKey) =>
      createOpenAICompatible({
        name: 'vllm',
        baseURL: s.compatibleBaseUrl,
        apiKey,
        supportsStructuredOutputs: true
      })('llama3.1'),
    sendsSchema: true
  }
]

let standIn: StandIn

beforeAll(async () => {
  // The openai-compatible json_object case warns that the schema is dropped, on every call: known.
  globalThis.AI_SDK_LOG_WARNINGS = false
  // A fixed calendar: the models named here stay served (retirement is tested by date elsewhere).
  standIn = await startProviderStandIn(undefined, { today: () => '2026-11-27' })
})

afterAll(async () => {
  globalThis.AI_SDK_LOG_WARNINGS = undefined
  await standIn.close()
})

function judgeWith(
  model: LanguageModel,
  abortSignal?: AbortSignal,
  providerOptions?: ProviderOptions
) {
  return generateText({
    model,
    // v7's name for `system` (deprecated); both become the same system message.
    instructions: SYSTEM,
    prompt: PROMPT,
    output: Output.object({ schema: jsonSchema(SCHEMA), name: 'judgement' }),
    maxRetries: 0,
    ...(abortSignal === undefined ? {} : { abortSignal }),
    ...(providerOptions === undefined ? {} : { providerOptions })
  })
}

const judge = (model: LanguageModel): ReturnType<typeof judgeWith> => judgeWith(model)

/** The error a promise rejects with; fails the test if it resolves. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

function lastCall(): RecordedCall {
  const call = standIn.calls.at(-1)
  if (call === undefined) throw new Error('no call recorded')
  return call
}

function tokens(text: string): number {
  return Math.ceil(text.length / 4)
}

describe.each(CASES)('$name', case_ => {
  const { protocol, modelId, sendsSchema, providerOptions } = case_
  const reply = (answer: Reply): void => {
    standIn.setScript(() => answer)
  }
  const model = case_.model
  /**
   * The error's message comes from the provider's own error body, so its shape was right. Ollama
   * answers `{"error":"…"}`, which its community provider does not read (it expects OpenAI's
   * shape): the body is still there, and the council reads the message from it.
   */
  const expectOwnErrorBody = (error: APICallError, statusText: string): void => {
    if (protocol === 'ollama-chat') expect(error.responseBody).toMatch(/^\{"error":"[^"]+"\}$/)
    else expect(error.message).not.toBe(statusText)
  }
  const judge = (m: LanguageModel, abortSignal?: AbortSignal) =>
    judgeWith(m, abortSignal, providerOptions)

  it('round-trips a { json } reply into result.output, with usage and the request recorded', async () => {
    reply({ json: JUDGEMENT })
    const result = await judge(model(standIn, 'sk-test'))

    expect(result.output).toEqual(JUDGEMENT)
    const call = lastCall()
    expect(call).toMatchObject({ protocol, model: modelId, apiKey: 'sk-test' })
    expect(call.text).toContain(SYSTEM)
    expect(call.text).toContain(PROMPT)
    if (sendsSchema) expect(call.schema).toEqual(SCHEMA)
    else expect(call.schema).toBeUndefined()
    expect(result.usage.inputTokens).toBe(tokens(call.text))
    expect(result.usage.outputTokens).toBe(tokens(JSON.stringify(JUDGEMENT)))
    expect(result.finishReason).toBe('stop')
    expect(result.finalStep.response.modelId).toBe(modelId)
    expect(result.finalStep.response.id).not.toBe('')
  })

  it('makes generateText throw NoObjectGeneratedError, holding the prose, for a { text } reply', async () => {
    reply({ text: 'Looks fine to me, ship it.' })
    const error = await rejection(judge(model(standIn, 'sk-test')))

    expect(NoObjectGeneratedError.isInstance(error)).toBe(true)
    const noObject = error as NoObjectGeneratedError
    expect(noObject.name).toBe('AI_NoObjectGeneratedError')
    expect(noObject.text).toBe('Looks fine to me, ship it.')
    expect(noObject.finishReason).toBe('stop')
    expect(noObject.usage?.outputTokens).toBe(tokens('Looks fine to me, ship it.'))
    expect(JSONParseError.isInstance(noObject.cause)).toBe(true)
  })

  it('surfaces a 429 with retry-after as a retryable APICallError carrying the header', async () => {
    reply({ status: 429, headers: { 'retry-after': '2' } })
    const error = await rejection(judge(model(standIn, 'sk-test')))

    expect(APICallError.isInstance(error)).toBe(true)
    const apiError = error as APICallError
    expect(apiError.statusCode).toBe(429)
    expect(apiError.isRetryable).toBe(true)
    expect(apiError.responseHeaders?.['retry-after']).toBe('2')
    expectOwnErrorBody(apiError, 'Too Many Requests')
  })

  it('surfaces a 500 as a retryable APICallError', async () => {
    reply({ status: 500 })
    const error = await rejection(judge(model(standIn, 'sk-test')))

    expect(APICallError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ statusCode: 500, isRetryable: true })
    expectOwnErrorBody(error as APICallError, 'Internal Server Error')
  })

  it('lets an AbortSignal timeout end a request that never gets an answer', async () => {
    reply({ hang: true })
    const started = performance.now()
    const error = await rejection(judge(model(standIn, 'sk-test'), AbortSignal.timeout(150)))

    // Not wrapped: the DOMException from fetch comes through as it is.
    expect(error).toBeInstanceOf(DOMException)
    expect((error as DOMException).name).toBe('TimeoutError')
    expect(performance.now() - started).toBeLessThan(2000)
    expect(lastCall().model).toBe(modelId)
  })

  it('answers 401 in the provider shape when the API key is missing (Ollama asks for none)', async () => {
    reply({ json: JUDGEMENT })
    if (case_.needsKey === false) {
      expect((await judge(model(standIn, ''))).output).toEqual(JUDGEMENT)
      return
    }
    const error = await rejection(judge(model(standIn, '')))

    expect(APICallError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ statusCode: 401, isRetryable: false })
    expect((error as APICallError).message).not.toBe('Unauthorized')
    expect(lastCall().apiKey).toBeUndefined()
  })
})

describe('anthropic specifics', () => {
  const model = (modelId: string): LanguageModel =>
    createAnthropic({ baseURL: standIn.anthropicBaseUrl, apiKey: 'sk-ant-test' })(modelId)

  it('surfaces 529 overloaded_error as a retryable APICallError', async () => {
    standIn.setScript(() => ({ status: 529 }))
    const error = await rejection(judge(model('claude-haiku-4-5')))

    expect(APICallError.isInstance(error)).toBe(true)
    const apiError = error as APICallError
    expect(apiError).toMatchObject({ statusCode: 529, isRetryable: true, message: 'Overloaded' })
    expect(apiError.data).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' }
    })
  })

  it('answers through the forced json tool when the request asks for one', async () => {
    standIn.setScript(() => ({ json: JUDGEMENT }))
    // v7 keeps the raw response body only when asked to.
    const result = await generateText({
      model: model('claude-haiku-4-5'),
      prompt: PROMPT,
      output: Output.object({ schema: jsonSchema(SCHEMA), name: 'judgement' }),
      providerOptions: { anthropic: { structuredOutputMode: 'jsonTool' } },
      maxRetries: 0,
      include: { responseBody: true }
    })

    expect(result.output).toEqual(JUDGEMENT)

    expect(lastCall().body).toMatchObject({
      tools: [{ name: 'json', input_schema: SCHEMA }],
      tool_choice: { type: 'any' }
    })
    expect(result.finalStep.response.body).toMatchObject({
      content: [{ type: 'tool_use', name: 'json', input: JUDGEMENT }],
      stop_reason: 'tool_use'
    })
  })

  it('uses output_config.format, not a tool, for models with native structured output', async () => {
    standIn.setScript(() => ({ json: JUDGEMENT }))
    await judge(model('claude-haiku-4-5'))

    const body = lastCall().body as Record<string, unknown>
    expect(body.output_config).toEqual({ format: { type: 'json_schema', schema: SCHEMA } })
    expect(body.tools).toBeUndefined()
    expect(lastCall().headers['anthropic-version']).toBe('2023-06-01')
  })
})

describe('the stand-in', () => {
  beforeEach(() => {
    standIn.setScript(() => ({ json: JUDGEMENT }))
  })

  async function post(
    path: string,
    body: unknown,
    headers: Record<string, string> = {}
  ): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${standIn.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body)
    })
    return { status: response.status, body: await response.json() }
  }

  const openai = { authorization: 'Bearer sk-test' }
  const anthropic = { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' }

  it('rejects malformed requests with 400 in each provider shape, and records them', async () => {
    const before = standIn.calls.length
    const messages = [{ role: 'user', content: 'hi' }]

    expect(await post('/v1/chat/completions', { messages }, openai)).toEqual({
      status: 400,
      body: {
        error: {
          message: 'you must provide a model parameter',
          type: 'invalid_request_error',
          param: null,
          code: null
        }
      }
    })
    expect(await post('/v1/chat/completions', { model: 'gpt-4o' }, openai)).toMatchObject({
      status: 400,
      body: { error: { message: "Missing required parameter: 'messages'." } }
    })
    expect(await post('/v1/responses', '{"model": "gpt-5', openai)).toMatchObject({
      status: 400,
      body: { error: { type: 'invalid_request_error' } }
    })
    const noVersion = { 'x-api-key': anthropic['x-api-key'] }
    const request = { model: 'claude-haiku-4-5', max_tokens: 100, messages }
    expect(await post('/v1/messages', request, noVersion)).toMatchObject({
      status: 400,
      body: {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' }
      }
    })
    expect(
      await post('/v1/messages', { ...request, max_tokens: undefined }, anthropic)
    ).toMatchObject({
      status: 400,
      body: { error: { message: 'max_tokens: Field required' } }
    })
    expect(
      await post(
        '/v1beta/models/gemini-3.5-flash:generateContent',
        { contents: [] },
        {
          'x-goog-api-key': 'g-test'
        }
      )
    ).toMatchObject({ status: 400, body: { error: { code: 400, status: 'INVALID_ARGUMENT' } } })
    expect(standIn.calls.length - before).toBe(6)
  })

  it('takes the Google key from ?key= as well as x-goog-api-key', async () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }
    const answer = await post('/v1beta/models/gemini-3.5-flash:generateContent?key=g-query', body)

    expect(answer.status).toBe(200)
    expect(lastCall()).toMatchObject({ model: 'gemini-3.5-flash', apiKey: 'g-query', text: 'hi' })
  })

  it('refuses json_object mode when no message mentions JSON, as OpenAI does', async () => {
    const model = createOpenAICompatible({
      name: 'openai',
      baseURL: standIn.openaiBaseUrl,
      apiKey: 'sk-test'
    })('gpt-4o-mini')
    const error = await rejection(
      generateText({
        model,
        prompt: 'Grade this diff.',
        output: Output.object({ schema: jsonSchema(SCHEMA) }),
        maxRetries: 0
      })
    )

    expect(error).toMatchObject({ statusCode: 400, isRetryable: false })
    expect((error as APICallError).message).toContain("must contain the word 'json'")
  })

  it('rejects a strict OpenAI schema that leaves a property optional', async () => {
    const loose: JSONSchema7 = { ...SCHEMA, required: ['score', 'reason'] }
    const model = createOpenAI({ baseURL: standIn.openaiBaseUrl, apiKey: 'sk-test' })(
      'gpt-5.4-nano'
    )
    const error = await rejection(
      generateText({
        model,
        prompt: PROMPT,
        output: Output.object({ schema: jsonSchema(loose), name: 'judgement' }),
        maxRetries: 0
      })
    )

    expect(error).toMatchObject({ statusCode: 400 })
    expect((error as APICallError).message).toBe(
      "Invalid schema for response_format 'judgement': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'tags'."
    )
  })

  it('answers after delayMs, and lets the SDK retry per retry-after-ms using the call index', async () => {
    const first = standIn.calls.length
    standIn.setScript((_call, index) =>
      index === first
        ? { status: 429, headers: { 'retry-after-ms': '30' } }
        : { delayMs: 50, then: { json: JUDGEMENT } }
    )
    const model = createOpenAI({ baseURL: standIn.openaiBaseUrl, apiKey: 'sk-test' }).chat('gpt-4o')
    const started = performance.now()
    const result = await generateText({
      model,
      prompt: PROMPT,
      output: Output.object({ schema: jsonSchema(SCHEMA), name: 'judgement' }),
      maxRetries: 2
    })

    expect(result.output).toEqual(JUDGEMENT)
    const [rateLimited, retried] = standIn.calls.slice(first)
    expect(standIn.calls.length - first).toBe(2)
    expect((retried?.receivedAt ?? 0) - (rateLimited?.receivedAt ?? 0)).toBeGreaterThanOrEqual(25)
    expect(performance.now() - started).toBeGreaterThanOrEqual(75)
  })

  it('gives RetryError once the SDK runs out of retries', async () => {
    standIn.setScript(() => ({ status: 503, headers: { 'retry-after-ms': '1' } }))
    const model = createOpenAI({ baseURL: standIn.openaiBaseUrl, apiKey: 'sk-test' })('gpt-5.4')
    const error = await rejection(generateText({ model, prompt: PROMPT, maxRetries: 1 }))

    expect(RetryError.isInstance(error)).toBe(true)
    const retryError = error as RetryError
    expect(retryError.reason).toBe('maxRetriesExceeded')
    expect(retryError.errors).toHaveLength(2)
    expect(retryError.lastError).toMatchObject({ statusCode: 503, isRetryable: true })
  })

  it('sends a { raw } body verbatim: truncated JSON is an APICallError with status 200', async () => {
    standIn.setScript(() => ({ raw: '{"id":"chatcmpl-1","choices":[{"mess' }))
    const model = createOpenAI({ baseURL: standIn.openaiBaseUrl, apiKey: 'sk-test' }).chat('gpt-4o')
    const error = await rejection(judge(model))

    expect(APICallError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({
      message: 'Invalid JSON response',
      statusCode: 200,
      isRetryable: false,
      responseBody: '{"id":"chatcmpl-1","choices":[{"mess'
    })
  })

  it('answers 500 with the thrown message when the script throws', async () => {
    standIn.setScript(() => {
      throw new Error('no answer for this prompt')
    })
    const model = createAnthropic({ baseURL: standIn.anthropicBaseUrl, apiKey: 'k' })(
      'claude-haiku-4-5'
    )
    const error = await rejection(judge(model))

    expect(error).toMatchObject({
      statusCode: 500,
      message: 'provider stand-in script failed: no answer for this prompt'
    })
  })

  it('does not validate output against a jsonSchema() without a validate function', async () => {
    // An AI SDK behaviour worth pinning: a mismatching answer comes back as result.output untouched,
    // so callers must validate it themselves.
    standIn.setScript(() => ({ json: { verdict: 'pass' } }))
    const model = createOpenAI({ baseURL: standIn.openaiBaseUrl, apiKey: 'k' }).chat('gpt-4o')
    const result = await judge(model)

    expect(result.output).toEqual({ verdict: 'pass' })
  })

  it('closes at once with a request still hanging, and the client sees a retryable error', async () => {
    const own = await startProviderStandIn(() => ({ hang: true }))
    const model = createOpenAI({ baseURL: own.openaiBaseUrl, apiKey: 'k' })('gpt-5.4-nano')
    const pending = rejection(judge(model))
    while (own.calls.length === 0) await new Promise(resolve => setTimeout(resolve, 5))

    const started = performance.now()
    await own.close()
    expect(performance.now() - started).toBeLessThan(500)
    const error = await pending
    expect(APICallError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ isRetryable: true })
    await own.close()
  })

  it('answers 404 for routes it does not play', async () => {
    const response = await fetch(`${standIn.url}/v1/embeddings`, { method: 'POST', body: '{}' })
    expect(response.status).toBe(404)
  })
})

describe('prompt caching, billed as each provider bills it', () => {
  let own: StandIn
  beforeEach(async () => {
    own = await startProviderStandIn(() => ({ json: JUDGEMENT }))
    return () => own.close()
  })

  async function send(path: string, body: unknown, headers: Record<string, string>) {
    const response = await fetch(`${own.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body)
    })
    expect(response.status).toBe(200)
    return (await response.json()) as { usage?: Record<string, unknown> } & Record<string, unknown>
  }
  /** About `count` tokens at four characters a token, distinct from other tests' prompts. */
  const text = (count: number, seed: string): string => `${seed} `.padEnd(count * 4, 'abcd')

  const gemini = (model: string, prompt: string) =>
    send(
      `/v1beta/models/${model}:generateContent`,
      { contents: [{ role: 'user', parts: [{ text: prompt }] }] },
      { 'x-goog-api-key': 'g-test' }
    )
  const openai = (prompt: string) =>
    send(
      '/v1/responses',
      { model: 'gpt-5.4-mini', input: [{ role: 'user', content: prompt }] },
      { authorization: 'Bearer sk-test' }
    )
  const claude = (
    system: readonly Record<string, unknown>[],
    user: string,
    model = 'claude-sonnet-4-6'
  ) =>
    send(
      '/v1/messages',
      {
        model,
        max_tokens: 100,
        system,
        messages: [{ role: 'user', content: user }]
      },
      { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' }
    )

  it('Gemini 3.5 Flash caches a repeated prefix from 4,096 tokens only; 3 Flash Preview from 1,024', async () => {
    // Gemini's caching page: 3.5 Flash 4,096 tokens; 3 Flash Preview 1,024.
    const middling = text(3000, 'gemini-middling')
    await gemini('gemini-3.5-flash', `${middling} first`)
    const short = await gemini('gemini-3.5-flash', `${middling} second`)
    expect(short.usageMetadata).not.toHaveProperty('cachedContentTokenCount')

    await gemini('gemini-3-flash-preview', `${middling} first`)
    const preview = await gemini('gemini-3-flash-preview', `${middling} second`)
    const previewUsage = preview.usageMetadata as Record<string, number>
    expect(previewUsage.cachedContentTokenCount).toBeGreaterThanOrEqual(2900)

    const long = text(5000, 'gemini-long')
    await gemini('gemini-3.5-flash', `${long} first`)
    const cached = await gemini('gemini-3.5-flash', `${long} second`)
    const usage = cached.usageMetadata as Record<string, number>
    // promptTokenCount includes the cached tokens (UsageMetadata: "includes the cached content").
    expect(usage.cachedContentTokenCount).toBeGreaterThanOrEqual(4096)
    expect(usage.cachedContentTokenCount).toBeLessThan(usage.promptTokenCount ?? 0)
  })

  it('OpenAI caches from 1,024 tokens in steps of 128, counted within input_tokens', async () => {
    const small = text(900, 'openai-small')
    await openai(`${small} first`)
    expect((await openai(`${small} second`)).usage).toMatchObject({
      input_tokens_details: { cached_tokens: 0 }
    })
    const large = text(3000, 'openai-large')
    await openai(`${large} first`)
    const usage = (await openai(`${large} second`)).usage as {
      input_tokens: number
      input_tokens_details: { cached_tokens: number }
    }
    const cached = usage.input_tokens_details.cached_tokens
    expect(cached % 128).toBe(0)
    expect(cached).toBeGreaterThanOrEqual(2944)
    expect(cached).toBeLessThanOrEqual(usage.input_tokens)
  })

  it('Anthropic writes at a breakpoint, reads it only once that request is answered, and bills input_tokens apart', async () => {
    const stable = {
      type: 'text',
      text: text(2000, 'claude-stable'),
      cache_control: { type: 'ephemeral' }
    }
    own.setScript(() => ({ delayMs: 150, then: { json: JUDGEMENT } }))
    const together = await Promise.all([claude([stable], 'diff A'), claude([stable], 'diff B')])
    for (const answer of together) {
      expect(answer.usage).toMatchObject({ cache_read_input_tokens: 0 })
      expect(answer.usage?.cache_creation_input_tokens).toBeGreaterThanOrEqual(2000)
    }
    const later = await claude([stable], 'diff C')
    expect(later.usage).toMatchObject({ cache_creation_input_tokens: 0 })
    expect(later.usage?.cache_read_input_tokens).toBeGreaterThanOrEqual(2000)
    // input_tokens count only what follows the last breakpoint read or written.
    expect(later.usage?.input_tokens).toBeLessThan(20)
  })

  it('Anthropic reads an entry written at a block up to 20 before a breakpoint, not further', async () => {
    const stable = { type: 'text', text: text(2000, 'claude-lookback') }
    const marked = { ...stable, cache_control: { type: 'ephemeral' } }
    const filler = (n: number, seed: string) =>
      Array.from({ length: n }, (_, i) => ({ type: 'text', text: `${seed} block ${String(i)}` }))
    await claude([marked, ...filler(1, 'first')], 'diff A')
    const near = await claude(
      [
        stable,
        ...filler(19, 'near'),
        { type: 'text', text: 'tail', cache_control: { type: 'ephemeral' } }
      ],
      'diff B'
    )
    expect(near.usage?.cache_read_input_tokens).toBeGreaterThanOrEqual(2000)
    const far = await claude(
      [
        stable,
        ...filler(20, 'far'),
        { type: 'text', text: 'tail', cache_control: { type: 'ephemeral' } }
      ],
      'diff C'
    )
    expect(far.usage).toMatchObject({ cache_read_input_tokens: 0 })
  })

  it("Anthropic caches from each model's minimum: 512 tokens for Opus 5, 1,024 for Sonnet 5, 4,096 for Haiku 4.5", async () => {
    const marked = (tokens: number, seed: string) => [
      { type: 'text', text: text(tokens, seed), cache_control: { type: 'ephemeral' } }
    ]
    const written = async (model: string, tokens: number) =>
      (await claude(marked(tokens, `minimum-${model}-${String(tokens)}`), 'diff', model)).usage
        ?.cache_creation_input_tokens
    expect(await written('claude-opus-5', 600)).toBeGreaterThanOrEqual(600)
    expect(await written('claude-opus-5', 400)).toBe(0)
    expect(await written('claude-sonnet-5', 1100)).toBeGreaterThanOrEqual(1100)
    expect(await written('claude-sonnet-5', 900)).toBe(0)
    expect(await written('claude-haiku-4-5', 3000)).toBe(0)
    expect(await written('claude-haiku-4-5', 4200)).toBeGreaterThanOrEqual(4200)
  })
})
