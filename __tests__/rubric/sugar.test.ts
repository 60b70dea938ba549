import { describe, expect, it } from 'vitest'
import { formatIssue } from '../../src/rubric/errors.js'
import { parseRubric } from '../../src/rubric/parse.js'
import { checkerRubric } from '../../src/rubric/sugar.js'
import { parse } from '../helpers/rubric.js'

/** The Markdown rubric a checker input becomes; the test fails if it has problems. */
function markdownOf(checker: string): string {
  const result = checkerRubric(checker)
  if (!result.ok) throw new Error(result.problem.issues.map(formatIssue).join('\n'))
  return result.value.text
}

describe('checker sugar', () => {
  it('turns "agent:" lines into must-haves and other lines into gates, as in the seed', () => {
    const rubric = parse(markdownOf('pytest tests/\nagent: Review for correctness'))
    expect(rubric.gates.map(g => g.command)).toEqual(['pytest tests/'])
    expect(rubric.criteria.map(c => [c.description, c.required])).toEqual([
      ['Review for correctness', true]
    ])
  })

  it('keeps commands exactly, backticks included, and skips blank and comment lines', () => {
    const commands = ['echo `date`', 'test "$(ls | wc -l)" -gt 0', 'printf "``"', 'make -C src all']
    const rubric = parse(markdownOf(['', '# a comment', ...commands, '  '].join('\r\n')))
    expect(rubric.gates.map(g => g.command)).toEqual(commands)
  })

  it('accepts an explicit id after agent:, and gives a gates-only sugar no dimensions', () => {
    expect(parse(markdownOf('AGENT: tests: New code is tested')).criteria.map(c => c.id)).toEqual([
      'tests'
    ])
    expect(parse(markdownOf('make test')).dimensions).toEqual([])
  })

  it('rejects sugar with nothing in it, or an empty agent line', () => {
    const messages = (checker: string): string[] => {
      const result = checkerRubric(checker)
      return result.ok ? [] : result.problem.issues.map(formatIssue)
    }
    expect(messages('\n# only a comment\n')).toEqual([
      'checker input: error: the checker input has no commands and no "agent:" lines [checker]'
    ])
    expect(messages('make\nagent:   ')).toEqual([
      'checker input: error: line 2: "agent:" needs the criterion after it [checker]'
    ])
  })

  it('is a rubric of kind "checker" that parses like a file', () => {
    const result = checkerRubric('npm test\nagent: The change is documented')
    expect(result.ok && result.value).toMatchObject({ path: 'checker input', kind: 'checker' })
    const parsed = result.ok ? parseRubric(result.value) : undefined
    expect(parsed?.ok && parsed.value.source).toEqual({ path: 'checker input', kind: 'checker' })
    expect(parsed?.ok && parsed.value.text).toContain(
      '## Gates\n- `npm test`\n\n## Criteria\n- The change is documented'
    )
  })
})
