import { formatIssue, RubricError } from '../../src/rubric/errors.js'
import { parseRubric } from '../../src/rubric/parse.js'
import type { Rubric } from '../../src/rubric/types.js'

/** Parses a rubric given as text; the path decides Markdown or YAML. */
export function parse(text: string, path = 'rubric.md'): Rubric {
  return parseRubric({ text, path })
}

/** The formatted error lines a rubric produces, exactly as the CLI prints them. */
export function errorsOf(text: string, path = 'rubric.md'): string[] {
  try {
    parseRubric({ text, path })
  } catch (error) {
    if (error instanceof RubricError) return error.issues.map(formatIssue)
    throw error
  }
  throw new Error('expected the rubric to be invalid, but it parsed')
}

/** Joins lines; keeps test rubrics readable without template-literal indentation. */
export function lines(...text: string[]): string {
  return `${text.join('\n')}\n`
}
