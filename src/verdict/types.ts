import type {
  ChecklistVerdict,
  CouncilFailure,
  Finding,
  Recommendation,
  Severity
} from '../council/types.js'
import type { GateResult } from '../gates/types.js'
import type { Standing } from './calibration.js'

export type VerdictKind = 'PASS' | 'FAIL' | 'UNCLEAR'
export type ExitCode = 0 | 1 | 2

/**
 * The reason codes in the decision table's order (docs/verdict.md): every verdict but PASS carries
 * at least one, and when it carries several, the first of them in this order is the most important.
 */
export const REASON_CODES = [
  'invalid_rubric',
  'invalid_input',
  'gate_failed',
  'missing_credentials',
  'rejected_credentials',
  'rate_limited',
  'timeout',
  'provider_error',
  'invalid_output',
  'answer_cut',
  'context_overflow',
  'criterion_failed',
  'min_score',
  'blocking_issue',
  'terminate',
  'workflow_modified',
  'incomplete_coverage',
  'judge_disagreement',
  'low_agreement',
  'low_score',
  'borderline'
] as const

export type ReasonCode = (typeof REASON_CODES)[number]

/** A gate that did not pass, as a reason names it. */
export type FailedGate = Pick<GateResult, 'command' | 'status' | 'exitCode' | 'detail'>

/** A judge call that gave no valid answer, as the reasons and next steps name it. */
export interface UnansweredCall {
  readonly judge: string
  readonly message: string
  readonly failure: CouncilFailure
  /**
   * The variable holding the key the provider refused (401, 403: `rejected_credentials`), when it
   * refused one; a key that was not set, or a judge that could not be formed, has none.
   */
  readonly keyRejected?: string
  /** No request was made (a retired model): the message says why and what to use instead. */
  readonly notAsked?: true
}

/** Why the council fell short of its quorum: how many answered, and what the others said. */
export interface CouncilShortfall {
  readonly valid: number
  readonly asked: number
  readonly quorum: number
  /** Each call without a valid answer: who, what it said, and why in a word. */
  readonly failures: readonly UnansweredCall[]
  /** Every provider error was a rejection of the request itself: asking again will not help. */
  readonly rejected: boolean
}

/**
 * The facts each reason is said with (numbers, names, ids): what decided it, never the words.
 * Every code of `REASON_CODES` must have an entry, or `Reason` does not typecheck; each way the
 * council can fail is a reason of row 3.
 */
interface ReasonFacts extends Readonly<Record<CouncilFailure, CouncilShortfall>> {
  /** How many problems the rubric has (the report lists them). */
  readonly invalid_rubric: { readonly problems: number }
  /** What is wrong with the inputs, as the input check put it. */
  readonly invalid_input: { readonly problem: string }
  readonly gate_failed: { readonly failed: readonly FailedGate[]; readonly of: number }
  /** The ids of the must-have checklist criteria a majority of judges failed. */
  readonly criterion_failed: { readonly criteria: readonly string[] }
  readonly min_score: {
    readonly criteria: readonly {
      readonly id: string
      readonly median: number
      readonly minimum: number
    }[]
  }
  /** `judges` of `of` judges (those whose samples agreed) reported a blocking finding. */
  readonly blocking_issue: {
    readonly judges: number
    readonly of: number
    readonly rule: 'majority' | 'any'
  }
  readonly terminate: { readonly judges: number; readonly of: number }
  /** The changed files that are the machinery running this check. */
  readonly workflow_modified: { readonly paths: readonly string[] }
  readonly incomplete_coverage:
    | {
        /** The changed files could not be read; `judged` says whether judges were needed. */
        readonly cause: 'unread'
        readonly problem: string
        readonly judged: boolean
      }
    | {
        /** The judges saw `coverage` of the reviewable changed files; the rubric needs `minimum`. */
        readonly cause: 'too_little'
        readonly coverage: number
        readonly minimum: number
      }
  /** Must-haves without a majority either way, and must-haves no valid answer graded. */
  readonly judge_disagreement: {
    readonly split: readonly { readonly id: string; readonly tally: Tally }[]
    readonly ungraded: readonly string[]
  }
  readonly low_agreement: { readonly confidence: number; readonly threshold: number }
  /** `capped`: the accuracy ceiling lowered the score. */
  readonly low_score: { readonly score: number; readonly fail: number; readonly capped: boolean }
  readonly borderline: {
    readonly score: number
    readonly fail: number
    readonly pass: number
    readonly capped: boolean
  }
}

/** The reason of one code, with its facts. */
export type ReasonOf<C extends ReasonCode> = { readonly code: C } & ReasonFacts[C]

/** A named reason of the decision table and the facts it is said with (src/sentences/reasons.ts). */
export type Reason = { [C in ReasonCode]: ReasonOf<C> }[ReasonCode]

/**
 * PASS/FAIL/SPLIT for checklist criteria; score-range criteria PASS/FAIL against their minimum,
 * else SCORED; UNGRADED when no valid answer graded it, or too few answers came to grade anything
 * (the council fell short of its quorum; the votes are still listed); WAIVED for a must-have that
 * FAILED or SPLIT and that a maintainer waived for this commit (`/council waive <id> <reason>`).
 */
export type CriterionStatus = 'PASS' | 'FAIL' | 'SPLIT' | 'SCORED' | 'UNGRADED' | 'WAIVED'

/** A maintainer's waiver of one must-have for one commit, checked through the API. */
export interface Waiver {
  readonly criterion: string
  /** The login of the maintainer, whose write permission was checked. */
  readonly by: string
  readonly reason: string
}

export interface Vote {
  /** `provider:model#sample` */
  readonly judge: string
  readonly verdict?: ChecklistVerdict
  readonly score?: number
  readonly reasoning: string
}

/**
 * How the judges voted on a checklist criterion, each with the majority of its own samples, and
 * the extra votes that counted on it (one each).
 */
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
  /** Checklist criteria: the votes counted, the judges' and the extra votes'. */
  readonly tally?: Tally
  /**
   * Must-haves the judges were not agreed on: the extra votes that counted on it, in the order
   * they were cast (also counted in `tally`, not listed in `votes`).
   */
  readonly extraVotes?: readonly Vote[]
  /**
   * Status WAIVED: who waived it and why. Its votes stay listed; it no longer fails the verdict
   * and is left out of the criteria score.
   */
  readonly waived?: { readonly by: string; readonly reason: string }
  /**
   * A must-have under `calibration: required`: whether the record lets it block, and why not. An
   * advisory one keeps its FAIL or SPLIT, which no longer fails the verdict nor makes it UNCLEAR,
   * and is left out of the criteria score and the agreement, as a waived one is.
   */
  readonly calibration?: Standing
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
  /**
   * A critical or major finding that names no shown file at a line a shown hunk holds, nor a gate
   * whose output it quotes: listed, but it blocks nothing (docs/verdict.md#grounded-findings).
   */
  readonly notInEvidence?: true
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
  /**
   * How many judges reported a blocking finding (the majority of their samples), of how many: only
   * findings located in the evidence count.
   */
  readonly blocking: { readonly judges: number; readonly of: number }
}

export const BLOCKING_SEVERITIES: readonly Severity[] = ['critical', 'major']
