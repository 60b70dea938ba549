import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'rubric-council.js')

describe('a reader that stops reading (`rubric-council … | head`)', () => {
  it('ends the CLI quietly with status 0, no stack trace', async () => {
    // Closed before the CLI writes: every write it makes meets EPIPE, as behind `| head -1`.
    const child = spawn(process.execPath, [BIN, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.destroy()
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const code = await new Promise<number | null>(resolve => child.on('close', resolve))
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
  })
})
