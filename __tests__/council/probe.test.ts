import { createServer } from 'node:http'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { probeProvider, reportedWindow } from '../../src/council/probe.js'
import { parseModelId, type ModelId, type Provider } from '../../src/rubric/model-id.js'
import { proxiedFetch } from '../../src/util/fetch.js'
import { listenOnLoopback, type Listening } from '../helpers/listen.js'
import { startProviderStandIn, type StandIn } from '../helpers/provider-standin.js'

/**
 * The healing probe (src/council/probe.ts) against the provider stand-in, which answers each
 * provider's cheap endpoint with that API's path, key rules and status codes.
 */

let providers: StandIn
beforeAll(async () => {
  providers = await startProviderStandIn()
})
beforeEach(() => {
  providers.setProbeScript(() => 'answer')
})
afterAll(async () => {
  await providers.close()
})

const KEY = 'sk-probe-test-0123456789'
const fetch = proxiedFetch()

/** Each provider's key and endpoint variables, pointed at the stand-in. */
const ENV = (): Record<Provider, Record<string, string>> => ({
  openai: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: providers.openaiBaseUrl },
  anthropic: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: providers.anthropicBaseUrl },
  google: {
    GOOGLE_GENERATIVE_AI_API_KEY: KEY,
    GOOGLE_GENERATIVE_AI_BASE_URL: providers.googleBaseUrl
  },
  openrouter: { OPENROUTER_API_KEY: KEY, OPENROUTER_BASE_URL: providers.openrouterBaseUrl },
  ollama: { OLLAMA_BASE_URL: `${providers.ollamaBaseUrl}/v1` },
  'openai-compatible': { OPENAI_COMPATIBLE_BASE_URL: providers.compatibleBaseUrl }
})

describe('probeProvider', () => {
  it.each([
    ['openai', 'openai', '/v1/models', KEY],
    ['anthropic', 'anthropic', '/v1/models?limit=1', KEY],
    ['google', 'google', '/v1beta/models?pageSize=1', KEY],
    ['openrouter', 'openrouter', '/openrouter/api/v1/key', KEY],
    ['ollama', 'ollama', '/ollama/api/tags', undefined],
    ['openai-compatible', 'compatible', '/compatible/v1/models', undefined]
  ] as const)(
    '%s: one GET of its cheap endpoint, with the key where the API reads it',
    async (provider, service, path, apiKey) => {
      const before = providers.probes.length
      const answer = await probeProvider(provider, ENV()[provider], fetch)
      expect(answer).toEqual({ ok: true, value: undefined })
      expect(providers.probes.slice(before)).toMatchObject([{ service, path, apiKey }])
      expect(providers.calls).toEqual([])
    }
  )

  it('sends Anthropic the anthropic-version it requires', async () => {
    await probeProvider('anthropic', ENV().anthropic, fetch)
    expect(providers.probes.at(-1)?.headers['anthropic-version']).toBe('2023-06-01')
    // Without it, Anthropic refuses: 400.
    const bare = await fetch(`${providers.anthropicBaseUrl}/models`, {
      headers: { 'x-api-key': KEY }
    })
    expect([bare.status, await bare.json()]).toMatchObject([
      400,
      { type: 'error', error: { message: 'anthropic-version: header is required' } }
    ])
  })

  it.each([429, 500, 503, 529])('a %s is no answer, said with its status', async status => {
    providers.setProbeScript(() => ({ status }))
    expect(await probeProvider('openai', ENV().openai, fetch)).toEqual({
      ok: false,
      problem: { status, message: `GET /models answered ${status}` }
    })
  })

  it('a key the provider does not take is no answer: 401 from the stand-in, as from the API', async () => {
    const response = await fetch(`${providers.openaiBaseUrl}/models`)
    expect(response.status).toBe(401)
    providers.setProbeScript(() => ({ status: 401 }))
    const answer = await probeProvider('google', ENV().google, fetch)
    expect(answer.ok ? 'answered' : answer.problem.message).toBe('GET /models answered 401')
  })

  it('asks nothing without the key a provider requires, and says which', async () => {
    const before = providers.probes.length
    expect(await probeProvider('anthropic', {}, fetch)).toEqual({
      ok: false,
      problem: { message: 'ANTHROPIC_API_KEY is not set' }
    })
    expect(providers.probes.length).toBe(before)
  })

  it('never sends a key to an endpoint with a user name or password in it, nor says it', async () => {
    const answer = await probeProvider(
      'openai',
      { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: 'https://user:secret@example.test/v1' },
      fetch
    )
    expect(answer).toEqual({
      ok: false,
      problem: { message: 'OPENAI_BASE_URL holds a user name or password' }
    })
  })
})

/**
 * Ollama's `/api/show` (https://github.com/ollama/ollama/blob/main/docs/api.md#show-model-information),
 * played by a server that answers what each test scripts and records what it was asked.
 */
describe('reportedWindow', () => {
  let answer: { status: number; body: unknown } = { status: 200, body: {} }
  const asked: { method: string; path: string; body: string; authorization?: string }[] = []
  let ollama: Listening
  beforeAll(async () => {
    const server = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk: Buffer) => (body += chunk.toString()))
      req.on('end', () => {
        const { authorization } = req.headers
        asked.push({
          method: req.method ?? '',
          path: req.url ?? '',
          body,
          ...(authorization !== undefined && { authorization })
        })
        res.writeHead(answer.status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(answer.body))
      })
    })
    ollama = await listenOnLoopback(server)
  })
  afterAll(async () => {
    await ollama.close()
  })

  const id = (text: string): ModelId => {
    const parsed = parseModelId(text)
    if (!parsed.ok) throw new Error(parsed.problem)
    return parsed.value
  }
  const info = (modelInfo: unknown) => ({
    status: 200,
    body: { details: {}, model_info: modelInfo }
  })

  it('reads the window from model_info, by the model’s architecture, on the server’s address', async () => {
    answer = info({ 'general.architecture': 'qwen3', 'qwen3.context_length': 40_960 })
    const before = asked.length
    const env = { OLLAMA_BASE_URL: `${ollama.url}/v1`, OLLAMA_API_KEY: 'ollama-key-0123456789' }
    expect(await reportedWindow(id('ollama:qwen3:8b'), env, fetch)).toBe(40_960)
    expect(asked.slice(before)).toEqual([
      {
        method: 'POST',
        path: '/api/show',
        body: JSON.stringify({ model: 'qwen3:8b' }),
        authorization: 'Bearer ollama-key-0123456789'
      }
    ])
  })

  it.each([
    ['no model_info', { status: 200, body: { details: {} } }],
    [
      'another architecture’s key',
      info({ 'general.architecture': 'qwen3', 'llama.context_length': 8192 })
    ],
    ['a string', info({ 'general.architecture': 'llama', 'llama.context_length': '8192' })],
    ['zero', info({ 'general.architecture': 'llama', 'llama.context_length': 0 })],
    ['a fraction', info({ 'general.architecture': 'llama', 'llama.context_length': 8192.5 })],
    ['past 2^53', info({ 'general.architecture': 'llama', 'llama.context_length': 2 ** 60 })],
    [
      'a 404 (a model not pulled)',
      { status: 404, body: { error: 'model "x" not found, try pulling it first' } }
    ],
    ['not JSON', { status: 200, body: undefined }]
  ])(
    '%s: no window, and no failure (the judge’s own request says what is wrong)',
    async (_, given) => {
      answer = given
      expect(
        await reportedWindow(id('ollama:x'), { OLLAMA_BASE_URL: ollama.url }, fetch)
      ).toBeUndefined()
    }
  )

  it('asks nothing of a provider that reports no window, nor of a server not running', async () => {
    const before = asked.length
    const env = { OPENAI_COMPATIBLE_BASE_URL: ollama.url }
    expect(await reportedWindow(id('openai-compatible:m'), env, fetch)).toBeUndefined()
    expect(asked.length).toBe(before)
    const closed = { OLLAMA_BASE_URL: 'http://127.0.0.1:9' }
    expect(await reportedWindow(id('ollama:x'), closed, fetch)).toBeUndefined()
  })
})
