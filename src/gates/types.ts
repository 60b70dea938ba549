import type { GateResult } from '../gate-result/types.js'
import type { Rubric } from '../rubric/types.js'

// The result type lives below the gates and their readers (src/gate-result/); the gates' own
// modules and their callers keep importing it from here.
export type { GateResult, GateStatus, OutputExcerpt, StopSignal } from '../gate-result/types.js'

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
