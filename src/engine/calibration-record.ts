import { parseCalibrationRecord } from '../rubric/calibration-record.js'
import { PROMPT_VERSION } from '../council/prompt.js'
import type { RubricChange } from '../rubric/diff.js'
import type { RubricTextResult } from '../rubric/text.js'
import type { Rubric } from '../rubric/types.js'
import {
  calibrationStanding,
  type AdvisoryCause,
  type RecordRead,
  type Standing
} from '../verdict/calibration.js'

/**
 * The calibration record beside a rubric, read where the rubric is read (the base branch; the
 * working tree only where the rubric is the working tree's), and what a pull request's edit of it
 * changes in who blocks (docs/security.md#the-calibration-record-is-read-from-the-base-branch).
 */

/** The record's text as it was read: its text, none there, or why it could not be read. */
export type RecordText = string | undefined | { readonly problem: string }

/** A file read as a rubric file is (`readRubricFile`, `rubricAtCommit`), as a record's text. */
export function recordTextOf(read: RubricTextResult | undefined): RecordText {
  if (read === undefined) return undefined
  if (read.ok) return read.value.text
  const { issues } = read.problem
  if (issues.every(issue => issue.rule === 'missing-file')) return undefined
  return { problem: issues.map(issue => issue.message).join('; ') }
}

/** The record at `path` from its text: read, absent, or broken with each problem. */
export function recordRead(path: string, text: RecordText): RecordRead {
  if (text === undefined) return { kind: 'absent', path }
  if (typeof text !== 'string') {
    return { kind: 'broken', path, problems: [`${path}: ${text.problem}`] }
  }
  const parsed = parseCalibrationRecord(text, path)
  return parsed.ok
    ? { kind: 'read', path, record: parsed.value }
    : { kind: 'broken', path, problems: parsed.problem }
}

/** Why a must-have moved to advisory, in the rubric diff's words (src/rubric/diff.ts). */
const MOVED: Readonly<Record<AdvisoryCause['code'], string>> = {
  advise: 'the record recommends advise',
  not_calibrated: 'not calibrated',
  record_broken: 'the record is not valid',
  stale: 'the record is stale'
}

/** Whether must-have `id` blocks: always without `calibration: required`, else as its standing. */
function blocks(standings: ReadonlyMap<string, Standing> | undefined, id: string): boolean {
  return standings === undefined || standings.get(id)?.blocks === true
}

/** The same record read the same way: a change of it is shown even where nobody moves. */
function sameRecord(a: RecordRead, b: RecordRead): boolean {
  const key = (r: RecordRead): string =>
    JSON.stringify(r.kind === 'read' ? r.record : r.kind === 'broken' ? r.problems : null)
  return a.kind === b.kind && key(a) === key(b)
}

/**
 * Each must-have both rubrics have that the pull request's rubric and record move between
 * blocking and advisory (to advisory weakens: fewer failures can block), and the record's edit
 * itself. The council, the prompt and the evidence are this run's on both sides. Pure.
 */
export function calibrationChanges(
  base: { readonly rubric: Rubric; readonly record: RecordRead },
  head: { readonly rubric: Rubric; readonly record: RecordRead }
): RubricChange[] {
  const measuring = {
    council: 'unchanged',
    promptVersion: PROMPT_VERSION,
    evidenceOrder: 'unchanged'
  } as const
  const standings = (side: typeof base): ReadonlyMap<string, Standing> | undefined =>
    calibrationStanding(side.rubric, side.record, measuring)
  const before = standings(base)
  const after = standings(head)
  const must = new Set(base.rubric.criteria.filter(c => c.required).map(c => c.id))
  const moved = head.rubric.criteria.flatMap(c => {
    if (!c.required || !must.has(c.id)) return []
    const was = blocks(before, c.id)
    const now = blocks(after, c.id)
    if (was === now) return []
    const cause = after?.get(c.id)
    return [
      now || cause === undefined || cause.blocks
        ? { text: `must-have "${c.id}" moved from advisory to blocking`, weakens: false }
        : {
            text: `must-have "${c.id}" moved from blocking to advisory: ${MOVED[cause.cause.code]}`,
            weakens: true
          }
    ]
  })
  const edited = sameRecord(base.record, head.record)
    ? []
    : [{ text: `calibration record ${head.record.path} changed`, weakens: false }]
  return [...edited, ...moved]
}
