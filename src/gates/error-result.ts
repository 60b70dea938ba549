import type { Gate } from '../rubric/types.js'
import type { GateResult } from './types.js'

/** A gate that has no result of its own (not run, or not recorded): an error, and why. */
export function errorResult(gate: Gate, detail: string): GateResult {
  return {
    command: gate.command,
    status: 'error',
    exitCode: null,
    durationMs: 0,
    output: { head: '', tail: '', elidedBytes: 0, totalBytes: 0 },
    detail
  }
}
