import { spawn } from 'node:child_process'
import { readdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import {
  readSessionState,
  sessionIdProblem,
  sessionLine,
  SESSIONS_DIR,
  type StoredSession
} from '../loop/session.js'
import { failed, type Result } from '../util/result.js'
import { USAGE_ERROR } from './args.js'
import { fileProblem, isWithin, type CliIo } from './io.js'
import { readCapped } from '../util/read-capped.js'

/** `rubric-council sessions`: the loop's sessions here, oldest first (their ids start with the time). */
export async function sessionsCommand(io: CliIo): Promise<number> {
  let ids: string[]
  try {
    const entries = await readdir(resolve(io.cwd, SESSIONS_DIR), { withFileTypes: true })
    ids = entries
      .filter(e => e.isDirectory() && sessionIdProblem(e.name) === undefined)
      .map(e => e.name)
  } catch (error) {
    if (fileProblem(error) === undefined) throw error
    ids = []
  }
  if (ids.length === 0) {
    io.stdout(`no loop sessions in ${SESSIONS_DIR} (rubric-council loop starts one)`)
    return 0
  }
  for (const id of ids.sort()) io.stdout(sessionLine(id, await sessionState(io.cwd, id)))
  return 0
}

/**
 * `rubric-council rubric <session-id>`: the rubric the session reads, opened in $VISUAL or $EDITOR
 * (else vi), as git opens its editor: the variable may hold arguments (`code --wait`).
 */
export async function rubricCommand(args: readonly string[], io: CliIo): Promise<number> {
  const usage = (line: string): number => {
    io.stderr(`rubric-council: ${line}`)
    return USAGE_ERROR
  }
  const [id, ...rest] = args
  if (id === undefined || rest.length > 0) {
    return usage('rubric takes one session id (rubric-council sessions lists them)')
  }
  const problem = sessionIdProblem(id)
  if (problem !== undefined) return usage(problem)
  const state = await sessionState(io.cwd, id)
  if (!state.ok) {
    return usage(
      `no session ${id} in ${SESSIONS_DIR}: ${state.problem} (rubric-council sessions lists them)`
    )
  }
  // The state is a file in the repository: it names the rubric, never a file outside.
  const path = resolve(io.cwd, state.value.rubric_path)
  if (!isWithin(io.cwd, path)) {
    return usage(
      `session ${id} names a rubric outside this directory: "${state.value.rubric_path}"`
    )
  }
  if (state.value.rubric_source === 'base') {
    io.stderr(
      `rubric-council: session ${id} grades with the base's ${state.value.rubric_path}, as the required check does: an edit here changes its next iteration only in a loop started with --rubric-source head`
    )
  }
  const editor =
    [io.env.VISUAL, io.env.EDITOR].find(e => e !== undefined && e.trim() !== '') ?? 'vi'
  const code = await new Promise<number | null>(done => {
    // The file is an argument of the shell, never spliced into the command.
    const child = spawn('sh', ['-c', `${editor} "$1"`, 'sh', path], {
      cwd: io.cwd,
      env: { ...io.env },
      stdio: 'inherit'
    })
    child.on('error', () => {
      done(null)
    })
    child.on('exit', exit => {
      done(exit)
    })
  })
  if (code === 0) return 0
  io.stderr(
    `rubric-council: the editor "${editor}" ${code === null ? 'did not start' : `exited ${code}`}`
  )
  return 1
}

/** The largest state file read back: a session of 50 iterations with long feedback fits. */
const MAX_STATE_BYTES = 16 * 1024 * 1024

/** A session's state, read inside the repository only (a branch may commit a link there). */
async function sessionState(cwd: string, id: string): Promise<Result<StoredSession>> {
  const path = join(resolve(cwd, SESSIONS_DIR), id, 'state.json')
  const read = await readCapped(path, MAX_STATE_BYTES, cwd)
  if (!read.ok) return failed(`state.json ${read.problem.message}`)
  return readSessionState(read.value.toString('utf8'))
}
