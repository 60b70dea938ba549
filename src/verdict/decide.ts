import type { CouncilFailure, CouncilOutcome, JudgeAnswer } from '../council/types.js'
import type { GateResult } from '../gates/types.js'
import type { Criterion, Dimension, Rubric } from '../rubric/types.js'
import { EXIT_CODE } from './outcome.js'
import {
  BLOCKING_SEVERITIES,
  type CriterionResult,
  type DimensionResult,
  type JudgedFinding,
  type Reason,
  type ReasonCode,
  type Tally,
  type Verdict,
  type VerdictKind,
  type Vote
} from './types.js'

/** Who runs the check: the action in a workflow, or the CLI in a terminal. */
export type Runner = 'action' | 'cli'

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
  /** Where the advice is read: it names the workflow's env or the terminal's (default: action). */
  readonly runner?: Runner
}

/** A rubric with criteria or dimensions needs judges; a gates-only rubric does not. */
export function needsCouncil(rubric: Rubric): boolean {
  return rubric.criteria.length > 0 || rubric.dimensions.length > 0
}

/** A criterion with its votes, but no status, score or median drawn from them. */
function withoutGrade(c: CriterionResult): CriterionResult {
  return {
    id: c.id,
    description: c.description,
    required: c.required,
    weight: c.weight,
    kind: c.kind,
    status: 'UNGRADED',
    score: null,
    ...(c.requiredMinScore !== undefined && { requiredMinScore: c.requiredMinScore }),
    votes: c.votes
  }
}

/** The order in which a failure is named when several kinds keep the council short of quorum. */
const FAILURE_PRECEDENCE: readonly CouncilFailure[] = [
  'missing_credentials',
  'rate_limited',
  'timeout',
  'provider_error',
  'invalid_output'
]

/**
 * The verdict of docs/verdict.md, computed from data and nothing else: the first row of the decision table
 * that applies decides. Pure; every input combination yields a verdict, and only the last row PASS.
 */
export function decide(input: VerdictInput): Verdict {
  const { rubric, gates, council } = input
  const panel = panelOf(council)
  const criteria = rubric.criteria.map(c => gradeCriterion(c, panel))
  const dimensions = rubric.dimensions.map(d => gradeDimension(d, panel))
  const findings: JudgedFinding[] = [
    ...panel.judges.flatMap(j => j.samples),
    ...panel.tieBreaks
  ].flatMap(({ label, answer }) => answer.findings.map(f => ({ ...f, judge: label })))
  // Judges vote, each with the majority of its own samples; a tie among them abstains.
  const n = panel.judges.length
  const blockingVotes = panel.judges.map(j => majority(j.samples.map(s => blocks(s.answer))))
  const blockingJudges = blockingVotes.filter(vote => vote === true).length
  const terminating = panel.judges.filter(
    j => majority(j.samples.map(s => s.answer.verdict === 'TERMINATE')) === true
  ).length

  const dimensionsScore = weightedDimensions(dimensions)
  const criteriaScore = weightedCriteria(criteria)
  const { score, ceilingApplied } = overallScore(rubric, dimensionsScore, criteriaScore, dimensions)
  const confidence = n >= 2 ? agreement(criteria, dimensions, blockingVotes) : null

  const result = (verdict: VerdictKind, reasons: Reason[]): Verdict => ({
    verdict,
    exitCode: EXIT_CODE[verdict],
    reasons,
    recommendation:
      verdict === 'PASS'
        ? 'ACCEPT'
        : verdict === 'FAIL' && n > 0 && terminating * 2 > n
          ? 'TERMINATE'
          : 'RETRY',
    score,
    dimensionsScore,
    criteriaScore,
    accuracyCeilingApplied: ceilingApplied,
    confidence,
    criteria,
    dimensions,
    findings,
    blocking: { judges: blockingJudges, of: n }
  })

  // Row 2: any gate that did not pass.
  const failedGates = gates.filter(g => g.status !== 'pass')
  if (failedGates.length > 0) {
    return result('FAIL', [
      reason(
        'gate_failed',
        `${failedGates.length} of ${gates.length} gate${gates.length === 1 ? '' : 's'} did not pass: ` +
          failedGates.map(g => `"${g.command}" (${describeGate(g)})`).join(', ')
      )
    ])
  }

  // Without the diff, nothing the judges could say would be about the change, and nobody can
  // tell whether the pull request changed what runs this check.
  if (input.evidenceProblem !== undefined && (needsCouncil(rubric) || input.machineryChecked)) {
    return result('UNCLEAR', [
      reason(
        'incomplete_coverage',
        needsCouncil(rubric)
          ? `the judges were not asked: ${input.evidenceProblem}`
          : `the changed files could not be read: ${input.evidenceProblem}`
      )
    ])
  }
  const machinery = machineryReason(input.machineryChanged ?? [])
  if (!needsCouncil(rubric)) return machinery ? result('UNCLEAR', [machinery]) : result('PASS', [])

  // Row 3: the council is needed but fell short of its quorum.
  const quorum = Math.max(1, council?.quorum ?? 1)
  if (panel.answers < quorum) {
    // Too few answers to grade anything: what they said stays visible, judge by judge, but no
    // criterion status, dimension median, score or confidence is computed from them.
    return {
      ...result('UNCLEAR', [unavailable(council, panel.answers, quorum, input.runner ?? 'action')]),
      score: null,
      dimensionsScore: null,
      criteriaScore: null,
      accuracyCeilingApplied: false,
      confidence: null,
      criteria: criteria.map(withoutGrade),
      dimensions: dimensions.map(d => ({ ...d, median: null, spread: null }))
    }
  }

  // Row 4: hard failures.
  const hard: Reason[] = []
  const failedMust = criteria.filter(
    c => c.required && c.kind === 'checklist' && c.status === 'FAIL'
  )
  if (failedMust.length > 0) {
    hard.push(
      reason(
        'criterion_failed',
        `must-have ${plural(failedMust.length, 'criterion', 'criteria')} failed by a majority of judges: ` +
          failedMust.map(c => c.id).join(', ')
      )
    )
  }
  const belowMin = criteria.filter(
    c => c.requiredMinScore !== undefined && c.median !== undefined && c.median < c.requiredMinScore
  )
  if (belowMin.length > 0) {
    hard.push(
      reason(
        'min_score',
        belowMin
          .map(
            c =>
              `${c.id} scored ${formatNumber(c.median ?? 0)}, below its minimum of ${c.requiredMinScore ?? 0}`
          )
          .join('; ')
      )
    )
  }
  const decided = blockingVotes.filter(vote => vote !== undefined).length
  const blockingFails =
    rubric.blocking === 'any' ? blockingJudges > 0 : blockingJudges * 2 > decided
  if (blockingFails) {
    hard.push(
      reason(
        'blocking_issue',
        `${blockingJudges} of ${decided} judges reported a blocking (critical or major) finding` +
          (rubric.blocking === 'any' ? ' (the rubric fails on any)' : '')
      )
    )
  }
  if (terminating * 2 > n) {
    hard.push(
      reason(
        'terminate',
        `${terminating} of ${n} judges recommend TERMINATE: the approach is fundamentally broken`
      )
    )
  }
  if (hard.length > 0) return result('FAIL', hard)

  // Row 5: the pull request changes what runs this check, so the check cannot vouch for it.
  if (machinery) return result('UNCLEAR', [machinery])

  // Row 5: the judges did not see enough of the change.
  if (input.coverage !== undefined && input.coverage < rubric.minCoverage) {
    return result('UNCLEAR', [
      reason(
        'incomplete_coverage',
        `the judges saw ${percent(input.coverage)} of the reviewable changed files; the rubric needs ${percent(rubric.minCoverage)}. ` +
          'The coverage receipt lists what was left out: raise max-evidence-tokens, exclude generated files, or lower min_coverage'
      )
    ])
  }

  // Row 6: a must-have without a majority either way, or that no valid answer graded at all
  // (the council rejects such answers; this keeps a gap from ever reading as a pass).
  const split = criteria.filter(c => c.required && c.status === 'SPLIT')
  const ungraded = criteria.filter(c => c.required && c.status === 'UNGRADED')
  if (split.length > 0 || ungraded.length > 0) {
    const parts: string[] = []
    if (split.length > 0) {
      parts.push(
        `judges are split on must-have ${plural(split.length, 'criterion', 'criteria')}: ` +
          split.map(c => `${c.id} (${describeTally(c)})`).join(', ')
      )
    }
    if (ungraded.length > 0) {
      parts.push(
        `no judge graded must-have ${plural(ungraded.length, 'criterion', 'criteria')}: ${ids(ungraded)}`
      )
    }
    return result('UNCLEAR', [reason('judge_disagreement', parts.join('; '))])
  }

  // Row 7: the judges disagree too much overall.
  if (confidence !== null && confidence < rubric.thresholds.confidence) {
    return result('UNCLEAR', [
      reason(
        'low_agreement',
        `judge agreement ${formatNumber(confidence)} is below the threshold ${formatNumber(rubric.thresholds.confidence)}`
      )
    ])
  }

  // Rows 8 and 9: the score.
  if (score !== null && score < rubric.thresholds.fail) {
    return result('FAIL', [
      reason(
        'low_score',
        `score ${formatNumber(score)} is below the fail threshold ${formatNumber(rubric.thresholds.fail)}${ceilingNote(ceilingApplied)}`
      )
    ])
  }
  if (score !== null && score < rubric.thresholds.pass) {
    return result('UNCLEAR', [
      reason(
        'borderline',
        `score ${formatNumber(score)} is between the fail (${formatNumber(rubric.thresholds.fail)}) and pass (${formatNumber(rubric.thresholds.pass)}) thresholds${ceilingNote(ceilingApplied)}`
      )
    ])
  }
  return result('PASS', [])
}

/** Row 5's reason, when the pull request changes a workflow, a local action or the action itself. */
function machineryReason(paths: readonly string[]): Reason | undefined {
  if (paths.length === 0) return undefined
  const shown =
    paths.slice(0, 10).join(', ') + (paths.length > 10 ? `, and ${paths.length - 10} more` : '')
  return reason(
    'workflow_modified',
    `the pull request changes what runs this check: ${shown}. On pull_request the workflow comes from the pull request itself, so the check cannot vouch for it. ` +
      'A maintainer should review these changes: merge them on that review (an administrator can bypass the required check), or land them on the base branch first in a pull request of their own'
  )
}

/** Row 1: the rubric or the inputs are unusable, so nothing else could be judged. */
export function invalidVerdict(code: 'invalid_rubric' | 'invalid_input', message: string): Verdict {
  return {
    verdict: 'UNCLEAR',
    exitCode: EXIT_CODE.UNCLEAR,
    reasons: [reason(code, message)],
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

/** One answer of the council, labelled as the report shows it. */
interface Labelled {
  readonly label: string
  readonly answer: JudgeAnswer
}

/** A member of the council and its valid answers, one per sample. */
interface Judge {
  readonly judge: string
  readonly samples: readonly Labelled[]
}

/** The valid answers, by judge; tie-break answers apart; and how many regular answers count. */
interface Panel {
  readonly judges: readonly Judge[]
  readonly tieBreaks: readonly Labelled[]
  readonly answers: number
}

function panelOf(council: CouncilOutcome | undefined): Panel {
  const runs = council?.runs ?? []
  const sampled = runs.some(r => r.sample > 1 && r.tieBreak !== true)
  const judges = new Map<string, Labelled[]>()
  const tieBreaks: Labelled[] = []
  for (const run of runs) {
    if (run.status !== 'ok') continue
    if (run.tieBreak === true) {
      tieBreaks.push({ label: `${run.judge} (tie-break)`, answer: run.answer })
      continue
    }
    const samples = judges.get(run.judge) ?? []
    samples.push({ label: sampled ? `${run.judge}#${run.sample}` : run.judge, answer: run.answer })
    judges.set(run.judge, samples)
  }
  return {
    judges: [...judges].map(([judge, samples]) => ({ judge, samples })),
    tieBreaks,
    answers: [...judges.values()].reduce((sum, samples) => sum + samples.length, 0)
  }
}

/** true or false by a strict majority of `votes`; undefined on a tie (or no votes). */
function majority(votes: readonly boolean[]): boolean | undefined {
  const yes = votes.filter(Boolean).length
  const no = votes.length - yes
  return yes > no ? true : no > yes ? false : undefined
}

function blocks(answer: JudgeAnswer): boolean {
  return answer.findings.some(f => BLOCKING_SEVERITIES.includes(f.severity))
}

function voteOf(criterion: Criterion, { label, answer }: Labelled): Vote | undefined {
  const grade = answer.criteria.find(g => g.id === criterion.id)
  if (!grade) return undefined
  return {
    judge: label,
    reasoning: grade.reasoning,
    ...(grade.verdict !== undefined && { verdict: grade.verdict }),
    ...(grade.score !== undefined && { score: grade.score })
  }
}

/** A checklist criterion's status from each judge's vote (the majority of its samples). */
function tallyOf(criterion: Criterion, panel: Panel): Tally {
  const tally = { pass: 0, fail: 0, abstain: 0 }
  for (const judge of panel.judges) {
    const verdicts = judge.samples.flatMap(s => {
      const verdict = voteOf(criterion, s)?.verdict
      return verdict === undefined ? [] : [verdict === 'PASS']
    })
    if (verdicts.length === 0) continue
    const vote = majority(verdicts)
    if (vote === true) tally.pass++
    else if (vote === false) tally.fail++
    else tally.abstain++
  }
  return tally
}

function gradeCriterion(criterion: Criterion, panel: Panel): CriterionResult {
  const votes = panel.judges.flatMap(j =>
    j.samples.flatMap(s => {
      const vote = voteOf(criterion, s)
      return vote ? [vote] : []
    })
  )
  const base = {
    id: criterion.id,
    description: criterion.description,
    required: criterion.required,
    weight: criterion.weight,
    votes,
    ...(criterion.requiredMinScore !== undefined && {
      requiredMinScore: criterion.requiredMinScore
    })
  }

  if (criterion.scoreRanges) {
    // Each judge's score is the median of its samples'; the criterion's, the median of those.
    const judgeScores = panel.judges.flatMap(j => {
      const own = medianOf(j.samples.flatMap(s => voteOf(criterion, s)?.score ?? []))
      return own === null ? [] : [own]
    })
    const median = medianOf(judgeScores)
    if (median === null) return { ...base, kind: 'score', status: 'UNGRADED', score: null }
    const min = criterion.requiredMinScore
    const status = min === undefined ? 'SCORED' : median < min ? 'FAIL' : 'PASS'
    const spread = spreadOf(judgeScores) ?? 0
    return { ...base, kind: 'score', status, score: median / 10, median, spread }
  }

  const tally = tallyOf(criterion, panel)
  if (tally.pass + tally.fail + tally.abstain === 0)
    return { ...base, kind: 'checklist', status: 'UNGRADED', score: null, tally }
  const cast = tally.pass + tally.fail
  let status: 'PASS' | 'FAIL' | 'SPLIT' =
    tally.pass * 2 > cast ? 'PASS' : tally.fail * 2 > cast ? 'FAIL' : 'SPLIT'
  let tieBreak: Vote | undefined
  if (status === 'SPLIT' && criterion.required) {
    // A must-have the judges split on is settled by the first tie-break call that graded it.
    tieBreak = panel.tieBreaks
      .map(t => voteOf(criterion, t))
      .find(vote => vote?.verdict !== undefined)
    if (tieBreak?.verdict) status = tieBreak.verdict
  }
  // Disagreement enters the confidence, never the score.
  const score = status === 'PASS' ? 1 : status === 'FAIL' ? 0 : 0.5
  return {
    ...base,
    kind: 'checklist',
    status,
    score,
    tally,
    ...(tieBreak && { tieBreak })
  }
}

/**
 * The must-have checklist criteria the judges are split on, tie-breaks so far counted: what one
 * more call may settle. None while the council is short of its quorum.
 */
export function splitMustHaves(rubric: Rubric, council: CouncilOutcome): string[] {
  const panel = panelOf(council)
  if (panel.answers < Math.max(1, council.quorum)) return []
  return rubric.criteria
    .filter(c => c.required && !c.scoreRanges)
    .map(c => gradeCriterion(c, panel))
    .filter(c => c.status === 'SPLIT')
    .map(c => c.id)
}

function gradeDimension(dimension: Dimension, panel: Panel): DimensionResult {
  const scoresOf = (samples: readonly Labelled[]) =>
    samples.flatMap(({ label, answer }) => {
      const grade = answer.dimensions.find(g => g.name === dimension.name)
      return grade ? [{ judge: label, score: grade.score, reasoning: grade.reasoning }] : []
    })
  // Each judge's score is the median of its samples'; the dimension's, the median of those.
  const judgeScores = panel.judges.flatMap(j => {
    const own = medianOf(scoresOf(j.samples).map(s => s.score))
    return own === null ? [] : [own]
  })
  return {
    name: dimension.name,
    weight: dimension.weight,
    normalisedWeight: dimension.normalisedWeight,
    median: medianOf(judgeScores),
    scores: panel.judges.flatMap(j => scoresOf(j.samples)),
    spread: spreadOf(judgeScores)
  }
}

/** D / 10: the weighted mean of the dimension medians, over the dimensions that were scored. */
function weightedDimensions(dimensions: readonly DimensionResult[]): number | null {
  return weightedMean(
    dimensions.flatMap(d => (d.median === null ? [] : [[d.weight, d.median / 10] as const]))
  )
}

/** C: the weighted mean of criterion scores, over criteria with weight > 0 that were graded. */
function weightedCriteria(criteria: readonly CriterionResult[]): number | null {
  return weightedMean(
    criteria.flatMap(c => (c.weight > 0 && c.score !== null ? [[c.weight, c.score] as const] : []))
  )
}

function overallScore(
  rubric: Rubric,
  dimensionsScore: number | null,
  criteriaScore: number | null,
  dimensions: readonly DimensionResult[]
): { score: number | null; ceilingApplied: boolean } {
  const parts: (readonly [number, number])[] = []
  if (dimensionsScore !== null && rubric.scoreWeights.dimensions > 0) {
    parts.push([rubric.scoreWeights.dimensions, dimensionsScore])
  }
  if (criteriaScore !== null && rubric.scoreWeights.criteria > 0) {
    parts.push([rubric.scoreWeights.criteria, criteriaScore])
  }
  const raw = weightedMean(parts)
  if (raw === null || !rubric.accuracyCeiling) return { score: raw, ceilingApplied: false }
  const accuracy = dimensions.find(d => d.name === 'accuracy')?.median ?? null
  // ADR-016: median accuracy below 5 caps the score at 0.4; 5 up to (not including) 7 at 0.7.
  const cap = accuracy === null ? 1 : accuracy < 5 ? 0.4 : accuracy < 7 ? 0.7 : 1
  return raw > cap ? { score: cap, ceilingApplied: true } : { score: raw, ceilingApplied: false }
}

/**
 * Agreement (docs/verdict.md, "The numbers"): the mean over must-have checklist criteria,
 * score-range criteria, dimensions and "blocks or not" of each item's agreement between judges:
 * the majority share of the judges that voted, or 1 − (max − min) / 10 of their scores.
 */
function agreement(
  criteria: readonly CriterionResult[],
  dimensions: readonly DimensionResult[],
  blockingVotes: readonly (boolean | undefined)[]
): number {
  const items: number[] = []
  for (const c of criteria) {
    if (c.kind === 'checklist' && c.required && c.tally) {
      const cast = c.tally.pass + c.tally.fail
      if (cast > 0) items.push(Math.max(c.tally.pass, c.tally.fail) / cast)
    } else if (c.kind === 'score') {
      const spread = c.spread ?? null
      if (spread !== null) items.push(1 - spread / 10)
    }
  }
  for (const d of dimensions) {
    if (d.spread !== null) items.push(1 - d.spread / 10)
  }
  const decided = blockingVotes.filter(vote => vote !== undefined)
  const blocking = decided.filter(vote => vote).length
  if (decided.length > 0) items.push(Math.max(blocking, decided.length - blocking) / decided.length)
  return items.length === 0 ? 1 : items.reduce((sum, x) => sum + x, 0) / items.length
}

/** `1 PASS, 1 FAIL`, and the abstentions, of the judges' votes on a checklist criterion. */
export function describeTally(c: CriterionResult): string {
  const t = c.tally
  if (!t) return ''
  const parts = [`${t.pass} PASS`, `${t.fail} FAIL`]
  if (t.abstain > 0) parts.push(`${t.abstain} undecided between their samples`)
  return parts.join(', ')
}

function unavailable(
  council: CouncilOutcome | undefined,
  valid: number,
  quorum: number,
  runner: Runner
): Reason {
  const failed = (council?.runs ?? []).flatMap(r => (r.status === 'failed' ? [r] : []))
  const counts = new Map<CouncilFailure, number>()
  for (const run of failed) counts.set(run.failure, (counts.get(run.failure) ?? 0) + 1)
  // The most frequent failure names the cause; ties (and no failures at all) go by precedence.
  const cause =
    [...FAILURE_PRECEDENCE].sort((a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0))[0] ??
    'missing_credentials'
  const asked = council?.runs.length ?? 0
  const detail =
    failed.length > 0
      ? `: ${failed.map(r => `${r.judge}: ${r.message}`).join('; ')}`
      : runner === 'cli'
        ? ': no judge could be formed: no provider API key is set'
        : ': no judge could be formed; set an API key for a provider or name models'
  // A request the providers rejected as such will be rejected again: no "run the job again".
  const rejected =
    cause === 'provider_error' &&
    failed.every(r => r.failure !== 'provider_error' || r.rejected === true)
  return reason(
    cause,
    `the council is unavailable: ${valid} valid answer${valid === 1 ? '' : 's'} of ${asked}, quorum ${quorum}${detail}. ${rejected ? REJECTED_ADVICE : advice(cause, runner)}`
  )
}

const REJECTED_ADVICE =
  'The providers rejected the requests themselves, so re-running will not help: check the model names against the providers’ model lists; if the message names the schema or a parameter, please report it.'

/** The advice for a cause, in the words of the runner's setting. */
function advice(cause: CouncilFailure, runner: Runner): string {
  return runner === 'cli' && cause === 'missing_credentials' ? TERMINAL_CREDENTIALS : ADVICE[cause]
}

/** In a terminal the keys come from the user's environment; there is no workflow to edit. */
const TERMINAL_CREDENTIALS =
  'Set OPENAI_API_KEY (or ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, OPENROUTER_API_KEY) in your environment, or check that the key is valid.'

/** What to do about each cause: the pull request is not at fault for any of them. */
const ADVICE: Readonly<Record<CouncilFailure, string>> = {
  missing_credentials:
    'Set a provider API key (e.g. OPENAI_API_KEY) in the workflow’s env, or check that the key is valid.',
  rate_limited:
    'The providers are rate limiting, not judging the pull request: run the job again later, raise the provider’s limits, or lower samples.',
  timeout:
    'The judges did not answer in time: run the job again, or raise the rubric’s council.timeout or lower max-evidence-tokens.',
  provider_error:
    'The providers failed, not the pull request: run the job again; if it persists, check the model names and the providers’ status.',
  invalid_output:
    'The judges’ answers did not fit the rubric’s schema: run the job again, or use models with structured-output support.'
}

function describeGate(gate: GateResult): string {
  switch (gate.status) {
    case 'fail':
      return gate.exitCode === null ? 'failed' : `exit ${gate.exitCode}`
    case 'timeout':
      return 'timed out'
    case 'error':
      return gate.detail ?? 'could not run'
    case 'pass':
      return 'passed'
  }
}

export function medianOf(values: readonly number[]): number | null {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  const upper = sorted[mid] ?? 0
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? 0) + upper) / 2
}

function spreadOf(values: readonly number[]): number | null {
  return values.length === 0 ? null : Math.max(...values) - Math.min(...values)
}

function weightedMean(pairs: readonly (readonly [weight: number, value: number])[]): number | null {
  const total = pairs.reduce((sum, [w]) => sum + w, 0)
  if (total <= 0) return null
  return pairs.reduce((sum, [w, v]) => sum + w * v, 0) / total
}

function reason(code: ReasonCode, message: string): Reason {
  return { code, message }
}

function ids(criteria: readonly CriterionResult[]): string {
  return criteria.map(c => c.id).join(', ')
}

function plural(count: number, one: string, many: string): string {
  return count === 1 ? one : many
}

function ceilingNote(applied: boolean): string {
  return applied ? ' (capped by the accuracy ceiling)' : ''
}

function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`
}

/** Two decimals at most, no trailing zeros: 0.74, 0.8, 7.5. */
export function formatNumber(value: number): string {
  return String(Math.round(value * 100) / 100)
}
