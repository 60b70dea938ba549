import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Repository } from '../helpers/action-run.js'
import { mcpClient } from '../helpers/mcp-client.js'

/**
 * The MCP `check` tool in a repository with several rubrics (docs/rubric.md#several-rubrics): an
 * agent that names no rubric gets what the required checks will say, rubric by rubric.
 */

let client: Client
let dir: string

const scoped = (paths: string, gate: string): string =>
  `---\npaths: [${paths}]\n---\n## Gates\n- \`${gate}\`\n`

beforeAll(async () => {
  const repo = new Repository({
    '.github/rubrics/payments.md': scoped(
      "'services/payments/**'",
      'test -f services/payments/tested'
    ),
    '.github/rubrics/docs.md': scoped("'docs/**'", 'touch docs-gate-ran'),
    'services/payments/charge.ts': 'export const charge = 1\n',
    'docs/guide.md': '# Guide\n'
  })
  repo.commit({ 'services/payments/charge.ts': 'export const charge = 2\n' }, 'Change the charge')
  dir = repo.dir
  client = await mcpClient(dir, {})
}, 60_000)

afterAll(async () => {
  await client.close()
})

interface SetOutput {
  verdict: string
  exit_code: number
  gates: { rubric?: string; command: string; status: string }[]
  rubrics: { name: string; check_run: string; verdict: string }[]
  feedback: string
}

describe('the check tool with several rubrics', () => {
  it('checks each rubric the change touches and names the others, with the worst verdict', async () => {
    const result = await client.callTool({ name: 'check', arguments: {} })
    expect(result.isError).toBeFalsy()
    const out = result.structuredContent as SetOutput
    expect([out.verdict, out.exit_code]).toEqual(['FAIL', 1])
    expect(out.rubrics).toEqual([
      {
        name: 'docs',
        check_run: 'rubric-council / docs',
        path: '.github/rubrics/docs.md',
        verdict: 'NOT_APPLICABLE'
      },
      {
        name: 'payments',
        check_run: 'rubric-council / payments',
        path: '.github/rubrics/payments.md',
        verdict: 'FAIL'
      }
    ])
    expect(out.gates).toEqual([
      expect.objectContaining({
        rubric: 'payments',
        command: 'test -f services/payments/tested',
        status: 'fail'
      })
    ])
    expect(out.feedback).toContain('## payments (.github/rubrics/payments.md)')
    expect(existsSync(join(dir, 'docs-gate-ran'))).toBe(false)
  })

  it('validates every rubric when none is named', async () => {
    const result = await client.callTool({ name: 'validate', arguments: {} })
    const out = result.structuredContent as { valid: boolean; messages: string[] }
    expect(out.valid).toBe(true)
    expect(out.messages.filter(m => m.endsWith('rubrics valid'))).toEqual(['2 of 2 rubrics valid'])
  })
})
