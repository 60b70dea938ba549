/**
 * A gate's result, as the gates produce it and the council, the verdict and the reports read it.
 * It lives below all of them so that none has to import another's internals for it.
 */

/** What a gate run ends as (docs/rubric.md#gates): only `pass` lets the verdict get past row 2. */
export type GateStatus = 'pass' | 'fail' | 'error' | 'timeout'

/** A signal that ends a run early: Ctrl-C (SIGINT), `kill` (SIGTERM), the runner's cancel (both). */
export type StopSignal = 'SIGINT' | 'SIGTERM'

/** A gate's output, bounded: the start and the end are kept, the middle elided. */
export interface OutputExcerpt {
  readonly head: string
  readonly tail: string
  /** Bytes dropped between head and tail (0 when the whole output fit). */
  readonly elidedBytes: number
  readonly totalBytes: number
}

export interface GateResult {
  readonly command: string
  readonly status: GateStatus
  /** The exit code when the process exited; null when it was killed or never started. */
  readonly exitCode: number | null
  readonly durationMs: number
  readonly output: OutputExcerpt
  /** Why the gate is `error` or `timeout`, in words a user can act on. */
  readonly detail?: string
  /**
   * The signal that stopped the run while this gate ran or waited to (`error` then, whatever the
   * gate exited with): the run is ending, and no judge is asked after it. Never recorded.
   */
  readonly stopped?: StopSignal
}
