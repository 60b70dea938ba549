import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const ROOT = join(import.meta.dirname, '..', '..')

/**
 * The SDK's own client, connected over stdio to `rubric-council mcp` spawned from src/ (through
 * tsx) in `cwd`, as an agent spawns the installed one; `env` is all the server's environment.
 */
export async function mcpClient(cwd: string, env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' })
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [
        '--import',
        pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href,
        join(ROOT, 'src/bin.ts'),
        'mcp'
      ],
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env },
      stderr: 'pipe'
    })
  )
  return client
}
