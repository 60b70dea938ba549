import type { VerdictKind } from '../verdict/types.js'

/**
 * One run of the check on a pull request. The runs so far are the pull request's history: the
 * judges are told of them, the report shows them, and the sticky comment keeps them between runs
 * (`report/history.ts` writes and reads them there).
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
   * Why this iteration ran, or what it recorded, when it is not a new push: "base rubric changed
   * (a1b2c3 → d4e5f6)", "/council rerun by @octocat", "accepted by @octocat: flaky judge".
   */
  readonly note?: string | undefined
}
