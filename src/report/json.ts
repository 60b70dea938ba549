import { standingSentence } from '../sentences/calibration.js'
import type { Standing } from '../verdict/calibration.js'
import type {
  CancelledCall,
  ChecklistVerdict,
  CouncilFailure,
  Recommendation,
  Severity,
  TokenUsage
} from '../council/types.js'
import type { Evaluation } from '../engine/evaluation.js'
import type { CoverageReceipt, Omission, Redaction } from '../evidence/types.js'
import type { GateStatus } from '../gates/types.js'
import { formatIssue } from '../rubric/errors.js'
import type { RubricChange } from '../rubric/diff.js'
import type { RubricSourceKind } from '../rubric/types.js'
import { cancelledSentence, JUDGES_NOT_ASKED } from '../sentences/council.js'
import { reasonSentence, type Audience } from '../sentences/reasons.js'
import type { CriterionResult, ExitCode, ReasonCode, Tally, VerdictKind } from '../verdict/types.js'
import { summaryLine } from './summary.js'

export const REPORT_SCHEMA = 'rubric-council/report@1'

/**
 * The `rubric-council/report@1` JSON report (the `report` output, `check --json`): what the
 * Markdown report shows, uncut, in snake_case. Absent values are null, never missing keys.
 */
export interface JsonReport {
  readonly schema: typeof REPORT_SCHEMA
  readonly verdict: VerdictKind
  readonly exit_code: ExitCode
  readonly reasons: readonly { readonly code: ReasonCode; readonly message: string }[]
  readonly recommendation: Recommendation
  readonly summary: string
  readonly score: number | null
  readonly scores: { readonly dimensions: number | null; readonly criteria: number | null }
  readonly accuracy_ceiling_applied: boolean
  readonly confidence: number | null
  readonly rubric: {
    readonly path: string
    readonly source: RubricSourceKind
    readonly hash: string | null
    readonly title: string | null
    readonly problems: readonly string[]
    readonly materialised: string | null
    /** The rubrics it extends, and each inherited rule it overrides; null when it extends none. */
    readonly inherited: {
      readonly from: readonly string[]
      readonly overrides: readonly RubricChange[]
      readonly weakened: boolean
    } | null
  }
  /** Where the gate results come from when another job ran the gates; null when run here. */
  readonly gates_provenance: string | null
  readonly gates: readonly {
    readonly command: string
    readonly status: GateStatus
    readonly exit_code: number | null
    readonly duration_ms: number
    readonly detail: string | null
    readonly output: {
      readonly head: string
      readonly tail: string
      readonly elided_bytes: number
      readonly total_bytes: number
    }
  }[]
  readonly criteria: readonly (Pick<
    CriterionResult,
    'id' | 'description' | 'required' | 'weight' | 'kind' | 'status' | 'score'
  > & {
    readonly median: number | null
    readonly required_min_score: number | null
    readonly votes: readonly {
      readonly judge: string
      readonly verdict: ChecklistVerdict | null
      readonly score: number | null
      readonly reasoning: string
    }[]
    /** The votes counted, the judges' and the extra votes'. */
    readonly judges: Tally | null
    /** The extra votes that counted on a must-have the judges were not agreed on, in order. */
    readonly extra_votes: readonly {
      readonly judge: string
      readonly verdict: ChecklistVerdict | null
      readonly reasoning: string
    }[]
    /** A must-have a maintainer waived for this commit (status WAIVED): who, and why. */
    readonly waived: { readonly by: string; readonly reason: string } | null
    /**
     * A must-have under `calibration: required`: whether the calibration record lets it block,
     * why not (an advisory FAIL or SPLIT decides nothing), and what the record measured of it.
     */
    readonly calibration: JsonStanding | null
  })[]
  readonly dimensions: readonly {
    readonly name: string
    readonly weight: number
    readonly normalised_weight: number
    readonly median: number | null
    readonly scores: readonly {
      readonly judge: string
      readonly score: number
      readonly reasoning: string
    }[]
  }[]
  readonly findings: readonly {
    readonly judge: string
    readonly severity: Severity
    readonly title: string
    readonly path: string | null
    readonly line: number | null
    readonly evidence: string
    /** false for a critical or major finding not located in the evidence: it blocks nothing. */
    readonly in_evidence: boolean
  }[]
  readonly blocking: { readonly judges: number; readonly of: number }
  /**
   * Every call: answered (`ok`), `failed`, or `cancelled` once the answers in hand had settled the
   * verdict (no failure: `error` then says why it was not waited for).
   */
  readonly judges: readonly {
    readonly judge: string
    readonly sample: number
    readonly status: 'ok' | 'failed' | 'cancelled'
    readonly failure: CouncilFailure | null
    readonly error: string | null
    readonly recommendation: Recommendation | null
    readonly feedback: string | null
    readonly latency_ms: number
    readonly requests: number | null
    readonly tokens: {
      readonly input: number
      readonly cached_input: number
      readonly cache_write: number
      readonly output: number
    } | null
    readonly cost_usd: number | null
    /**
     * Of `cost_usd`, what the call's prompt-cache reads (`cached_input`) and writes (`cache_write`)
     * cost; null where the model's price is unknown.
     */
    readonly cache_cost_usd: { readonly read: number; readonly write: number } | null
    /** The cap on its answer (reasoning included) and the temperature it was sent; null: none. */
    readonly max_output_tokens: number | null
    readonly temperature: number | null
    /** The context window its prompt was sized to, declared or reported by its server; null: none. */
    readonly window: number | null
  }[]
  readonly quorum: number | null
  /**
   * Why no judge was asked though the rubric has criteria: `gate_failed` when a gate had failed and
   * `judge-after-failed-gate` is false. Null when the judges were asked (or none was needed).
   */
  readonly judges_not_asked: { readonly reason: 'gate_failed'; readonly message: string } | null
  readonly coverage: {
    readonly ratio: number
    readonly reviewable: number
    readonly budget_tokens: number
    readonly used_tokens: number
    readonly reviewed: CoverageReceipt['reviewed']
    readonly omitted: readonly Omission[]
    readonly redacted: readonly Redaction[]
  } | null
  readonly iteration: number
  readonly history: readonly {
    readonly iteration: number
    readonly commit: string
    readonly verdict: VerdictKind
    readonly summary: string
    readonly rubric_hash: string
    readonly reasons: readonly string[]
    /** Why the iteration ran, or what it recorded (base rubric changed, a rerun, an acceptance). */
    readonly note: string | null
  }[]
  /** The iteration whose judges' answers this run reused (the verdict cache); null when asked. */
  readonly reused_from: number | null
  /** A maintainer's acceptance of this verdict for this commit: the check passes. */
  readonly accepted: {
    readonly by: string
    readonly reason: string
    readonly commit: string
  } | null
  readonly rubric_review: {
    readonly source: 'base' | 'head'
    readonly note: string | null
    readonly changes: readonly RubricChange[]
    readonly weakened: boolean
  } | null
}

/** The JSON report of an evaluation; each reason's message is said in the words of `audience`. */
export function toJsonReport(evaluation: Evaluation, audience: Audience = 'action'): JsonReport {
  const { verdict, rubric, council } = evaluation
  return {
    schema: REPORT_SCHEMA,
    verdict: verdict.verdict,
    exit_code: verdict.exitCode,
    reasons: verdict.reasons.map(r => ({ code: r.code, message: reasonSentence(r, audience) })),
    recommendation: verdict.recommendation,
    summary: summaryLine(evaluation),
    score: verdict.score,
    scores: { dimensions: verdict.dimensionsScore, criteria: verdict.criteriaScore },
    accuracy_ceiling_applied: verdict.accuracyCeilingApplied,
    confidence: verdict.confidence,
    rubric: {
      path: rubric.path,
      source: rubric.source,
      hash: rubric.hash ?? null,
      title: rubric.title ?? null,
      problems: rubric.problems.map(formatIssue),
      materialised: rubric.materialised ?? null,
      inherited: rubric.inherited ?? null
    },
    gates_provenance: evaluation.gatesProvenance ?? null,
    gates: jsonGates(evaluation.gates),
    criteria: verdict.criteria.map(jsonCriterion),
    dimensions: verdict.dimensions.map(d => ({
      name: d.name,
      weight: d.weight,
      normalised_weight: d.normalisedWeight,
      median: d.median,
      scores: d.scores
    })),
    findings: verdict.findings.map(f => ({
      judge: f.judge,
      severity: f.severity,
      title: f.title,
      path: f.path ?? null,
      line: f.line ?? null,
      evidence: f.evidence,
      in_evidence: f.notInEvidence !== true
    })),
    blocking: verdict.blocking,
    judges: [
      ...(council?.runs ?? []).map(jsonJudge),
      ...(council?.cancelled ?? []).map(jsonCancelled)
    ],
    quorum: council?.quorum ?? null,
    judges_not_asked: evaluation.judgesNotAsked
      ? {
          reason: evaluation.judgesNotAsked,
          message: JUDGES_NOT_ASKED[evaluation.judgesNotAsked]
        }
      : null,
    coverage: jsonCoverage(evaluation.evidence?.receipt),
    iteration: evaluation.iteration,
    ...jsonHistory(evaluation)
  }
}

/** An entry of one of the report's lists. */
type Element<K extends keyof JsonReport> =
  NonNullable<JsonReport[K]> extends readonly (infer E)[] ? E : never

function jsonGates(gates: Evaluation['gates']): JsonReport['gates'] {
  return gates.map(g => ({
    command: g.command,
    status: g.status,
    exit_code: g.exitCode,
    duration_ms: Math.round(g.durationMs),
    detail: g.detail ?? null,
    output: {
      head: g.output.head,
      tail: g.output.tail,
      elided_bytes: g.output.elidedBytes,
      total_bytes: g.output.totalBytes
    }
  }))
}

function jsonCriterion(c: CriterionResult): Element<'criteria'> {
  return {
    id: c.id,
    description: c.description,
    required: c.required,
    weight: c.weight,
    kind: c.kind,
    status: c.status,
    score: c.score,
    median: c.median ?? null,
    required_min_score: c.requiredMinScore ?? null,
    votes: c.votes.map(v => ({
      judge: v.judge,
      verdict: v.verdict ?? null,
      score: v.score ?? null,
      reasoning: v.reasoning
    })),
    judges: c.tally ?? null,
    extra_votes: (c.extraVotes ?? []).map(v => ({
      judge: v.judge,
      verdict: v.verdict ?? null,
      reasoning: v.reasoning
    })),
    waived: c.waived ?? null,
    calibration: c.calibration ? jsonStanding(c.calibration) : null
  }
}

/** A must-have's standing under `calibration: required`, in the JSON report. */
export interface JsonStanding {
  readonly blocks: boolean
  /** `calibrated`, or why it advises: `advise`, `not_calibrated`, `record_broken`, `stale_*`. */
  readonly cause:
    | 'calibrated'
    | 'advise'
    | 'not_calibrated'
    | 'record_broken'
    | 'stale_text'
    | 'stale_council'
    | 'stale_prompt'
    | 'stale_evidence'
  /** The report's words: "advisory: precision 0.62 < 0.90 on 18 cases". */
  readonly reason: string
  /** What the record measured; null where it measured nothing of it. */
  readonly precision: number | null
  readonly flip: number | null
  readonly cases: { readonly pass: number; readonly fail: number } | null
  readonly recorded: string | null
}

function jsonStanding(standing: Standing): JsonStanding {
  const { measured } = standing
  const cause = standing.blocks
    ? 'calibrated'
    : standing.cause.code === 'stale'
      ? (`stale_${standing.cause.changed}` as const)
      : standing.cause.code
  return {
    blocks: standing.blocks,
    cause,
    reason: standingSentence(standing),
    precision: measured?.precision ?? null,
    flip: measured?.flip ?? null,
    cases: measured ? { ...measured.cases } : null,
    recorded: measured?.recorded ?? null
  }
}

function jsonJudge(run: NonNullable<Evaluation['council']>['runs'][number]): Element<'judges'> {
  return {
    judge: run.judge,
    sample: run.sample,
    status: run.status,
    failure: run.status === 'failed' ? run.failure : null,
    error: run.status === 'failed' ? run.message : null,
    recommendation: run.status === 'ok' ? run.answer.verdict : null,
    feedback: run.status === 'ok' ? run.answer.feedback : null,
    latency_ms: Math.round(run.latencyMs),
    requests: run.requests ?? null,
    tokens: jsonTokens(run.tokens),
    cost_usd: run.costUsd ?? null,
    cache_cost_usd: run.cacheCostUsd ?? null,
    max_output_tokens: run.sent?.cap ?? null,
    temperature: run.sent?.temperature ?? null,
    window: run.sent?.window ?? null
  }
}

function jsonCancelled(call: CancelledCall): Element<'judges'> {
  return {
    judge: call.judge,
    sample: call.sample,
    status: 'cancelled',
    failure: null,
    error: cancelledSentence(call.settledBy),
    recommendation: null,
    feedback: null,
    latency_ms: Math.round(call.latencyMs),
    requests: call.requests ?? null,
    tokens: jsonTokens(call.tokens),
    cost_usd: call.costUsd ?? null,
    cache_cost_usd: call.cacheCostUsd ?? null,
    max_output_tokens: null,
    temperature: null,
    window: null
  }
}

function jsonTokens(tokens: TokenUsage | undefined): Element<'judges'>['tokens'] {
  return tokens
    ? {
        input: tokens.input,
        cached_input: tokens.cachedInput,
        cache_write: tokens.cacheWrite,
        output: tokens.output
      }
    : null
}

function jsonCoverage(receipt: CoverageReceipt | undefined): JsonReport['coverage'] {
  if (receipt === undefined) return null
  return {
    ratio: receipt.ratio,
    reviewable: receipt.reviewable,
    budget_tokens: receipt.budgetTokens,
    used_tokens: receipt.usedTokens,
    reviewed: receipt.reviewed,
    omitted: receipt.omitted,
    redacted: receipt.redacted
  }
}

/** What came before this run: the earlier iterations, a reused or accepted verdict, the rubric's change. */
function jsonHistory(
  evaluation: Evaluation
): Pick<JsonReport, 'history' | 'reused_from' | 'accepted' | 'rubric_review'> {
  const review = evaluation.rubricReview
  return {
    history: (evaluation.history ?? []).map(h => ({
      iteration: h.iteration,
      commit: h.commit,
      verdict: h.verdict,
      summary: h.summary,
      rubric_hash: h.rubricHash,
      reasons: h.reasons,
      note: h.note ?? null
    })),
    reused_from: evaluation.reusedFrom ?? null,
    accepted: evaluation.acceptance ?? null,
    rubric_review: review
      ? {
          source: review.source,
          note: review.note ?? null,
          changes: review.diff?.changes ?? [],
          weakened: review.diff?.weakened ?? false
        }
      : null
  }
}
