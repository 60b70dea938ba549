import type { CouncilSetup } from '../council/types.js'
import { wilsonInterval } from './interval.js'
import { flipCount, type CalibrationReport } from './measure.js'
import {
  RECORD_SCHEMA,
  type CalibrationRecord,
  type RecordEntry
} from '../rubric/calibration-record.js'

export {
  CalibrationRecordSchema,
  defaultRecordPath,
  parseCalibrationRecord,
  RECORD_SCHEMA,
  type CalibrationRecord,
  type RecordEntry
} from '../rubric/calibration-record.js'

/**
 * The calibration record (`calibrate --record`) made of a calibration's report; its shape and
 * reader are src/rubric/calibration-record.ts.
 */

/** What the report does not hold: each criterion's text hash, the council, the prompt, the time. */
export interface RecordContext {
  readonly textHashes: Readonly<Record<string, string>>
  readonly council: CouncilSetup
  readonly promptVersion: number
  readonly productVersion: string
  /** Epoch ms. */
  readonly now: number
}

function measure(count: number, of: number): RecordEntry['precision'] {
  return { count, of, value: of === 0 ? null : count / of, ...wilsonInterval(count, of) }
}

/** The record of a calibration: a function of its report and of what it ran with. */
export function buildRecord(report: CalibrationReport, context: RecordContext): CalibrationRecord {
  const { council } = context
  return {
    schema: RECORD_SCHEMA,
    rubric: report.rubric,
    set: report.set,
    interval: 'wilson-95',
    criteria: report.criteria.map(c => {
      const flip = flipCount(report.cases.map(k => k.criteria[c.id] ?? []))
      return {
        id: c.id,
        required: c.required,
        text_hash: context.textHashes[c.id] ?? '',
        council: {
          members: [...council.members],
          samples: council.samples,
          reasoning: [...council.reasoning],
          temperature: [...council.temperature],
          reserve: council.reserve.map(([judge, effort]) => [judge, effort]),
          max_extra_votes: council.maxExtraVotes
        },
        prompt_version: context.promptVersion,
        evidence_order: report.evidence_order,
        product_version: context.productVersion,
        repeat: report.repeat,
        cases: { ...c.labelled },
        precision: measure(c.runs.true_fail, c.runs.true_fail + c.runs.false_fail),
        recall: measure(c.runs.true_fail, c.runs.true_fail + c.runs.missed_fail),
        flip: measure(flip.flipped, flip.measured),
        thresholds: { ...report.thresholds },
        recommendation: c.recommendation,
        reason: c.reason,
        recorded: new Date(context.now).toISOString()
      }
    })
  }
}

/** The record's text: JSON, two-space indented, ending with a newline. */
export function recordText(record: CalibrationRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`
}
