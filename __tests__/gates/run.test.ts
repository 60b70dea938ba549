import { existsSync, writeFileSync } from 'node:fs'
import { isAlive } from '../helpers/process-alive.js'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HEAD_BYTES, TAIL_BYTES } from '../../src/gates/excerpt.js'
import { runGate, runGates } from '../../src/gates/run.js'
import type { GateRunOptions } from '../../src/gates/run.js'
import type { GateLog } from '../../src/gates/types.js'
import type { Gate } from '../../src/rubric/types.js'
import { providerVariables } from '../../src/council/providers/index.js'
import { gateEnvironment } from '../../src/gates/environment.js'
import { maskSecrets, secretValues } from '../../src/util/secrets.js'
import { handTicker } from '../helpers/hand-ticker.js'

type LogEvent =
  | { readonly kind: 'start'; readonly name: string }
  | { readonly kind: 'write'; readonly text: string }
  | { readonly kind: 'end' }

interface RecordingLog extends GateLog {
  readonly events: LogEvent[]
  readonly text: () => string
}

function recordingLog(): RecordingLog {
  const events: LogEvent[] = []
  return {
    events,
    startGroup: name => events.push({ kind: 'start', name }),
    write: text => events.push({ kind: 'write', text }),
    endGroup: () => events.push({ kind: 'end' }),
    text: () => events.map(e => (e.kind === 'write' ? e.text : '')).join('')
  }
}

let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rubric-council-gates-'))
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

function gate(command: string, timeout = 10): Gate {
  return { command, timeout, line: 1 }
}

function options(overrides: Partial<GateRunOptions> = {}): GateRunOptions & { log: RecordingLog } {
  return {
    cwd: dir,
    env: gateEnvironment(process.env, providerVariables()),
    mask: text => text,
    parallel: 1,
    ...overrides,
    log: recordingLog()
  }
}

async function waitUntilDead(pid: number, withinMs = 1000): Promise<boolean> {
  const deadline = performance.now() + withinMs
  while (performance.now() < deadline) {
    if (!isAlive(pid)) return true
    await new Promise(resolve => setTimeout(resolve, 25))
  }
  return !isAlive(pid)
}

describe('runGate: statuses', () => {
  it('passes a command that exits 0, with its output', async () => {
    const result = await runGate(gate('echo hello'), options())
    expect(result).toMatchObject({ command: 'echo hello', status: 'pass', exitCode: 0 })
    expect(result.output.head).toBe('hello\n')
    expect(result.durationMs).toBeGreaterThan(0)
    expect(result.detail).toBeUndefined()
  })

  it('fails a command that exits 3 and records the code', async () => {
    const result = await runGate(gate('echo broken >&2; exit 3'), options())
    expect(result).toMatchObject({ status: 'fail', exitCode: 3 })
    expect(result.output.head).toContain('broken')
  })

  it('fails `exit 127` and an unknown command with exit code 127', async () => {
    const explicit = await runGate(gate('exit 127'), options())
    expect(explicit).toMatchObject({ status: 'fail', exitCode: 127 })
    const unknown = await runGate(gate('no-such-command-rubric-council'), options())
    expect(unknown).toMatchObject({ status: 'fail', exitCode: 127 })
    expect(unknown.output.head).toContain('command not found')
  })

  it('fails `false | true` because of pipefail', async () => {
    const result = await runGate(gate('false | true'), options())
    expect(result).toMatchObject({ status: 'fail', exitCode: 1 })
  })

  it('stops at the first failing command because of -e', async () => {
    const result = await runGate(gate('false; echo reached'), options())
    expect(result.status).toBe('fail')
    expect(result.output.head).not.toContain('reached')
  })

  it('fails a gate killed by a signal, naming the signal', async () => {
    const result = await runGate(gate('kill -KILL $$'), options())
    expect(result).toMatchObject({ status: 'fail', exitCode: null })
    expect(result.detail).toContain('SIGKILL')
  })

  it('times out, killing the whole process group, grandchildren included', async () => {
    const pidFile = join(dir, 'timeout.pid')
    const started = performance.now()
    const result = await runGate(
      gate(`sleep 30 & echo $! > ${pidFile}; sleep 30`, 1),
      options({ killGraceMs: 500 })
    )
    expect(performance.now() - started).toBeLessThan(4000)
    expect(result).toMatchObject({ status: 'timeout', exitCode: null })
    expect(result.detail).toBe('timed out after 1 s; the process group was killed')
    const grandchild = Number((await readFile(pidFile, 'utf8')).trim())
    expect(grandchild).toBeGreaterThan(0)
    expect(await waitUntilDead(grandchild)).toBe(true)
  })

  it('does not hang on a background child holding stdout open, and kills it afterwards', async () => {
    const pidFile = join(dir, 'background.pid')
    const started = performance.now()
    const result = await runGate(gate(`sleep 30 & echo $! > ${pidFile}; echo done`), options())
    expect(performance.now() - started).toBeLessThan(2000)
    expect(result).toMatchObject({ status: 'pass', exitCode: 0 })
    expect(result.output.head).toBe('done\n')
    const background = Number((await readFile(pidFile, 'utf8')).trim())
    expect(await waitUntilDead(background)).toBe(true)
  })

  it('is an error, naming the directory, when the working directory does not exist', async () => {
    const missing = join(dir, 'does-not-exist')
    const opts = options({ cwd: missing })
    const result = await runGate(gate('true'), opts)
    expect(result).toMatchObject({ status: 'error', exitCode: null })
    expect(result.detail).toBe(`working directory ${missing} does not exist`)
    expect(opts.log.text()).toContain(missing)
  })

  it('runs in the working directory it is given', async () => {
    const result = await runGate(gate('pwd'), options())
    expect(result.output.head.trim()).toBe(dir)
  })
})

describe('runGate: output', () => {
  it('keeps the head and the tail of 5 MB of output, bounded, and counts what it elided', async () => {
    const opts = options({ parallel: 2 })
    const result = await runGate(
      gate("printf START; head -c 5000000 /dev/zero | tr '\\0' a; printf END"),
      opts
    )
    expect(result.status).toBe('pass')
    const { head, tail, totalBytes, elidedBytes } = result.output
    expect(totalBytes).toBe(5_000_008)
    expect(head).toBe(`START${'a'.repeat(HEAD_BYTES - 5)}`)
    expect(tail).toBe(`${'a'.repeat(TAIL_BYTES - 3)}END`)
    expect(elidedBytes).toBe(totalBytes - HEAD_BYTES - TAIL_BYTES)
    expect(opts.log.text()).toContain(`… ${elidedBytes.toLocaleString('en-US')} bytes elided …`)
  })

  it('merges stdout and stderr in arrival order', async () => {
    const result = await runGate(
      gate('echo one; sleep 0.05; echo two >&2; sleep 0.05; echo three'),
      {
        ...options()
      }
    )
    expect(result.output.head).toBe('one\ntwo\nthree\n')
  })

  it('strips ANSI colour codes and OSC sequences from the excerpt', async () => {
    const result = await runGate(
      gate(
        "printf '\\033[1;31mred\\033[0m plain \\033]8;;https://x.test\\033\\\\link\\033]8;;\\a\\n'"
      ),
      options()
    )
    expect(result.output.head).toBe('red plain link\n')
  })

  it('masks a secret in the excerpt and in what was logged, live or buffered', async () => {
    const secret = 'hunter2-super-secret'
    const env = { ...gateEnvironment(process.env, providerVariables()), MY_SERVICE_TOKEN: secret }
    const secrets = secretValues(env)
    for (const parallel of [1, 2]) {
      const opts = options({ env, parallel, mask: text => maskSecrets(text, secrets) })
      const result = await runGate(gate('echo "token is $MY_SERVICE_TOKEN"'), opts)
      expect(result.output.head).toBe('token is ***\n')
      expect(opts.log.text()).toContain('token is ***')
      expect(opts.log.text()).not.toContain(secret)
    }
  })

  it('does not execute an environment value that looks like a command substitution', async () => {
    const marker = join(dir, 'pwned')
    const value = `$(touch ${marker})`
    const result = await runGate(
      gate('echo "$VAR"'),
      options({ env: { ...gateEnvironment(process.env, providerVariables()), VAR: value } })
    )
    expect(result.status).toBe('pass')
    expect(result.output.head).toBe(`${value}\n`)
    expect(existsSync(marker)).toBe(false)
  })
})

describe('runGate: log', () => {
  it('streams output live in a group named after the command, ending with a summary', async () => {
    const opts = options()
    await runGate(gate('echo live; exit 1'), opts)
    const { events } = opts.log
    expect(events[0]).toEqual({ kind: 'start', name: 'echo live; exit 1' })
    expect(events.at(-1)).toEqual({ kind: 'end' })
    expect(opts.log.text()).toMatch(/^live\n→ fail \(exit 1\) in \d+\.\d s\n$/)
  })

  it('ends with `→ pass in …` and `→ timeout after …`', async () => {
    const passing = options()
    await runGate(gate('true'), passing)
    expect(passing.log.text()).toMatch(/^→ pass in \d+\.\d s\n$/)
    const slow = options({ killGraceMs: 200 })
    await runGate(gate('sleep 5', 1), slow)
    expect(slow.log.text()).toBe('→ timeout after 1 s\n')
  })
})

describe('runGates', () => {
  const sleepers = ['sleep 1; echo a', 'sleep 1; echo b', 'sleep 1; echo c'].map(c => gate(c))

  function groupsOf(events: readonly LogEvent[]): string[] {
    const names: string[] = []
    let open: string | undefined
    for (const event of events) {
      if (event.kind === 'start') {
        expect(open).toBeUndefined()
        open = event.name
      } else if (event.kind === 'end') {
        expect(open).toBeDefined()
        names.push(open ?? '')
        open = undefined
      }
    }
    expect(open).toBeUndefined()
    return names
  }

  it('runs up to `parallel` gates at once, keeps the order and never interleaves groups', async () => {
    const opts = options({ parallel: 3 })
    const started = performance.now()
    const results = await runGates(sleepers, opts)
    expect(performance.now() - started).toBeLessThan(2500)
    expect(results.map(r => r.command)).toEqual(sleepers.map(g => g.command))
    expect(results.map(r => r.output.head)).toEqual(['a\n', 'b\n', 'c\n'])
    expect(groupsOf(opts.log.events).sort()).toEqual(sleepers.map(g => g.command).sort())
  })

  it('runs one after another with parallel 1, in order, one group per gate', async () => {
    const opts = options({ parallel: 1 })
    const started = performance.now()
    const results = await runGates(sleepers, opts)
    expect(performance.now() - started).toBeGreaterThanOrEqual(3000)
    expect(results.map(r => r.status)).toEqual(['pass', 'pass', 'pass'])
    expect(groupsOf(opts.log.events)).toEqual(sleepers.map(g => g.command))
  })

  it('returns an empty list for no gates', async () => {
    expect(await runGates([], options())).toEqual([])
  })
})

describe('runGate: the heartbeat', () => {
  it('says every 15 s which gate still runs and for how long, and stops when the gate ends', async () => {
    const ticker = handTicker()
    let now = 1_000_000
    const said: string[] = []
    const release = join(dir, 'heartbeat-release')
    const command = `until [ -f ${release} ]; do sleep 0.05; done`
    const running = runGate(
      gate(command),
      options({ waiting: { ticker, now: () => now, say: line => said.push(line) } })
    )
    now += 15_000
    ticker.tick()
    now += 15_000
    ticker.tick()
    writeFileSync(release, '')
    expect((await running).status).toBe('pass')
    expect(said).toEqual([
      `Gates: still running: ${command} (15 s)`,
      `Gates: still running: ${command} (30 s)`
    ])
    expect(ticker.running()).toEqual([])
  })
})
