import { resolve } from 'node:path'
import { loadRubric } from './load.js'
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
}

/** The one way the action and the CLI obtain a rubric: sugar materialised, or the file read. */
export async function resolveRubric(choice: RubricChoice): Promise<Rubric> {
  if (choice.checker !== undefined && choice.checker.trim() !== '') {
    return materialiseChecker(choice.checker, choice.tempDir)
  }
  return loadRubric(resolve(choice.cwd, choice.path), choice.path)
}
