import type { Result } from '../util/result.js'
import type { RubricIssue } from './errors.js'
import type { RubricSource } from './types.js'

/** A rubric's text and where it is from: what the shells read, and what the engine parses. */
export interface RubricText extends RubricSource {
  /** Exactly as read: it is hashed as is. */
  readonly text: string
  /** The rubrics its `extends` names, read through the API (`readExtends`), by spec. */
  readonly upstream?: Readonly<Record<string, string>>
}

/** A rubric's text, or why there is none (the file is missing or unreadable, the checker empty). */
export type RubricTextResult = Result<RubricText, NoRubricText>

/** Why there is no rubric text: where it was looked for, and the problems found there. */
interface NoRubricText {
  readonly source: RubricSource
  readonly issues: readonly RubricIssue[]
  /** The file's text when it was read but cannot be used (an `extends` that could not be read). */
  readonly text?: string
}
