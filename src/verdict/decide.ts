import type { CouncilOutcome } from '../council/types.js'
import type { GateResult } from '../gates/types.js'
import type { Rubric } from '../rubric/types.js'
import { advisory, type Standing } from './calibration.js'
import { agreement } from './confidence.js'
import { gradeCriterion, gradeDimension, withoutGrade } from './grade.js'
import { isGrounded, type ShownLocations } from './grounding.js'
import { EXIT_CODE } from './outcome.js'
import { panelOf, panelVotes, type Panel } from './panel.js'
import { overallScore, weightedCriteria, weightedDimensions } from './score.js'
import { shortfallReason } from './shortfall.js'
import type {
  CriterionResult,
  DimensionResult,
  JudgedFinding,
  Reason,
  ReasonOf,
  Verdict,
  VerdictKind,
  Waiver
} from './types.js'

export { mustHavesInDoubt, nextVoter } from './extra-votes.js'

export interface VerdictInput {
  readonly rubric: Rubric
  readonly gates: readonly GateResult[]
  /** What the council returned; absent when the rubric needs none (gates only). */
  readonly council?: CouncilOutcome
  /** Share (0–1) of the reviewable changed files the judges saw; absent when not measured. */
  readonly coverage?: number
  /** Why the evidence could not be gathered (the diff could not be read): judges were not asked. */
  readonly evidenceProblem?: string
  /**
   * Whether this run checks that the pull request leaves its own machinery alone (the action
   * does; a local run does not), and which changed files are that machinery.
   */
  readonly machineryChecked?: boolean
  readonly machineryChanged?: readonly string[]
  /**
   * Must-haves a maintainer waived for this commit (checked through the API by the shell). Each
   * applies only to a must-have that FAILED or SPLIT: it is WAIVED and no longer fails the verdict.
   * Gates, the other criteria, coverage and the machinery still bind.
   */
  readonly waived?: readonly Waiver[]
  /**
   * Each must-have's standing under `calibration: required` (src/verdict/calibration.ts); absent
   * without the setting. An advisory must-have's FAIL or SPLIT is left out as a waived one is.
   */
  readonly calibration?: ReadonlyMap<string, Standing>
  /**
   * What the judges were shown that a finding can point at: then a critical or major finding blocks
   * only when located in it (src/verdict/grounding.ts). Absent: every such finding blocks.
   */
  readonly shown?: ShownLocations
}

/** A rubric with criteria or dimensions needs judges; a gates-only rubric does not. */
export function needsCouncil(rubric: Rubric): boolean {
  return rubric.criteria.length > 0 || rubric.dimensions.length > 0
}

/**
 * The verdict of docs/verdict.md, computed from data and nothing else: the first row of the decision table
 * that applies decides. Pure; every input combination yields a verdict, and only the last row PASS.
 * Its reasons are codes and facts; src/sentences/reasons.ts says them.
 */
export function decide(input: VerdictInput): Verdict {
  const { rubric, gates, council } = input
  const panel = panelOf(council)
  const graded = gradePanel(rubric, panel, input)
  const result = (verdict: VerdictKind, reasons: Reason[]): Verdict =>
    verdictOf(verdict, reasons, graded)

  // Row 2: any gate that did not pass.
  const gate = gateReason(gates)
  if (gate) return result('FAIL', [gate])

  // Without the diff, nothing the judges could say would be about the change, and nobody can
  // tell whether the pull request changed what runs this check.
  const judged = needsCouncil(rubric)
  if (input.evidenceProblem !== undefined && (judged || input.machineryChecked)) {
    const problem = input.evidenceProblem
    return result('UNCLEAR', [{ code: 'incomplete_coverage', cause: 'unread', problem, judged }])
  }
  const changed = input.machineryChanged ?? []
  const machinery: Reason[] =
    changed.length > 0 ? [{ code: 'workflow_modified', paths: changed }] : []
  if (!judged) return result(machinery.length > 0 ? 'UNCLEAR' : 'PASS', machinery)

  // Row 3: the council is needed but fell short of its quorum.
  const quorum = Math.max(1, council?.quorum ?? 1)
  if (panel.answers < quorum) {
    return ungraded(result('UNCLEAR', [shortfallReason(council, panel.answers, quorum)]))
  }

  // Row 4: hard failures.
  const hard = hardFailures(rubric, graded)
  if (hard.length > 0) return result('FAIL', hard)

  // Row 5: the pull request changes what runs this check, so the check cannot vouch for it;
  // then, the judges did not see enough of the change.
  if (machinery.length > 0) return result('UNCLEAR', machinery)
  const { coverage } = input
  if (coverage !== undefined && coverage < rubric.minCoverage) {
    const minimum = rubric.minCoverage
    return result('UNCLEAR', [
      { code: 'incomplete_coverage', cause: 'too_little', coverage, minimum }
    ])
  }

  // Row 6: a must-have without a majority either way, or that no valid answer graded at all
  // (the council rejects such answers; this keeps a gap from ever reading as a pass).
  const disagreement = disagreementReason(graded.criteria)
  if (disagreement) return result('UNCLEAR', [disagreement])

  // Row 7: the judges disagree too much overall.
  const { confidence, score, ceilingApplied: capped } = graded
  const threshold = rubric.thresholds.confidence
  if (confidence !== null && confidence < threshold) {
    return result('UNCLEAR', [{ code: 'low_agreement', confidence, threshold }])
  }

  // Rows 8 and 9: the score. Asked as "not at least", so a score that is not a number (weights
  // that overflow, which the rubric's schema bounds) never reads as a pass.
  const { fail, pass } = rubric.thresholds
  if (score !== null && !(score >= fail)) {
    return result('FAIL', [{ code: 'low_score', score, fail, capped }])
  }
  if (score !== null && !(score >= pass)) {
    return result('UNCLEAR', [{ code: 'borderline', score, fail, pass, capped }])
  }
  return result('PASS', [])
}

/** Everything graded from the panel's answers, before any row of the table decides. */
interface Graded {
  readonly criteria: readonly CriterionResult[]
  readonly dimensions: readonly DimensionResult[]
  readonly findings: readonly JudgedFinding[]
  /** Per judge: reported a blocking finding; undefined where its samples tied. */
  readonly blockingVotes: readonly (boolean | undefined)[]
  readonly terminating: number
  readonly judges: number
  readonly dimensionsScore: number | null
  readonly criteriaScore: number | null
  readonly score: number | null
  readonly ceilingApplied: boolean
  readonly confidence: number | null
}

function gradePanel(
  rubric: Rubric,
  panel: Panel,
  { waived = [], calibration, shown }: Pick<VerdictInput, 'waived' | 'calibration' | 'shown'>
): Graded {
  const criteria = rubric.criteria.map(c =>
    excused(gradeCriterion(c, panel), waived, calibration?.get(c.id))
  )
  const binding = criteria.filter(binds)
  const dimensions = rubric.dimensions.map(d => gradeDimension(d, panel))
  const votes = panelVotes(panel, shown && (finding => isGrounded(finding, shown)))
  const dimensionsScore = weightedDimensions(dimensions)
  const criteriaScore = weightedCriteria(binding)
  const { score, ceilingApplied } = overallScore(rubric, dimensionsScore, criteriaScore, dimensions)
  const judges = panel.judges.length
  return {
    criteria,
    dimensions,
    findings: votes.findings,
    blockingVotes: votes.blocking,
    terminating: votes.terminating,
    judges,
    dimensionsScore,
    criteriaScore,
    score,
    ceilingApplied,
    confidence: judges >= 2 ? agreement(binding, dimensions, votes.blocking) : null
  }
}

/**
 * A must-have that FAILED or SPLIT, as WAIVED when a maintainer waived it; with its calibration
 * standing, when the rubric requires one. Any other criterion (a nice-to-have, one that passed or
 * was not graded) as it is: a waiver can only excuse a failure.
 */
function excused(
  criterion: CriterionResult,
  waivers: readonly Waiver[],
  standing: Standing | undefined
): CriterionResult {
  const calibrated =
    standing !== undefined && criterion.required
      ? { ...criterion, calibration: standing }
      : criterion
  const waiver = waivers.find(w => w.criterion === criterion.id)
  if (waiver === undefined || !criterion.required || !doubted(criterion)) return calibrated
  return { ...calibrated, status: 'WAIVED', waived: { by: waiver.by, reason: waiver.reason } }
}

const doubted = (c: CriterionResult): boolean => c.status === 'FAIL' || c.status === 'SPLIT'

/**
 * Whether a criterion takes part in the verdict (its rows, the score, the agreement): not a
 * waived must-have, nor an advisory one's FAIL or SPLIT.
 */
export function binds(c: CriterionResult): boolean {
  return c.status !== 'WAIVED' && !(doubted(c) && advisory(c.calibration))
}

function verdictOf(verdict: VerdictKind, reasons: Reason[], graded: Graded): Verdict {
  const { judges, terminating } = graded
  return {
    verdict,
    exitCode: EXIT_CODE[verdict],
    reasons,
    recommendation:
      verdict === 'PASS'
        ? 'ACCEPT'
        : (verdict === 'FAIL' && judges > 0 && terminating * 2 > judges) ||
            // A prompt too large for a judge's window is too large on every try.
            reasons[0]?.code === 'context_overflow'
          ? 'TERMINATE'
          : 'RETRY',
    score: graded.score,
    dimensionsScore: graded.dimensionsScore,
    criteriaScore: graded.criteriaScore,
    accuracyCeilingApplied: graded.ceilingApplied,
    confidence: graded.confidence,
    criteria: graded.criteria,
    dimensions: graded.dimensions,
    findings: graded.findings,
    blocking: { judges: graded.blockingVotes.filter(vote => vote === true).length, of: judges }
  }
}

/** Row 2's reason: the gates that did not pass, of how many. */
function gateReason(gates: readonly GateResult[]): Reason | undefined {
  const failed = gates.flatMap(({ command, status, exitCode, detail }) =>
    status === 'pass'
      ? []
      : [{ command, status, exitCode, ...(detail !== undefined && { detail }) }]
  )
  return failed.length > 0 ? { code: 'gate_failed', failed, of: gates.length } : undefined
}

/**
 * Row 3's verdict: too few answers to grade anything. What they said stays visible, judge by
 * judge, but no criterion status, dimension median, score or confidence is computed from them.
 */
function ungraded(verdict: Verdict): Verdict {
  return {
    ...verdict,
    score: null,
    dimensionsScore: null,
    criteriaScore: null,
    accuracyCeilingApplied: false,
    confidence: null,
    criteria: verdict.criteria.map(withoutGrade),
    dimensions: verdict.dimensions.map(d => ({ ...d, median: null, spread: null }))
  }
}

/** Row 4: each hard failure that applies, in the table's order. */
function hardFailures(rubric: Rubric, graded: Graded): Reason[] {
  const hard: Reason[] = []
  const failedMust = graded.criteria.filter(
    c => c.required && c.kind === 'checklist' && c.status === 'FAIL' && binds(c)
  )
  if (failedMust.length > 0) {
    hard.push({ code: 'criterion_failed', criteria: failedMust.map(c => c.id) })
  }
  const belowMin = graded.criteria.flatMap(c => {
    const { id, median, requiredMinScore: minimum } = c
    return binds(c) && minimum !== undefined && median !== undefined && median < minimum
      ? [{ id, median, minimum }]
      : []
  })
  if (belowMin.length > 0) hard.push({ code: 'min_score', criteria: belowMin })
  const decided = graded.blockingVotes.filter(vote => vote !== undefined).length
  const blocking = graded.blockingVotes.filter(vote => vote === true).length
  if (rubric.blocking === 'any' ? blocking > 0 : blocking * 2 > decided) {
    hard.push({ code: 'blocking_issue', judges: blocking, of: decided, rule: rubric.blocking })
  }
  if (graded.terminating * 2 > graded.judges) {
    hard.push({ code: 'terminate', judges: graded.terminating, of: graded.judges })
  }
  return hard
}

/** Row 6's reason: must-haves split between the judges, or graded by none. */
function disagreementReason(criteria: readonly CriterionResult[]): Reason | undefined {
  const split = criteria.flatMap(c =>
    c.required && c.status === 'SPLIT' && c.tally && binds(c) ? [{ id: c.id, tally: c.tally }] : []
  )
  const ungraded = criteria.filter(c => c.required && c.status === 'UNGRADED').map(c => c.id)
  if (split.length === 0 && ungraded.length === 0) return undefined
  return { code: 'judge_disagreement', split, ungraded }
}

/** Row 1: the rubric or the inputs are unusable, so nothing else could be judged. */
export function invalidVerdict(
  ...[code, fact]: ['invalid_rubric', problems: number] | ['invalid_input', problem: string]
): Verdict {
  const reason: ReasonOf<'invalid_rubric'> | ReasonOf<'invalid_input'> =
    code === 'invalid_rubric' ? { code, problems: fact } : { code, problem: fact }
  return {
    verdict: 'UNCLEAR',
    exitCode: EXIT_CODE.UNCLEAR,
    reasons: [reason],
    recommendation: 'RETRY',
    score: null,
    dimensionsScore: null,
    criteriaScore: null,
    accuracyCeilingApplied: false,
    confidence: null,
    criteria: [],
    dimensions: [],
    findings: [],
    blocking: { judges: 0, of: 0 }
  }
}
