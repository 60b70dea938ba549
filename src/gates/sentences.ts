import type { StopSignal } from './types.js'

// What the gates say of themselves while they run and when a signal stops them (docs/rubric.md#gates).

/** The heartbeat of a gate still running, every `WAITING_EVERY_MS`: `Gates: still running: npm test (45 s)`. */
export function stillRunningLine(command: string, seconds: number): string {
  return `Gates: still running: ${command} (${seconds} s)`
}

/** How long a stopped gate had run, as its lines say it. */
function secondsText(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

/** Who sent the signal, as a user knows it. */
const SENT_BY: Readonly<Record<StopSignal, string>> = {
  SIGINT: 'Ctrl-C, or the runner cancelling the job',
  SIGTERM: 'SIGTERM'
}

/** A stopped gate's `detail`, in its result and the report: it did not pass, and why. */
export function stoppedDetail(signal: StopSignal, ms: number): string {
  return `stopped after ${secondsText(ms)}: the run was interrupted (${SENT_BY[signal]}); its process group was ended`
}

/** The `detail` of a gate a signal kept from starting. */
export function notStartedDetail(signal: StopSignal): string {
  return `not run: the run was interrupted (${SENT_BY[signal]}) before it started`
}

/**
 * What the CLI (after `rubric-council: `) and the action's log (after `Rubric Council: `) say of
 * each gate a signal stopped: which one, after how long.
 */
export function stoppedGateLine(command: string, ms: number, signal: StopSignal): string {
  return `${signal}: stopped the gate "${command}" after ${secondsText(ms)} and ended its process group`
}
