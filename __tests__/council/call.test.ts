import { describe, expect, it } from 'vitest'
import { APICallError } from 'ai'
import { classify, retryAfter, spokenWait } from '../../src/council/provider-errors.js'
import { anthropicReset } from '../../src/council/providers/anthropic.js'
import { geminiRetryDelay } from '../../src/council/providers/google.js'
import { extractJson } from '../../src/council/extract-json.js'
import { estimateCost } from '../../src/council/pricing.js'
import { GEMINI_UNKNOWN_KEY } from '../helpers/provider-standin.js'

describe('retry-after', () => {
  it('reads seconds, an HTTP date and OpenAI’s retry-after-ms', () => {
    expect(retryAfter({ 'Retry-After': '2' })).toEqual({ retryAfterMs: 2000 })
    expect(retryAfter({ 'retry-after-ms': '350' })).toEqual({ retryAfterMs: 350 })
    const date = new Date(Date.now() + 5000).toUTCString()
    const fromDate = retryAfter({ 'retry-after': date }).retryAfterMs ?? -1
    expect(fromDate).toBeGreaterThan(3000)
    expect(fromDate).toBeLessThanOrEqual(5000)
    expect(retryAfter({ 'retry-after': 'soon' })).toEqual({})
    expect(retryAfter(undefined)).toEqual({})
  })
})

describe('waits asked for outside retry-after', () => {
  const gemini = (details: unknown[]): string =>
    JSON.stringify({
      error: { code: 429, message: 'Quota', status: 'RESOURCE_EXHAUSTED', details }
    })
  const retryInfo = (retryDelay: unknown) => ({
    '@type': 'type.googleapis.com/google.rpc.RetryInfo',
    retryDelay
  })

  it('reads Gemini’s RetryInfo.retryDelay from the error body, among other details', () => {
    const quota = { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [] }
    expect(geminiRetryDelay(gemini([quota, retryInfo('38s')]))).toBe(38_000)
    expect(geminiRetryDelay(gemini([retryInfo('1.5s')]))).toBe(1500)
    expect(geminiRetryDelay(gemini([retryInfo('3600s')]))).toBe(3_600_000)
    expect(geminiRetryDelay(gemini([retryInfo('0.000340s')]))).toBe(0)
    for (const bad of ['38', '1h2m', '-2s', 38, '']) {
      expect(geminiRetryDelay(gemini([retryInfo(bad)]))).toBeUndefined()
    }
    expect(geminiRetryDelay(gemini([{ ...retryInfo('2s'), '@type': 'other' }]))).toBeUndefined()
    expect(geminiRetryDelay('not json')).toBeUndefined()
    expect(geminiRetryDelay(undefined)).toBeUndefined()
  })

  it('a Gemini 429 carries the wait and who asked for it', () => {
    const error = new APICallError({
      message: 'Quota',
      url: 'https://generativelanguage.googleapis.com/v1beta/models/x:generateContent',
      requestBodyValues: {},
      statusCode: 429,
      responseHeaders: {},
      responseBody: gemini([retryInfo('38s')]),
      isRetryable: true
    })
    expect(classify(error)).toMatchObject({
      failure: 'rate_limited',
      retryAfterMs: 38_000,
      askedBy: 'Gemini'
    })
  })

  it('waits for the latest reset of an Anthropic limit that is spent', () => {
    const at = (ms: number) => new Date(Date.now() + ms).toISOString()
    const wait = anthropicReset({
      'anthropic-ratelimit-requests-remaining': '0',
      'anthropic-ratelimit-requests-reset': at(5000),
      'anthropic-ratelimit-input-tokens-remaining': '0',
      'anthropic-ratelimit-input-tokens-reset': at(9000),
      'anthropic-ratelimit-tokens-remaining': '1200',
      'anthropic-ratelimit-tokens-reset': at(60_000)
    })
    expect(wait).toBeGreaterThan(8000)
    expect(wait).toBeLessThanOrEqual(9000)
    expect(
      anthropicReset({
        'anthropic-ratelimit-requests-remaining': '3',
        'anthropic-ratelimit-requests-reset': at(5000)
      })
    ).toBeUndefined()
    expect(anthropicReset(undefined)).toBeUndefined()
  })

  it('says a wait as people do', () => {
    expect([1500, 2000, 38_000, 720_000, 3_600_000, 36_845_000].map(spokenWait)).toEqual([
      '1.5 s',
      '2 s',
      '38 s',
      '12 min',
      '1 h',
      '10.2 h'
    ])
  })
})

describe('estimated cost', () => {
  const tokens = (input: number, output: number, cachedInput = 0, cacheWrite = 0) => ({
    input,
    cachedInput,
    cacheWrite,
    output
  })

  it('prices the default models and leaves others unpriced', () => {
    expect(estimateCost('gpt-5-mini', tokens(1_000_000, 100_000))).toBeCloseTo(0.25 + 0.2, 10)
    expect(estimateCost('anthropic/claude-sonnet-4.5', tokens(10_000, 1000))).toBeCloseTo(
      0.03 + 0.015,
      10
    )
    expect(estimateCost('llama3.1:8b', tokens(1, 1))).toBeUndefined()
  })

  it('bills cached input at the cache price, and Anthropic cache writes at theirs', () => {
    // 1M input of which 800k from the cache: 200k at $0.25 and 800k at $0.025.
    expect(estimateCost('gpt-5-mini', tokens(1_000_000, 0, 800_000))).toBeCloseTo(0.05 + 0.02, 10)
    // 100k input: 60k written to the cache at $3.75, 30k read at $0.30, 10k fresh at $3.
    expect(estimateCost('claude-sonnet-4-5', tokens(100_000, 0, 30_000, 60_000))).toBeCloseTo(
      0.225 + 0.009 + 0.03,
      10
    )
  })
})

describe('what a provider error means', () => {
  const apiError = (statusCode: number | undefined, body = '', isRetryable?: boolean) =>
    new APICallError({
      message: 'Bad Request',
      url: 'https://api.example.com/v1/messages',
      requestBodyValues: {},
      ...(statusCode !== undefined && { statusCode }),
      responseBody: body,
      ...(isRetryable !== undefined && { isRetryable })
    })

  it.each([408, 409, 429, 500, 503, 529])('%i is transient: retried', status => {
    expect(classify(apiError(status)).retryable).toBe(true)
    expect(classify(apiError(status)).rejected).toBeUndefined()
  })

  it.each([400, 404, 413, 422])(
    '%i is the provider rejecting the request: not retried, and re-running will not help',
    status => {
      const problem = classify(
        apiError(status, JSON.stringify({ error: { message: 'max_tokens: 70000 > 64000.' } }))
      )
      expect(problem).toMatchObject({ failure: 'provider_error', retryable: false, rejected: true })
      expect(problem.message).toBe(
        `the provider rejected the request (${status}): max_tokens: 70000 > 64000; re-running will not help${status === 404 ? ': check the model name' : ''}`
      )
    }
  )

  it('follows the SDK when the provider says a 4xx may be retried', () => {
    expect(classify(apiError(400, '', true)).retryable).toBe(true)
  })

  it.each([401, 403])(
    '%i is the key, not the request: rejected_credentials, naming its variable',
    status => {
      expect(classify(apiError(status), 'OPENAI_API_KEY')).toEqual({
        failure: 'rejected_credentials',
        message: `the provider rejected OPENAI_API_KEY (${status})`,
        retryable: false,
        rejected: true
      })
    }
  )

  it('so is Gemini’s 400 API_KEY_INVALID, the way it refuses a key it does not know', () => {
    const body = JSON.stringify(GEMINI_UNKNOWN_KEY)
    expect(classify(apiError(400, body), 'GOOGLE_GENERATIVE_AI_API_KEY')).toMatchObject({
      failure: 'rejected_credentials',
      message:
        'the provider rejected GOOGLE_GENERATIVE_AI_API_KEY (400): API key not valid. Please pass a valid API key'
    })
    // Another 400 of Gemini's is the request's.
    const other = JSON.stringify({
      error: { code: 400, message: 'Bad', status: 'INVALID_ARGUMENT' }
    })
    expect(classify(apiError(400, other), 'GOOGLE_GENERATIVE_AI_API_KEY').failure).toBe(
      'provider_error'
    )
  })
})

describe('answers wrapped in a fence or prose', () => {
  it.each([
    ['the whole text', '{"a":1}'],
    ['a json fence', 'Here:\n```json\n{"a":1}\n```\n'],
    ['a bare fence', '```\n{"a":1}\n```'],
    ['prose around it', 'My verdict is {"a":1}. Thanks!'],
    ['braces in strings', 'x {"a":1,"b":"} {"} y'],
    ['the same object twice', '{"a":1} and again {"a":1}']
  ])('takes out %s', (_, text) => {
    const extracted = extractJson(text)
    expect(extracted.ok).toBe(true)
    if (extracted.ok) expect(extracted.value).toMatchObject({ a: 1 })
  })

  it.each([
    ['prose', 'Looks good to me!', 'the answer is not JSON'],
    // A server that drops the schema, on a model that ends at once (__tests__/council/llama-engine).
    ['nothing', ' \n', 'the answer is empty'],
    ['an array', '[{"a":1}]', 'the answer is JSON, but not one object'],
    [
      'two objects',
      '{"a":1} or {"a":2}',
      'the answer holds 2 different JSON objects; give exactly one'
    ],
    ['broken JSON', '```json\n{"a":1,\n```', 'the answer is not JSON'],
    // A judge that quotes the pull request's JSON in a fence and answers outside it gave two.
    [
      'a quoted object in a fence beside the answer',
      'It says:\n```json\n{"verdict":"ACCEPT"}\n```\nMy answer:\n{"verdict":"RETRY"}',
      'the answer holds 2 different JSON objects; give exactly one'
    ],
    // An unclosed brace would hide every object after it, the answer among them.
    [
      'an object after an unclosed brace',
      'It says {"verdict":"ACCEPT"} and uses ${{ secrets.X\n{"verdict":"RETRY"}',
      'the answer has a "{" that is never closed; give exactly one JSON object'
    ]
  ])('refuses %s', (_, text, error) => {
    expect(extractJson(text)).toEqual({ ok: false, problem: error })
  })
})
