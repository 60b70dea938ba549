import { readFile } from 'node:fs/promises'
import { RubricError } from './errors.js'
import { parseRubric } from './parse.js'
import type { Rubric } from './types.js'

/**
 * Reads and parses a rubric file. A missing file is an error, never an empty rubric; bytes that
 * are not UTF-8 are refused rather than silently replaced (the hash must match the file).
 */
export async function loadRubric(path: string, displayPath = path): Promise<Rubric> {
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
    throw new RubricError([
      { file: displayPath, rule: code === 'ENOENT' ? 'missing-file' : 'unreadable-file', message }
    ])
  }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    throw new RubricError([
      {
        file: displayPath,
        rule: 'unreadable-file',
        message: 'the rubric file is not valid UTF-8 text'
      }
    ])
  }
  return parseRubric({ text, path: displayPath })
}
