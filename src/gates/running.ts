import { constants } from 'node:os'
import type { StopSignal } from './types.js'

/**
 * The gates running in this process. Each runs in a process group of its own (`runGate`), out of
 * reach of the signal a terminal sends its foreground group: a signal that ends the run must end
 * them here, or they outlive it, re-parented to PID 1. A signal is the process's, so this registry
 * is too: every gate started, by whatever command, is in it until its group is gone.
 */

/** A gate that is running: how a stop ends it, and when its group is gone. */
export interface RunningGate {
  readonly command: string
  /** `performance.now()` when it started. */
  readonly startedAt: number
  /** Ends the gate as a timeout does (SIGTERM to its group, SIGKILL after a grace period). */
  readonly stop: (signal: StopSignal) => void
  /** SIGKILL to its group now. */
  readonly kill: () => void
  /** Settles once the gate's process group is gone. */
  readonly ended: Promise<void>
}

/** A gate a signal stopped, and how long it had run when it was. */
export interface StoppedGate {
  readonly command: string
  readonly ms: number
}

const running = new Set<RunningGate>()
let stoppedBy: StopSignal | undefined

/** Registers a started gate, until its group is gone. */
export function track(gate: RunningGate): void {
  running.add(gate)
  void gate.ended.finally(() => running.delete(gate))
}

/** The signal that stopped the run, once one did: no gate starts after it. */
export function runStoppedBy(): StopSignal | undefined {
  return stoppedBy
}

/**
 * Stops the run: every running gate is ended (SIGTERM, then SIGKILL after its grace period) and
 * no gate starts after. Resolves with the gates it stopped once all their groups are gone.
 */
export async function stopGates(signal: StopSignal): Promise<StoppedGate[]> {
  stoppedBy ??= signal
  const now = performance.now()
  const gates = [...running]
  for (const gate of gates) gate.stop(signal)
  await Promise.all(gates.map(gate => gate.ended))
  return gates.map(gate => ({ command: gate.command, ms: now - gate.startedAt }))
}

/** SIGKILL to every running gate's group, at once: the process is about to end. */
export function killGates(): void {
  for (const gate of running) gate.kill()
}

/**
 * Signals the whole process group. A group already gone (ESRCH) is what we wanted; EPERM is what
 * macOS answers for a group of zombies. Neither may crash the run from inside a timer.
 */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ESRCH' && code !== 'EPERM') throw error
  }
}

/** The exit status of a process a signal ended, as a shell reports it: 130 for SIGINT, 143 for SIGTERM. */
export function signalExitCode(signal: StopSignal): number {
  return 128 + constants.signals[signal]
}

/**
 * Handles SIGINT and SIGTERM for a shell (the CLI, the action): the first calls `first`, each
 * later one `again`. Handled, neither ends the process by itself: the shell decides when.
 */
export function onStopSignals(handlers: {
  readonly first: (signal: StopSignal) => void
  readonly again: (signal: StopSignal) => void
}): void {
  let first: StopSignal | undefined
  const listener = (signal: StopSignal): void => {
    if (first === undefined) {
      first = signal
      handlers.first(signal)
    } else handlers.again(signal)
  }
  process.on('SIGINT', listener)
  process.on('SIGTERM', listener)
}
