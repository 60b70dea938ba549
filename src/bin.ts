import { main } from './cli.js'
import { invokedAs } from './cli/invocation.js'
import { fileProblem } from './cli/io.js'
import { killGates, onStopSignals, signalExitCode, stopGates } from './gates/running.js'
import { stoppedGateLine } from './gates/sentences.js'
import type { StopSignal } from './gates/types.js'
import { intervalTicker } from './util/ticker.js'

// A reader that stops reading (`rubric-council init | head`) has what it wanted: end quietly, as
// other command-line tools do, rather than with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error
  process.exit(0)
})

/**
 * SIGINT (Ctrl-C, sent by a terminal to its whole foreground group) and SIGTERM. The gates run in
 * groups of their own, which the terminal's signal does not reach: the first signal ends every
 * running gate (src/gates/running.ts) and says which and after how long; then the process ends
 * with 130 / 143, once their groups are gone. A command that keeps what it has done (calibrate's
 * reports, loop's session) asks to be told instead, and ends itself. A second signal ends at once.
 */
const stop: {
  signal?: StopSignal
  gatesEnded?: Promise<void>
  keep?: (signal: StopSignal) => void
} = {}
onStopSignals({
  first: signal => {
    stop.signal = signal
    stop.gatesEnded = stopGates(signal).then(stopped => {
      for (const gate of stopped) {
        process.stderr.write(`rubric-council: ${stoppedGateLine(gate.command, gate.ms, signal)}\n`)
      }
    })
    if (stop.keep) stop.keep(signal)
    else void stop.gatesEnded.then(() => process.exit(signalExitCode(signal)))
  },
  again: signal => {
    killGates()
    process.exit(signalExitCode(stop.signal ?? signal))
  }
})
const onInterrupt = (keep: (signal: StopSignal) => void): (() => void) => {
  stop.keep = keep
  return () => {
    if (stop.keep === keep) delete stop.keep
  }
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
  // Calls still in flight when a signal stopped the command would keep the process waiting.
  if (stop.signal !== undefined) {
    await stop.gatesEnded
    process.exit(signalExitCode(stop.signal))
  }
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
