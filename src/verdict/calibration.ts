import type { CalibrationRecord, RecordEntry } from '../rubric/calibration-record.js'
import type { CouncilSetup } from '../council/types.js'
import { criterionHash } from '../council/prompt.js'
import type { Criterion, Rubric } from '../rubric/types.js'

/**
 * Blocking earned by the calibration record (docs/calibration.md#calibration-required): with
 * `calibration: required`, a must-have blocks only while the record, read where the rubric is,
 * recommends `block` for it and still stands for what judges it. Pure: a function of the rubric,
 * the record and the council asked.
 */

/** The record as it was read beside the rubric: there, not there, or not a valid record. */
export type RecordRead =
  | { readonly kind: 'read'; readonly path: string; readonly record: CalibrationRecord }
  | { readonly kind: 'absent'; readonly path: string }
  | { readonly kind: 'broken'; readonly path: string; readonly problems: readonly string[] }

/** What the record measured of one criterion, as the reports show it. */
export interface Measured {
  readonly precision: number | null
  readonly flip: number | null
  readonly cases: { readonly pass: number; readonly fail: number }
  /** When it was recorded (ISO 8601). */
  readonly recorded: string
}

/** Why the record does not let a must-have block: the first condition of `block` it misses. */
export type Shortfall =
  | { readonly code: 'precision'; readonly value: number | null; readonly min: number }
  | { readonly code: 'flip'; readonly value: number | null; readonly max: number }
  | { readonly code: 'few_cases'; readonly min: number }
  /** The record says advise for a reason of its own (some runs were not graded): its words. */
  | { readonly code: 'recorded'; readonly reason: string }

/** What changed since the record measured the criterion. */
export type Staleness = 'text' | 'council' | 'prompt' | 'evidence'

export type AdvisoryCause =
  | { readonly code: 'advise'; readonly shortfall: Shortfall }
  | { readonly code: 'not_calibrated' }
  | { readonly code: 'record_broken'; readonly path: string; readonly problems: readonly string[] }
  | { readonly code: 'stale'; readonly changed: Staleness }

/** Whether a must-have blocks, and why not when it does not. */
export type Standing =
  | { readonly blocks: true; readonly measured: Measured }
  | { readonly blocks: false; readonly cause: AdvisoryCause; readonly measured?: Measured }

/**
 * What the record is compared with: the council asked, the prompt, and the order the evidence's
 * files are shown in (`unchanged`: not compared).
 */
export interface Measuring {
  readonly council: CouncilSetup | 'unchanged'
  readonly promptVersion: number
  readonly evidenceOrder: string
}

/**
 * Each must-have's standing under the rubric's `calibration: required`, by id; undefined without
 * the setting (every must-have blocks, as it always has).
 */
export function calibrationStanding(
  rubric: Rubric,
  read: RecordRead,
  measuring: Measuring
): ReadonlyMap<string, Standing> | undefined {
  if (rubric.calibration !== 'required') return undefined
  const must = rubric.criteria.filter(c => c.required)
  return new Map(must.map(c => [c.id, standingOf(c, read, measuring)]))
}

function standingOf(criterion: Criterion, read: RecordRead, measuring: Measuring): Standing {
  if (read.kind === 'broken') {
    const { path, problems } = read
    return { blocks: false, cause: { code: 'record_broken', path, problems } }
  }
  const entry =
    read.kind === 'read' ? read.record.criteria.find(e => e.id === criterion.id) : undefined
  if (entry === undefined) return { blocks: false, cause: { code: 'not_calibrated' } }
  const measured = measuredOf(entry)
  const changed = staleness(criterion, entry, measuring)
  if (changed !== undefined) {
    return { blocks: false, cause: { code: 'stale', changed }, measured }
  }
  if (entry.recommendation === 'block') return { blocks: true, measured }
  return { blocks: false, cause: { code: 'advise', shortfall: shortfallOf(entry) }, measured }
}

/**
 * What no longer matches the record: the criterion's text, the council, the judges' prompt, the
 * order of the files they are shown.
 */
function staleness(
  criterion: Criterion,
  entry: RecordEntry,
  { council, promptVersion, evidenceOrder }: Measuring
): Staleness | undefined {
  if (entry.text_hash !== criterionHash(criterion)) return 'text'
  if (council !== 'unchanged' && !sameCouncil(entry.council, council)) return 'council'
  if (entry.prompt_version !== promptVersion) return 'prompt'
  if (evidenceOrder !== 'unchanged' && entry.evidence_order !== evidenceOrder) return 'evidence'
  return undefined
}

/** The same members, each at the same effort and temperature, asked as many times. */
function sameCouncil(recorded: RecordEntry['council'], asked: CouncilSetup): boolean {
  type Compared = Pick<CouncilSetup, 'members' | 'samples' | 'reasoning' | 'temperature'>
  const key = (c: Compared): string =>
    JSON.stringify([c.members, c.samples, c.reasoning, c.temperature])
  return key(recorded) === key(asked)
}

function measuredOf(entry: RecordEntry): Measured {
  return {
    precision: entry.precision.value,
    flip: entry.flip.value,
    cases: { ...entry.cases },
    recorded: entry.recorded
  }
}

/** The first condition of `block` the record's figures miss, in the order calibrate checks them. */
function shortfallOf(entry: RecordEntry): Shortfall {
  const { thresholds, precision, flip, cases } = entry
  if (cases.pass < thresholds.min_labelled || cases.fail < thresholds.min_labelled) {
    return { code: 'few_cases', min: thresholds.min_labelled }
  }
  if (precision.value === null || precision.value < thresholds.min_precision) {
    return { code: 'precision', value: precision.value, min: thresholds.min_precision }
  }
  if (flip.value === null || flip.value > thresholds.max_flip) {
    return { code: 'flip', value: flip.value, max: thresholds.max_flip }
  }
  return { code: 'recorded', reason: entry.reason }
}

/** Whether a must-have's standing leaves its FAIL or SPLIT out of the verdict. */
export function advisory(standing: Standing | undefined): boolean {
  return standing?.blocks === false
}
