import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const ROOT = join(import.meta.dirname, '..', '..')

/** The CLI from src/, through tsx. */
const FROM_SOURCE: readonly string[] = [
  process.execPath,
  '--import',
  pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href,
  join(ROOT, 'src/bin.ts')
]

/**
 * The SDK's own client, connected over stdio to `rubric-council mcp` spawned in `cwd`, as an agent
 * spawns the installed one; `env` is all the server's environment. `cli` is the command that runs
 * the CLI: from src/ by default, or an installed `rubric-council`.
 */
export async function mcpClient(
  cwd: string,
  env: Record<string, string>,
  cli: readonly string[] = FROM_SOURCE
): Promise<Client> {
  const [command = '', ...args] = cli
  const client = new Client({ name: 'test-agent', version: '1.0.0' })
  await client.connect(
    new StdioClientTransport({
      command,
      args: [...args, 'mcp'],
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env },
      stderr: 'pipe'
    })
  )
  return client
}
