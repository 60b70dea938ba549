import { execFileSync } from 'node:child_process'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Repository } from '../helpers/action-run.js'
import { wireAnswer } from '../helpers/judge-answers.js'
import { mcpClient } from '../helpers/mcp-client.js'
import { startProviderStandIn, type StandIn } from '../helpers/provider-standin.js'

/**
 * `rubric-council mcp` over stdio, driven by the SDK's own client, which spawns the CLI from src/
 * (through tsx) as an agent spawns the installed one. Judges are played by the provider stand-in.
 */

const KEY = 'sk-test-mcp-0123456789abcdef'

let standIn: StandIn
let client: Client
let dir: string

beforeAll(async () => {
  standIn = await startProviderStandIn()
  const repo = new Repository({
    '.github/rubric.md':
      '---\ncouncil:\n  models: [openai:gpt-5.4-nano]\ndimensions: false\n---\n# Ranking\n\n## Gates\n- `test -f rank.ts`\n\n## Criteria\n- tested: The ranking is covered by tests\n',
    'broken.md': '---\ncouncil:\n  quorum: nine\n---\n## Criteria\n- a: A\n'
  })
  repo.commit(
    { 'rank.ts': 'export const rank = (xs: number[]) => [...xs].sort()\n' },
    'Add ranking'
  )
  dir = repo.dir
  client = await mcpClient(dir, {
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: standIn.openaiBaseUrl
  })
}, 60_000)

afterAll(async () => {
  await client.close()
  await standIn.close()
})

interface CheckOutput {
  verdict: string
  exit_code: number
  recommendation: string
  gates: { command: string; status: string }[]
  criteria: { id: string; status: string; votes: { reasoning: string }[] }[]
  findings: { title: string }[]
  feedback: string
}

describe('rubric-council mcp', () => {
  it('lists check and validate, each with its input and output schema', async () => {
    const { tools } = await client.listTools()
    expect(tools.map(t => t.name).sort()).toEqual(['check', 'validate'])
    const check = tools.find(t => t.name === 'check')
    // No base: which rubric is the base's is the server's to know, never the agent's to say.
    expect(Object.keys(check?.inputSchema.properties ?? {}).sort()).toEqual([
      'checker',
      'models',
      'rubric'
    ])
    expect(check?.outputSchema?.required).toEqual(
      expect.arrayContaining(['verdict', 'exit_code', 'gates', 'criteria', 'findings', 'feedback'])
    )
  })

  it('check answers the verdict as structured content: gates, criteria with reasons, findings, feedback', async () => {
    standIn.setScript(call => ({
      json: wireAnswer(call.schema, {
        fail: ['tested'],
        findings: [{ severity: 'major', title: 'No test for ties' }]
      })
    }))
    const result = await client.callTool({ name: 'check', arguments: {} })
    expect(result.isError).toBeFalsy()
    const output = result.structuredContent as CheckOutput
    expect(output).toMatchObject({ verdict: 'FAIL', exit_code: 1, recommendation: 'RETRY' })
    expect(output.gates).toEqual([
      { command: 'test -f rank.ts', status: 'pass', exit_code: 0, output: '' }
    ])
    expect(output.criteria.map(c => [c.id, c.status])).toEqual([['tested', 'FAIL']])
    expect(output.criteria[0]?.votes[0]?.reasoning).toBe('tested: checked against src/feature.ts')
    expect(output.findings.map(f => f.title)).toEqual(['No test for ties'])
    expect(output.feedback).toContain('Must-have criteria not met')
    expect(output.feedback).toContain('No test for ties')
  })

  it('check takes checker sugar, and gives PASS once the gate passes', async () => {
    const failing = await client.callTool({
      name: 'check',
      arguments: { checker: 'test -f done.txt' }
    })
    expect(failing.structuredContent).toMatchObject({ verdict: 'FAIL', exit_code: 1 })
    writeFileSync(join(dir, 'done.txt'), '')
    const passing = await client.callTool({
      name: 'check',
      arguments: { checker: 'test -f done.txt' }
    })
    expect(passing.structuredContent).toMatchObject({
      verdict: 'PASS',
      exit_code: 0,
      recommendation: 'ACCEPT'
    })
  })

  it('validate says what is wrong with a rubric, with file and line', async () => {
    const good = await client.callTool({ name: 'validate', arguments: {} })
    expect(good.structuredContent).toMatchObject({ valid: true })
    const bad = await client.callTool({ name: 'validate', arguments: { rubric: 'broken.md' } })
    const output = bad.structuredContent as { valid: boolean; messages: string[] }
    expect(output.valid).toBe(false)
    expect(output.messages.join('\n')).toMatch(/^broken\.md:3:/m)
  })

  it('reads no rubric outside the repository, whatever the agent asks', async () => {
    for (const name of ['check', 'validate']) {
      const result = await client.callTool({ name, arguments: { rubric: '../../../etc/passwd' } })
      expect(result.isError, name).toBe(true)
      expect(JSON.stringify(result.content)).toContain('is outside this repository')
      expect(JSON.stringify(result.content)).not.toContain('root:')
    }
  })

  it('attack: an agent that edits the rubric in the working tree does not change the verdict, and is told', async () => {
    standIn.setScript(call => ({ json: wireAnswer(call.schema, { fail: ['tested'] }) }))
    // The agent drops the criterion it cannot meet, and the gate with it.
    writeFileSync(
      join(dir, '.github/rubric.md'),
      '---\ncouncil:\n  models: [openai:gpt-5.4-nano]\ndimensions: false\n---\n# Ranking\n\n## Nice to Have\n- tested: The ranking is covered by tests\n'
    )
    try {
      const result = await client.callTool({ name: 'check', arguments: {} })
      const output = result.structuredContent as CheckOutput & {
        rubric_review: { source: string; weakened: boolean; changes: { text: string }[] }
      }
      expect(output).toMatchObject({ verdict: 'FAIL', exit_code: 1 })
      expect(output.gates.map(g => g.command)).toEqual(['test -f rank.ts'])
      expect(output.rubric_review).toMatchObject({ source: 'base', weakened: true })
      expect(output.rubric_review.changes.map(c => c.text).join('; ')).toContain('tested')
    } finally {
      execFileSync('git', ['checkout', '--', '.github/rubric.md'], { cwd: dir })
    }
  })

  it('attack: a rubric linked to a device or out of the repository is refused, and the server keeps serving', async () => {
    const repo = new Repository({ 'README.md': '# x\n' })
    mkdirSync(join(repo.dir, '.github'))
    symlinkSync('/dev/zero', join(repo.dir, '.github/rubric.md'))
    const linked = await mcpClient(repo.dir, {})
    try {
      for (const name of ['validate', 'check']) {
        const result = await linked.callTool({ name, arguments: {} })
        expect(JSON.stringify(result), name).toContain(
          '.github/rubric.md: error: the rubric file leads to /dev/zero, outside the repository'
        )
      }
      expect((await linked.listTools()).tools).toHaveLength(2)
    } finally {
      await linked.close()
    }
  })

  it('says a usage error as an error of the tool, and keeps serving', async () => {
    const result = await client.callTool({ name: 'check', arguments: { rubric: 'missing.md' } })
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result.content)).toContain('missing.md: error: rubric file not found')
    expect((await client.listTools()).tools).toHaveLength(2)
  })
})
