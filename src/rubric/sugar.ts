import { failed, ok } from '../util/result.js'
import type { RubricTextResult } from './text.js'

const AGENT = /^agent:\s*/i

/** Where a rubric of checker sugar is said to come from, in messages and reports. */
const CHECKER_PATH = 'checker input'

/**
 * Scope's checker sugar (docs/rubric.md#checker-sugar): each line `agent: <text>` becomes a
 * must-have criterion, any other line a gate command; blank lines and `#` comments are skipped.
 * Returns the Markdown rubric, or what is wrong with the input.
 */
export function checkerRubric(checker: string): RubricTextResult {
  const gates: string[] = []
  const criteria: string[] = []
  const problems: string[] = []
  checker.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) return
    if (AGENT.test(line)) {
      const text = line.replace(AGENT, '').trim()
      if (text === '') problems.push(`line ${i + 1}: "agent:" needs the criterion after it`)
      else criteria.push(`- ${text}`)
    } else {
      gates.push(`- ${codeSpan(line)}`)
    }
  })
  if (problems.length > 0 || (gates.length === 0 && criteria.length === 0)) {
    return failed({
      source: { path: CHECKER_PATH, kind: 'checker' },
      issues: (problems.length > 0
        ? problems
        : ['the checker input has no commands and no "agent:" lines']
      ).map(message => ({ file: CHECKER_PATH, rule: 'checker' as const, message }))
    })
  }
  const sections = [
    '# Checker rubric',
    '',
    `<!-- Materialised by rubric-council from the \`checker\` input. -->`
  ]
  if (gates.length > 0) sections.push('', '## Gates', ...gates)
  if (criteria.length > 0) sections.push('', '## Criteria', ...criteria)
  return ok({ text: `${sections.join('\n')}\n`, path: CHECKER_PATH, kind: 'checker' })
}

/** A CommonMark code span holding `text` (already trimmed), backticks included. */
function codeSpan(text: string): string {
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map(run => run.length))
  const fence = '`'.repeat(longestRun + 1)
  return longestRun > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`
}
