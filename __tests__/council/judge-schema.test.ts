import { Ajv } from 'ajv'
import fc from 'fast-check'
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
  criteria: { a: { reasoning: 'fine', verdict: 'PASS' } },
  scored_criteria: { ranked: { reasoning: 'good', score: 7 } },
  dimensions: { accuracy: { reasoning: 'ok', score: 8 } },
  verdict: 'ACCEPT',
  feedback: 'Ship it.'
}

const LONG_ID = `long-${'x'.repeat(60)}`

/**
 * Three checklist criteria, two with score bands and two dimensions, with the ids a rubric may
 * have that are no plain property name (a letter outside ASCII, over 64 characters) and those an
 * object in JavaScript holds specially.
 */
const AWKWARD = parse(
  lines(
    '---',
    'dimensions: { accuracy: 1, prüfbarkeit: { weight: 1, description: How testable it is } }',
    'criteria:',
    '  - { id: __proto__, description: Bands, score_ranges: { 0: low, 5: high } }',
    `  - { id: ${LONG_ID}, description: Long, score_ranges: { 0: low, 5: high } }`,
    '---',
    '## Criteria',
    '- constructor: First',
    '- prüfung: Second',
    '- toString: Third'
  )
)

describe('the judge schema', () => {
  it('keys every id and name, each required, and accepts a valid answer', () => {
    const schema = judgeJsonSchema(RUBRIC)
    const validate = new Ajv({ strict: false }).compile(schema)
    expect(validate(valid)).toBe(true)
    const { a, ...none } = valid.criteria
    expect(validate({ ...valid, criteria: none })).toBe(false)
    expect(validate({ ...valid, criteria: { ...valid.criteria, zzz: a } })).toBe(false)
    expect(validate({ ...valid, criteria: { ranked: a } })).toBe(false)
    expect(askedBy(schema)).toEqual({
      checklist: ['a'],
      scored: ['ranked'],
      dimensions: ['accuracy']
    })
  })

  it('bounds scores by integer enums: 0–10 by the bands, 1–10 by the anchors', () => {
    const validate = new Ajv({ strict: false }).compile(judgeJsonSchema(RUBRIC))
    const scored = (score: number) => ({
      ...valid,
      scored_criteria: { ranked: { reasoning: '', score } }
    })
    const dimension = (score: number) => ({
      ...valid,
      dimensions: { accuracy: { reasoning: '', score } }
    })
    for (const score of [0, 10]) expect(validate(scored(score))).toBe(true)
    for (const score of [-949, -1, 11, 556, 7.5]) expect(validate(scored(score))).toBe(false)
    for (const score of [1, 10]) expect(validate(dimension(score))).toBe(true)
    for (const score of [0, 11]) expect(validate(dimension(score))).toBe(false)
  })

  it('has no unions, no nullable field and no bounds, and leaves out a group with nothing in it', () => {
    const text = JSON.stringify(judgeJsonSchema(parse(lines('## Criteria', '- a: First'))))
    for (const keyword of ['anyOf', 'oneOf', '"null"', 'minimum', 'maximum', 'maxItems'])
      expect(text).not.toContain(keyword)
    expect(text).not.toContain('scored_criteria')
    expect(text).not.toContain('"band"')
  })

  it('keys an id no provider takes as a property name by a plain one, and reads it back', () => {
    const schema = judgeJsonSchema(AWKWARD)
    expect(askedBy(schema)).toEqual({
      checklist: ['constructor', 'item-1', 'toString'],
      scored: ['item-1', 'item-2'],
      dimensions: ['accuracy', 'item-1']
    })
    const answer = {
      ...valid,
      criteria: {
        constructor: { reasoning: 'c', verdict: 'PASS' },
        'item-1': { reasoning: 'p', verdict: 'FAIL' },
        toString: { reasoning: 't', verdict: 'PASS' }
      },
      scored_criteria: {
        'item-1': { reasoning: 'b', score: 6 },
        'item-2': { reasoning: 'l', score: 3 }
      },
      dimensions: {
        accuracy: { reasoning: 'a', score: 9 },
        'item-1': { reasoning: 'b', score: 2 }
      }
    }
    expect(new Ajv({ strict: false }).compile(schema)(answer)).toBe(true)
    const result = validateAnswer(answer, AWKWARD)
    expect(result.ok && result.value.criteria).toEqual([
      { id: '__proto__', reasoning: 'b', score: 6 },
      { id: LONG_ID, reasoning: 'l', score: 3 },
      { id: 'constructor', reasoning: 'c', verdict: 'PASS' },
      { id: 'prüfung', reasoning: 'p', verdict: 'FAIL' },
      { id: 'toString', reasoning: 't', verdict: 'PASS' }
    ])
    expect(result.ok && result.value.dimensions).toEqual([
      { name: 'accuracy', reasoning: 'a', score: 9 },
      { name: 'prüfbarkeit', reasoning: 'b', score: 2 }
    ])
    // Missing, the awkward ones are named by id and by key.
    const missing = validateAnswer({ ...valid, criteria: {}, scored_criteria: {} }, AWKWARD)
    expect(!missing.ok && missing.problem).toContain(
      'checklist criterion "prüfung" (key "item-1") is missing'
    )
    expect(!missing.ok && missing.problem).toContain(
      'criterion with score bands "__proto__" (key "item-1") is missing'
    )
    // A key "__proto__" in the answer is a key like any other: unknown here.
    const proto = JSON.parse(
      JSON.stringify(answer).replace('"criteria":{', '"criteria":{"__proto__":{},')
    ) as unknown
    const unknown = validateAnswer(proto, AWKWARD)
    expect(!unknown.ok && unknown.problem).toBe('unknown checklist criterion "__proto__"')
  })

  it('never refuses, for its shape, an answer that satisfies the schema it sent', () => {
    for (const rubric of [RUBRIC, AWKWARD, parse(lines('## Criteria', '- a: First'))]) {
      const schema = judgeJsonSchema(rubric)
      const satisfies = new Ajv({ strict: false }).compile(schema)
      fc.assert(
        fc.property(satisfying(schema, schema), answer => {
          // The schema holds of the JSON value, whatever its integers' size (Ajv reads numbers
          // as JavaScript does, so it is shown each integer's last digits).
          const shown = JSON.stringify(answer, (_, v: unknown) =>
            typeof v === 'bigint' ? Number(v % 1000n) : v
          )
          expect(satisfies(JSON.parse(shown))).toBe(true)
          const wire = JSON.parse(wireText(answer)) as unknown
          const result = validateAnswer(wire, rubric)
          expect(result.ok ? '' : result.problem).toBe('')
        }),
        { numRuns: 200 }
      )
    }
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
    ['a missing id', { ...valid, criteria: {} }, 'checklist criterion "a" is missing'],
    [
      'an unknown id',
      { ...valid, criteria: { ...valid.criteria, b: { reasoning: '', verdict: 'PASS' } } },
      'unknown checklist criterion "b"'
    ],
    [
      'the old list form',
      { ...valid, criteria: [{ id: 'a', reasoning: 'fine', verdict: 'PASS' }] },
      'criteria: expected an object keyed by id or name'
    ],
    [
      'a banded criterion graded as a checklist item',
      {
        ...valid,
        criteria: { ...valid.criteria, ranked: { reasoning: '', verdict: 'PASS' } },
        scored_criteria: {}
      },
      'unknown checklist criterion "ranked"; criterion with score bands "ranked" is missing'
    ],
    [
      'a group the rubric has nothing for',
      { ...valid, dimensions: { ...valid.dimensions, clarity: { reasoning: '', score: 5 } } },
      'unknown dimension "clarity"'
    ],
    [
      'a checklist item without a verdict',
      { ...valid, criteria: { a: { reasoning: 'fine', verdict: null } } },
      'criteria.a.verdict'
    ],
    ['a missing dimension', { ...valid, dimensions: {} }, 'dimension "accuracy" is missing'],
    [
      'a dimension score out of range',
      { ...valid, dimensions: { accuracy: { reasoning: '', score: 11 } } },
      'dimension "accuracy" has score 11: give an integer 1–10'
    ],
    [
      'a criterion score out of range',
      { ...valid, scored_criteria: { ranked: { reasoning: '', score: -1 } } },
      'criterion "ranked" has score -1: give an integer 0–10'
    ],
    ['prose', 'I think this PR is great', '(root)']
  ])('rejects %s, naming it', (_, answer, message) => {
    const result = validateAnswer(answer, RUBRIC)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.problem).toContain(message)
  })

  it('refuses a grade in a group the rubric does not have, naming its id', () => {
    const checklistOnly = parse(lines('---', 'dimensions: false', '---', '## Criteria', '- a: A'))
    const result = validateAnswer(
      { ...valid, scored_criteria: { ranked: { reasoning: '', score: 7 } }, dimensions: {} },
      checklistOnly
    )
    expect(!result.ok && result.problem).toBe('unknown criterion with score bands "ranked"')
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

/** `answer` as an engine writes it: every integer as its digits, however many. */
function wireText(answer: unknown): string {
  return JSON.stringify(answer, (_, v: unknown) => (typeof v === 'bigint' ? `#${v}#` : v)).replace(
    /"#(-?\d+)#"/g,
    '$1'
  )
}

/**
 * Any value the schema allows, read off the schema alone (the subset the judge schema uses:
 * objects with every property required, arrays, strings, integers, enums and local `$ref`s), so
 * the property above owes nothing to what `validateAnswer` expects.
 */
function satisfying(schema: unknown, root: unknown): fc.Arbitrary<unknown> {
  const node = schema as Record<string, unknown>
  if (typeof node.$ref === 'string') {
    const name = node.$ref.replace('#/$defs/', '')
    return satisfying((root as { $defs: Record<string, unknown> }).$defs[name], root)
  }
  if (Array.isArray(node.enum)) return fc.constantFrom(...(node.enum as unknown[]))
  switch (node.type) {
    case 'object': {
      const properties = node.properties as Record<string, unknown>
      return fc
        .tuple(...Object.entries(properties).map(([k, v]) => satisfying(v, root).map(x => [k, x])))
        .map(entries => Object.fromEntries(entries as [string, unknown][]))
    }
    case 'array':
      return fc.array(satisfying(node.items, root), { maxLength: 3 })
    case 'string':
      return fc.string()
    case 'integer':
      // A grammar writes any run of digits, as a real engine did for a line: past 2^53, and past
      // 1.8e308 (JSON.parse reads it as Infinity). Written as digits by `wireText`.
      return fc.oneof(
        fc.integer().map(BigInt),
        fc.bigInt({ min: -(10n ** 400n), max: 10n ** 400n })
      )
    default:
      throw new Error(`no generator for ${JSON.stringify(node)}`)
  }
}
