import { main } from './cli.js'
import { invokedAs } from './cli/invocation.js'
import { fileProblem } from './cli/io.js'
import { intervalTicker } from './util/ticker.js'

// A reader that stops reading (`rubric-council init | head`) has what it wanted: end quietly, as
// other command-line tools do, rather than with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error
  process.exit(0)
})

const signals = { interrupted: false }
/** A command that keeps what it has done on Ctrl-C (calibrate) asks for it; a second one ends. */
const onInterrupt = (stop: () => void): (() => void) => {
  const listener = (): void => {
    if (signals.interrupted) process.exit(130)
    signals.interrupted = true
    stop()
  }
  process.on('SIGINT', listener)
  return () => process.off('SIGINT', listener)
}

try {
  process.exitCode = await main(process.argv.slice(2), {
    stdout: line => process.stdout.write(`${line}\n`),
    stderr: line => process.stderr.write(`${line}\n`),
    env: process.env,
    cwd: process.cwd(),
    invokedAs: invokedAs({
      script: process.argv[1],
      node: process.execPath,
      cwd: process.cwd(),
      env: process.env
    }),
    live: process.stderr.isTTY,
    ticker: intervalTicker,
    onInterrupt
  })
  // Calls still in flight when Ctrl-C stopped the command would keep the process waiting.
  if (signals.interrupted) process.exit()
} catch (error) {
  const problem = fileProblem(error)
  const path = (error as { path?: unknown }).path
  process.stderr.write(
    problem !== undefined
      ? // A file the user named, or their file system: one line naming the file, no stack.
        `rubric-council: ${typeof path === 'string' ? `${path}: ` : ''}${problem}\n`
      : // A bug, not a user error: say so, with the stack, and never exit 0.
        `rubric-council: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`
  )
  process.exitCode = 2
}
