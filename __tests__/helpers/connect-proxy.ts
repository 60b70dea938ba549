import { createServer } from 'node:http'
import { connect, type Socket } from 'node:net'
import { listenOnLoopback } from './listen.js'

export interface ConnectProxy {
  /** `http://127.0.0.1:<port>`, for HTTP_PROXY / HTTPS_PROXY. */
  readonly url: string
  /** The `host:port` of every tunnel asked for, in order. */
  readonly targets: readonly string[]
  close(): Promise<void>
}

/**
 * An HTTP proxy speaking CONNECT, as undici's ProxyAgent uses it. Every tunnel goes to 127.0.0.1
 * at the port asked for, whatever the host: so a test can name a host that only the proxy can
 * reach (`openai.test`), and a request that arrives proves it went through the proxy.
 */
export async function startConnectProxy(): Promise<ConnectProxy> {
  const targets: string[] = []
  const upstreams = new Set<Socket>()
  const server = createServer((_request, response) => {
    response.writeHead(405).end('this proxy only tunnels (CONNECT)')
  })
  server.on('connect', (request: { url?: string }, client: Socket, head: Buffer) => {
    const target = request.url ?? ''
    targets.push(target)
    const upstream = connect(Number(target.slice(target.lastIndexOf(':') + 1)), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    upstreams.add(upstream)
    upstream.on('close', () => upstreams.delete(upstream))
    for (const socket of [client, upstream]) {
      socket.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
  })
  const listening = await listenOnLoopback(server)
  return {
    url: listening.url,
    targets,
    close: () => {
      for (const socket of upstreams) socket.destroy()
      return listening.close()
    }
  }
}
