import { accessSync, constants, statSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import { showControls } from '../evidence/content.js'
import type { StopSignal } from '../gates/types.js'
import type { Ticker } from '../util/ticker.js'

/** What a CLI command may touch, injected so tests run commands in-process. */
export interface CliIo {
  readonly stdout: (line: string) => void
  readonly stderr: (line: string) => void
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
  /** stderr is a terminal: progress is drawn as live status lines, redrawn in place. */
  readonly live?: boolean
  /** Ticks while judges are pending, for the waiting lines of a log (not live); none without it. */
  readonly ticker?: Ticker
  /**
   * The CLI as the user runs it, for the commands its Next lines name (`npx rubric-council`,
   * `node ../rubric-council/bin/rubric-council.js`; src/cli/invocation.ts); `rubric-council` by
   * default.
   */
  readonly invokedAs?: string
  /** Epoch ms: today, for the models' retirement dates; Date.now by default. */
  readonly now?: () => number
  /**
   * SIGINT (Ctrl-C) or SIGTERM calls `stop` with the signal instead of ending the process once the
   * running gates are ended (src/bin.ts), until the returned function is called: the command then
   * ends itself, keeping what it has done. A second signal ends the process at once. Absent: the
   * process ends as src/bin.ts ends it.
   */
  readonly onInterrupt?: (stop: (signal: StopSignal) => void) => () => void
}

const FILE_PROBLEMS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'it is a folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EEXIST: 'it exists'
}

/** What a file-system error means, in a few words; undefined for anything else (a bug). */
export function fileProblem(error: unknown): string | undefined {
  if (!(error instanceof Error) || !('code' in error) || typeof error.code !== 'string') {
    return undefined
  }
  // `mkdir` of a folder where a file is: the folder cannot be made.
  if (error.code === 'EEXIST' && 'syscall' in error && error.syscall === 'mkdir') {
    return 'a file is there, where a folder is needed'
  }
  return FILE_PROBLEMS[error.code] ?? (error.code.startsWith('E') ? error.code : undefined)
}

/** Why `path` (shown as `shown`) cannot be written, checked before anything runs. */
export function outputProblem(path: string, shown: string): string | undefined {
  const folder = dirname(path)
  try {
    if (statSync(path).isDirectory()) return `${shown}: it is a folder`
  } catch {
    // Not there yet: the usual case.
  }
  try {
    if (!statSync(folder).isDirectory()) return `${shown}: ${folder} is not a folder`
  } catch {
    return `${shown}: the folder ${folder} does not exist`
  }
  try {
    accessSync(folder, constants.W_OK)
  } catch {
    return `${shown}: the folder ${folder} is not writable`
  }
  return undefined
}

/** A report a command writes: what it is, the file it goes to (none: not asked for), its text. */
export type ReportFile = readonly [what: string, file: string | undefined, text: string]

/**
 * Why one of the report files asked for cannot be written, in the words stderr shows, checked
 * before anything runs; undefined when all can be.
 */
export function reportsProblem(
  io: Pick<CliIo, 'cwd'>,
  files: readonly (readonly [what: string, file: string | undefined])[]
): string | undefined {
  for (const [what, file] of files) {
    const problem = file === undefined ? undefined : outputProblem(resolve(io.cwd, file), file)
    if (problem !== undefined) return `cannot write the ${what} to ${problem}`
  }
  return undefined
}

/** Writes every report asked for, saying on stderr which could not be; true when all were. */
export async function writeReports(
  io: Pick<CliIo, 'cwd' | 'stderr'>,
  reports: readonly ReportFile[]
): Promise<boolean> {
  let written = true
  for (const [what, file, text] of reports) {
    if (file === undefined) continue
    try {
      await writeFile(resolve(io.cwd, file), text)
    } catch (error) {
      const problem = fileProblem(error)
      if (problem === undefined) throw error
      io.stderr(`rubric-council: cannot write the ${what} to ${file}: ${problem}`)
      written = false
    }
  }
  return written
}

/** Whether `path` (relative to `root`, or absolute) is `root` or within it, after `..` is resolved. */
export function isWithin(root: string, path: string): boolean {
  const inside = relative(root, resolve(root, path))
  return inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside)
}

/**
 * A line for standard output: the reports there hold text from the pull request (file names, the
 * judges' words, the rubric), shown and never obeyed. Every control character but tab and line
 * feed, C1 ones included, is written as a visible symbol or escape, so no sequence can clear the
 * screen, move the cursor, or rewrite the verdict printed above it.
 */
export function terminalText(line: string): string {
  // Beyond what `showControls` shows (text keeps its carriage returns): CR, which returns to the
  // start of the line to overwrite it, and the C1 controls, 8-bit escapes in some terminals.
  return showControls(line).replace(/[\r\x80-\x9f]/g, c =>
    c === '\r' ? '\u240d' : `\\x${c.charCodeAt(0).toString(16)}`
  )
}
