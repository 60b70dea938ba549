import type { Severity } from '../council/types.js'
import type { Evaluation } from '../engine/evaluation.js'
import { shownLocations } from '../engine/shown.js'
import { utf8Head } from '../util/utf8.js'
import { shownFileAt } from '../verdict/grounding.js'

/** The Checks API takes at most 50 annotations per request. */
export const ANNOTATIONS_PER_REQUEST = 50

const LEVEL: Readonly<Record<Severity, 'failure' | 'warning' | 'notice'>> = {
  critical: 'failure',
  major: 'failure',
  minor: 'warning',
  info: 'notice'
}

/** A check-run annotation, in the Checks API's field names. */
export interface Annotation {
  readonly path: string
  readonly start_line: number
  readonly end_line: number
  readonly annotation_level: 'failure' | 'warning' | 'notice'
  readonly title: string
  readonly message: string
}

/**
 * Findings with a path and a line, as check-run annotations: only those naming a changed file the
 * judges were shown, at a line its patch shows (so an existing line of the new file). A judge's
 * answer is untrusted text; `../../etc/passwd` or line 999999999 is dropped, not posted.
 */
export function annotationsOf(evaluation: Evaluation): Annotation[] {
  const { evidence } = evaluation
  if (evidence === undefined) return []
  const shown = shownLocations(evidence, evaluation.gates)
  return evaluation.verdict.findings.flatMap(f => {
    const file = shownFileAt(f.path, f.line, shown)
    return file === undefined || f.line === undefined
      ? []
      : [
          {
            path: file.path,
            start_line: f.line,
            end_line: f.line,
            annotation_level: LEVEL[f.severity],
            title: `${f.severity}: ${f.title}`.slice(0, 255),
            message: utf8Head(`${f.evidence}\n— ${f.judge}`, 64_000)
          }
        ]
  })
}

/** Annotations in the batches one request each may carry; one empty batch when there are none. */
export function annotationBatches(annotations: readonly Annotation[]): Annotation[][] {
  const batches: Annotation[][] = []
  for (let i = 0; i < annotations.length; i += ANNOTATIONS_PER_REQUEST) {
    batches.push(annotations.slice(i, i + ANNOTATIONS_PER_REQUEST))
  }
  return batches.length === 0 ? [[]] : batches
}
