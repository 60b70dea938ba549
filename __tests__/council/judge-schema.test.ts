import { Ajv } from 'ajv'
import { describe, expect, it } from 'vitest'
import {
  judgeJsonSchema,
  normaliseSeverity,
  validateAnswer
} from '../../src/council/judge-schema.js'
import { lines, parse } from '../helpers/rubric.js'

const RUBRIC = parse(
  lines(
    '---',
    'dimensions: { accuracy: 1 }',
    'criteria: [{ id: ranked, description: Ranked, score_ranges: { 0: low, 5: high } }]',
    '---',
    '## Criteria',
    '- a: First'
  )
)

const valid = {
  findings: [{ severity: 'major', title: 'Bug', path: 'src/a.ts', line: 3, evidence: 'x' }],
  criteria: [
    { id: 'ranked', verdict: null, score: 7, reasoning: 'good' },
    { id: 'a', verdict: 'PASS', score: null, reasoning: 'fine' }
  ],
  dimensions: [{ name: 'accuracy', score: 8, reasoning: 'ok' }],
  verdict: 'ACCEPT',
  feedback: 'Ship it.'
}

describe('the judge schema', () => {
  it('enumerates the rubric’s ids and dimension names, and accepts a valid answer', () => {
    const schema = judgeJsonSchema(RUBRIC)
    const validate = new Ajv({ strict: false }).compile(schema)
    expect(validate(valid)).toBe(true)
    expect(validate({ ...valid, criteria: [{ ...valid.criteria[1], id: 'zzz' }] })).toBe(false)
    expect(JSON.stringify(schema)).toContain('"enum":["ranked","a"]')
  })

  it('validates semantics and normalises the answer', () => {
    const result = validateAnswer(valid, RUBRIC)
    expect(result).toEqual({
      ok: true,
      answer: {
        findings: [{ severity: 'major', title: 'Bug', path: 'src/a.ts', line: 3, evidence: 'x' }],
        criteria: [
          { id: 'ranked', score: 7, reasoning: 'good' },
          { id: 'a', verdict: 'PASS', reasoning: 'fine' }
        ],
        dimensions: [{ name: 'accuracy', score: 8, reasoning: 'ok' }],
        verdict: 'ACCEPT',
        feedback: 'Ship it.'
      }
    })
  })

  it.each([
    ['a missing id', { ...valid, criteria: [valid.criteria[0]] }, 'criterion "a" is missing'],
    [
      'an unknown id',
      {
        ...valid,
        criteria: [...valid.criteria, { id: 'b', verdict: 'PASS', score: null, reasoning: '' }]
      },
      'unknown criterion "b"'
    ],
    [
      'a repeated id',
      { ...valid, criteria: [...valid.criteria, valid.criteria[1]] },
      'criterion "a" appears 2 times'
    ],
    [
      'a checklist item without a verdict',
      { ...valid, criteria: [valid.criteria[0], { ...valid.criteria[1], verdict: null }] },
      'criterion "a" is a checklist item: give it a verdict PASS or FAIL'
    ],
    [
      'a banded criterion without a score',
      { ...valid, criteria: [{ ...valid.criteria[0], score: null }, valid.criteria[1]] },
      'criterion "ranked" is graded 0–10: give it a score'
    ],
    ['a missing dimension', { ...valid, dimensions: [] }, 'dimension "accuracy" is missing'],
    [
      'a score out of range',
      { ...valid, dimensions: [{ name: 'accuracy', score: 11, reasoning: '' }] },
      'dimensions.0.score'
    ],
    ['prose', 'I think this PR is great', '(root)']
  ])('rejects %s, naming it', (_, answer, message) => {
    const result = validateAnswer(answer, RUBRIC)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error).toContain(message)
  })

  it('normalises severity synonyms, and counts the unknown as critical', () => {
    expect(
      [
        'blocker',
        'High',
        'medium',
        'moderate',
        'warning',
        'low',
        'nit',
        'trivial',
        'note',
        'bogus'
      ].map(normaliseSeverity)
    ).toEqual([
      'critical',
      'critical',
      'major',
      'major',
      'major',
      'minor',
      'minor',
      'minor',
      'info',
      'critical'
    ])
  })
})
