import type { Rubric } from '../rubric/types.js'
import type { Evidence, EvidenceOrder, EvidenceScope } from './types.js'

export interface EvidenceRequest {
  readonly rubric: Rubric
  /**
   * The rubric is its owner's (read from the base branch, or a local file): its `exclude` may
   * take files out of coverage. A rubric from the pull request itself may only hide them.
   */
  readonly trusted: boolean
  /** The judges' context windows hold at most this many evidence tokens. */
  readonly limit?: number
  /** A rubric among several: its judges see the files it matches, the others by name. */
  readonly scope?: EvidenceScope
}

/**
 * Where the engine gets the evidence: the PR's diff and text, shaped by the `exclude` globs,
 * within the token budget, lowered to `limit` when the judges' context windows hold less.
 * Throws EvidenceUnavailableError when the diff cannot be read at all.
 */
export interface EvidenceSource {
  readonly collect: (request: EvidenceRequest) => Promise<Evidence>
  /** The `max-evidence-tokens` budget: the most the evidence takes where the windows hold more. */
  readonly budget: number
  /**
   * The order its files are shown in (`evidence-order`), which a calibration record must have
   * been measured with; a source that does not say is not compared with the record.
   */
  readonly order?: EvidenceOrder
}

export class EvidenceUnavailableError extends Error {
  override readonly name: string = 'EvidenceUnavailableError'
}
