import { z } from 'zod'
import { failed, ok, type Result } from '../util/result.js'

/**
 * The calibration record's shape (`calibrate --record` writes it, src/calibrate/record.ts): per
 * criterion, what was measured and with what (its text, the council, the prompt, the order of the
 * files shown), kept beside the
 * rubric, so that a later check can tell whether the measurement still stands for the criterion
 * it judges. Here, beside the rubric's own reading, so that a check reads it as it reads the rubric.
 */

export const RECORD_SCHEMA = 'rubric-council/calibration-record@1'

/** Where the record of `rubricPath` goes unless `--record FILE` says: beside it. */
export function defaultRecordPath(rubricPath: string): string {
  const rubrics = /^(.*\/)?\.github\/rubrics\/([^/]+)\.md$/.exec(rubricPath)
  if (rubrics !== null) return `${rubrics[1] ?? ''}.github/rubrics/${rubrics[2]}.calibration.json`
  return '.github/rubric-calibration.json'
}

const Share = z.number().min(0).max(1)
const Count = z.int().nonnegative()
const Effort = z.enum(['low', 'medium', 'high']).nullable()

/** A share measured on `of` trials, `count` of them counted, with its 95% Wilson interval. */
const Measure = z.strictObject({
  count: Count,
  of: Count,
  value: Share.nullable(),
  low: Share,
  high: Share
})

const Entry = z.strictObject({
  id: z.string().min(1).max(100),
  required: z.boolean(),
  text_hash: z.string().regex(/^[0-9a-f]{12}$/),
  council: z.strictObject({
    members: z.array(z.string().min(1).max(200)).max(50),
    samples: z.int().positive(),
    reasoning: z.array(Effort).max(50),
    // As the rubric bounds a member's `temperature`; null: none was sent.
    temperature: z.array(z.number().min(0).max(2).nullable()).max(50),
    reserve: z.array(z.tuple([z.string().min(1).max(200), Effort])).max(50),
    max_extra_votes: Count
  }),
  prompt_version: z.int().positive(),
  // The order the files were shown in (\`evidence-order\`); a record from before it was written: git's.
  evidence_order: z.string().min(1).max(50).default('diff'),
  product_version: z.string().min(1).max(50),
  repeat: z.int().positive(),
  cases: z.strictObject({ pass: Count, fail: Count }),
  precision: Measure,
  recall: Measure,
  flip: Measure,
  thresholds: z.strictObject({ min_precision: Share, max_flip: Share, min_labelled: Count }),
  recommendation: z.enum(['block', 'advise']),
  reason: z.string().max(2000),
  recorded: z.iso.datetime()
})

export const CalibrationRecordSchema = z.strictObject({
  schema: z.literal(RECORD_SCHEMA),
  rubric: z.string().min(1).max(1000),
  set: z.string().min(1).max(1000),
  interval: z.literal('wilson-95'),
  criteria: z.array(Entry).max(1000)
})

export type CalibrationRecord = z.output<typeof CalibrationRecordSchema>
export type RecordEntry = CalibrationRecord['criteria'][number]

/** A JSON pointer (RFC 6901) to `path` in the document. */
function pointer(path: readonly PropertyKey[]): string {
  return path.map(p => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')
}

/** The value at `path` in `data`, or undefined when there is none. */
function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let at = data
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined
    at = (at as Record<PropertyKey, unknown>)[key]
  }
  return at
}

const quoted = (value: unknown): string =>
  value === undefined ? 'nothing' : JSON.stringify(value).slice(0, 200)

/**
 * The record in `text`, read from `file`, or a line per problem: `file: /json/pointer: what is
 * wrong, got <the value>`.
 */
export function parseCalibrationRecord(
  text: string,
  file: string
): Result<CalibrationRecord, string[]> {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    return failed([`${file}: not JSON: ${error instanceof Error ? error.message : String(error)}`])
  }
  const parsed = CalibrationRecordSchema.safeParse(data)
  if (parsed.success) return ok(parsed.data)
  return failed(
    parsed.error.issues.map(issue => {
      const at = pointer(issue.path)
      return `${file}: ${at === '' ? '/' : at}: ${issue.message}, got ${quoted(valueAt(data, issue.path))}`
    })
  )
}
