import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { RubricError } from './errors.js'
import { parseRubric } from './parse.js'
import type { Rubric } from './types.js'

const AGENT = /^agent:\s*/i

/**
 * Scope's checker sugar (docs/rubric.md#checker-sugar): each line `agent: <text>` becomes a must-have criterion, any
 * other line a gate command; blank lines and `#` comments are skipped. Returns the Markdown rubric.
 */
export function checkerToMarkdown(checker: string, source = 'checker'): string {
  const gates: string[] = []
  const criteria: string[] = []
  const problems: string[] = []
  checker.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) return
    if (AGENT.test(line)) {
      const text = line.replace(AGENT, '').trim()
      if (text === '')
        problems.push(`checker input, line ${i + 1}: "agent:" needs the criterion after it`)
      else criteria.push(`- ${text}`)
    } else {
      gates.push(`- ${codeSpan(line)}`)
    }
  })
  if (problems.length > 0 || (gates.length === 0 && criteria.length === 0)) {
    throw new RubricError(
      (problems.length > 0
        ? problems
        : ['the checker input has no commands and no "agent:" lines']
      ).map(message => ({ file: source, rule: 'checker' as const, message }))
    )
  }
  const sections = [
    '# Checker rubric',
    '',
    `<!-- Materialised by rubric-council from the \`checker\` input. -->`
  ]
  if (gates.length > 0) sections.push('', '## Gates', ...gates)
  if (criteria.length > 0) sections.push('', '## Criteria', ...criteria)
  return `${sections.join('\n')}\n`
}

/** A CommonMark code span holding `text` (already trimmed), backticks included. */
export function codeSpan(text: string): string {
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map(run => run.length))
  const fence = '`'.repeat(longestRun + 1)
  return longestRun > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`
}

/**
 * Writes the synthetic rubric into `directory` (the run's temp folder) and parses it like a file,
 * so sugar and file rubrics share one path through the engine.
 */
export async function materialiseChecker(checker: string, directory: string): Promise<Rubric> {
  const text = checkerToMarkdown(checker)
  await mkdir(directory, { recursive: true })
  const path = join(directory, 'rubric.md')
  await writeFile(path, text)
  return parseRubric({ text, path, kind: 'checker' })
}
