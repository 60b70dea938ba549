import type { Rubric } from '../rubric/types.js'

/** What a gate run ends as (docs/rubric.md#gates): only `pass` lets the verdict get past row 2. */
export type GateStatus = 'pass' | 'fail' | 'error' | 'timeout'

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
}

/** Where a gate's live output goes: a collapsible group in the Actions log, or the terminal. */
export interface GateLog {
  readonly startGroup: (name: string) => void
  readonly write: (chunk: string) => void
  readonly endGroup: () => void
}

/**
 * Where an evaluation's gate results come from: the gates run here, or results recorded by the
 * job that ran them (the split layout, docs/security.md).
 */
export interface GateSource {
  readonly results: (rubric: Rubric) => Promise<GateResult[]>
  /** Where the results come from, when not from here: shown with them in the report. */
  readonly provenance?: string
  /**
   * Why this rubric's gates must not run here at all (UNCLEAR `invalid_input`), asked before
   * anything else of the review; undefined when they may.
   */
  readonly refusal?: (rubric: Rubric) => Promise<string | undefined>
}
