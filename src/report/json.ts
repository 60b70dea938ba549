import { formatIssue } from '../rubric/errors.js'
import type { Evaluation } from '../engine/evaluation.js'
import { summaryLine } from './summary.js'

export const REPORT_SCHEMA = 'rubric-council/report@1'

/**
 * The JSON report: everything the Markdown shows, uncut, in snake_case.
 * Absent values are null rather than missing, so consumers can rely on every key.
 */
export function toJsonReport(evaluation: Evaluation): Record<string, unknown> {
  const { verdict, rubric, gates, council, evidence } = evaluation
  return {
    schema: REPORT_SCHEMA,
    verdict: verdict.verdict,
    exit_code: verdict.exitCode,
    reasons: verdict.reasons.map(r => ({ code: r.code, message: r.message })),
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
      materialised: rubric.materialised ?? null
    },
    gates: gates.map(g => ({
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
    })),
    criteria: verdict.criteria.map(c => ({
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
      tie_break: c.tieBreak
        ? {
            judge: c.tieBreak.judge,
            verdict: c.tieBreak.verdict ?? null,
            reasoning: c.tieBreak.reasoning
          }
        : null
    })),
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
      evidence: f.evidence
    })),
    blocking: verdict.blocking,
    judges: (council?.runs ?? []).map(run => ({
      judge: run.judge,
      sample: run.sample,
      status: run.status,
      failure: run.status === 'failed' ? run.failure : null,
      error: run.status === 'failed' ? run.message : null,
      recommendation: run.status === 'ok' ? run.answer.verdict : null,
      feedback: run.status === 'ok' ? run.answer.feedback : null,
      latency_ms: Math.round(run.latencyMs),
      requests: run.requests ?? null,
      tokens: run.tokens
        ? {
            input: run.tokens.input,
            cached_input: run.tokens.cachedInput,
            cache_write: run.tokens.cacheWrite,
            output: run.tokens.output
          }
        : null,
      cost_usd: run.costUsd ?? null
    })),
    quorum: council?.quorum ?? null,
    coverage: evidence
      ? {
          ratio: evidence.receipt.ratio,
          reviewable: evidence.receipt.reviewable,
          budget_tokens: evidence.receipt.budgetTokens,
          used_tokens: evidence.receipt.usedTokens,
          reviewed: evidence.receipt.reviewed,
          omitted: evidence.receipt.omitted,
          redacted: evidence.receipt.redacted
        }
      : null,
    iteration: evaluation.iteration,
    history: (evaluation.history ?? []).map(h => ({
      iteration: h.iteration,
      commit: h.commit,
      verdict: h.verdict,
      summary: h.summary,
      rubric_hash: h.rubricHash,
      reasons: h.reasons
    })),
    rubric_review: evaluation.rubricReview
      ? {
          source: evaluation.rubricReview.source,
          note: evaluation.rubricReview.note ?? null,
          changes: evaluation.rubricReview.diff?.changes ?? [],
          weakened: evaluation.rubricReview.diff?.weakened ?? false
        }
      : null
  }
}
