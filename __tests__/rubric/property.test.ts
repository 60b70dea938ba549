import fc from 'fast-check'
import { stringify } from 'yaml'
import { describe, expect, it } from 'vitest'
import { normaliseScoreRanges } from '../../src/rubric/score-ranges.js'
import { parseRubric } from '../../src/rubric/parse.js'

/** parseRubric returns a rubric or at least one issue, and throws nothing. */
function parsesOrRejectsCleanly(text: string, path: string): void {
  const result = parseRubric({ text, path })
  if (!result.ok) {
    expect(result.problem.length).toBeGreaterThan(0)
    for (const issue of result.problem) {
      expect(issue.file).toBe(path)
      expect(issue.message).not.toBe('')
      if (issue.line !== undefined) expect(issue.line).toBeGreaterThanOrEqual(1)
    }
  }
}

// Pieces that make the parser's branches likely: keys it knows, headings, list markers, YAML tokens.
const fragment = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '---',
    '## Gates',
    '## Criteria',
    '## Nice to Have',
    '## Notes',
    '## Other',
    '# T',
    '- ',
    '* ',
    '1. ',
    '`make`',
    '``',
    '<!--',
    '-->',
    '```',
    '~~~',
    'id: ',
    'score_ranges:',
    'criteria:',
    'gates:',
    'dimensions:',
    'thresholds:',
    'council:',
    '  - ',
    ': ',
    '{',
    '}',
    '[',
    ']',
    '&a',
    '*a',
    '!!str',
    '\t',
    '\r\n',
    '\uFEFF',
    '\u0000',
    'é',
    '---js',
    '## constructor',
    '__proto__',
    'constructor'
  )
)
const document = fc
  .tuple(fc.array(fragment, { maxLength: 40 }), fc.constantFrom('', '\n', ' '))
  .map(([parts, separator]) => parts.join(separator))

const jsonValue = fc.letrec(tie => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false, 0, -1, 1.5, 11, 'default', 'security', 'openai:gpt-5'),
    fc.string(),
    fc.integer(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(
        fc.constantFrom(
          'title',
          'criteria',
          'gates',
          'notes',
          'dimensions',
          'accuracy_ceiling',
          'focus',
          'thresholds',
          'council',
          'blocking',
          'score_weights',
          'min_coverage',
          'exclude',
          'id',
          'description',
          'weight',
          'required',
          'score_ranges',
          'score_range',
          'expected_outcome',
          'required_min_score',
          'models',
          'samples',
          'quorum',
          'pass',
          'fail',
          'confidence',
          'commands',
          'run',
          'timeout',
          'parallel',
          '0',
          '4',
          '__proto__',
          'constructor',
          'toString',
          'hasOwnProperty'
        ),
        fc.string()
      ),
      tie('value'),
      { maxKeys: 5 }
    )
  )
})).value

describe('arbitrary input never throws: it parses, or comes back as problems', () => {
  it('holds for arbitrary text as Markdown and as YAML', () => {
    fc.assert(
      fc.property(document, fc.constantFrom('rubric.md', 'rubric.yml'), (text, path) => {
        parsesOrRejectsCleanly(text, path)
      }),
      { numRuns: 2000 }
    )
  })

  it('holds for arbitrary structures in the front matter', () => {
    fc.assert(
      fc.property(jsonValue, fc.boolean(), (value, withBody) => {
        const yaml = stringify(value)
        const text = withBody ? `---\n${yaml}---\n## Criteria\n- a: A\n` : yaml
        parsesOrRejectsCleanly(text, withBody ? 'rubric.md' : 'rubric.yml')
      }),
      { numRuns: 2000 }
    )
  })
})

describe('score ranges', () => {
  // Any split of 0–10 into consecutive bands.
  const partition = fc
    .uniqueArray(fc.integer({ min: 1, max: 10 }), { maxLength: 10 })
    .map(cuts => [0, ...cuts.sort((a, b) => a - b)])

  it('accepts every partition of 0–10, in any order, and returns it sorted', () => {
    fc.assert(
      fc.property(partition, fc.boolean(), (starts, reverse) => {
        const bands = starts.map((start, i) => ({
          score_range: [start, (starts[i + 1] ?? 11) - 1] as [number, number],
          expected_outcome: `band ${i}`
        }))
        const { ranges, problems } = normaliseScoreRanges(reverse ? [...bands].reverse() : bands)
        expect(problems).toEqual([])
        expect(ranges.map(r => r.min)).toEqual(starts)
      })
    )
  })

  it('names an overlap whenever two bands share a score', () => {
    fc.assert(
      fc.property(partition, fc.nat(), (starts, pick) => {
        fc.pre(starts.length >= 2)
        const i = 1 + (pick % (starts.length - 1))
        const bands = starts.map((start, j) => ({
          // Stretch band i one score down into band i - 1.
          score_range: [j === i ? start - 1 : start, (starts[j + 1] ?? 11) - 1] as [number, number],
          expected_outcome: 'x'
        }))
        expect(normaliseScoreRanges(bands).problems.map(p => p.rule)).toEqual([
          'score-range-overlap'
        ])
      })
    )
  })

  it('names the coverage gap whenever a score is left out', () => {
    fc.assert(
      fc.property(partition, fc.integer({ min: 0, max: 10 }), (starts, hole) => {
        const bands = starts
          .map((start, i) => [start, (starts[i + 1] ?? 11) - 1] as [number, number])
          .flatMap(([min, max]) => {
            if (hole < min || hole > max) return [[min, max]]
            return [
              [min, hole - 1],
              [hole + 1, max]
            ].filter(([a, b]) => (a ?? 0) <= (b ?? 0))
          })
          .map(range => ({ score_range: range as [number, number], expected_outcome: 'x' }))
        const { problems } = normaliseScoreRanges(bands)
        expect(problems.map(p => p.rule)).toEqual(['score-range-coverage'])
        expect(problems[0]?.message).toContain(`leave ${hole}`)
      })
    )
  })
})
