import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSetupCommands, runSetup } from '../../src/gates/setup.js'

let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rubric-council-setup-'))
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('the setup commands', () => {
  it('are one a line, without blank lines and comments', () => {
    expect(readSetupCommands('npm ci\r\n\n  # a comment\n  npm run build  \n#x\n')).toEqual([
      'npm ci',
      'npm run build'
    ])
    expect(readSetupCommands('')).toEqual([])
  })

  it('run one after another, each in its own log group, until one does not pass', async () => {
    const groups: string[] = []
    let written = ''
    const results = await runSetup(['echo one', 'echo two >&2; exit 4', 'echo three'], 10, {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      mask: text => text,
      log: {
        startGroup: name => groups.push(name),
        write: text => (written += text),
        endGroup: () => undefined
      }
    })
    expect(results.map(r => [r.command, r.status, r.exitCode])).toEqual([
      ['echo one', 'pass', 0],
      ['echo two >&2; exit 4', 'fail', 4]
    ])
    expect(groups).toEqual(['setup: echo one', 'setup: echo two >&2; exit 4'])
    expect(results[1]?.output.head).toBe('two\n')
    expect(written).not.toContain('three')
  })

  it('time out like gates', async () => {
    const [result] = await runSetup(['sleep 5'], 0.2, {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      mask: text => text,
      killGraceMs: 100,
      log: { startGroup: () => undefined, write: () => undefined, endGroup: () => undefined }
    })
    expect(result?.status).toBe('timeout')
  })
})
