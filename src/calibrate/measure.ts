import type { VerdictKind, CriterionStatus } from '../verdict/types.js'
import type { EvidenceOrder } from '../evidence/types.js'
import type { CalibrationCase, Expected } from './set.js'
import { recommendationReason, type RecommendationFact } from './sentences.js'

export const CALIBRATION_SCHEMA = 'rubric-council/calibration@1'

/** When a criterion may block: settable on the command line. */
export interface CalibrationThresholds {
  /** Precision of FAIL at or above which a criterion may block. */
  readonly minPrecision: number
  /** Flip at or below which a criterion may block. */
  readonly maxFlip: number
  /** Cases labelled PASS, and cases labelled FAIL, needed at least. */
  readonly minLabelled: number
}

export const DEFAULT_THRESHOLDS: CalibrationThresholds = {
  minPrecision: 0.9,
  maxFlip: 0.1,
  minLabelled: 5
}

/** One completed evaluation of one case: what the calibration needs of it. */
export interface CalibrationRun {
  /** Index into the set's cases. */
  readonly case: number
  /** 1-based. */
  readonly repeat: number
  readonly verdict: VerdictKind
  readonly criteria: readonly {
    readonly id: string
    readonly status: CriterionStatus
    /** Each judge's checklist vote on it, as the verdict lists them. */
    readonly votes: readonly ('PASS' | 'FAIL')[]
  }[]
  readonly tokens: { readonly input: number; readonly output: number }
  /** Dollars of the calls with a known price. */
  readonly dollars: number
  /** Calls whose model has no known price. */
  readonly unpriced: number
}

export interface RubricCriterion {
  readonly id: string
  readonly required: boolean
}

export interface CalibrationInput {
  readonly set: string
  readonly rubric: string
  readonly cases: readonly (CalibrationCase & { readonly base: string; readonly head: string })[]
  readonly criteria: readonly RubricCriterion[]
  readonly repeat: number
  /** The order the cases' files were shown in (`--evidence-order`). */
  readonly evidenceOrder: EvidenceOrder
  /** Completed runs only; a run stopped by Ctrl-C is not among them. */
  readonly runs: readonly CalibrationRun[]
  readonly interrupted: boolean
  readonly thresholds: CalibrationThresholds
}

type Share = number | null

export interface CriterionCalibration {
  readonly id: string
  readonly required: boolean
  /** Cases whose expected status of this criterion is known: labelled, or implied (docs/calibration.md). */
  readonly labelled: { readonly pass: number; readonly fail: number }
  /** Completed runs of labelled cases, by expected status and by the status the council gave. */
  readonly runs: {
    readonly true_fail: number
    readonly false_fail: number
    readonly missed_fail: number
    readonly true_pass: number
    /** Runs of labelled cases where it was neither PASS nor FAIL (SPLIT, UNGRADED, SCORED). */
    readonly undecided: number
    /**
     * Of those, the runs where the judges did not grade it at all (no quorum, a provider error,
     * unreadable evidence): they measure the machinery, not the criterion.
     */
    readonly ungraded: number
  }
  readonly precision: Share
  readonly recall: Share
  readonly flip: Share
  readonly agreement: Share
  readonly recommendation: 'block' | 'advise'
  readonly reason: string
}

export interface CalibrationReport {
  readonly schema: typeof CALIBRATION_SCHEMA
  readonly set: string
  readonly rubric: string
  readonly repeat: number
  /** The order the cases' files were shown to the judges in (`--evidence-order`). */
  readonly evidence_order: EvidenceOrder
  /** Runs asked for: cases × repeat. */
  readonly planned: number
  /** Runs that completed and are measured here. */
  readonly completed: number
  /** Runs not done because the calibration was stopped (Ctrl-C); 0 when it ran to the end. */
  readonly interrupted: number
  readonly thresholds: {
    readonly min_precision: number
    readonly max_flip: number
    readonly min_labelled: number
  }
  readonly verdicts: {
    readonly runs: number
    readonly accuracy: Share
    readonly false_pass: Share
    readonly false_fail: Share
    readonly unclear: Share
    readonly flip: Share
  }
  readonly criteria: readonly CriterionCalibration[]
  readonly cases: readonly {
    readonly name: string
    readonly base: string
    readonly head: string
    readonly expect: Expected
    readonly verdicts: readonly VerdictKind[]
    /** Each criterion's status in each completed run, in run order. */
    readonly criteria: Readonly<Record<string, readonly CriterionStatus[]>>
  }[]
  readonly tokens: { readonly input: number; readonly output: number }
  readonly dollars: number
  /** Calls whose model has no known price, so `dollars` leaves them out. */
  readonly unpriced_calls: number
}

const share = (part: number, whole: number): Share => (whole === 0 ? null : part / whole)

/** Whether the values, one per completed run of a case, differ; undefined with fewer than two. */
function flipped(values: readonly unknown[]): boolean | undefined {
  return values.length < 2 ? undefined : values.some(v => v !== values[0])
}

/** Cases run at least twice (`measured`), and those of them whose values differ between runs. */
export function flipCount(perCase: readonly (readonly unknown[])[]): {
  readonly flipped: number
  readonly measured: number
} {
  const measured = perCase.map(flipped).filter(f => f !== undefined)
  return { flipped: measured.filter(Boolean).length, measured: measured.length }
}

/** Share of cases, among those run at least twice, whose values differ between runs. */
function flipShare(perCase: readonly (readonly unknown[])[]): Share {
  const { flipped, measured } = flipCount(perCase)
  return share(flipped, measured)
}

/**
 * The expected status of a criterion in a case: its label, else PASS for a must-have of a case
 * expected to PASS (a PASS verdict needs every must-have to pass), else unknown.
 */
export function expectedStatus(
  c: Pick<CalibrationCase, 'expect' | 'criteria'>,
  criterion: RubricCriterion
): Expected | undefined {
  return (
    c.criteria[criterion.id] ?? (c.expect === 'PASS' && criterion.required ? 'PASS' : undefined)
  )
}

/** The calibration report: a function of the cases, their labels and the completed runs. */
export function measureCalibration(input: CalibrationInput): CalibrationReport {
  const { runs, cases, thresholds } = input
  const runsOf = (index: number): CalibrationRun[] => runs.filter(r => r.case === index)
  const expectOf = (run: CalibrationRun): Expected | undefined => cases[run.case]?.expect
  const count = (test: (run: CalibrationRun) => boolean): number => runs.filter(test).length
  const verdicts = {
    runs: runs.length,
    accuracy: share(
      count(r => r.verdict === expectOf(r)),
      runs.length
    ),
    false_pass: share(
      count(r => r.verdict === 'PASS' && expectOf(r) === 'FAIL'),
      runs.length
    ),
    false_fail: share(
      count(r => r.verdict === 'FAIL' && expectOf(r) === 'PASS'),
      runs.length
    ),
    unclear: share(
      count(r => r.verdict === 'UNCLEAR'),
      runs.length
    ),
    flip: flipShare(cases.map((_, i) => runsOf(i).map(r => r.verdict)))
  }
  const criteria = input.criteria.map(criterion =>
    measureCriterion(criterion, input, runsOf, thresholds)
  )
  const sum = (pick: (run: CalibrationRun) => number): number =>
    runs.reduce((total, run) => total + pick(run), 0)
  const planned = cases.length * input.repeat
  return {
    schema: CALIBRATION_SCHEMA,
    set: input.set,
    rubric: input.rubric,
    repeat: input.repeat,
    evidence_order: input.evidenceOrder,
    planned,
    completed: runs.length,
    interrupted: input.interrupted ? planned - runs.length : 0,
    thresholds: {
      min_precision: thresholds.minPrecision,
      max_flip: thresholds.maxFlip,
      min_labelled: thresholds.minLabelled
    },
    verdicts,
    criteria,
    cases: cases.map((c, i) => ({
      name: c.name,
      base: c.base,
      head: c.head,
      expect: c.expect,
      verdicts: runsOf(i).map(r => r.verdict),
      criteria: Object.fromEntries(
        input.criteria.map(k => [
          k.id,
          runsOf(i).map(r => r.criteria.find(g => g.id === k.id)?.status ?? 'UNGRADED')
        ])
      )
    })),
    tokens: { input: sum(r => r.tokens.input), output: sum(r => r.tokens.output) },
    dollars: sum(r => r.dollars),
    unpriced_calls: sum(r => r.unpriced)
  }
}

function measureCriterion(
  criterion: RubricCriterion,
  input: CalibrationInput,
  runsOf: (index: number) => CalibrationRun[],
  thresholds: CalibrationThresholds
): CriterionCalibration {
  const labelled = { pass: 0, fail: 0 }
  const tally = { true_fail: 0, false_fail: 0, missed_fail: 0, true_pass: 0, undecided: 0 }
  let ungraded = 0
  const statuses: CriterionStatus[][] = []
  let votes = 0
  let majorityVotes = 0
  input.cases.forEach((c, index) => {
    const expected = expectedStatus(c, criterion)
    const graded = runsOf(index).map(r => r.criteria.find(g => g.id === criterion.id))
    const status = graded.map(g => g?.status ?? 'UNGRADED')
    statuses.push(status)
    // A case counts as labelled once the judges graded it in some run: one whose every run
    // failed (no key, a provider error) was never measured.
    if (status.some(s => s !== 'UNGRADED')) {
      if (expected === 'PASS') labelled.pass++
      if (expected === 'FAIL') labelled.fail++
    }
    if (expected !== undefined) ungraded += status.filter(s => s === 'UNGRADED').length
    for (const grade of graded) {
      const cast = grade?.votes ?? []
      if (cast.length >= 2) {
        const fails = cast.filter(v => v === 'FAIL').length
        votes += cast.length
        majorityVotes += Math.max(fails, cast.length - fails)
      }
      if (expected === undefined) continue
      const status = grade?.status
      if (status === 'FAIL') tally[expected === 'FAIL' ? 'true_fail' : 'false_fail']++
      else if (status === 'PASS') tally[expected === 'FAIL' ? 'missed_fail' : 'true_pass']++
      else if (expected === 'FAIL') tally.missed_fail++
      else tally.undecided++
    }
  })
  const predictedFail = tally.true_fail + tally.false_fail
  const precision = share(tally.true_fail, predictedFail)
  // Every run of a case labelled FAIL is a FAIL found or one missed (PASS, SPLIT, UNGRADED).
  const recall = share(tally.true_fail, tally.true_fail + tally.missed_fail)
  const flip = flipShare(statuses)
  const labelledRuns = Object.values(tally).reduce((a, b) => a + b, 0)
  const facts: RecommendationFact[] = []
  if (ungraded > 0) facts.push({ code: 'ungraded', runs: ungraded })
  if (labelled.fail === 0) facts.push({ code: 'no_fail_labelled' })
  else if (precision === null) facts.push({ code: 'no_fail_predicted', runs: labelledRuns })
  else if (precision < thresholds.minPrecision)
    facts.push({ code: 'low_precision', precision, min: thresholds.minPrecision })
  // Flip of every case, or it is not known: an interrupted calibration repeated only a few.
  const repeated = statuses.filter(s => s.length >= 2).length
  if (flip === null) facts.push({ code: 'flip_unmeasured', repeat: input.repeat })
  else if (repeated < statuses.length)
    facts.push({ code: 'flip_partial', measured: repeated, cases: statuses.length })
  else if (flip > thresholds.maxFlip)
    facts.push({ code: 'high_flip', flip, max: thresholds.maxFlip })
  if (labelled.pass < thresholds.minLabelled || labelled.fail < thresholds.minLabelled)
    facts.push({ code: 'few_labelled', ...labelled, min: thresholds.minLabelled })
  const block = facts.length === 0 && precision !== null && flip !== null
  return {
    id: criterion.id,
    required: criterion.required,
    labelled,
    runs: { ...tally, ungraded },
    precision,
    recall,
    flip,
    agreement: share(majorityVotes, votes),
    recommendation: block ? 'block' : 'advise',
    reason: recommendationReason(
      block ? [{ code: 'measured', precision, flip, ...labelled }] : facts
    )
  }
}
