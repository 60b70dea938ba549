import { HttpClient } from '@actions/http-client'
import { fetch as undiciFetch, type Dispatcher } from 'undici'

type UndiciInput = Parameters<typeof undiciFetch>[0]
type UndiciInit = NonNullable<Parameters<typeof undiciFetch>[1]>

/**
 * `fetch` for the LLM providers, through the proxy the runner is configured with (`https_proxy`,
 * `http_proxy`, `no_proxy`, loopback never proxied), chosen per destination exactly as the GitHub
 * client chooses it, and sent by the same copy of undici. Node's own `fetch` ignores those
 * variables, so on a runner behind a proxy the judges could not be reached.
 */
export function proxiedFetch(): typeof globalThis.fetch {
  const client = new HttpClient()
  const dispatchers = new Map<string, Dispatcher | undefined>()
  return async (input, init) => {
    // Not `instanceof Request`: touching the global Request loads Node's own fetch.
    const url = new URL(typeof input === 'string' ? input : 'url' in input ? input.url : input.href)
    if (!dispatchers.has(url.origin)) {
      dispatchers.set(url.origin, client.getAgentDispatcher(url.href))
    }
    const dispatcher = dispatchers.get(url.origin)
    // undici's types describe the same WHATWG objects as the DOM library's, nominally distinct.
    const response = await undiciFetch(input as UndiciInput, {
      ...(init as UndiciInit | undefined),
      ...(dispatcher !== undefined && { dispatcher })
    })
    return response as unknown as Response
  }
}
