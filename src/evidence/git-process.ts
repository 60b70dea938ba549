import { spawn } from 'node:child_process'
import { mkdtemp, open, rm, unlink, type FileHandle } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { StringDecoder } from 'node:string_decoder'

/**
 * How git is run: no shell, untranslated messages, no prompt, no replace objects or grafts, the
 * token in one process's environment only. What is asked of git is the callers' (`git.ts`).
 */

/** Runs git with these arguments in `cwd`; injected so tests and callers can wrap or record it. */
export type Run = (
  args: readonly string[],
  cwd: string,
  /** Added to git's environment (a fetch's credentials). */
  env?: Readonly<Record<string, string>>,
  /**
   * When given, stdout is handed over decoded, in pieces, and `stdout` is empty (a `Run` that
   * does not stream may return it whole instead).
   */
  onStdout?: (text: string) => void
) => Promise<{ exitCode: number; stdout: string; stderr: string }>

/**
 * Credentials for fetching what a checkout lacks: the action's token, sent only to the GitHub
 * server it belongs to, the way actions/checkout configures git (an `http.<server>/.extraheader`),
 * but in this one process's environment, never in `.git/config`.
 */
export interface GitAuth {
  /** GITHUB_SERVER_URL, e.g. https://github.com */
  readonly serverUrl: string
  readonly token: string
}

/** The environment that gives one git process the token, for that server only. */
export function authEnvironment(auth: GitAuth | undefined): Record<string, string> {
  if (auth === undefined || auth.token === '') return {}
  const basic = Buffer.from(`x-access-token:${auth.token}`).toString('base64')
  return {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: `http.${auth.serverUrl.replace(/\/+$/, '')}/.extraheader`,
    GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${basic}`
  }
}

export type RunResult = Awaited<ReturnType<Run>>

/**
 * Git runs through `node:child_process`, not `@actions/exec` (which the action therefore does not
 * depend on): a streamed diff goes to an open file descriptor rather than a pipe (see below),
 * `blobHead` stops git once it has read enough, and stdout is handed over as exact bytes; exec
 * offers none of these, and it has no timeout either.
 *
 * Spawns git (no shell) with `LC_ALL=C`, so messages are the untranslated ones, and without a
 * terminal prompt, so a fetch that needs credentials fails instead of hanging. Replace objects
 * (`git replace`) and grafts are ignored: with them, anything that could write to `.git` could
 * make the judges see another commit's content.
 *
 * Streamed (`onStdout`), git writes to a private file (see `privateFile`) rather than a pipe, and
 * the file is read once git is done, a piece at a time. Through a pipe git stops whenever the
 * pipe is full until this process reads, and this process is busy meanwhile: on the bench's
 * 6.2 MB diff git took 110–130 ms through the pipe for 40–50 ms of its own CPU time. (Reading
 * the file as it grew gained nothing measurable.) Without a writable temporary folder, the pipe
 * it is. Either way the text is decoded by a decoder that keeps a character cut between two
 * reads until its last byte comes; unstreamed, stdout is decoded once, at the end.
 */
export const runGit: Run = async (args, cwd, extra, onStdout) => {
  if (onStdout === undefined) return spawnGit(args, cwd, extra, 'pipe')
  const file = await privateFile()
  if (file === undefined) return spawnGit(args, cwd, extra, onStdout)
  try {
    const result = await spawnGit(args, cwd, extra, file.fd)
    const decoder = new StringDecoder('utf8')
    const buffer = Buffer.alloc(READ_BYTES)
    for (let position = 0; ;) {
      const { bytesRead } = await file.read(buffer, 0, READ_BYTES, position)
      if (bytesRead === 0) break
      position += bytesRead
      onStdout(decoder.write(buffer.subarray(0, bytesRead)))
    }
    onStdout(decoder.end())
    return result
  } finally {
    await file.close()
  }
}

/** How much of a streamed command's output is read and handed over at a time. */
const READ_BYTES = 1 << 20

/**
 * A new file open for reading and writing that has no name: made in a new folder only this user
 * may enter, created exclusively, and unlinked (the folder with it) before anything is written,
 * so nothing can find it by its path, and nothing is left behind. Undefined when the temporary
 * folder is not writable. Code of this user that is already running could still reach it
 * through this process, as it could rewrite `.git`: in single-job mode that is hygiene, not
 * isolation, and the split layout runs the pull request's code in another job (docs/security.md).
 */
async function privateFile(): Promise<FileHandle | undefined> {
  let dir: string | undefined
  try {
    dir = await mkdtemp(join(tmpdir(), 'rubric-council-'))
    const path = join(dir, 'stdout')
    const file = await open(path, 'wx+', 0o600)
    await unlink(path)
    return file
  } catch {
    return undefined
  } finally {
    // The file has no name by now: a folder that cannot be removed is left, the diff goes on.
    if (dir !== undefined) await rm(dir, { recursive: true, force: true }).catch(() => undefined)
  }
}

/**
 * Runs git; its stdout goes to `stdout`: collected (`'pipe'`), handed over as it comes (a
 * function), or written to an open file.
 */
function spawnGit(
  args: readonly string[],
  cwd: string,
  extra: Readonly<Record<string, string>> | undefined,
  stdout: 'pipe' | number | ((text: string) => void)
): Promise<RunResult> {
  return new Promise(resolve => {
    const child = spawn('git', [...args], {
      cwd,
      env: {
        ...process.env,
        ...extra,
        LC_ALL: 'C',
        GIT_TERMINAL_PROMPT: '0',
        GIT_NO_REPLACE_OBJECTS: '1',
        GIT_GRAFT_FILE: '/dev/null'
      },
      stdio: ['ignore', typeof stdout === 'number' ? stdout : 'pipe', 'pipe']
    })
    const collected: Buffer[] = []
    const stderr: Buffer[] = []
    const decoder = typeof stdout === 'function' ? new StringDecoder('utf8') : undefined
    child.stdout?.on('data', (chunk: Buffer) => {
      if (typeof stdout === 'function') stdout(decoder?.write(chunk) ?? '')
      else collected.push(chunk)
    })
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk))
    // No git, or no such directory: reported like a failed command, so callers have one path.
    child.on('error', error => {
      resolve({ exitCode: 127, stdout: '', stderr: error.message })
    })
    child.on('close', code => {
      if (typeof stdout === 'function') stdout(decoder?.end() ?? '')
      resolve({
        exitCode: code ?? 128,
        stdout: Buffer.concat(collected).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8')
      })
    })
  })
}

/**
 * The first `bytes` bytes of the file at `revision:path`, read from git's objects (never from the
 * working tree, which a pull request's code may have changed); undefined when git cannot read it.
 * Reading stops at `bytes`: a large file is not read whole.
 */
export function blobHead(
  cwd: string,
  revision: string,
  path: string,
  bytes: number
): Promise<Uint8Array | undefined> {
  return new Promise(resolve => {
    const child = spawn('git', ['cat-file', 'blob', `${revision}:${path}`], {
      cwd,
      env: {
        ...process.env,
        LC_ALL: 'C',
        GIT_NO_REPLACE_OBJECTS: '1',
        GIT_GRAFT_FILE: '/dev/null'
      },
      stdio: ['ignore', 'pipe', 'ignore']
    })
    const chunks: Buffer[] = []
    let read = 0
    child.stdout.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      read += chunk.length
      if (read >= bytes) child.kill()
    })
    child.on('error', () => {
      resolve(undefined)
    })
    child.on('close', code => {
      resolve(read >= bytes || code === 0 ? Buffer.concat(chunks).subarray(0, bytes) : undefined)
    })
  })
}
