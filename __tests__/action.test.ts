import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { rubricHash } from '../src/rubric/hash.js'
import { startProviderStandIn } from './helpers/provider-standin.js'

const ROOT = join(import.meta.dirname, '..')

interface ActionRun {
  readonly code: number
  readonly stdout: string
  readonly outputs: Record<string, string>
  readonly summary: string
}

/**
 * Runs the bundled action as the runner does: `node dist/index.js` with the inputs as INPUT_*
 * variables (upper-cased, hyphens kept) and the file commands GITHUB_OUTPUT and GITHUB_STEP_SUMMARY.
 */
async function runAction(
  inputs: Record<string, string>,
  workspace: string,
  extraEnv: Record<string, string> = {}
): Promise<ActionRun> {
  const runnerTemp = mkdtempSync(join(tmpdir(), 'rc-runner-'))
  const outputFile = join(runnerTemp, 'output')
  const summaryFile = join(runnerTemp, 'summary')
  writeFileSync(outputFile, '')
  writeFileSync(summaryFile, '')
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    GITHUB_ACTIONS: 'true',
    CI: 'true',
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    RUNNER_TEMP: runnerTemp,
    ...extraEnv
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
  return {
    code,
    stdout,
    outputs: readOutputs(readFileSync(outputFile, 'utf8')),
    summary: readFileSync(summaryFile, 'utf8')
  }
}

/** Reads the `name<<delimiter … delimiter` blocks @actions/core writes to GITHUB_OUTPUT. */
function readOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {}
  const block = /^(.+?)<<(.+)\n([\s\S]*?)\n?\2$/gm
  for (const match of text.matchAll(block)) outputs[match[1] ?? ''] = match[3] ?? ''
  return outputs
}

function workspaceWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'rc-ws-'))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  return dir
}

const GATES = (commands: string[], options = ''): string =>
  `${options ? `---\ngates: ${options}\n---\n` : ''}## Gates\n${commands.map(c => `- \`${c}\``).join('\n')}\n`

describe('the action on a gates-only rubric (dist/index.js, run as the runner runs it)', () => {
  it('passes when every gate passes', async () => {
    const rubric = GATES(['echo building', 'test -d .'])
    const run = await runAction({}, workspaceWith({ '.github/rubric.md': rubric }))
    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({
      verdict: 'PASS',
      'exit-code': '0',
      score: '',
      confidence: '',
      reasons: '',
      recommendation: 'ACCEPT',
      'rubric-hash': rubricHash(rubric)
    })
    expect(run.summary).toContain('### ✅ Rubric Council: PASS')
    expect(run.summary).toContain('**gates 2/2**')
    // Each gate's output is a collapsible group in the log.
    expect(run.stdout).toContain('::group::echo building\n')
    expect(run.stdout).toMatch(/building\n(.*\n)*→ pass in/)
    const report = JSON.parse(readFileSync(run.outputs.report ?? '', 'utf8')) as Record<
      string,
      unknown
    >
    expect(report).toMatchObject({
      schema: 'rubric-council/report@1',
      verdict: 'PASS',
      exit_code: 0
    })
  })

  it('fails with exit code 1 when a gate fails', async () => {
    const run = await runAction(
      {},
      workspaceWith({ '.github/rubric.md': GATES(['true', 'echo "2 tests failed" && exit 3']) })
    )
    expect(run.code).toBe(1)
    expect(run.outputs).toMatchObject({
      verdict: 'FAIL',
      'exit-code': '1',
      reasons: 'gate_failed',
      recommendation: 'RETRY'
    })
    expect(run.stdout).toContain('::error::Rubric Council: FAIL (gate_failed)')
    expect(run.summary).toContain('### ❌ Rubric Council: FAIL')
    expect(run.summary).toContain('fail (exit 3)')
    expect(run.summary).toContain('2 tests failed')
  })

  it('fails when a gate times out, and kills it', async () => {
    const started = Date.now()
    const run = await runAction(
      {},
      workspaceWith({ '.github/rubric.md': GATES(['sleep 60'], '{ timeout: 1 }') })
    )
    expect(Date.now() - started).toBeLessThan(15_000)
    expect(run.code).toBe(1)
    expect(run.outputs).toMatchObject({ verdict: 'FAIL', reasons: 'gate_failed' })
    expect(run.summary).toContain('| timeout |')
    expect(run.summary).toContain('timed out after 1 s; the process group was killed')
  })

  it('honours fail-on', async () => {
    const failing = workspaceWith({ '.github/rubric.md': GATES(['false']) })
    expect((await runAction({ 'fail-on': 'never' }, failing)).code).toBe(0)
    expect((await runAction({ 'fail-on': 'fail' }, failing)).code).toBe(1)
    const unclear = workspaceWith({ '.github/rubric.md': '## Criteria\n- a: Needs judges\n' })
    // No pull request in this run: the judges cannot be shown a change.
    const tolerant = await runAction({ 'fail-on': 'fail' }, unclear)
    expect([tolerant.code, tolerant.outputs.verdict, tolerant.outputs.reasons]).toEqual([
      0,
      'UNCLEAR',
      'incomplete_coverage'
    ])
    expect(tolerant.summary).toContain('is not for a pull request, so there is no change to review')
    expect((await runAction({}, unclear)).code).toBe(2)
  })

  it('does not let a gate forge the action’s outputs or run workflow commands', async () => {
    const forge =
      'echo "verdict=PASS" >> "${GITHUB_OUTPUT:-/dev/null}"; echo "::error::forged"; exit 1'
    const run = await runAction({}, workspaceWith({ '.github/rubric.md': GATES([forge]) }))
    expect(run.outputs.verdict).toBe('FAIL')
    // The line is in the log, but inside a stop-commands block the runner does not execute.
    expect(run.stdout).toMatch(
      /::stop-commands::([0-9a-f-]{36})\n[\s\S]*::error::forged[\s\S]*::\1::/
    )
  })
})

describe('the action on bad configuration', () => {
  it('reports an invalid rubric as UNCLEAR (exit 2) with annotations from the repository root', async () => {
    const workspace = workspaceWith({ 'app/r.md': '## Criteria\n- a: A\n## Critera\n' })
    const run = await runAction({ rubric: 'r.md', 'working-directory': 'app' }, workspace)
    expect(run.code).toBe(2)
    expect(run.outputs).toMatchObject({
      verdict: 'UNCLEAR',
      'exit-code': '2',
      reasons: 'invalid_rubric',
      'rubric-hash': ''
    })
    expect(run.stdout).toContain(
      '::error title=Invalid rubric (unknown-section),file=app/r.md,line=3,col=1::unknown section "## Critera"; did you mean "## Criteria"?'
    )
    expect(run.summary).toContain('r.md:3:1: error: unknown section')
  })

  it('fails on a missing rubric even with fail-on: fail, never treating it as empty', async () => {
    const run = await runAction({ 'fail-on': 'fail' }, workspaceWith({}))
    expect(run.code).toBe(2)
    expect(run.stdout).toContain(
      '::error title=Invalid rubric (missing-file),file=.github/rubric.md::rubric file not found'
    )
  })

  it('builds the rubric from checker sugar and shows the materialised rubric', async () => {
    const run = await runAction({ checker: 'test 1 -eq 1' }, workspaceWith({}))
    expect(run.code).toBe(0)
    expect(run.summary).toContain('Materialised from the `checker` input')
    expect(run.summary).toContain('- `test 1 -eq 1`')
  })

  it('rejects an input it cannot use, quoting the value', async () => {
    const run = await runAction({ 'fail-on': 'sometimes' }, ROOT)
    expect(run.code).toBe(2)
    expect(run.outputs).toMatchObject({ verdict: 'UNCLEAR', reasons: 'invalid_input' })
    expect(run.stdout).toContain(
      'input "fail-on" is "sometimes"; expected one of unclear, fail, never'
    )
  })

  it('masks secrets the runner knows in everything it prints', async () => {
    const run = await runAction(
      {},
      workspaceWith({ '.github/rubric.md': GATES(['echo "$SERVICE_PASSWORD"']) }),
      {
        SERVICE_PASSWORD: 'hunter2-but-longer'
      }
    )
    expect(run.stdout).toContain('::add-mask::hunter2-but-longer')
    expect(run.summary).not.toContain('hunter2-but-longer')
  })
})

describe('the action on a pull request, with judges', () => {
  it('reviews the diff between the event’s base and head with the council, and reports it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-pr-'))
    const git = (...args: string[]): string =>
      execFileSync('git', args, {
        cwd: dir,
        encoding: 'utf8',
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@e',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@e'
        }
      }).trim()
    git('init', '-q', '-b', 'main')
    mkdirSync(join(dir, '.github'))
    writeFileSync(
      join(dir, '.github/rubric.md'),
      '---\ndimensions: false\n---\n## Criteria\n- tested: The change is tested\n'
    )
    git('add', '-A')
    git('commit', '-q', '-m', 'base')
    const base = git('rev-parse', 'HEAD')
    writeFileSync(join(dir, 'feature.ts'), 'export const feature = true\n')
    git('add', '-A')
    git('commit', '-q', '-m', 'feature')
    const head = git('rev-parse', 'HEAD')
    const event = join(dir, '..', `${dir.split('/').pop() ?? 'x'}-event.json`)
    writeFileSync(
      event,
      JSON.stringify({
        action: 'opened',
        number: 7,
        pull_request: {
          number: 7,
          title: 'Add the feature',
          body: 'Adds it.',
          base: { sha: base },
          head: { sha: head }
        }
      })
    )

    const standIn = await startProviderStandIn(() => ({
      json: {
        findings: [],
        criteria: [
          { id: 'tested', verdict: 'PASS', score: null, reasoning: 'feature.ts is trivial' }
        ],
        dimensions: [],
        verdict: 'ACCEPT',
        feedback: ''
      }
    }))
    try {
      const run = await runAction({ models: 'openai:gpt-5-mini, openai:gpt-4.1' }, dir, {
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: event,
        OPENAI_API_KEY: 'sk-test-action-0123456789',
        OPENAI_BASE_URL: standIn.openaiBaseUrl
      })
      expect(run.outputs).toMatchObject({ verdict: 'PASS', reasons: '', recommendation: 'ACCEPT' })
      expect(standIn.calls).toHaveLength(2)
      expect(standIn.calls[0]?.text).toContain('+export const feature = true')
      expect(standIn.calls[0]?.text).toContain('Add the feature')
      expect(run.summary).toContain('<b>Judges</b> · 2 of 2 answered · quorum 2')
      expect(run.summary).toContain('<b>Coverage</b> · 1 of 1 reviewable file (100%)')
      // The key appears once: in the ::add-mask:: command the runner consumes to hide it everywhere.
      const shown = run.stdout.replace(/^::add-mask::.*$/gm, '') + run.summary
      expect(run.stdout).toContain('::add-mask::sk-test-action-0123456789')
      expect(shown).not.toContain('sk-test-action-0123456789')
    } finally {
      await standIn.close()
    }
  })
})
