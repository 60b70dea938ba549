import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  openPullRequest,
  OWNER,
  prepareRunner,
  pullRequestEvent,
  readOutputs,
  REPO
} from './helpers/action-run.js'
import { startGitHubStandIn, type GitHubStandIn } from './helpers/github-standin.js'
import { wireAnswer } from './helpers/judge-answers.js'
import { startProviderStandIn, type StandIn } from './helpers/provider-standin.js'
import { isAlive } from './helpers/process-alive.js'

/**
 * The bundled action (dist/index.js) cancelled as the runner cancels a step: a signal to its
 * `node` while a gate runs (SIGINT, then SIGTERM 7.5 s later: src/action/cancel.ts cites GitHub's
 * documentation). The gate starts a child of its own and writes the pids to a file.
 */

const WRITE = 'ghs_writable_token_cancel_0001'
const KEY = 'sk-test-cancel-0123456789abcdef'
const ROOT = join(import.meta.dirname, '..')
const TREE = `sh -c 'sleep 1000 & echo $! >> pids; echo $$ >> pids; sleep 1000; wait'`

let github: GitHubStandIn
let providers: StandIn
let nextPr = 1
beforeAll(async () => {
  github = await startGitHubStandIn({ owner: OWNER, repo: REPO })
  github.addToken(WRITE, { login: 'github-actions[bot]', type: 'Bot', write: true })
  providers = await startProviderStandIn(call => ({ json: wireAnswer(call.schema) }))
})
afterEach(() => {
  expect(github.violations).toEqual([])
})
afterAll(async () => {
  await github.close()
  await providers.close()
})

/**
 * The action on a pull request whose rubric has `gate` and a criterion for the judges; `signal`
 * sent to its `node` once the gate has written two pids. What it printed and output, the check
 * run's conclusion, the judge calls made, and the gate's processes still alive 10 s later.
 */
async function cancelled(gate: string, signal: NodeJS.Signals) {
  const number = nextPr++
  const rubric = `---\ndimensions: false\n---\n## Gates\n- \`${gate}\`\n\n## Criteria\n- tested: The change is tested\n`
  const repo = openPullRequest(github, number, { '.github/rubric.md': rubric }, { 'a.ts': '1\n' })
  const { env, outputFile } = prepareRunner({
    workspace: repo.dir,
    eventName: 'pull_request',
    eventPath: pullRequestEvent(repo, { number }),
    apiUrl: github.url,
    inputs: {
      'github-token': WRITE,
      'allow-gates-with-secrets': 'true',
      models: 'openai:gpt-5.5'
    },
    env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: providers.openaiBaseUrl }
  })
  const calls = providers.calls.length
  const child = spawn(process.execPath, [join(ROOT, 'dist/index.js')], { env })
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.resume()
  const exited = new Promise<number | null>(done =>
    child.on('close', code => {
      done(code)
    })
  )
  const pidsFile = join(repo.dir, 'pids')
  const pids = async (): Promise<number[]> => {
    for (let i = 0; i < 300; i++) {
      const read = existsSync(pidsFile) ? readFileSync(pidsFile, 'utf8').split(/\s+/) : []
      if (read.filter(Boolean).length >= 2) return read.filter(Boolean).map(Number)
      await sleep(50)
    }
    throw new Error(`the gate never started:\n${stdout}`)
  }
  const gatePids = await pids()
  child.kill(signal)
  await exited
  const deadline = Date.now() + 10_000
  while (gatePids.some(isAlive) && Date.now() < deadline) await sleep(100)
  const check = github.checkRuns.filter(c => c.head_sha === repo.headSha).at(-1)
  return {
    stdout,
    outputs: readOutputs(readFileSync(outputFile, 'utf8')),
    conclusion: check?.conclusion,
    judgeCalls: providers.calls.length - calls,
    survivors: gatePids.filter(isAlive)
  }
}

describe('the runner cancels the action while a gate runs', () => {
  it('SIGTERM ends the gate’s process group; the verdict is FAIL, the gate named, no judge asked', async () => {
    const run = await cancelled(TREE, 'SIGTERM')
    expect(run.survivors).toEqual([])
    expect(run.stdout).toMatch(
      /Rubric Council: SIGTERM: stopped the gate "sh -c .*" after \d+\.\d s and ended its process group/
    )
    expect([run.outputs.verdict, run.outputs.reasons, run.conclusion]).toEqual([
      'FAIL',
      'gate_failed',
      'failure'
    ])
    expect(run.judgeCalls).toBe(0)
  }, 60_000)

  it('a gate that answers the stop with `exit 0` does not turn the check green', async () => {
    // The attack: the pull request's gate traps the signal and claims success.
    const run = await cancelled(`trap 'exit 0' TERM INT; ${TREE}`, 'SIGINT')
    expect(run.survivors).toEqual([])
    expect([run.outputs.verdict, run.conclusion]).toEqual(['FAIL', 'failure'])
    expect(run.stdout).toContain(
      'the run was interrupted (Ctrl-C, or the runner cancelling the job)'
    )
  }, 60_000)

  it('a gate that ignores SIGTERM is killed after the grace period; the verdict is FAIL', async () => {
    const run = await cancelled(`trap '' TERM; ${TREE}`, 'SIGINT')
    expect(run.survivors).toEqual([])
    expect([run.outputs.verdict, run.conclusion]).toEqual(['FAIL', 'failure'])
  }, 60_000)
})
