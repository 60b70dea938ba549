import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { formatIssue, RubricError } from '../../src/rubric/errors.js'
import { checkerToMarkdown, materialiseChecker } from '../../src/rubric/sugar.js'
import { parse } from '../helpers/rubric.js'

describe('checker sugar', () => {
  it('turns "agent:" lines into must-haves and other lines into gates, as in the seed', () => {
    const rubric = parse(checkerToMarkdown('pytest tests/\nagent: Review for correctness'))
    expect(rubric.gates.map(g => g.command)).toEqual(['pytest tests/'])
    expect(rubric.criteria.map(c => [c.description, c.required])).toEqual([
      ['Review for correctness', true]
    ])
  })

  it('keeps commands exactly, backticks included, and skips blank and comment lines', () => {
    const commands = ['echo `date`', 'test "$(ls | wc -l)" -gt 0', 'printf "``"', 'make -C src all']
    const rubric = parse(checkerToMarkdown(['', '# a comment', ...commands, '  '].join('\r\n')))
    expect(rubric.gates.map(g => g.command)).toEqual(commands)
  })

  it('accepts an explicit id after agent:, and gives a gates-only sugar no dimensions', () => {
    expect(
      parse(checkerToMarkdown('AGENT: tests: New code is tested')).criteria.map(c => c.id)
    ).toEqual(['tests'])
    expect(parse(checkerToMarkdown('make test')).dimensions).toEqual([])
  })

  it('rejects sugar with nothing in it, or an empty agent line', () => {
    const messages = (checker: string): string[] => {
      try {
        checkerToMarkdown(checker)
      } catch (error) {
        if (error instanceof RubricError) return error.issues.map(formatIssue)
      }
      return []
    }
    expect(messages('\n# only a comment\n')).toEqual([
      'checker: error: the checker input has no commands and no "agent:" lines [checker]'
    ])
    expect(messages('make\nagent:   ')).toEqual([
      'checker: error: checker input, line 2: "agent:" needs the criterion after it [checker]'
    ])
  })

  it('materialises the rubric to a file that parses to the same rubric', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-sugar-'))
    const rubric = await materialiseChecker('npm test\nagent: The change is documented', dir)
    const file = join(dir, 'rubric.md')
    expect(rubric.source).toEqual({ path: file, kind: 'checker' })
    expect(readFileSync(file, 'utf8')).toBe(rubric.text)
    expect(parse(rubric.text, file).criteria).toEqual(rubric.criteria)
    expect(rubric.text).toContain(
      '## Gates\n- `npm test`\n\n## Criteria\n- The change is documented'
    )
  })
})
