import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { APICallError, generateText, jsonSchema, NoObjectGeneratedError, Output } from 'ai'
import { createOllama } from 'ollama-ai-provider-v2'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { judgeJsonSchema } from '../src/council/judge-schema.js'
import { startProviderStandIn, type StandIn } from './helpers/provider-standin.js'
import { record } from './helpers/providers/schema.js'
import { lines, parse } from './helpers/rubric.js'

/**
 * Each request rule of the providers that our requests could break, shown with the error the real
 * service answers. The rules and their sources are in `helpers/providers/`.
 */

let standIn: StandIn
beforeAll(async () => {
  globalThis.AI_SDK_LOG_WARNINGS = false
  // The calendar of the day these rules were read: models retiring later stay served here.
  standIn = await startProviderStandIn(() => ({ json: { ok: true } }), {
    today: () => '2026-11-27'
  })
})
afterAll(async () => {
  globalThis.AI_SDK_LOG_WARNINGS = undefined
  await standIn.close()
})

async function post(
  path: string,
  body: unknown,
  headers: Record<string, string>
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${standIn.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body)
  })
  return { status: response.status, body: await response.json() }
}

/** The error a promise rejects with; fails the test if it resolves. */
async function rejection(promise: Promise<unknown>): Promise<APICallError> {
  try {
    await promise
  } catch (error) {
    if (APICallError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected a rejection')
}

const object = (properties: Record<string, unknown>, required = Object.keys(properties)) => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties
})

describe('Anthropic Messages', () => {
  const headers = { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' }
  const request = (schema: unknown, extra: Record<string, unknown> = {}) => ({
    model: 'claude-sonnet-4-6',
    max_tokens: 1024,
    messages: [{ role: 'user', content: 'Grade this.' }],
    output_config: { format: { type: 'json_schema', schema } },
    ...extra
  })
  const rejected = (message: string, status = 400, type = 'invalid_request_error') => ({
    status,
    body: {
      type: 'error',
      error: { type, message },
      request_id: expect.stringMatching(/^req_/) as unknown
    }
  })

  it.each([
    [
      'an enum beside a type array (litellm#37881)',
      object({ verdict: { type: ['string', 'null'], enum: ['PASS', 'FAIL', null] } }),
      "output_config.format.schema: Invalid schema: Enum value 'PASS' does not match declared type '['string', 'null']'"
    ],
    [
      'an empty enum',
      object({ id: { type: 'string', enum: [] } }),
      'output_config.format.schema: Invalid schema: Enum must be a non-empty array'
    ],
    [
      'minimum and maximum',
      object({ score: { type: 'integer', minimum: 0, maximum: 10 } }),
      "output_config.format.schema: For 'integer' type, properties maximum, minimum are not supported"
    ],
    [
      'multipleOf',
      object({ score: { type: 'number', multipleOf: 0.5 } }),
      "output_config.format.schema: For 'number' type, property 'multipleOf' is not supported"
    ],
    [
      'minLength and maxLength',
      object({ title: { type: 'string', minLength: 1, maxLength: 80 } }),
      "output_config.format.schema: For 'string' type, properties maxLength, minLength are not supported"
    ],
    [
      'maxItems',
      object({ items: { type: 'array', items: { type: 'string' }, maxItems: 0 } }),
      "output_config.format.schema: For 'array' type, property 'maxItems' is not supported"
    ],
    [
      'minItems above 1',
      object({ items: { type: 'array', items: { type: 'string' }, minItems: 2 } }),
      "output_config.format.schema: For 'array' type, 'minItems' values other than 0 or 1 are not supported"
    ],
    [
      'uniqueItems',
      object({ items: { type: 'array', items: { type: 'string' }, uniqueItems: true } }),
      "output_config.format.schema: For 'array' type, property 'uniqueItems' is not supported"
    ],
    [
      'an object without additionalProperties: false',
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false"
    ],
    [
      'a property key outside ^[a-zA-Z0-9_.-]{1,64}$ (a letter outside ASCII)',
      object({ criteria: object({ prüfung: { type: 'string' } }) }),
      "output_config.format.schema.properties: Property keys should match pattern '^[a-zA-Z0-9_.-]{1,64}$'"
    ],
    [
      'more than 16 union-typed fields',
      object(
        Object.fromEntries(
          Array.from({ length: 17 }, (_, i) => [`f${i}`, { type: ['string', 'null'] }])
        )
      ),
      'Schemas contains too many parameters with union types (17 parameters with type arrays or anyOf). This causes exponential compilation cost. Reduce the number of nullable or union-typed parameters (limit: 16 parameters with unions).'
    ],
    [
      'more than 24 optional fields',
      object(
        Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`f${i}`, { type: 'string' }])),
        []
      ),
      'Schemas contains too many optional parameters (25), which would make grammar compilation inefficient. Reduce the number of optional parameters in your tool schemas (limit: 24).'
    ]
  ])('refuses %s', async (_, schema, message) => {
    expect(await post('/v1/messages', request(schema), headers)).toEqual(rejected(message))
  })

  it('accepts a nullable enum written as anyOf, and our own forms', async () => {
    const schema = object({
      verdict: { anyOf: [{ type: 'string', enum: ['PASS', 'FAIL'] }, { type: 'null' }] },
      items: { type: 'array', items: { type: 'string' }, minItems: 1 }
    })
    expect((await post('/v1/messages', request(schema), headers)).status).toBe(200)
  })

  it('refuses max_tokens above the model’s limit, naming the dated model', async () => {
    // The AI SDK lowers max_tokens for the models it knows; the raw request shows the rule.
    const body = { ...request(object({})), model: 'claude-haiku-4-5', max_tokens: 100_000 }
    expect(await post('/v1/messages', body, headers)).toEqual(
      rejected(
        'max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-haiku-4-5-20251001'
      )
    )
  })

  it('answers 404 for a retired model', async () => {
    const model = createAnthropic({ baseURL: standIn.anthropicBaseUrl, apiKey: 'sk-ant-test' })(
      'claude-sonnet-4-20250514'
    )
    const error = await rejection(generateText({ model, prompt: 'Grade this.', maxRetries: 0 }))
    expect(error).toMatchObject({
      statusCode: 404,
      isRetryable: false,
      message: 'model: claude-sonnet-4-20250514'
    })
  })

  it('refuses sampling parameters the newer models dropped, and temperature with top_p', async () => {
    const withModel = (model: string, extra: Record<string, unknown>) => ({
      model,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
      ...extra
    })
    expect(
      await post('/v1/messages', withModel('claude-sonnet-5', { temperature: 0.2 }), headers)
    ).toEqual(rejected('`temperature` is deprecated for this model.'))
    expect(
      await post(
        '/v1/messages',
        withModel('claude-sonnet-4-6', { temperature: 0.2, top_p: 0.9 }),
        headers
      )
    ).toEqual(
      rejected(
        '`temperature` and `top_p` cannot both be specified for this model. Please use only one.'
      )
    )
  })

  it('refuses more than four cache breakpoints', async () => {
    const block = { type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }
    const body = {
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      messages: [{ role: 'user', content: [block, block, block, block, block] }]
    }
    expect(await post('/v1/messages', body, headers)).toEqual(
      rejected('A maximum of 4 blocks with cache_control may be provided. Found 5.')
    )
  })
})

describe('OpenAI strict structured outputs', () => {
  const headers = { authorization: 'Bearer sk-test' }
  const request = (schema: unknown, name = 'judgement', extra: Record<string, unknown> = {}) => ({
    model: 'gpt-5.4-mini',
    input: 'Grade this.',
    text: { format: { type: 'json_schema', name, schema, strict: true } },
    ...extra
  })
  const rejected = (
    message: string,
    param = 'text.format.schema',
    code = 'invalid_json_schema'
  ) => ({
    status: 400,
    body: { error: { message, type: 'invalid_request_error', param, code } }
  })

  it.each([
    [
      'a property left out of required',
      object({ a: { type: 'string' }, b: { type: 'string' } }, ['a']),
      "Invalid schema for response_format 'judgement': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'b'."
    ],
    [
      'an object without additionalProperties: false',
      { type: 'object', properties: {}, required: [] },
      "Invalid schema for response_format 'judgement': In context=(), 'additionalProperties' is required to be supplied and to be false."
    ],
    [
      'a keyword strict mode does not permit',
      object({ title: { type: 'string', minLength: 1 } }),
      "Invalid schema for response_format 'judgement': In context=('properties', 'title'), 'minLength' is not permitted."
    ],
    [
      'an enum value of another type',
      object({ score: { type: 'integer', enum: [1, 'two'] } }),
      'Invalid schema for response_format \'judgement\': In context=(\'properties\', \'score\'), enum value "two" does not validate against {"type":"integer"}.'
    ],
    [
      'a root that is not an object',
      { type: 'array', items: { type: 'string' } },
      "Invalid schema for response_format 'judgement': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"array\"'."
    ],
    [
      'more than 10 levels of nesting',
      Array.from({ length: 11 }).reduce<Record<string, unknown>>(inner => object({ a: inner }), {
        type: 'string'
      }),
      "Invalid schema for response_format 'judgement': In context=('properties', 'a', 'properties', 'a', 'properties', 'a', 'properties', 'a', 'properties', 'a', 'properties', 'a', 'properties', 'a', 'properties', 'a', 'properties', 'a', 'properties', 'a'), the schema is nested 11 levels deep; at most 10 are allowed."
    ],
    [
      'more than 1,000 enum values',
      object({
        id: { type: 'string', enum: Array.from({ length: 1001 }, (_, i) => `c${i}`) }
      }),
      "Invalid schema for response_format 'judgement': Expected at most 1000 enum values in total within a single schema when using structured outputs, but received 1001. Consider reducing the number of enums, or use 'strict: false' to opt out of structured outputs."
    ],
    [
      'more than 120,000 characters of names and enum values, definition names counted',
      {
        ...object({ a: { $ref: `#/$defs/${'d'.repeat(60_000)}` } }),
        $defs: { ['d'.repeat(60_000)]: { type: 'string', enum: ['x'.repeat(60_000)] } }
      },
      "Invalid schema for response_format 'judgement': Expected at most 120000 characters of property names, definition names and enum values in total within a single schema when using structured outputs, but received 120001."
    ]
  ])('refuses %s', async (_, schema, message) => {
    expect(await post('/v1/responses', request(schema), headers)).toEqual(rejected(message))
  })

  it('refuses a schema name outside ^[a-zA-Z0-9_-]+$', async () => {
    expect(await post('/v1/responses', request(object({}), 'judge ment'), headers)).toEqual(
      rejected(
        "Invalid 'text.format.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
        'text.format.name',
        'invalid_value'
      )
    )
  })

  it('refuses temperature for a reasoning model', async () => {
    const model = createOpenAI({ baseURL: standIn.openaiBaseUrl, apiKey: 'sk-test' })(
      'gpt-5.4-mini'
    )
    // The SDK drops temperature for models it knows reason; the raw request shows the rule.
    expect(
      await post('/v1/responses', { model: 'gpt-5.4-mini', input: 'hi', temperature: 0.2 }, headers)
    ).toEqual(
      rejected(
        "Unsupported parameter: 'temperature' is not supported with this model.",
        'temperature',
        'unsupported_parameter'
      )
    )
    const result = await generateText({ model, prompt: 'hi', temperature: 0.2, maxRetries: 0 })
    expect((result.warnings ?? []).map(w => w.type)).toContain('unsupported')
  })

  it('with store: false, refuses an input item that refers to an earlier one; keeps what it is told', async () => {
    const reference = { type: 'item_reference', id: 'msg_0123' }
    expect(
      await post(
        '/v1/responses',
        { model: 'gpt-5.4-mini', input: [reference], store: false },
        headers
      )
    ).toEqual({
      status: 400,
      body: {
        error: {
          message:
            "Item with id 'msg_0123' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
          type: 'invalid_request_error',
          param: 'input',
          code: null
        }
      }
    })
    // The response echoes `store`: true unless the request said false.
    const kept = await post('/v1/responses', { model: 'gpt-5.4-mini', input: 'hi' }, headers)
    const notKept = await post(
      '/v1/responses',
      { model: 'gpt-5.4-mini', input: 'hi', store: false },
      headers
    )
    expect([kept.body, notKept.body]).toMatchObject([{ store: true }, { store: false }])
  })

  it('refuses a prompt_cache_key over 64 characters, and a breakpoint without its mode', async () => {
    expect(
      await post(
        '/v1/responses',
        { model: 'gpt-6.2-sol', input: 'hi', prompt_cache_key: 'k'.repeat(65) },
        headers
      )
    ).toEqual(
      rejected(
        "Invalid 'prompt_cache_key': string too long. Expected a string with maximum length 64, but got a string with length 65 instead.",
        'prompt_cache_key',
        'string_above_max_length'
      )
    )
    const part = { type: 'input_text', text: 'hi', prompt_cache_breakpoint: {} }
    expect(
      await post(
        '/v1/responses',
        { model: 'gpt-6.2-sol', input: [{ role: 'user', content: [part] }] },
        headers
      )
    ).toEqual(
      rejected(
        "Missing required parameter: 'input[0].content[0].prompt_cache_breakpoint.mode'.",
        'input[0].content[0].prompt_cache_breakpoint.mode',
        'missing_required_parameter'
      )
    )
  })

  it('from GPT-5.6 on, writes the whole input at a breakpoint of its own and bills it, unless the mode is explicit', async () => {
    const prompt = 'Every judge reads this same long shared text first. '.repeat(120)
    const input = (tail: string, breakpoint: boolean) => [
      {
        role: 'user',
        content: [
          {
            type: 'input_text',
            text: prompt,
            ...(breakpoint && { prompt_cache_breakpoint: { mode: 'explicit' } })
          },
          { type: 'input_text', text: tail }
        ]
      }
    ]
    const usage = async (body: Record<string, unknown>): Promise<unknown> =>
      ((await post('/v1/responses', body, headers)).body as { usage: unknown }).usage
    // Implicit (the default): the whole input is written, and a call that differs at its end
    // reads none of it.
    const implicit = await usage({ model: 'gpt-6-luna', input: input('call one', false) })
    const other = await usage({ model: 'gpt-6-luna', input: input('call two', false) })
    expect(implicit).toMatchObject({ input_tokens_details: { cached_tokens: 0 } })
    expect(other).toMatchObject({ input_tokens_details: { cached_tokens: 0 } })
    const written = (implicit as { input_tokens_details: { cache_write_tokens: number } })
      .input_tokens_details.cache_write_tokens
    expect(written).toBeGreaterThan(1024)
    // Explicit, with no breakpoint: nothing is written; with one, the marked part only, read next.
    const explicit = { prompt_cache_options: { mode: 'explicit' } }
    expect(
      await usage({ model: 'gpt-6.1-terra', input: input('call one', false), ...explicit })
    ).toMatchObject({ input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 } })
    const marked = await usage({ model: 'gpt-6.1-terra', input: input('one', true), ...explicit })
    const reads = await usage({ model: 'gpt-6.1-terra', input: input('two', true), ...explicit })
    const shared = (marked as { input_tokens_details: { cache_write_tokens: number } })
      .input_tokens_details.cache_write_tokens
    expect(shared).toBeGreaterThan(1024)
    expect(shared).toBeLessThan(written)
    expect(reads).toMatchObject({
      input_tokens_details: { cached_tokens: shared, cache_write_tokens: 0 }
    })
    // Earlier models write nothing, and say so.
    expect(await usage({ model: 'gpt-5.4-mini', input: input('x', false) })).toMatchObject({
      input_tokens_details: { cache_write_tokens: 0 }
    })
  })

  it('answers 404 model_not_found for an unknown or retired model', async () => {
    const model = createOpenAI({ baseURL: standIn.openaiBaseUrl, apiKey: 'sk-test' })('gpt-4-turbo')
    const error = await rejection(generateText({ model, prompt: 'hi', maxRetries: 0 }))
    expect(error).toMatchObject({
      statusCode: 404,
      isRetryable: false,
      message: 'The model `gpt-4-turbo` does not exist or you do not have access to it.'
    })
  })
})

describe('Gemini generateContent', () => {
  const headers = { 'x-goog-api-key': 'g-test' }
  const contents = [{ role: 'user', parts: [{ text: 'Grade this.' }] }]
  const request = (config: Record<string, unknown>) => ({
    contents,
    generationConfig: { responseMimeType: 'application/json', ...config }
  })
  const rejected = (message: string) => ({
    status: 400,
    body: { error: { code: 400, message, status: 'INVALID_ARGUMENT' } }
  })
  const path = '/v1beta/models/gemini-3.5-flash:generateContent'

  it('accepts type arrays, anyOf and additionalProperties in responseJsonSchema', async () => {
    const schema = object({
      a: { type: ['string', 'null'] },
      b: { anyOf: [{ type: 'integer' }, { type: 'null' }] }
    })
    expect((await post(path, request({ responseJsonSchema: schema }), headers)).status).toBe(200)
  })

  it('refuses const and empty enums in responseJsonSchema, without naming a field', async () => {
    for (const schema of [
      object({ a: { const: 'x' } }),
      object({ a: { type: 'string', enum: [] } })
    ])
      expect(await post(path, request({ responseJsonSchema: schema }), headers)).toEqual(
        rejected('Request contains an invalid argument.')
      )
  })

  it('refuses additionalProperties, type arrays and non-string enums in the older responseSchema', async () => {
    expect(
      await post(path, request({ responseSchema: object({ a: { type: 'string' } }) }), headers)
    ).toEqual(
      rejected(
        'Invalid JSON payload received. Unknown name "additionalProperties" at \'generation_config.response_schema\': Cannot find field.'
      )
    )
    const openApi = (properties: Record<string, unknown>) => ({ type: 'object', properties })
    expect(
      await post(
        path,
        request({ responseSchema: openApi({ a: { type: ['string', 'null'] } }) }),
        headers
      )
    ).toEqual(
      rejected(
        'Invalid value at \'generation_config.response_schema.properties.a.type\' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), ["string","null"]'
      )
    )
    expect(
      await post(
        path,
        request({ responseSchema: openApi({ a: { type: 'integer', enum: [1, 2] } }) }),
        headers
      )
    ).toEqual(
      rejected(
        "Invalid value at 'generation_config.response_schema.properties.a.enum[0]' (TYPE_STRING), 1"
      )
    )
  })

  it('answers 404 for a model that was shut down', async () => {
    expect(
      await post('/v1beta/models/gemini-2.5-flash:generateContent', { contents }, headers)
    ).toEqual({
      status: 404,
      body: {
        error: {
          code: 404,
          message:
            'This model models/gemini-2.5-flash is no longer available. Please update your code to use a newer model for the latest features and improvements.',
          status: 'NOT_FOUND'
        }
      }
    })
  })
})

describe('OpenRouter', () => {
  const ask = (
    schema: Record<string, unknown>,
    provider?: { require_parameters: boolean; only?: string[] }
  ) =>
    generateText({
      model: createOpenAICompatible({
        name: 'openrouter',
        baseURL: standIn.openrouterBaseUrl,
        apiKey: 'sk-or-test',
        supportsStructuredOutputs: true
      })('anthropic/claude-sonnet-4.6'),
      prompt: 'Grade this and answer in JSON.',
      output: Output.object({ schema: jsonSchema(schema) }),
      maxRetries: 0,
      ...(provider && { providerOptions: { openrouter: { provider } } })
    })
  const ANTHROPIC_ONLY = { require_parameters: true, only: ['anthropic'] }

  it('without require_parameters, may route to a provider that ignores the schema: prose comes back', async () => {
    const error = await ask(object({ ok: { type: 'boolean' } })).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(NoObjectGeneratedError.isInstance(error)).toBe(true)
    expect((error as NoObjectGeneratedError).text).toContain('```json')
  })

  it('with require_parameters alone, Claude may still come back in free-form JSON', async () => {
    const error = await ask(object({ ok: { type: 'boolean' } }), { require_parameters: true }).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(NoObjectGeneratedError.isInstance(error)).toBe(true)
    expect((error as NoObjectGeneratedError).text).toContain('```json')
  })

  it('routed to Anthropic only, with require_parameters, Anthropic’s rules apply, its error in metadata.raw', async () => {
    expect((await ask(object({ ok: { type: 'boolean' } }), ANTHROPIC_ONLY)).output).toEqual({
      ok: true
    })
    const error = await rejection(
      ask(object({ score: { type: 'integer', minimum: 0, maximum: 10 } }), ANTHROPIC_ONLY)
    )
    expect(error).toMatchObject({ statusCode: 400, isRetryable: false })
    expect(JSON.parse(error.responseBody ?? '')).toEqual({
      error: {
        message: 'Provider returned error',
        code: 400,
        metadata: {
          raw: JSON.stringify({
            type: 'error',
            error: {
              type: 'invalid_request_error',
              message:
                "output_config.format.schema: For 'integer' type, properties maximum, minimum are not supported"
            }
          }),
          provider_name: 'Anthropic'
        }
      },
      user_id: 'org_standin'
    })
  })
})

describe('Ollama', () => {
  const long = `Review this diff.\n${'+const line = 1\n'.repeat(3000)}THE LAST LINE OF THE DIFF`

  it('cuts a prompt longer than its default 4,096-token window, silently, keeping the start and end', async () => {
    const model = createOllama({ baseURL: `${standIn.ollamaBaseUrl}/api` })('llama3.1:8b')
    const result = await generateText({ model, prompt: long, maxRetries: 0 })
    expect(result.usage.inputTokens).toBe(4096)
    const seen = standIn.calls.at(-1)?.text ?? ''
    expect(seen.length).toBeLessThan(long.length / 2)
    expect(seen.startsWith('Review this diff.')).toBe(true)
    expect(seen.endsWith('THE LAST LINE OF THE DIFF')).toBe(true)
  })

  it('sees the whole prompt when the native API sets options.num_ctx', async () => {
    const model = createOllama({ baseURL: `${standIn.ollamaBaseUrl}/api` })('llama3.1:8b')
    await generateText({
      model,
      prompt: long,
      maxRetries: 0,
      providerOptions: { ollama: { options: { num_ctx: 32_768 } } }
    })
    expect(standIn.calls.at(-1)?.text).toBe(long)
  })

  it('ignores options.num_ctx on the OpenAI-compatible endpoint', async () => {
    const model = createOpenAICompatible({
      name: 'ollama',
      baseURL: `${standIn.ollamaBaseUrl}/v1`
    })('llama3.1:8b')
    await generateText({
      model,
      prompt: long,
      maxRetries: 0,
      providerOptions: { ollama: { options: { num_ctx: 32_768 } } }
    })
    expect(standIn.calls.at(-1)?.text.length).toBeLessThan(long.length / 2)
  })

  it('counts only the prompt tokens its KV cache did not hold, as some builds do', async () => {
    const model = createOllama({ baseURL: `${standIn.ollamaBaseUrl}/api` })('gpt-oss:20b')
    const prompt = `Grade this.\n${'+const line = 1\n'.repeat(400)}`
    const first = await generateText({ model, prompt, maxRetries: 0 })
    const again = await generateText({ model, prompt: `${prompt}Once more.`, maxRetries: 0 })
    expect(first.usage.inputTokens).toBe(Math.ceil(prompt.length / 4))
    expect(again.usage.inputTokens).toBeLessThan(10)
  })

  it('answers 404 for a model not pulled', async () => {
    expect(
      await post('/ollama/api/chat', { model: 'mistral:7b', messages: [], stream: false }, {})
    ).toEqual({
      status: 404,
      body: { error: 'model "mistral:7b" not found, try pulling it first' }
    })
  })
})

describe('reasoning parameters', () => {
  describe('OpenAI', () => {
    const headers = { authorization: 'Bearer sk-test' }
    const ask = (model: string, reasoning: Record<string, unknown>) =>
      post('/v1/responses', { model, input: 'hi', reasoning }, headers)
    const refused = (message: string, param: string, code: string) => ({
      status: 400,
      body: { error: { message, type: 'invalid_request_error', param, code } }
    })

    it('refuses reasoning.effort on a model that does not reason', async () => {
      expect(await ask('gpt-4.1', { effort: 'medium' })).toEqual(
        refused(
          "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
          'reasoning.effort',
          'unsupported_parameter'
        )
      )
    })

    it('refuses an effort the model does not take, naming those it does', async () => {
      expect(await ask('gpt-5.4-mini', { effort: 'minimal' })).toEqual(
        refused(
          "Unsupported value: 'reasoning.effort' does not support 'minimal' with this model. Supported values are: 'none', 'low', 'medium', 'high', and 'xhigh'.",
          'reasoning.effort',
          'unsupported_value'
        )
      )
      expect(await ask('o3', { effort: 'xhigh' })).toEqual(
        refused(
          "Unsupported value: 'reasoning.effort' does not support 'xhigh' with this model. Supported values are: 'low', 'medium', and 'high'.",
          'reasoning.effort',
          'unsupported_value'
        )
      )
      expect((await ask('gpt-5.4-mini', { effort: 'medium' })).status).toBe(200)
    })

    it('refuses reasoning.summary to an organization that is not verified', async () => {
      expect(await ask('gpt-5.4-mini', { effort: 'low', summary: 'detailed' })).toEqual(
        refused(
          'Your organization must be verified to generate reasoning summaries. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization. If you just verified, it can take up to 15 minutes for access to propagate.',
          'reasoning.summary',
          'unsupported_value'
        )
      )
    })

    it('refuses reasoning_effort on Chat Completions for a model that does not reason', async () => {
      const body = {
        model: 'gpt-4.1',
        messages: [{ role: 'user', content: 'hi' }],
        reasoning_effort: 'low'
      }
      expect(await post('/v1/chat/completions', body, headers)).toEqual(
        refused(
          "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
          'reasoning_effort',
          'unsupported_parameter'
        )
      )
    })
  })

  describe('Anthropic', () => {
    const headers = { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' }
    const ask = (model: string, extra: Record<string, unknown>) =>
      post(
        '/v1/messages',
        { model, max_tokens: 4096, messages: [{ role: 'user', content: 'hi' }], ...extra },
        headers
      )
    const refused = (message: string) => ({
      status: 400,
      body: {
        type: 'error',
        error: { type: 'invalid_request_error', message },
        request_id: expect.stringMatching(/^req_/) as unknown
      }
    })
    const budget = (tokens: number) => ({ thinking: { type: 'enabled', budget_tokens: tokens } })

    it('refuses a thinking budget below 1,024 or not below max_tokens', async () => {
      expect(await ask('claude-sonnet-4-5', budget(512))).toEqual(
        refused('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024')
      )
      expect(await ask('claude-sonnet-4-5', budget(4096))).toEqual(
        refused(
          '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size'
        )
      )
      expect((await ask('claude-sonnet-4-5', budget(2048))).status).toBe(200)
    })

    it('refuses a budget from 4.7 on, and adaptive thinking and the effort before 4.6', async () => {
      expect(await ask('claude-opus-4-7', budget(2048))).toEqual(
        refused(
          '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'
        )
      )
      expect(await ask('claude-haiku-4-5', { thinking: { type: 'adaptive' } })).toEqual(
        refused('adaptive thinking is not supported on this model')
      )
      expect(await ask('claude-haiku-4-5', { output_config: { effort: 'low' } })).toEqual(
        refused('This model does not support the effort parameter')
      )
      // 4.6 takes both.
      for (const extra of [
        budget(2048),
        { thinking: { type: 'adaptive' }, output_config: { effort: 'medium' } }
      ])
        expect((await ask('claude-sonnet-4-6', extra)).status).toBe(200)
    })

    it('refuses a temperature other than 1 with thinking', async () => {
      expect(
        await ask('claude-sonnet-4-6', { thinking: { type: 'adaptive' }, temperature: 0.2 })
      ).toEqual(
        refused('`temperature` may only be set to 1 when thinking is enabled or in adaptive mode')
      )
    })
  })

  describe('Gemini', () => {
    const headers = { 'x-goog-api-key': 'g-test' }
    const ask = (model: string, thinkingConfig: Record<string, unknown>) =>
      post(
        `/v1beta/models/${model}:generateContent`,
        {
          contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
          generationConfig: { thinkingConfig }
        },
        headers
      )
    const refused = (message: string) => ({
      status: 400,
      body: { error: { code: 400, message, status: 'INVALID_ARGUMENT' } }
    })

    it('refuses a thinking level on 2.5, and a level the model does not take', async () => {
      expect(await ask('gemini-2.5-pro', { thinkingLevel: 'medium' })).toEqual(
        refused('Thinking level is not supported for this model.')
      )
      expect(await ask('gemini-3.1-pro-preview', { thinkingLevel: 'minimal' })).toEqual(
        refused('Thinking level MINIMAL is not supported for this model.')
      )
      expect((await ask('gemini-2.5-pro', { thinkingBudget: 8192 })).status).toBe(200)
      expect((await ask('gemini-3.5-flash', { thinkingLevel: 'medium' })).status).toBe(200)
    })
  })

  describe('OpenRouter', () => {
    const ask = (model: string, requireParameters: boolean) =>
      post(
        '/openrouter/api/v1/chat/completions',
        {
          model,
          messages: [{ role: 'user', content: 'hi' }],
          reasoning: { effort: 'medium' },
          ...(requireParameters && { provider: { require_parameters: true } })
        },
        { authorization: 'Bearer sk-or-test' }
      )

    it('with require_parameters, has no endpoint for reasoning on a model that does not reason', async () => {
      expect(await ask('meta-llama/llama-4-maverick', true)).toEqual({
        status: 404,
        body: {
          error: {
            message: 'No endpoints found that can handle the requested parameters.',
            code: 404
          }
        }
      })
      expect((await ask('meta-llama/llama-4-maverick', false)).status).toBe(200)
      expect((await ask('openai/gpt-5.4-mini', true)).status).toBe(200)
    })
  })

  describe('Ollama', () => {
    const ask = (model: string, think: unknown) =>
      post(
        '/ollama/api/chat',
        { model, messages: [{ role: 'user', content: 'hi' }], stream: false, think },
        {}
      )

    it('refuses think for a model that cannot think; think: false is taken by all', async () => {
      expect(await ask('llama3.1:8b', true)).toEqual({
        status: 400,
        body: { error: '"llama3.1:8b" does not support thinking' }
      })
      expect((await ask('llama3.1:8b', false)).status).toBe(200)
      expect((await ask('qwen3:8b', true)).status).toBe(200)
    })
  })
})

describe('retired models, on the day they retire', () => {
  /** A stand-in of its own, whose calendar shows `day`. */
  async function on(
    day: string,
    path: string,
    body: unknown,
    headers: Record<string, string>
  ): Promise<{ status: number; body: unknown }> {
    const dated = await startProviderStandIn(() => ({ json: { ok: true } }), { today: () => day })
    try {
      const response = await fetch(`${dated.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body)
      })
      return { status: response.status, body: await response.json() }
    } finally {
      await dated.close()
    }
  }

  it('Anthropic: Sonnet 4.5 answers until 2026-11-29, then 404 `model: <id>` like any retired model', async () => {
    const headers = { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' }
    const body = {
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }]
    }
    expect((await on('2026-11-29', '/v1/messages', body, headers)).status).toBe(200)
    expect(await on('2026-11-30', '/v1/messages', body, headers)).toEqual({
      status: 404,
      body: {
        type: 'error',
        error: { type: 'not_found_error', message: 'model: claude-sonnet-4-5' },
        request_id: expect.stringMatching(/^req_/) as unknown
      }
    })
  })

  it('OpenAI: gpt-5-mini answers until 2026-12-10, then 404 model_not_found', async () => {
    const headers = { authorization: 'Bearer sk-test' }
    const body = { model: 'gpt-5-mini', input: 'hi' }
    expect((await on('2026-12-10', '/v1/responses', body, headers)).status).toBe(200)
    expect(await on('2026-12-11', '/v1/responses', body, headers)).toEqual({
      status: 404,
      body: {
        error: {
          message: 'The model `gpt-5-mini` does not exist or you do not have access to it.',
          type: 'invalid_request_error',
          param: null,
          code: 'model_not_found'
        }
      }
    })
  })

  it('OpenRouter: five cache breakpoints on Claude are refused with Anthropic’s error, passed on', async () => {
    const headers = { authorization: 'Bearer sk-or-test' }
    const part = { type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }
    const body = {
      model: 'anthropic/claude-sonnet-4.6',
      messages: [{ role: 'user', content: [part, part, part, part, part] }]
    }
    const path = '/openrouter/api/v1/chat/completions'
    const answer = await on('2026-11-29', path, body, headers)
    expect(answer.status).toBe(400)
    const raw = JSON.parse(
      String(record(record(record(answer.body)?.error)?.metadata)?.raw)
    ) as unknown
    expect(raw).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'A maximum of 4 blocks with cache_control may be provided. Found 5.'
      }
    })
    const four = { ...body, messages: [{ role: 'user', content: [part, part, part, part] }] }
    expect((await on('2026-11-29', path, four, headers)).status).toBe(200)
  })

  it('OpenRouter: a retired vendor model is an id the router no longer lists', async () => {
    const headers = { authorization: 'Bearer sk-or-test' }
    const body = {
      model: 'anthropic/claude-sonnet-4.5',
      messages: [{ role: 'user', content: 'hi' }]
    }
    const path = '/openrouter/api/v1/chat/completions'
    expect((await on('2026-11-29', path, body, headers)).status).toBe(200)
    expect(await on('2026-11-30', path, body, headers)).toEqual({
      status: 400,
      body: { error: { code: 400, message: 'anthropic/claude-sonnet-4.5 is not a valid model ID' } }
    })
  })
})

describe('the judge schema, under every strict stand-in’s rules', () => {
  /** Three checklist criteria, two with score bands, two dimensions; ids of every kind. */
  const SMALL = parse(
    lines(
      '---',
      'dimensions: { accuracy: 1, prüfbarkeit: { weight: 1, description: How testable it is } }',
      'criteria:',
      '  - { id: ranked, description: Ranked, score_ranges: { 0: low, 5: high } }',
      `  - { id: ${'x'.repeat(70)}, description: Long, score_ranges: { 0: low, 5: high } }`,
      '---',
      '## Criteria',
      '- tested: Tested',
      '- prüfung: Checked',
      '- __proto__: Odd'
    )
  )
  /** Sixty criteria, half with score bands, and the five default dimensions. */
  const LARGE = parse(
    lines(
      '---',
      'criteria:',
      ...Array.from(
        { length: 30 },
        (_, i) => `  - { id: banded-${i}, description: B${i}, score_ranges: { 0: low, 5: high } }`
      ),
      '---',
      '## Criteria',
      ...Array.from({ length: 30 }, (_, i) => `- criterion-number-${i}: Criterion ${i}`)
    )
  )
  const anthropic = { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' }
  const message = (schema: unknown) => ({
    model: 'claude-sonnet-4-6',
    max_tokens: 1024,
    messages: [{ role: 'user', content: 'Grade this.' }],
    output_config: { format: { type: 'json_schema', schema } }
  })

  it.each([
    ['3 checklist criteria, 2 with score bands, 2 dimensions', SMALL],
    ['60 criteria and 5 dimensions', LARGE]
  ])('%s: OpenAI strict, Anthropic, Gemini, OpenRouter and Ollama take it', async (_, rubric) => {
    const schema = judgeJsonSchema(rubric)
    const statuses = [
      await post('/v1/messages', message(schema), anthropic),
      await post(
        '/v1/responses',
        {
          model: 'gpt-5.4-mini',
          input: 'Grade this.',
          text: { format: { type: 'json_schema', name: 'judgement', schema, strict: true } }
        },
        { authorization: 'Bearer sk-test' }
      ),
      await post(
        '/v1/chat/completions',
        {
          model: 'gpt-5.4-mini',
          messages: [{ role: 'user', content: 'Grade this.' }],
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'judgement', schema, strict: true }
          }
        },
        { authorization: 'Bearer sk-test' }
      ),
      await post(
        '/v1beta/models/gemini-3.5-flash:generateContent',
        {
          contents: [{ role: 'user', parts: [{ text: 'Grade this.' }] }],
          generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema }
        },
        { 'x-goog-api-key': 'g-test' }
      ),
      await post(
        '/openrouter/api/v1/chat/completions',
        {
          model: 'anthropic/claude-sonnet-4.6',
          messages: [{ role: 'user', content: 'Grade this.' }],
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'judgement', schema, strict: true }
          },
          provider: { require_parameters: true, only: ['anthropic'] }
        },
        { authorization: 'Bearer sk-or-test' }
      ),
      await post(
        '/ollama/api/chat',
        {
          model: 'llama3.1:8b',
          messages: [{ role: 'user', content: 'Grade this.' }],
          format: schema,
          stream: false
        },
        {}
      )
    ].map(r => r.status)
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200])
  })

  it('counts the score enums once however many criteria there are: OpenAI’s 1,000 stay far off', () => {
    const enums = (rubric: typeof LARGE) =>
      (JSON.stringify(judgeJsonSchema(rubric)).match(/"enum":\[[^\]]*\]/g) ?? [])
        .map(e => (JSON.parse(`{${e}}`) as { enum: unknown[] }).enum.length)
        .reduce((a, b) => a + b, 0)
    expect(enums(LARGE)).toBe(enums(SMALL))
    expect(enums(LARGE)).toBeLessThan(40)
  })
})
