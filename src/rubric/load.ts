import { failed, ok } from '../util/result.js'
import { readdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { posix, resolve } from 'node:path'
import { isRubricFile, rubricsFolder } from './defaults.js'
import { rubricProblems, type RubricResult } from './errors.js'
import { parseRubric } from './parse.js'
import { readExtends, type ReadUpstream } from './read-extends.js'
import type { RubricTextResult } from './text.js'

/**
 * Reads and parses a rubric file (`readRubricFile`, what it extends through `upstream`, then
 * `parseRubric`).
 */
export async function loadRubric(
  path: string,
  displayPath = path,
  upstream?: ReadUpstream
): Promise<RubricResult> {
  const file = await readRubricFile(path, displayPath)
  const read = file.ok ? await readExtends(file.value, upstream) : file
  return read.ok ? parseRubric(read.value) : rubricProblems(read.problem.issues)
}

/**
 * Reads a rubric file's text. A missing file is a problem, never an empty rubric; bytes that are
 * not UTF-8 are refused rather than silently replaced (the hash must match the file).
 */
export async function readRubricFile(path: string, displayPath = path): Promise<RubricTextResult> {
  let bytes: Buffer
  try {
    bytes = await readFile(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const message =
      code === 'ENOENT'
        ? 'rubric file not found'
        : code === 'EISDIR'
          ? 'is a directory, not a rubric file'
          : `cannot read the rubric file (${code ?? String(error)})`
    return failed({
      source: { path: displayPath, kind: 'file' },
      issues: [
        { file: displayPath, rule: code === 'ENOENT' ? 'missing-file' : 'unreadable-file', message }
      ]
    })
  }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    return failed({
      source: { path: displayPath, kind: 'file' },
      issues: [
        {
          file: displayPath,
          rule: 'unreadable-file',
          message: 'the rubric file is not valid UTF-8 text'
        }
      ]
    })
  }
  return ok({ text, path: displayPath, kind: 'file' })
}

/**
 * The rubrics in the `rubrics/` folder beside `rubricPath` (relative to `root`), as paths relative
 * to `root`, sorted; none when there is no such folder.
 */
export function localRubricFiles(root: string, rubricPath: string): string[] {
  const folder = rubricsFolder(rubricPath)
  try {
    return readdirSync(resolve(root, folder))
      .filter(isRubricFile)
      .sort()
      .map(name => posix.join(folder, name))
  } catch {
    return []
  }
}
