import type { Rubric } from '../rubric/types.js'
import type { Evidence } from './types.js'

/**
 * Where the engine gets the evidence: the PR's diff and text, shaped by the rubric's `exclude`.
 * Throws EvidenceUnavailableError when the diff cannot be read at all.
 */
export interface EvidenceSource {
  readonly collect: (rubric: Rubric) => Promise<Evidence>
}

export class EvidenceUnavailableError extends Error {
  override readonly name: string = 'EvidenceUnavailableError'
}
