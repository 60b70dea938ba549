import type { Provider } from '../rubric/model-id.js'
import { failed, ok, type Result } from '../util/result.js'
import { hasCredentials, providerEnvironment } from './judge-model.js'
import { PROVIDER_TABLE } from './providers/index.js'

type Environment = Readonly<Record<string, string | undefined>>

/** A probe waits this long for an answer; one that does not come counts as no answer. */
const PROBE_TIMEOUT_MS = 15_000

/** Why a provider's probe was not answered: its HTTP status when it gave one, in a sentence. */
export interface ProbeFailure {
  readonly status?: number
  readonly message: string
}

/**
 * Whether `provider` answers again: one GET of its cheapest endpoint (its module's `probe`: the
 * model list, or the key's own record), with the key and endpoint the judges use (`*_API_KEY`,
 * `*_BASE_URL`). A 2xx is an answer; a 429, a 5xx, a refused key or no answer in 15 seconds is not,
 * said in a sentence that never holds the key. Nothing is read of the body.
 */
export async function probeProvider(
  provider: Provider,
  env: Environment,
  fetch: typeof globalThis.fetch
): Promise<Result<void, ProbeFailure>> {
  const module = PROVIDER_TABLE[provider]
  const { variables, probe } = module
  const { apiKey, baseURL } = providerEnvironment(module, env)
  if (variables.keyRequired && apiKey === undefined) {
    return failed({ message: `${variables.key} is not set` })
  }
  const base = baseURL ?? probe.defaultBaseUrl
  if (base === undefined) return failed({ message: `${variables.baseUrl} is not set` })
  if (hasCredentials(base)) {
    return failed({ message: `${variables.baseUrl} holds a user name or password` })
  }
  const server = probe.server?.(base) ?? base.replace(/\/+$/, '')
  const said = `GET ${probe.path.replace(/\?.*$/, '')}`
  try {
    const response = await fetch(`${server}${probe.path}`, {
      headers: probe.headers(apiKey),
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS)
    })
    await response.body?.cancel()
    if (response.ok) return ok(undefined)
    return failed({ status: response.status, message: `${said} answered ${response.status}` })
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError'
    return failed({
      message: timedOut
        ? `no answer to ${said} in ${PROBE_TIMEOUT_MS / 1000} s`
        : `${said} failed: ${error instanceof Error ? error.message : String(error)}`
    })
  }
}
