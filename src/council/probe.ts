import type { ModelId, Provider } from '../rubric/model-id.js'
import { failed, ok, type Result } from '../util/result.js'
import { hasCredentials, providerEnvironment } from './judge-model.js'
import { PROVIDER_TABLE } from './providers/index.js'
import type { ProviderModule } from './providers/types.js'

type Environment = Readonly<Record<string, string | undefined>>

/** A probe waits this long for an answer; one that does not come counts as no answer. */
const PROBE_TIMEOUT_MS = 15_000

/** Why a provider's probe was not answered: its HTTP status when it gave one, in a sentence. */
export interface ProbeFailure {
  readonly status?: number
  readonly message: string
}

/** The server's address a provider's probe and window report go to, and the key they carry. */
interface Server {
  readonly url: string
  readonly apiKey: string | undefined
}

/** Where `module`'s judges are reached (`*_API_KEY`, `*_BASE_URL`), or why it cannot be. */
function serverOf(module: ProviderModule, env: Environment): Result<Server, ProbeFailure> {
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
  return ok({ url: probe.server?.(base) ?? base.replace(/\/+$/, ''), apiKey })
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
  const server = serverOf(module, env)
  if (!server.ok) return server
  const { probe } = module
  const said = `GET ${probe.path.replace(/\?.*$/, '')}`
  try {
    const response = await fetch(`${server.value.url}${probe.path}`, {
      headers: probe.headers(server.value.apiKey),
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

/**
 * The context window the server of `id`'s provider reports for its model (Ollama's `/api/show`:
 * docs/council.md#self-hosted-models), asked with the key and endpoint the judges use; undefined
 * when the provider reports none, or the server does not say (no answer, an error, no number).
 */
export async function reportedWindow(
  id: ModelId,
  env: Environment,
  fetch: typeof globalThis.fetch
): Promise<number | undefined> {
  const module = PROVIDER_TABLE[id.provider]
  const report = module.windowReport
  const server = serverOf(module, env)
  if (report === undefined || !server.ok) return undefined
  try {
    const response = await fetch(`${server.value.url}${report.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...module.probe.headers(server.value.apiKey) },
      body: JSON.stringify(report.body(id.model)),
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS)
    })
    if (!response.ok) {
      await response.body?.cancel()
      return undefined
    }
    return report.read(await response.json())
  } catch {
    // The judge's own request meets the same server, and says what is wrong with it.
    return undefined
  }
}
