import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { rubricHash } from '../src/rubric/hash.js'

const ROOT = join(import.meta.dirname, '..')

interface ActionRun {
  readonly code: number
  readonly stdout: string
  readonly outputs: Record<string, string>
}

/**
 * Runs the bundled action as the runner does: `node dist/index.js` with the inputs as INPUT_*
 * variables (upper-cased, hyphens kept) and the file commands GITHUB_OUTPUT and GITHUB_STEP_SUMMARY.
 */
async function runAction(inputs: Record<string, string>, workspace: string): Promise<ActionRun> {
  const runnerTemp = mkdtempSync(join(tmpdir(), 'rc-runner-'))
  const outputFile = join(runnerTemp, 'output')
  writeFileSync(outputFile, '')
  writeFileSync(join(runnerTemp, 'summary'), '')
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: join(runnerTemp, 'summary'),
    RUNNER_TEMP: runnerTemp
  }
  for (const [name, value] of Object.entries(inputs)) env[`INPUT_${name.toUpperCase()}`] = value
  const { code, stdout } = await promisify(execFile)(
    process.execPath,
    [join(ROOT, 'dist/index.js')],
    {
      env
    }
  ).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: unknown) => error as { code: number; stdout: string }
  )
  return { code, stdout, outputs: readOutputs(readFileSync(outputFile, 'utf8')) }
}

/** Reads the `name<<delimiter … delimiter` blocks @actions/core writes to GITHUB_OUTPUT. */
function readOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {}
  const block = /^(.+?)<<(.+)\n([\s\S]*?)\n\2$/gm
  for (const match of text.matchAll(block)) outputs[match[1] ?? ''] = match[3] ?? ''
  return outputs
}

describe('the action (dist/index.js, run as the runner runs it)', () => {
  it('loads a valid rubric and outputs its hash', async () => {
    const result = await runAction({ rubric: 'examples/search-feature.md' }, ROOT)
    const text = readFileSync(join(ROOT, 'examples/search-feature.md'), 'utf8')
    expect(result.code).toBe(0)
    expect(result.outputs['rubric-hash']).toBe(rubricHash(text))
    expect(result.stdout).toContain(
      'examples/search-feature.md: ok (2 gates, 3 must-have, 2 nice-to-have'
    )
  })

  it('fails with exit code 2 and annotations on the rubric when it is invalid', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'rc-ws-'))
    mkdirSync(join(workspace, 'app'))
    writeFileSync(join(workspace, 'app/r.md'), '## Criteria\n- a: A\n## Critera\n')
    const result = await runAction({ rubric: 'r.md', 'working-directory': 'app' }, workspace)
    expect(result.code).toBe(2)
    expect(result.outputs.reasons).toBe('invalid_rubric')
    // The annotation names the file from the repository root, where GitHub shows it.
    expect(result.stdout).toContain(
      '::error title=Invalid rubric (unknown-section),file=app/r.md,line=3,col=1::unknown section "## Critera"; did you mean "## Criteria"?'
    )
  })

  it('fails when the rubric is missing, never treating it as empty', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'rc-ws-'))
    const result = await runAction({}, workspace)
    expect(result.code).toBe(2)
    expect(result.stdout).toContain(
      '::error title=Invalid rubric (missing-file),file=.github/rubric.md::rubric file not found'
    )
  })

  it('builds the rubric from checker sugar', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'rc-ws-'))
    const result = await runAction({ checker: 'make test\nagent: The change is tested' }, workspace)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('ok (1 gate, 1 must-have, 0 nice-to-have, 5 dimensions')
  })

  it('rejects an input it cannot use, quoting the value', async () => {
    const result = await runAction({ rubric: 'a.md\nb.md' }, ROOT)
    expect(result.code).toBe(2)
    expect(result.outputs.reasons).toBe('invalid_input')
    expect(result.stdout).toContain(
      '::error::input "rubric" is "a.md\\nb.md"; expected one path to a rubric file'
    )
  })
})
