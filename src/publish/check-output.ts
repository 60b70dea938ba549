import { z } from 'zod'
import type { Evaluation } from '../engine/evaluation.js'
import { renderFeedback } from '../report/feedback.js'
import { toJsonReport } from '../report/json.js'
import { IN_EVIDENCE_DESCRIPTION } from '../sentences/findings.js'
import { EXIT_CODE } from '../verdict/outcome.js'
import { combinedEntry, worstFirst, worstVerdict, type RubricOutcome } from './rubrics.js'

// The result of the `check` tool of `rubric-council mcp` (docs/agent-loop.md#mcp): one rubric's
// check, or several rubrics' as one, with the feedback `loop` gives a doer.

/** The tool's structured result, as its output schema declares it. */
export const CHECK_OUTPUT = {
  verdict: z.enum(['PASS', 'FAIL', 'UNCLEAR']),
  exit_code: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  recommendation: z.enum(['ACCEPT', 'RETRY', 'TERMINATE']),
  summary: z.string(),
  reasons: z.array(z.object({ code: z.string(), message: z.string() })),
  gates: z.array(
    z.object({
      rubric: z.string().optional().describe('With several rubrics, whose gate it is'),
      command: z.string(),
      status: z.enum(['pass', 'fail', 'error', 'timeout']),
      exit_code: z.number().nullable(),
      output: z.string()
    })
  ),
  criteria: z.array(
    z.object({
      rubric: z.string().optional(),
      id: z.string(),
      required: z.boolean(),
      status: z.string(),
      votes: z.array(
        z.object({ judge: z.string(), verdict: z.string().nullable(), reasoning: z.string() })
      )
    })
  ),
  findings: z.array(
    z.object({
      rubric: z.string().optional(),
      severity: z.string(),
      title: z.string(),
      path: z.string().nullable(),
      line: z.number().nullable(),
      evidence: z.string(),
      judge: z.string(),
      in_evidence: z.boolean().describe(IN_EVIDENCE_DESCRIPTION)
    })
  ),
  feedback: z.string().describe('What to fix, as Markdown: the same feedback `loop` gives a doer'),
  rubric_hash: z.string().nullable(),
  rubric_review: z
    .object({
      source: z.enum(['base', 'head']),
      note: z.string().nullable(),
      changes: z.array(z.object({ text: z.string(), weakens: z.boolean() })),
      weakened: z.boolean()
    })
    .nullable()
    .describe(
      "Which rubric graded: the base's (as the required check), or the working tree's; how the working tree's differs"
    ),
  rubrics: z
    .array(
      z.object({
        name: z.string(),
        check_run: z.string(),
        path: z.string(),
        verdict: z.enum(['PASS', 'FAIL', 'UNCLEAR', 'NOT_APPLICABLE'])
      })
    )
    .optional()
    .describe('With several rubrics (docs/rubric.md#several-rubrics): each one, as its check run')
}

export type CheckOutput = z.infer<z.ZodObject<typeof CHECK_OUTPUT>>

/** One rubric's check as the tool gives it; `rubric` names it among several. */
export function checkOutput(evaluation: Evaluation, rubric?: string): CheckOutput {
  const report = toJsonReport(evaluation, 'terminal')
  const of = rubric === undefined ? {} : { rubric }
  return {
    verdict: report.verdict,
    exit_code: report.exit_code,
    recommendation: report.recommendation,
    summary: report.summary,
    reasons: [...report.reasons],
    gates: report.gates.map(g => ({
      ...of,
      command: g.command,
      status: g.status,
      exit_code: g.exit_code,
      output: [g.output.head, g.output.tail].filter(Boolean).join('\n…\n')
    })),
    criteria: report.criteria.map(c => ({
      ...of,
      id: c.id,
      required: c.required,
      status: c.status,
      votes: c.votes.map(v => ({ judge: v.judge, verdict: v.verdict, reasoning: v.reasoning }))
    })),
    findings: report.findings.map(f => ({ ...of, ...f })),
    feedback: renderFeedback(evaluation),
    rubric_hash: report.rubric.hash,
    rubric_review:
      report.rubric_review === null
        ? null
        : {
            source: report.rubric_review.source,
            note: report.rubric_review.note,
            changes: [...report.rubric_review.changes],
            weakened: report.rubric_review.weakened
          }
  }
}

/** Several rubrics' checks as one: the worst verdict, and every rubric's gates, criteria, feedback. */
export function setOutput(outcomes: readonly RubricOutcome[]): CheckOutput {
  const judged = worstFirst(outcomes).flatMap(o =>
    o.evaluation ? [{ o, out: checkOutput(o.evaluation, o.name) }] : []
  )
  const verdict = worstVerdict(outcomes)
  return {
    verdict,
    exit_code: EXIT_CODE[verdict],
    recommendation: judged[0]?.out.recommendation ?? 'ACCEPT',
    summary: combinedEntry(outcomes, 1, '', undefined, new Date()).summary,
    reasons: judged.flatMap(({ o, out }) =>
      out.reasons.map(r => ({ code: r.code, message: `${o.name}: ${r.message}` }))
    ),
    gates: judged.flatMap(j => j.out.gates),
    criteria: judged.flatMap(j => j.out.criteria),
    findings: judged.flatMap(j => j.out.findings),
    feedback: judged
      .filter(j => j.out.verdict !== 'PASS')
      .map(({ o, out }) => `## ${o.name} (${o.path})\n\n${out.feedback}`)
      .join('\n\n'),
    rubric_hash: combinedEntry(outcomes, 1, '', undefined, new Date()).rubricHash,
    // Each rubric's own is in its part of the feedback; the source is the same for all.
    rubric_review: judged.find(j => j.out.rubric_review !== null)?.out.rubric_review ?? null,
    rubrics: outcomes.map(o => ({
      name: o.name,
      check_run: o.checkName,
      path: o.path,
      verdict: o.evaluation?.verdict.verdict ?? 'NOT_APPLICABLE'
    }))
  }
}
