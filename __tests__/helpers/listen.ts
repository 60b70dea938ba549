import type { Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface Listening {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly port: number
  /**
   * Stops the server. Open connections (keep-alive, a request left hanging, a tunnel) would keep
   * `server.close()` waiting forever, so they are ended too. The same promise on every call.
   */
  readonly close: () => Promise<void>
}

/** Starts `server` on a free port of 127.0.0.1, keeping track of its connections. */
export async function listenOnLoopback(server: Server): Promise<Listening> {
  const sockets = new Set<Socket>()
  server.on('connection', socket => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  let closing: Promise<void> | undefined
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () => {
      closing ??= new Promise<void>(resolve => {
        server.close(() => {
          resolve()
        })
        for (const socket of sockets) socket.destroy()
      })
      return closing
    }
  }
}
