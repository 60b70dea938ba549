import type { RubricDiff } from '../rubric/diff.js'
import type { RecordRead } from '../verdict/calibration.js'
import { calibrationChanges } from './calibration-record.js'
import { diffRubrics } from '../rubric/diff.js'
import { declaredName, parseRubric } from '../rubric/parse.js'
import type { RubricText, RubricTextResult } from '../rubric/text.js'
import type { Rubric } from '../rubric/types.js'
import { failed } from '../util/result.js'
import type { RubricReview } from './evaluation.js'

/**
 * The rubric a run is graded by, and the trust decision behind it, as data: the action and the CLI
 * each read the base's rubric and the pull request's (or the working tree's) their own way, then
 * decide alike (docs/security.md#the-rubric-is-a-trust-boundary).
 */
export interface RubricChoice {
  readonly rubric: RubricTextResult
  /** Its owner's (the base branch's, or the workflow's checker input): its `exclude` may waive. */
  readonly trusted: boolean
  readonly review?: RubricReview
  /**
   * The calibration record read where the rubric was (src/engine/calibration-record.ts): what
   * lets its must-haves block under `calibration: required`. Absent: none was read.
   */
  readonly calibration?: RecordRead
}

/**
 * The pull request's own rubric, which grades only when asked (or when the base has none): what
 * its `extends` names is never read, since a pull request could then make a token read any
 * repository it can, and show it in the report.
 */
export function unreadExtends(rubric: RubricTextResult): RubricTextResult {
  if (!rubric.ok) return rubric
  const parsed = parseRubric(rubric.value, 'as written')
  if (!parsed.ok || parsed.value.extends.length === 0) return rubric
  return failed({
    source: rubric.value,
    issues: parsed.value.extends.map(named => ({
      file: rubric.value.path,
      line: named.line,
      ...(named.column !== undefined && { column: named.column }),
      rule: 'extends' as const,
      message: `extends "${named.spec}" is not read from a pull request's own rubric: a pull request could make the job's token read another repository; merge the rubric so that it is read from the base branch`
    }))
  })
}

/**
 * What the pull request changed in the rubric file and in its calibration record (`records`,
 * base then head, when read), when both rubrics parse and something differs: undefined
 * otherwise. Each is compared as written, so another `extends` shows as a change and what it
 * names is never read.
 */
export function rubricChanges(
  base: RubricText | undefined,
  head: RubricText | undefined,
  records?: { readonly base: RecordRead; readonly head: RecordRead }
): RubricDiff | undefined {
  if (base === undefined || head === undefined) return undefined
  if (base.text === head.text && records === undefined) return undefined
  const before = parseRubric(base, 'as written')
  const after = parseRubric(head, 'as written')
  if (!before.ok || !after.ok) return undefined
  const changes = [
    ...(base.text === head.text ? [] : diffRubrics(before.value, after.value).changes),
    ...(records
      ? calibrationChanges(
          { rubric: before.value, record: records.base },
          { rubric: after.value, record: records.head }
        )
      : [])
  ]
  return changes.length === 0 ? undefined : { changes, weakened: changes.some(c => c.weakens) }
}

/** The rubric a choice reads, parsed; undefined when it is not a valid one. */
function validRubric(choice: RubricChoice): Rubric | undefined {
  if (!choice.rubric.ok) return undefined
  const parsed = parseRubric(choice.rubric.value)
  return parsed.ok ? parsed.value : undefined
}

/**
 * A rubric file as the plan of several takes it (`RubricFile`): its rubric when valid, and the
 * name its front matter gives either way.
 */
export function plannedRubric(choice: RubricChoice): {
  readonly rubric: Rubric | undefined
  readonly declaredName: string | undefined
} {
  const read = choice.rubric
  const text = read.ok ? read.value.text : read.problem.text
  return {
    rubric: validRubric(choice),
    declaredName:
      text === undefined
        ? undefined
        : declaredName({ text, path: read.ok ? read.value.path : read.problem.source.path })
  }
}
