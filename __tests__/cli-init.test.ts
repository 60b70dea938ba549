import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { describe, expect, it } from 'vitest'
import type { CliIo } from '../src/cli/io.js'
import { RUBRIC_FILE, WORKFLOW_FILE } from '../src/cli/init.js'
import { main } from '../src/cli.js'
import { parse } from './helpers/rubric.js'

async function cli(
  argv: string[],
  cwd: string
): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = []
  const err: string[] = []
  const io: CliIo = { stdout: l => out.push(l), stderr: l => err.push(l), env: {}, cwd }
  return { code: await main(argv, io), out, err }
}

describe('rubric-council init', () => {
  it('writes a valid starter rubric, with the project’s test command as a gate, and a workflow', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-init-'))
    writeFileSync(join(dir, 'package.json'), '{}')
    const { code, out } = await cli(['init'], dir)
    expect(code).toBe(0)
    expect(out.slice(0, 2)).toEqual([`wrote ${RUBRIC_FILE}`, `wrote ${WORKFLOW_FILE}`])
    const rubric = parse(readFileSync(join(dir, RUBRIC_FILE), 'utf8'))
    expect(rubric.gates.map(g => g.command)).toEqual(['npm test'])
    expect(rubric.criteria.filter(c => c.required).map(c => c.id)).toEqual([
      'correct',
      'tested',
      'safe'
    ])
    expect((await cli(['validate', RUBRIC_FILE], dir)).code).toBe(0)
  })

  it('writes a workflow with the permissions it needs, cancelling superseded runs, without path filters', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-init-'))
    await cli(['init'], dir)
    const workflow = parseYaml(readFileSync(join(dir, WORKFLOW_FILE), 'utf8')) as {
      on: { pull_request: Record<string, unknown> }
      permissions: Record<string, string>
      concurrency: { group: string; 'cancel-in-progress': boolean }
    }
    expect(workflow.permissions).toEqual({
      contents: 'read',
      'pull-requests': 'write',
      checks: 'write'
    })
    expect(workflow.concurrency['cancel-in-progress']).toBe(true)
    expect(workflow.concurrency.group).toContain('github.event.pull_request.number')
    expect(Object.keys(workflow.on.pull_request)).toEqual(['types'])
  })

  it('refuses to overwrite without --force, and writes nothing then', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-init-'))
    await cli(['init'], dir)
    writeFileSync(join(dir, RUBRIC_FILE), 'mine')
    const refused = await cli(['init'], dir)
    expect(refused.code).toBe(1)
    expect(refused.err).toEqual([
      `rubric-council: ${RUBRIC_FILE} exists; not overwriting it (use --force)`,
      `rubric-council: ${WORKFLOW_FILE} exists; not overwriting it (use --force)`
    ])
    expect(readFileSync(join(dir, RUBRIC_FILE), 'utf8')).toBe('mine')
    expect((await cli(['init', '--force'], dir)).code).toBe(0)
    expect(readFileSync(join(dir, RUBRIC_FILE), 'utf8')).not.toBe('mine')
  })

  it('leaves the gates out when it cannot tell the test command, and the rubric is still valid', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-init-'))
    await cli(['init'], dir)
    expect(parse(readFileSync(join(dir, RUBRIC_FILE), 'utf8')).gates).toEqual([])
    expect(existsSync(join(dir, WORKFLOW_FILE))).toBe(true)
  })
})

describe('rubric-council check --dry-run', () => {
  it('prints the comment the action would post, marker first and history last', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-dry-'))
    const { code, out } = await cli(['check', '--checker', 'true', '--dry-run'], dir)
    expect(code).toBe(0)
    const body = out.join('\n')
    expect(body.split('\n')[0]).toBe('<!-- rubric-council:rubric-council -->')
    expect(body).toContain('### ✅ Rubric Council: PASS')
    expect(body.trimEnd()).toMatch(/<!-- rubric-council-state:[A-Za-z0-9+/=]+ -->$/)
  })
})
