import { createServer } from 'node:http'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { proxiedFetch } from '../../src/util/fetch.js'
import { startConnectProxy, type ConnectProxy } from '../helpers/connect-proxy.js'
import { listenOnLoopback, type Listening } from '../helpers/listen.js'

let listening: Listening
let port: number
let proxy: ConnectProxy
const saved = { ...process.env }

beforeAll(async () => {
  const server = createServer((request, response) => {
    response.end(
      `served ${request.method ?? ''} ${request.url ?? ''} for ${request.headers.host ?? ''}`
    )
  })
  listening = await listenOnLoopback(server)
  port = listening.port
  proxy = await startConnectProxy()
})
afterAll(async () => {
  await proxy.close()
  await listening.close()
})
afterEach(() => {
  for (const name of [
    'HTTP_PROXY',
    'http_proxy',
    'HTTPS_PROXY',
    'https_proxy',
    'NO_PROXY',
    'no_proxy'
  ]) {
    if (saved[name] === undefined) Reflect.deleteProperty(process.env, name)
    else process.env[name] = saved[name]
  }
})

describe('proxiedFetch (the judges’ HTTP client)', () => {
  it('sends requests through HTTP_PROXY: a host only the proxy can reach answers', async () => {
    process.env.HTTP_PROXY = proxy.url
    const before = proxy.targets.length
    const response = await proxiedFetch()(`http://judge.test:${port}/v1/responses`, {
      method: 'POST',
      body: '{}'
    })
    expect(await response.text()).toBe(`served POST /v1/responses for judge.test:${port}`)
    expect(proxy.targets.slice(before)).toEqual([`judge.test:${port}`])
  })

  it('goes direct for hosts in NO_PROXY and for loopback addresses', async () => {
    process.env.HTTP_PROXY = proxy.url
    process.env.NO_PROXY = 'example.com, judge.test'
    const before = proxy.targets.length
    const fetch = proxiedFetch()
    // Not proxied, so judge.test must be resolved here, and cannot be.
    await expect(fetch(`http://judge.test:${port}/`)).rejects.toThrow()
    const direct = await fetch(new URL(`http://127.0.0.1:${port}/direct`))
    expect(await direct.text()).toBe(`served GET /direct for 127.0.0.1:${port}`)
    expect(proxy.targets.slice(before)).toEqual([])
  })

  it('without a proxy configured, fetches directly', async () => {
    const response = await proxiedFetch()(`http://127.0.0.1:${port}/plain`)
    expect(response.status).toBe(200)
    expect(await response.text()).toBe(`served GET /plain for 127.0.0.1:${port}`)
  })
})
