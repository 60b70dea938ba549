import type { CouncilOutcome } from '../council/types.js'
import type { Evidence } from '../evidence/types.js'
import type { RubricDiff } from '../rubric/diff.js'
import type { HistoryEntry } from './history.js'
import type { GateResult } from '../gates/types.js'
import type { RubricIssue } from '../rubric/errors.js'
import type { Inheritance, RubricSourceKind, Thresholds } from '../rubric/types.js'
import type { Verdict } from '../verdict/types.js'

/** What the report says about the rubric; `hash` and `text` are absent when it could not be read. */
export interface RubricInfo {
  readonly path: string
  readonly source: RubricSourceKind
  readonly hash?: string
  readonly title?: string
  /** The materialised rubric of checker sugar, shown so it can be copied into the repository. */
  readonly materialised?: string
  /** What it extends, and each inherited rule it overrides (a changed must-have weakens). */
  readonly inherited?: Inheritance
  /** Why the rubric is invalid; empty when it is valid. */
  readonly problems: readonly RubricIssue[]
  readonly counts: { readonly gates: number; readonly must: number; readonly nice: number }
  /** The score thresholds of a valid rubric; absent when none was read. */
  readonly thresholds?: Thresholds
}

export interface RubricReview {
  /** `base`: read at the base commit (a PR cannot weaken its own gate); `head`: the PR's own. */
  readonly source: 'base' | 'head'
  /** Why the source differs from what was asked (e.g. the base has no rubric yet). */
  readonly note?: string
  /** Set when the pull request changes the rubric. */
  readonly diff?: RubricDiff
}

/**
 * A maintainer's acceptance of the verdict on one head commit (`/council accept <reason>`): the
 * check passes for that commit, whatever the verdict; a new push is judged again.
 */
export interface Acceptance {
  /** The login of the maintainer, whose write permission was checked through the API. */
  readonly by: string
  readonly reason: string
  readonly commit: string
}

/** One evaluation, everything the reports are rendered from. */
export interface Evaluation {
  readonly verdict: Verdict
  readonly rubric: RubricInfo
  readonly gates: readonly GateResult[]
  /** Where the gate results come from when another job ran the gates (the split layout). */
  readonly gatesProvenance?: string
  /** Absent when the rubric needs no council or evaluation stopped before it. */
  readonly council?: CouncilOutcome
  /**
   * Why the judges were not asked though the rubric has criteria: `gate_failed`, a gate failed and
   * the judges are not asked after one (`judge-after-failed-gate: false`). The report says it.
   */
  readonly judgesNotAsked?: 'gate_failed'
  /** What the judges were shown, with its coverage receipt; absent when they were not asked. */
  readonly evidence?: Evidence
  /** Every run on this pull request, this one last; absent outside a pull request. */
  readonly history?: readonly HistoryEntry[]
  /** Where the rubric came from and what the pull request changed in it. */
  readonly rubricReview?: RubricReview
  readonly iteration: number
  /** The judges' answers are those of this earlier iteration: nothing they saw has changed. */
  readonly reusedFrom?: number
  /** Set when a maintainer accepted the verdict on this commit. */
  readonly acceptance?: Acceptance
  /**
   * Why a `skip-*` rule that held did not skip this run (the skip label on a later push, a twin
   * pull request, a workflow that would not run again): the report says it.
   */
  readonly skipRefused?: string
}
