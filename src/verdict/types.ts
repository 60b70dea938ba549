import type {
  ChecklistVerdict,
  CouncilFailure,
  Finding,
  Recommendation,
  Severity
} from '../council/types.js'

export type VerdictKind = 'PASS' | 'FAIL' | 'UNCLEAR'
export type ExitCode = 0 | 1 | 2

/** Named reasons of the decision table (docs/verdict.md); every verdict but PASS carries at least one. */
export type ReasonCode =
  | 'invalid_rubric'
  | 'invalid_input'
  | 'gate_failed'
  | CouncilFailure
  | 'criterion_failed'
  | 'min_score'
  | 'blocking_issue'
  | 'terminate'
  | 'workflow_modified'
  | 'incomplete_coverage'
  | 'judge_disagreement'
  | 'low_agreement'
  | 'low_score'
  | 'borderline'

export interface Reason {
  readonly code: ReasonCode
  /** One sentence a reader can act on, naming what failed. */
  readonly message: string
}

/**
 * PASS/FAIL/SPLIT for checklist criteria; score-range criteria PASS/FAIL against their minimum,
 * else SCORED; UNGRADED when no valid answer graded it, or too few answers came to grade anything
 * (the council fell short of its quorum; the votes are still listed).
 */
export type CriterionStatus = 'PASS' | 'FAIL' | 'SPLIT' | 'SCORED' | 'UNGRADED'

export interface Vote {
  /** `provider:model#sample` */
  readonly judge: string
  readonly verdict?: ChecklistVerdict
  readonly score?: number
  readonly reasoning: string
}

/** How the judges voted on a checklist criterion, each with the majority of its own samples. */
export interface Tally {
  readonly pass: number
  readonly fail: number
  /** Judges whose samples tied. */
  readonly abstain: number
}

export interface CriterionResult {
  readonly id: string
  readonly description: string
  readonly required: boolean
  readonly weight: number
  readonly kind: 'checklist' | 'score'
  readonly status: CriterionStatus
  /**
   * s of docs/verdict.md, 0–1: 1 for PASS, 0.5 for SPLIT, 0 for FAIL; or the median score / 10.
   * Null without votes.
   */
  readonly score: number | null
  /** Score-range criteria: the median of the judges' 0–10 scores. */
  readonly median?: number
  /** Score-range criteria: the highest judge's score less the lowest's. */
  readonly spread?: number
  readonly requiredMinScore?: number
  /** Every answer's vote, sample by sample. */
  readonly votes: readonly Vote[]
  /** Checklist criteria: the judges' votes. */
  readonly tally?: Tally
  /** The casting vote of a tie-break call that settled a split must-have. */
  readonly tieBreak?: Vote
}

export interface DimensionResult {
  readonly name: string
  readonly weight: number
  readonly normalisedWeight: number
  /** Median 1–10; null when no judge scored it, or the council fell short of its quorum. */
  readonly median: number | null
  /** The highest judge's score less the lowest's; null when no judge scored it. */
  readonly spread: number | null
  readonly scores: readonly {
    readonly judge: string
    readonly score: number
    readonly reasoning: string
  }[]
}

export interface JudgedFinding extends Finding {
  readonly judge: string
}

export interface Verdict {
  readonly verdict: VerdictKind
  readonly exitCode: ExitCode
  readonly reasons: readonly Reason[]
  readonly recommendation: Recommendation
  /** S of docs/verdict.md, 0–1, after the accuracy ceiling; null when the rubric has nothing to score. */
  readonly score: number | null
  /** D/10 and C, each 0–1, or null when absent. */
  readonly dimensionsScore: number | null
  readonly criteriaScore: number | null
  readonly accuracyCeilingApplied: boolean
  /** Agreement between judges, 0–1; null with fewer than two answers (not measurable). */
  readonly confidence: number | null
  readonly criteria: readonly CriterionResult[]
  readonly dimensions: readonly DimensionResult[]
  readonly findings: readonly JudgedFinding[]
  /** How many judges reported a blocking finding (the majority of their samples), of how many. */
  readonly blocking: { readonly judges: number; readonly of: number }
}

export const BLOCKING_SEVERITIES: readonly Severity[] = ['critical', 'major']
