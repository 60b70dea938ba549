import type { VerdictKind } from '../verdict/types.js'

/**
 * One run of the check on a pull request, or one iteration of the local loop (`rubric-council
 * loop`). The runs so far are the pull request's history: the judges are told of them, the report
 * shows them, and the sticky comment keeps them between runs (`publish/memory.ts` writes and reads
 * them there, compacting the oldest when space runs out).
 */
export interface HistoryEntry {
  readonly iteration: number
  readonly commit: string
  readonly verdict: VerdictKind
  /** The one-line summary of that run. */
  readonly summary: string
  readonly rubricHash: string
  readonly reasons: readonly string[]
  /**
   * The must-haves that FAILED, SPLIT or were WAIVED in that run: those `/council waive <id>`
   * may waive (the review checks again against its own verdict).
   */
  readonly waivable?: readonly string[] | undefined
  /**
   * Why this iteration ran, or what it recorded, when it is not a new push: "base rubric changed
   * (a1b2c3 → d4e5f6)", "/council rerun by @octocat", "accepted by @octocat: flaky judge".
   */
  readonly note?: string | undefined
  /** What that iteration's check told the doer to fix, in brief (the local loop); none on a pull request. */
  readonly feedback?: string | undefined
  /**
   * When the verdict was recorded (ISO 8601, UTC): a `/council accept` written before it cannot
   * have been about it.
   */
  readonly at?: string | undefined
}

/**
 * The iteration a new run is: one after the highest kept. Not the count of entries: the oldest may
 * have been compacted away, and two overlapping runs may both have been the same iteration.
 */
export function nextIteration(history: readonly HistoryEntry[]): number {
  return history.reduce((highest, e) => Math.max(highest, e.iteration), 0) + 1
}
