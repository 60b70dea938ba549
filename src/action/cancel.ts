import { killGates, onStopSignals, stopGates } from '../gates/running.js'
import { stoppedGateLine } from '../gates/sentences.js'
import type { ActionIO } from './io.js'

/**
 * The runner's cancel. GitHub documents it ("Workflow cancellation reference",
 * https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-cancellation): the
 * runner sends SIGINT to the step's `node`; if it has not exited within 7500 ms, SIGTERM; 2500 ms
 * later it kills the process tree. A gate runs in a process group of its own, which that tree
 * kill need not reach once its bash is gone, so the first signal ends every running gate here
 * (SIGTERM, SIGKILL after the 5 s grace period: within the 7.5 s) and the run goes on to its
 * verdict: a stopped gate is an error, never a pass, and no judge is asked after it, so the
 * check run and the comment say FAIL and why instead of staying pending. The runner's SIGTERM
 * kills what is left of the gates at once; the process itself is left for the runner to end.
 */
export function stopGatesOnCancel(io: Pick<ActionIO, 'info'>): void {
  onStopSignals({
    first: signal => {
      void stopGates(signal).then(stopped => {
        for (const gate of stopped) {
          io.info(`Rubric Council: ${stoppedGateLine(gate.command, gate.ms, signal)}`)
        }
      })
    },
    again: () => {
      killGates()
    }
  })
}
