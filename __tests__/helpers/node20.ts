import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

/**
 * Node 20, played by the Node running the tests with its version numbers replaced before anything
 * else loads: CI has only Node 24, and the check under test reads nothing but the version.
 */
const pretendNode20 = join(mkdtempSync(join(tmpdir(), 'rc-node20-')), 'node20.mjs')
writeFileSync(
  pretendNode20,
  `Object.defineProperty(process.versions, 'node', { value: '20.20.2' })
Object.defineProperty(process, 'version', { value: 'v20.20.2' })
`
)

/** `node <args>` on the pretend Node 20, in `cwd`, with only PATH in its environment. */
export async function onNode20(
  args: string[],
  cwd: string
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', pretendNode20, ...args],
      { cwd, env: { PATH: process.env.PATH ?? '' } }
    )
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

/** The one line bin/require-node.js prints on Node 20, whoever `what` is. */
export const NEEDS_24 =
  /^.+ needs Node 24 or later, and this is Node v20\.20\.2: install it with "nvm install 24", .+\n$/
