import { formatIssue } from '../../src/rubric/errors.js'
import { parseRubric } from '../../src/rubric/parse.js'
import type { Rubric } from '../../src/rubric/types.js'

/** Parses a rubric given as text; the path decides Markdown or YAML. Throws on a bad rubric. */
export function parse(text: string, path = 'rubric.md'): Rubric {
  const result = parseRubric({ text, path })
  if (!result.ok) throw new Error(result.problem.map(formatIssue).join('\n'))
  return result.value
}

/** The formatted error lines a rubric produces, exactly as the CLI prints them. */
export function errorsOf(text: string, path = 'rubric.md'): string[] {
  const result = parseRubric({ text, path })
  if (result.ok) throw new Error('expected the rubric to be invalid, but it parsed')
  return result.problem.map(formatIssue)
}

/** Joins lines; keeps test rubrics readable without template-literal indentation. */
export function lines(...text: string[]): string {
  return `${text.join('\n')}\n`
}
