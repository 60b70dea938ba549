import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * One temporary folder for the whole run: `TMPDIR` points into it, so the repositories, events,
 * runner folders and browser profiles the tests make (in this process, its workers and the
 * processes they start) are all inside, and all removed at the end, failed tests' included.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'rubric-council-tests-'))
  process.env.TMPDIR = dir
  return async () => {
    await rm(dir, { recursive: true, force: true })
  }
}
