import { failed, ok } from '../util/result.js'
import { readdirSync } from 'node:fs'
import { posix, resolve } from 'node:path'
import { readCapped } from '../util/read-capped.js'
import { formatCount } from '../util/format-count.js'
import { isRubricFile, MAX_RUBRIC_BYTES, rubricsFolder } from './defaults.js'
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
  upstream?: ReadUpstream,
  /** The repository the file must be inside (see `readRubricFile`). */
  root?: string
): Promise<RubricResult> {
  const file = await readRubricFile(path, displayPath, root)
  const read = file.ok ? await readExtends(file.value, upstream) : file
  return read.ok ? parseRubric(read.value) : rubricProblems(read.problem.issues)
}

/** Why a rubric file cannot be read: a problem of the file, at its path. */
function unreadable(displayPath: string, message: string, missing = false): RubricTextResult {
  return failed({
    source: { path: displayPath, kind: 'file' },
    issues: [{ file: displayPath, rule: missing ? 'missing-file' : 'unreadable-file', message }]
  })
}

/** A rubric's bytes as text: UTF-8 or refused, never silently replaced (the hash must match). */
export function rubricText(bytes: Uint8Array, displayPath: string): RubricTextResult {
  if (bytes.length > MAX_RUBRIC_BYTES) {
    return unreadable(
      displayPath,
      `the rubric file is over the ${formatCount(MAX_RUBRIC_BYTES)} bytes it may have; it was not read`
    )
  }
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
    return ok({ text, path: displayPath, kind: 'file' })
  } catch {
    return unreadable(displayPath, 'the rubric file is not valid UTF-8 text')
  }
}

/**
 * Reads a rubric file's text (see `readCapped`: a regular file of at most `MAX_RUBRIC_BYTES`,
 * inside `root` when given). A missing file is a problem, never an empty rubric.
 */
export async function readRubricFile(
  path: string,
  displayPath = path,
  root?: string
): Promise<RubricTextResult> {
  const read = await readCapped(path, MAX_RUBRIC_BYTES, root)
  if (read.ok) return rubricText(read.value, displayPath)
  const { reason, message } = read.problem
  if (reason === 'missing') return unreadable(displayPath, 'rubric file not found', true)
  if (reason === 'directory') return unreadable(displayPath, 'is a directory, not a rubric file')
  return unreadable(displayPath, `the rubric file ${message}`)
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
