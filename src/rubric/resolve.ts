import { resolve } from 'node:path'
import { RubricError } from './errors.js'
import { loadRubric } from './load.js'
import { parseRubric } from './parse.js'
import { materialiseChecker } from './sugar.js'
import type { Rubric } from './types.js'

export interface RubricChoice {
  /** Path relative to `cwd`, as the user wrote it. */
  readonly path: string
  /** Checker sugar; when non-empty it replaces `path`. */
  readonly checker?: string
  readonly cwd: string
  /** Where the synthetic rubric of checker sugar is written. */
  readonly tempDir: string
  /** The rubric's text when it was read elsewhere (at the base commit, through the API). */
  readonly text?: string
  /** Set when the rubric must not be read at all: why it is missing. */
  readonly missing?: string
  /**
   * The rubric is its owner's: read from the base branch, or a local file. Only then may its
   * `exclude` take files out of coverage; a pull request's own rubric may only hide them.
   */
  readonly trusted?: boolean
}

/** The one way the action and the CLI obtain a rubric: sugar materialised, or the file read. */
export async function resolveRubric(choice: RubricChoice): Promise<Rubric> {
  if (choice.checker !== undefined && choice.checker.trim() !== '') {
    return materialiseChecker(choice.checker, choice.tempDir)
  }
  if (choice.missing !== undefined) {
    throw new RubricError([{ file: choice.path, rule: 'missing-file', message: choice.missing }])
  }
  if (choice.text !== undefined) return parseRubric({ text: choice.text, path: choice.path })
  return loadRubric(resolve(choice.cwd, choice.path), choice.path)
}
