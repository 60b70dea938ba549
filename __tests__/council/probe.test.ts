import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { probeProvider } from '../../src/council/probe.js'
import type { Provider } from '../../src/rubric/model-id.js'
import { proxiedFetch } from '../../src/util/fetch.js'
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
