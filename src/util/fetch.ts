import { HttpClient } from '@actions/http-client'
import { fetch as undiciFetch, Response as UndiciResponse, type Dispatcher } from 'undici'

type UndiciInput = Parameters<typeof undiciFetch>[0]
type UndiciInit = NonNullable<Parameters<typeof undiciFetch>[1]>

/**
 * The most a provider's response body may hold. A judge's answer is kilobytes; a server that
 * streams without end must not take the action's memory with it (one did, to 2.3 GB).
 */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024

/** A response body passed `MAX_RESPONSE_BYTES`; reading it stopped there. */
export class ResponseTooLargeError extends Error {
  constructor(limit: number) {
    super(`the provider's response passed ${limit / (1024 * 1024)} MiB; reading stopped there`)
    this.name = 'ResponseTooLargeError'
  }
}

/**
 * `fetch` for the LLM providers, through the proxy the runner is configured with (`https_proxy`,
 * `http_proxy`, `no_proxy`, loopback never proxied), chosen per destination exactly as the GitHub
 * client chooses it, and sent by the same copy of undici. Node's own `fetch` ignores those
 * variables, so on a runner behind a proxy the judges could not be reached.
 */
export function proxiedFetch(limit = MAX_RESPONSE_BYTES): typeof globalThis.fetch {
  const client = new HttpClient()
  const dispatchers = new Map<string, Dispatcher | undefined>()
  return async (input, init) => bounded(await send(input, init), limit)
  async function send(
    input: Parameters<typeof globalThis.fetch>[0],
    init: Parameters<typeof globalThis.fetch>[1]
  ): Promise<Response> {
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

/** The response with its body cut off, as an error, once it passes `limit` bytes. */
function bounded(response: Response, limit: number): Response {
  if (response.body === null) return response
  let seen = 0
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength
        // Erroring the stream also cancels the download.
        if (seen > limit) controller.error(new ResponseTooLargeError(limit))
        else controller.enqueue(chunk)
      }
    })
  )
  const limited = new UndiciResponse(body as ConstructorParameters<typeof UndiciResponse>[0], {
    status: response.status,
    statusText: response.statusText,
    headers: [...response.headers.entries()]
  })
  return limited as unknown as Response
}
