import { ANTHROPIC_MODELS } from './anthropic.js'
import { GOOGLE_MODELS } from './google.js'
import { OLLAMA_MODELS } from './ollama.js'
import { OPENAI_MODELS } from './openai.js'

/**
 * The cheap GET endpoints the bot's healing probe asks (src/council/probe.ts), as each service
 * answers them: the path, who must show a key and how, and the body of a 200. Each with its source.
 *
 * - OpenAI `GET /v1/models`: `Authorization: Bearer`, else 401 (the missing-key message the other
 *   endpoints give). https://platform.openai.com/docs/api-reference/models/list
 * - Anthropic `GET /v1/models`: `x-api-key`, else 401 "x-api-key header is required"; and
 *   `anthropic-version`, else 400 "anthropic-version: header is required".
 *   https://docs.anthropic.com/en/api/models-list, https://docs.anthropic.com/en/api/versioning
 *   OpenAI and Anthropic share the stand-in's `/v1`: a request with either Anthropic header is
 *   Anthropic's (no OpenAI client sends them).
 * - Gemini `GET /v1beta/models`: `x-goog-api-key` or `?key=`, else 401 as the stand-in's
 *   generateContent answers. https://ai.google.dev/api/models#method:-models.list
 * - OpenRouter `GET /api/v1/key`: `Authorization: Bearer`, else 401 "No auth credentials found".
 *   https://openrouter.ai/docs/api-reference/api-keys/get-current-key
 * - Ollama `GET /api/tags`: no key (a local server).
 *   https://github.com/ollama/ollama/blob/main/docs/api.md#list-local-models
 * - An OpenAI-compatible server `GET /v1/models` (vLLM, LiteLLM): no key unless it was started with
 *   one, as the stand-in's is not. https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html
 */

export type ProbeService =
  'openai' | 'anthropic' | 'google' | 'openrouter' | 'ollama' | 'compatible'

/** The protocol whose error bodies the service answers in. */
export type ProbeProtocol = 'openai-chat' | 'anthropic-messages' | 'google-generate' | 'ollama-chat'

export interface ProbeRoute {
  readonly service: ProbeService
  readonly protocol: ProbeProtocol
}

/** The probe a GET is, by its path (and for `/v1/models`, its headers); undefined for none. */
export function probeRouteOf(
  pathname: string,
  headers: Readonly<Record<string, string>>
): ProbeRoute | undefined {
  switch (pathname) {
    case '/v1/models':
      return headers['x-api-key'] !== undefined || headers['anthropic-version'] !== undefined
        ? { service: 'anthropic', protocol: 'anthropic-messages' }
        : { service: 'openai', protocol: 'openai-chat' }
    case '/v1beta/models':
      return { service: 'google', protocol: 'google-generate' }
    case '/openrouter/api/v1/key':
      return { service: 'openrouter', protocol: 'openai-chat' }
    case '/ollama/api/tags':
      return { service: 'ollama', protocol: 'ollama-chat' }
    case '/compatible/v1/models':
      return { service: 'compatible', protocol: 'openai-chat' }
  }
  return undefined
}

/** The key as the service reads it for this endpoint; undefined when it asks for none or has none. */
export function probeKeyOf(
  service: ProbeService,
  headers: Readonly<Record<string, string>>,
  url: URL
): string | undefined {
  const given = (value: string | null | undefined): string | undefined =>
    value === undefined || value === null || value.trim() === '' ? undefined : value
  const bearer = /^Bearer\s+(\S+)/i.exec(headers.authorization ?? '')?.[1]
  switch (service) {
    case 'anthropic':
      return given(headers['x-api-key'])
    case 'google':
      return given(headers['x-goog-api-key']) ?? given(url.searchParams.get('key'))
    default:
      return bearer
  }
}

/** The service's refusal of a probe as sent (a missing key or header), before any script. */
export function probeRefusal(
  service: ProbeService,
  key: string | undefined,
  headers: Readonly<Record<string, string>>
): { readonly status: number; readonly message: string } | undefined {
  switch (service) {
    case 'openai':
      return key === undefined
        ? {
            status: 401,
            message:
              "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
          }
        : undefined
    case 'anthropic':
      if (key === undefined) return { status: 401, message: 'x-api-key header is required' }
      return headers['anthropic-version'] === undefined
        ? { status: 400, message: 'anthropic-version: header is required' }
        : undefined
    case 'google':
      return key === undefined
        ? {
            status: 401,
            message:
              'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.'
          }
        : undefined
    case 'openrouter':
      return key === undefined ? { status: 401, message: 'No auth credentials found' } : undefined
    case 'ollama':
    case 'compatible':
      return undefined
  }
}

/** A 200's body, in the service's shape, listing the stand-in's models. */
export function probeAnswer(service: ProbeService): unknown {
  const created = 1_700_000_000
  switch (service) {
    case 'openai':
      return {
        object: 'list',
        data: Object.keys(OPENAI_MODELS).map(id => ({
          id,
          object: 'model',
          created,
          owned_by: 'system'
        }))
      }
    case 'anthropic': {
      const ids = Object.keys(ANTHROPIC_MODELS).slice(0, 1)
      return {
        data: ids.map(id => ({
          type: 'model',
          id,
          display_name: id,
          created_at: '2025-01-01T00:00:00Z'
        })),
        has_more: Object.keys(ANTHROPIC_MODELS).length > 1,
        first_id: ids[0] ?? null,
        last_id: ids.at(-1) ?? null
      }
    }
    case 'google':
      return {
        models: GOOGLE_MODELS.slice(0, 1).map(id => ({ name: `models/${id}`, displayName: id })),
        nextPageToken: 'next'
      }
    case 'openrouter':
      return {
        data: {
          label: 'sk-or-v1-stand-in',
          limit: null,
          usage: 0,
          is_free_tier: false,
          limit_remaining: null
        }
      }
    case 'ollama':
      return {
        models: OLLAMA_MODELS.map(name => ({
          name,
          model: name,
          modified_at: '2025-01-01T00:00:00Z'
        }))
      }
    case 'compatible':
      return {
        object: 'list',
        data: [{ id: 'served-model', object: 'model', created, owned_by: 'vllm' }]
      }
  }
}
