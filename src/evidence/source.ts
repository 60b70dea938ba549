import type { Rubric } from '../rubric/types.js'
import type { Evidence } from './types.js'

/**
 * Where the engine gets the evidence: the PR's diff and text, shaped by the rubric's `exclude`,
 * within the token budget, lowered to `limit` when the judges' context windows hold less.
 * Throws EvidenceUnavailableError when the diff cannot be read at all.
 */
export interface EvidenceSource {
  readonly collect: (rubric: Rubric, limit?: number) => Promise<Evidence>
}

export class EvidenceUnavailableError extends Error {
  override readonly name: string = 'EvidenceUnavailableError'
}
