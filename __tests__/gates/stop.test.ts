import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { providerVariables } from '../../src/council/providers/index.js'
import { gateEnvironment } from '../../src/gates/environment.js'
import { runGates } from '../../src/gates/run.js'
import { runStoppedBy, signalExitCode, stopGates } from '../../src/gates/running.js'
import { notStartedDetail } from '../../src/gates/sentences.js'
import { isAlive } from '../helpers/process-alive.js'

/**
 * A stop of the run in process: `stopGates` is what src/bin.ts and src/action/cancel.ts call on
 * SIGINT or SIGTERM. A stop is the process's for good, so this file holds one.
 */

async function pidsIn(file: string, count: number): Promise<number[]> {
  for (let i = 0; i < 200; i++) {
    const pids = existsSync(file) ? readFileSync(file, 'utf8').split(/\s+/).filter(Boolean) : []
    if (pids.length >= count) return pids.map(Number)
    await sleep(50)
  }
  throw new Error(`no ${count} pids in ${file}`)
}

describe('stopGates', () => {
  it('ends the running gates (one ignoring SIGTERM too), starts none after, and marks each stopped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rc-stop-'))
    const tree = `sh -c 'sleep 1000 & echo $! >> tree; echo $$ >> tree; sleep 1000; wait'`
    const deaf = `trap '' TERM; echo $$ >> deaf; sleep 1000`
    const results = runGates(
      [tree, deaf, 'touch started'].map(command => ({ command, timeout: 600, line: 1 })),
      {
        cwd: dir,
        env: gateEnvironment(process.env, providerVariables()),
        log: { startGroup: () => undefined, write: () => undefined, endGroup: () => undefined },
        mask: text => text,
        parallel: 2,
        killGraceMs: 500
      }
    )
    const pids = [...(await pidsIn(join(dir, 'tree'), 2)), ...(await pidsIn(join(dir, 'deaf'), 1))]
    const stopped = await stopGates('SIGTERM')
    // In the order they started: with two at once, whichever passed its directory check first.
    expect(stopped.map(g => g.command).sort()).toEqual([tree, deaf].sort())
    // Every group has had its SIGKILL once stopGates resolves (the deaf one after its grace);
    // the kernel and the reaper of orphans take a moment more.
    const deadline = Date.now() + 5_000
    while (pids.some(isAlive) && Date.now() < deadline) await sleep(50)
    expect(pids.filter(isAlive)).toEqual([])
    const [first, second, third] = await results
    for (const result of [first, second]) {
      expect(result).toMatchObject({ status: 'error', exitCode: null, stopped: 'SIGTERM' })
      expect(result?.detail).toMatch(
        /^stopped after \d+\.\d s: the run was interrupted \(SIGTERM\); its process group was ended$/
      )
    }
    expect(third).toMatchObject({
      status: 'error',
      stopped: 'SIGTERM',
      detail: notStartedDetail('SIGTERM')
    })
    expect(existsSync(join(dir, 'started'))).toBe(false)
    expect(runStoppedBy()).toBe('SIGTERM')
  })
})

describe('signalExitCode', () => {
  it('is what a shell reports for a process a signal ended', () => {
    expect([signalExitCode('SIGINT'), signalExitCode('SIGTERM')]).toEqual([130, 143])
  })
})
