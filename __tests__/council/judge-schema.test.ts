import { Ajv } from 'ajv'
import { describe, expect, it } from 'vitest'
import {
  judgeJsonSchema,
  normaliseSeverity,
  validateAnswer
} from '../../src/council/judge-schema.js'
import { askedBy } from '../helpers/judge-answers.js'
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
  findings: [
    { severity: 'major', title: 'Bug', path: 'src/a.ts', line: 3, evidence: 'x' },
    { severity: 'info', title: 'Overall', path: '', line: 0, evidence: 'y' }
  ],
  criteria: [{ id: 'a', reasoning: 'fine', verdict: 'PASS' }],
  scored_criteria: [{ id: 'ranked', reasoning: 'good', score: 7 }],
  dimensions: [{ name: 'accuracy', reasoning: 'ok', score: 8 }],
  verdict: 'ACCEPT',
  feedback: 'Ship it.'
}

describe('the judge schema', () => {
  it('enumerates the rubric’s ids and dimension names, and accepts a valid answer', () => {
    const schema = judgeJsonSchema(RUBRIC)
    const validate = new Ajv({ strict: false }).compile(schema)
    expect(validate(valid)).toBe(true)
    expect(validate({ ...valid, criteria: [{ ...valid.criteria[0], id: 'zzz' }] })).toBe(false)
    expect(validate({ ...valid, criteria: [{ ...valid.criteria[0], id: 'ranked' }] })).toBe(false)
    expect(askedBy(schema)).toEqual({
      checklist: ['a'],
      scored: ['ranked'],
      dimensions: ['accuracy']
    })
  })

  it('has no unions, no nullable field and no bounds, and leaves out a list with nothing in it', () => {
    const text = JSON.stringify(judgeJsonSchema(parse(lines('## Criteria', '- a: First'))))
    for (const keyword of ['anyOf', 'oneOf', '"null"', 'minimum', 'maximum', 'maxItems'])
      expect(text).not.toContain(keyword)
    expect(text).not.toContain('scored_criteria')
  })

  it('validates semantics and normalises the answer', () => {
    const result = validateAnswer(valid, RUBRIC)
    expect(result).toEqual({
      ok: true,
      value: {
        findings: [
          { severity: 'major', title: 'Bug', path: 'src/a.ts', line: 3, evidence: 'x' },
          { severity: 'info', title: 'Overall', evidence: 'y' }
        ],
        criteria: [
          { id: 'ranked', reasoning: 'good', score: 7 },
          { id: 'a', reasoning: 'fine', verdict: 'PASS' }
        ],
        dimensions: [{ name: 'accuracy', reasoning: 'ok', score: 8 }],
        verdict: 'ACCEPT',
        feedback: 'Ship it.'
      }
    })
  })

  it.each([
    ['a missing id', { ...valid, criteria: [] }, 'checklist criterion "a" is missing'],
    [
      'an unknown id',
      { ...valid, criteria: [...valid.criteria, { id: 'b', reasoning: '', verdict: 'PASS' }] },
      'unknown checklist criterion "b"'
    ],
    [
      'a repeated id',
      { ...valid, criteria: [...valid.criteria, ...valid.criteria] },
      'checklist criterion "a" appears 2 times'
    ],
    [
      'a banded criterion graded as a checklist item',
      {
        ...valid,
        criteria: [...valid.criteria, { id: 'ranked', reasoning: '', verdict: 'PASS' }],
        scored_criteria: []
      },
      'unknown checklist criterion "ranked"; criterion with score bands "ranked" is missing'
    ],
    [
      'a checklist item without a verdict',
      { ...valid, criteria: [{ id: 'a', reasoning: 'fine', verdict: null }] },
      'criteria.0.verdict'
    ],
    ['a missing dimension', { ...valid, dimensions: [] }, 'dimension "accuracy" is missing'],
    [
      'a dimension score out of range',
      { ...valid, dimensions: [{ name: 'accuracy', reasoning: '', score: 11 }] },
      'dimension "accuracy" has score 11: give an integer 1–10'
    ],
    [
      'a criterion score out of range',
      { ...valid, scored_criteria: [{ id: 'ranked', reasoning: '', score: -1 }] },
      'criterion "ranked" has score -1: give an integer 0–10'
    ],
    ['prose', 'I think this PR is great', '(root)']
  ])('rejects %s, naming it', (_, answer, message) => {
    const result = validateAnswer(answer, RUBRIC)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.problem).toContain(message)
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
