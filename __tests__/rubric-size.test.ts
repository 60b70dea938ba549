import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rubricPromptTokens } from '../src/council/window.js'
import { parseRubric } from '../src/rubric/parse.js'
import { formatCount } from '../src/util/format-count.js'
import { startGitHubStandIn, type GitHubStandIn } from './helpers/github-standin.js'
import { lines, parse } from './helpers/rubric.js'

/**
 * `rubric-council validate` (the bundled CLI) refuses a rubric its council's context windows
 * cannot hold beside the evidence and the answer (docs/council.md#the-rubrics-size), naming its size
 * in tokens and the smallest window, as a run would refuse it before asking any judge.
 */

const ROOT = join(import.meta.dirname, '..')
const COUNCIL = 'council: { models: [openai:gpt-5.4-nano, anthropic:claude-sonnet-4-6] }'

/** `count` must-haves of about 700 characters each, numbered from `from`. */
function criteria(count: number, from = 0): string[] {
  return Array.from(
    { length: count },
    (_, i) =>
      `- c${from + i}: The change handles case ${from + i} ${'with care and tests it thoroughly, '.repeat(20)}`
  )
}

let github: GitHubStandIn
beforeAll(async () => {
  github = await startGitHubStandIn()
  github.addToken('ghs_job', { login: 'github-actions[bot]', type: 'Bot', write: false })
})
afterAll(async () => {
  await github.close()
})

async function validate(
  cwd: string,
  env: Record<string, string> = {}
): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(
    process.execPath,
    [join(ROOT, 'bin/rubric-council.js'), 'validate', '.github/rubric.md'],
    { cwd, env: { PATH: process.env.PATH ?? '', ...env }, maxBuffer: 16 * 1024 * 1024 }
  ).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: unknown) => {
      const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string }
      return { code, stdout, stderr }
    }
  )
}

async function repository(rubric: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rc-size-'))
  await mkdir(join(dir, '.github'))
  await writeFile(join(dir, '.github/rubric.md'), rubric)
  return dir
}

/** The line validate prints for a rubric of `tokens` against Claude's window, by the default budget. */
function refusal(tokens: number): string {
  return (
    `.github/rubric.md: error: the rubric takes about ${formatCount(tokens)} tokens of the judges' ` +
    'prompt (with their instructions); the smallest context window of the council, ' +
    "anthropic:claude-sonnet-4-6's 200,000 tokens, leaves it 108,000 beside 60,000 for the evidence " +
    'and 32,000 for the answer: shorten it (its notes, its descriptions), split it into rubrics for ' +
    'parts of the repository (`paths`, in .github/rubrics/), give the council models with larger ' +
    'windows, or lower max-evidence-tokens [too-large]\n'
  )
}

// Each run reads, parses and measures up to 1.4 MB of rubric: seconds on a busy machine.
describe('validate refuses a rubric too large for its council', { timeout: 60_000 }, () => {
  it('a 1.4 MB rubric, through what it extends: exit 1, its size in tokens and the smallest window', async () => {
    // Each file is under the 1 MiB a rubric file may have; together they are 1.4 MB.
    const upstream = lines('---', '---', '## Criteria', ...criteria(1000))
    github.addRepository('octo-org/policy-large').setFile('v1', 'rubric.md', upstream)
    const local = lines(
      '---',
      COUNCIL,
      'extends: octo-org/policy-large/rubric.md@v1',
      '---',
      '## Criteria',
      ...criteria(1000, 1000)
    )
    expect(upstream.length + local.length).toBeGreaterThan(1_400_000)
    const dir = await repository(local)
    const spec = 'octo-org/policy-large/rubric.md@v1'
    const merged = parseRubric({
      text: local,
      path: '.github/rubric.md',
      upstream: { [spec]: upstream }
    })
    if (!merged.ok) throw new Error('the merged rubric is valid')
    const result = await validate(dir, { GITHUB_TOKEN: 'ghs_job', GITHUB_API_URL: github.url })
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: refusal(rubricPromptTokens(merged.value))
    })
  })

  it('a 700 KB rubric in one file, with the same sentence', async () => {
    const rubric = lines('---', COUNCIL, '---', '## Criteria', ...criteria(1000))
    const result = await validate(await repository(rubric))
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: refusal(rubricPromptTokens(parse(rubric)))
    })
  })

  it('a 1.4 MB rubric file is not even read: the 1 MiB a file may have', async () => {
    const rubric = lines('---', COUNCIL, '---', '## Criteria', ...criteria(2000))
    const result = await validate(await repository(rubric))
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(
      `.github/rubric.md: error: the rubric file has ${formatCount(Buffer.byteLength(rubric))} bytes, ` +
        'over the 1,048,576 bytes it may have; it was not read [unreadable-file]\n'
    )
  })

  it('accepts the same council with a rubric of ordinary size', async () => {
    const result = await validate(
      await repository(lines('---', COUNCIL, '---', '## Criteria', ...criteria(100)))
    )
    expect(result.stderr).toBe('')
    expect(result.stdout).toMatch(/^\.github\/rubric\.md: ok \(0 gates, 100 must-have/)
    expect(result.code).toBe(0)
  })
})
