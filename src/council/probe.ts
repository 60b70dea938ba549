import type { Provider } from '../rubric/model-id.js'
import { failed, ok, type Result } from '../util/result.js'
import { hasCredentials, nonEmpty, ollamaServer } from './providers.js'
import { PROVIDER_SETTINGS } from './provider-settings.js'

type Environment = Readonly<Record<string, string | undefined>>

/** A probe waits this long for an answer; one that does not come counts as no answer. */
const PROBE_TIMEOUT_MS = 15_000

/**
 * The endpoint each provider's probe asks: the cheapest request that goes through its key check
 * and its front door, and costs no tokens. The base URLs without a variable are the AI SDK's own
 * defaults, which the judges use too.
 */
const PROBES: Readonly<
  Record<
    Provider,
    {
      readonly defaultBaseUrl?: string
      readonly path: string
      readonly headers: (key: string | undefined) => Record<string, string>
    }
  >
> = {
  // https://platform.openai.com/docs/api-reference/models/list
  openai: {
    defaultBaseUrl: 'https://api.openai.com/v1',
    path: '/models',
    headers: bearer
  },
  // https://docs.anthropic.com/en/api/models-list: `x-api-key` and `anthropic-version`.
  anthropic: {
    defaultBaseUrl: 'https://api.anthropic.com/v1',
    path: '/models?limit=1',
    headers: key => ({
      ...(key !== undefined && { 'x-api-key': key }),
      'anthropic-version': '2023-06-01'
    })
  },
  // https://ai.google.dev/api/models#method:-models.list: the key in `x-goog-api-key`.
  google: {
    defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    path: '/models?pageSize=1',
    headers: key => (key === undefined ? {} : { 'x-goog-api-key': key })
  },
  // https://openrouter.ai/docs/api-reference/api-keys/get-current-key: the key's own record,
  // which checks it (the model list does not).
  openrouter: { path: '/key', headers: bearer },
  // https://github.com/ollama/ollama/blob/main/docs/api.md#list-local-models, on the server's
  // address without its API's path.
  ollama: { path: '/api/tags', headers: bearer },
  // The OpenAI-compatible servers (vLLM, LiteLLM) list their models as OpenAI does.
  'openai-compatible': { path: '/models', headers: bearer }
}

function bearer(key: string | undefined): Record<string, string> {
  return key === undefined ? {} : { authorization: `Bearer ${key}` }
}

/** Why a provider's probe was not answered: its HTTP status when it gave one, in a sentence. */
export interface ProbeFailure {
  readonly status?: number
  readonly message: string
}

/**
 * Whether `provider` answers again: one GET of its cheapest endpoint (the model list, or the key's
 * own record), with the key and endpoint the judges use (`*_API_KEY`, `*_BASE_URL`). A 2xx is an
 * answer; a 429, a 5xx, a refused key or no answer in 15 seconds is not, said in a sentence that
 * never holds the key. Nothing is read of the body.
 */
export async function probeProvider(
  provider: Provider,
  env: Environment,
  fetch: typeof globalThis.fetch
): Promise<Result<void, ProbeFailure>> {
  const settings = PROVIDER_SETTINGS[provider]
  const probe = PROBES[provider]
  const key = settings.key === undefined ? undefined : nonEmpty(env[settings.key])
  if (settings.keyRequired && key === undefined) {
    return failed({ message: `${settings.key ?? 'its key'} is not set` })
  }
  const base = nonEmpty(env[settings.baseUrl]) ?? settings.defaultBaseUrl ?? probe.defaultBaseUrl
  if (base === undefined) return failed({ message: `${settings.baseUrl} is not set` })
  if (hasCredentials(base)) {
    return failed({ message: `${settings.baseUrl} holds a user name or password` })
  }
  const server = provider === 'ollama' ? ollamaServer(base) : base.replace(/\/+$/, '')
  const url = `${server}${probe.path}`
  const said = `GET ${probe.path.replace(/\?.*$/, '')}`
  try {
    const response = await fetch(url, {
      headers: probe.headers(key),
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS)
    })
    await response.body?.cancel()
    if (response.ok) return ok(undefined)
    return failed({
      status: response.status,
      message: `${said} answered ${response.status}`
    })
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError'
    return failed({
      message: timedOut
        ? `no answer to ${said} in ${PROBE_TIMEOUT_MS / 1000} s`
        : `${said} failed: ${error instanceof Error ? error.message : String(error)}`
    })
  }
}
