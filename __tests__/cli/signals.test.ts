import { execFileSync, spawn } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CalibrationReport } from '../../src/calibrate/measure.js'
import { main } from '../../src/cli.js'
import { readSessionState } from '../../src/loop/session.js'
import { fastTicker } from '../helpers/fast-ticker.js'
import { wireAnswer } from '../helpers/judge-answers.js'
import { startProviderStandIn, type StandIn } from '../helpers/provider-standin.js'
import { isAlive } from '../helpers/process-alive.js'

/**
 * While a gate runs, and when it is stopped. Ctrl-C and SIGTERM against the built CLI (bin/rubric-council.js, which loads dist/cli/), run in
 * a process group of its own as a terminal runs a command in the foreground. The gates start
 * children of their own and write every pid to a file, so the test can tell whether any process
 * of the gate outlived the CLI.
 */

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'rubric-council.js')
const KEY = 'sk-test-signals-0123456789abcdef'

/**
 * A gate that starts a child and waits on its own `sleep`, both pids in `pids`; a real gate is a
 * test runner with workers, or a dev server.
 */
const TREE_GATE = `sh -c 'sleep 1000 & echo $! >> pids; echo $$ >> pids; sleep 1000; wait'`

let standIn: StandIn
beforeAll(async () => {
  standIn = await startProviderStandIn()
  standIn.setScript(call => ({ json: wireAnswer(call.schema) }))
})
afterAll(async () => {
  await standIn.close()
})

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], {
    cwd,
    encoding: 'utf8'
  }).trim()
}

/** A repository whose `.github/rubric.md` is `rubric`, on main, with one commit. */
function repository(rubric: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'rc-signals-'))
  mkdirSync(join(dir, '.github'))
  writeFileSync(join(dir, '.github/rubric.md'), rubric)
  writeFileSync(join(dir, '.gitignore'), 'pids\n')
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', 'base')
  return dir
}

const gatesRubric = (...commands: string[]): string =>
  `## Gates\n${commands.map(c => `- \`${c}\``).join('\n')}\n`

interface Cli {
  readonly pid: number
  readonly stderr: () => string
  readonly exited: Promise<number | null>
}

/** The built CLI in `dir`, leader of a process group of its own, as a shell starts a job. */
function startCli(dir: string, args: string[]): Cli {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: standIn.openaiBaseUrl
    }
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  child.stdout.resume()
  const exited = new Promise<number | null>(done =>
    child.on('close', code => {
      done(code)
    })
  )
  return { pid: child.pid ?? 0, stderr: () => stderr, exited }
}

/** The pids the gate wrote, once it has written `count` of them. */
async function gatePids(file: string, count: number, cli: Cli): Promise<number[]> {
  for (let i = 0; i < 300; i++) {
    const pids = existsSync(file) ? readFileSync(file, 'utf8').split(/\s+/).filter(Boolean) : []
    if (pids.length >= count) return pids.map(Number)
    await sleep(50)
  }
  throw new Error(`the gate never wrote ${count} pids to ${file}; the CLI said:\n${cli.stderr()}`)
}

/** The pids still alive after up to `ms`: none, when every process of the gate is gone in time. */
async function survivors(pids: readonly number[], ms = 10_000): Promise<number[]> {
  const deadline = Date.now() + ms
  while (pids.some(isAlive) && Date.now() < deadline) await sleep(100)
  return pids.filter(isAlive)
}

/** As a terminal's Ctrl-C: SIGINT to the whole foreground process group. */
const ctrlC = (cli: Cli): void => {
  process.kill(-cli.pid, 'SIGINT')
}

const STOPPED = (command: string, signal: string): RegExp =>
  new RegExp(
    `rubric-council: ${signal}: stopped the gate "${command.replace(/[$()*+.?[\\\]^{|}]/g, '\\$&')}" after \\d+\\.\\d s and ended its process group`
  )

describe('Ctrl-C during `check`', () => {
  it('ends every process of the gate, says which gate after how long, and exits 130', async () => {
    const dir = repository(gatesRubric(TREE_GATE))
    const cli = startCli(dir, ['check'])
    const pids = await gatePids(join(dir, 'pids'), 2, cli)
    ctrlC(cli)
    expect(await cli.exited, cli.stderr()).toBe(130)
    expect(cli.stderr()).toMatch(STOPPED(TREE_GATE, 'SIGINT'))
    expect(await survivors(pids)).toEqual([])
  }, 30_000)
})

describe('SIGTERM to `check` alone', () => {
  it('ends a gate that ignores SIGTERM with SIGKILL after the grace period, and exits 143', async () => {
    // The attack: a gate that will not stop when asked, so that it outlives the run.
    const command = `trap '' TERM; ${TREE_GATE}`
    const dir = repository(gatesRubric(command))
    const cli = startCli(dir, ['check'])
    const pids = await gatePids(join(dir, 'pids'), 2, cli)
    const sent = Date.now()
    process.kill(cli.pid, 'SIGTERM')
    expect(await cli.exited, cli.stderr()).toBe(143)
    // Not before the grace period (5 s): the gate was asked first, then killed.
    expect(Date.now() - sent).toBeGreaterThanOrEqual(4_500)
    expect(cli.stderr()).toMatch(STOPPED(command, 'SIGTERM'))
    expect(await survivors(pids)).toEqual([])
  }, 30_000)
})

describe('Ctrl-C during `loop`', () => {
  it('keeps the finished iterations in state.json, ends the gate, and exits 130', async () => {
    // Iteration 1's gate fails at once (RETRY); iteration 2's runs until Ctrl-C.
    const gate = `test -f .iteration-2 || exit 1; ${TREE_GATE}`
    const dir = repository(gatesRubric(gate))
    writeFileSync(join(dir, '.gitignore'), 'pids\n.iteration-*\n')
    const cli = startCli(dir, [
      'loop',
      '--doer',
      'touch .iteration-$RUBRIC_COUNCIL_ITERATION',
      '--max-iterations',
      '3'
    ])
    const pids = await gatePids(join(dir, 'pids'), 2, cli)
    ctrlC(cli)
    expect(await cli.exited, cli.stderr()).toBe(130)
    expect(cli.stderr()).toMatch(STOPPED(gate, 'SIGINT'))
    expect(await survivors(pids)).toEqual([])
    const sessions = join(dir, '.rubric-council/sessions')
    const [session = ''] = readdirSync(sessions)
    const stateFile = join(sessions, session, 'state.json')
    expect(cli.stderr()).toContain(
      `rubric-council: session ${session} interrupted; its 1 finished iteration is kept in ${stateFile}`
    )
    const state = readSessionState(readFileSync(stateFile, 'utf8'))
    expect(state.ok && state.value).toMatchObject({
      outcome: 'interrupted',
      history: [{ iteration: 1, verdict: 'FAIL', gates: [{ verdict: 'fail' }] }]
    })
    expect(existsSync(join(sessions, session, 'report-1.md'))).toBe(true)
  }, 60_000)
})

describe('Ctrl-C during `calibrate --gates`', () => {
  it('writes the report of the runs that completed, ends the gate, and exits 130', async () => {
    // Case 0's head has a gate that passes; case 1's head one that runs until Ctrl-C.
    const rubric = `---\ncouncil:\n  models: [openai:gpt-5.5]\ndimensions: false\n---\n## Gates\n- \`sh ./gate.sh\`\n\n## Criteria\n- sound: The change is sound\n`
    const dir = repository(rubric)
    writeFileSync(join(dir, 'gate.sh'), 'true\n')
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', 'case 0')
    const pidsFile = join(dir, 'pids')
    writeFileSync(
      join(dir, 'gate.sh'),
      `sleep 1000 & echo $! >> "${pidsFile}"; echo $$ >> "${pidsFile}"; sleep 1000; wait\n`
    )
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', 'case 1')
    const [base, one, two] = git(dir, 'rev-list', '--reverse', 'HEAD').split('\n')
    const cases = [
      [base, one],
      [one, two]
    ].map(
      ([from, to], i) =>
        `  - name: case ${i}\n    base: ${from}\n    head: ${to}\n    expect: PASS\n    criteria: { sound: PASS }\n`
    )
    writeFileSync(join(dir, '.github/rubric-calibration.yml'), `cases:\n${cases.join('')}`)
    const cli = startCli(dir, ['calibrate', '--gates', '--repeat', '1', '--json', 'report.json'])
    const pids = await gatePids(pidsFile, 2, cli)
    ctrlC(cli)
    expect(await cli.exited, cli.stderr()).toBe(130)
    expect(cli.stderr()).toContain('interrupted; writing the reports of the runs that completed')
    expect(cli.stderr()).toMatch(STOPPED('sh ./gate.sh', 'SIGINT'))
    expect(await survivors(pids)).toEqual([])
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as CalibrationReport
    expect(report).toMatchObject({ planned: 2, completed: 1, interrupted: 1 })
  }, 60_000)
})

describe('the heartbeat of `check`', () => {
  it('says on stderr which gate is still running and for how long', async () => {
    // The interval of 15 s is played by one of 20 ms.
    const ticker = fastTicker()
    const dir = repository(gatesRubric('sleep 0.3'))
    const err: string[] = []
    const io = { stdout: () => undefined, stderr: (line: string) => err.push(line) }
    const code = await main(['check'], {
      ...io,
      env: { PATH: process.env.PATH ?? '' },
      cwd: dir,
      ticker
    })
    expect(code).toBe(0)
    expect(err).toContainEqual(
      expect.stringMatching(/^Gates: still running: sleep 0\.3 \(\d+ s\)$/)
    )
    expect(ticker.running()).toBe(0)
  })
})
