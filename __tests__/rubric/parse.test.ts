import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { BUILT_IN_DIMENSIONS, FOCUS_TEXT } from '../../src/rubric/defaults.js'
import { declaredName } from '../../src/rubric/parse.js'
import { lines, parse } from '../helpers/rubric.js'

/** The search-feature rubric of Scope's checker, as the repository ships it in examples/. */
const searchFeature = readFileSync(
  new URL('../../examples/search-feature.md', import.meta.url),
  'utf8'
)

describe("the search-feature example (Scope's rubric, with structured settings)", () => {
  const rubric = parse(searchFeature, 'examples/search-feature.md')

  it('has 2 gates, 3 must-haves, 2 nice-to-haves and its notes', () => {
    expect(rubric.gates.map(g => g.command)).toEqual([
      'pytest tests/test_search.py',
      'ruff check src/search/'
    ])
    expect(rubric.criteria.filter(c => c.required).map(c => c.description)).toEqual([
      'Search results are relevant to query intent, not just keyword matching',
      'Empty queries, special characters, and very long queries handled gracefully',
      'Error states show user-friendly messages, not stack traces'
    ])
    expect(rubric.criteria.filter(c => !c.required).map(c => c.description)).toEqual([
      'Search returns within 200ms for typical queries',
      'Code follows existing naming conventions in the module'
    ])
    expect(rubric.notes).toBe('The search uses Elasticsearch. Focus on the API layer.')
    expect(rubric.title).toBe('Search feature')
    expect(rubric.focus.map(f => f.area)).toEqual(['security'])
  })

  it('merges the front-matter criterion with the sections, with their ids and weights', () => {
    expect(rubric.criteria.map(c => [c.id, c.section, c.weight])).toEqual([
      ['relevance', 'must', 2],
      ['edge-cases', 'must', 1],
      ['error-messages', 'must', 1],
      ['performance', 'nice', 0],
      ['naming', 'nice', 0]
    ])
    const relevance = rubric.criteria[0]
    expect(relevance?.requiredMinScore).toBe(7)
    expect(relevance?.scoreRanges?.map(r => [r.min, r.max])).toEqual([
      [0, 3],
      [4, 6],
      [7, 10]
    ])
  })

  it('gets the five default dimensions', () => {
    expect(rubric.dimensions.map(d => [d.name, d.normalisedWeight])).toEqual([
      ['accuracy', 0.3],
      ['completeness', 0.25],
      ['clarity', 0.2],
      ['conciseness', 0.15],
      ['relevance', 0.1]
    ])
    expect(rubric.accuracyCeiling).toBe(true)
  })
})

describe("the plain form of Scope's rubric: sections only, no front matter, no ids", () => {
  const rubric = parse(
    lines(
      '# Search Feature',
      '',
      '## Gates',
      '- `pytest tests/test_search.py`',
      '',
      '## Criteria',
      '- Search results are relevant to query intent, not just keyword matching',
      '- Empty queries, special characters, and very long queries handled gracefully',
      '',
      '## Nice to Have',
      '- Performance: search returns within 200ms for typical queries',
      '- Code follows existing naming conventions in the module',
      '',
      '## Notes',
      'Context for the judges (not scored).'
    )
  )

  it('gives must-haves weight 1 and nice-to-haves weight 0, and ids from the text', () => {
    expect(rubric.criteria.map(c => [c.id, c.section, c.weight])).toEqual([
      ['search-results-are-relevant', 'must', 1],
      ['empty-queries-special-characters', 'must', 1],
      ['Performance', 'nice', 0],
      ['code-follows-existing-naming', 'nice', 0]
    ])
    expect(rubric.title).toBe('Search Feature')
    expect(rubric.notes).toBe('Context for the judges (not scored).')
  })

  it('gets the five default dimensions because it has criteria', () => {
    expect(rubric.dimensions).toHaveLength(5)
  })
})

describe('sections', () => {
  it('accepts the aliases of each section, in any case', () => {
    const rubric = parse(
      lines(
        '## must-have',
        '- a: first',
        '## Nice-to-Haves',
        '- b: second',
        '## NOTES',
        'n',
        '## gates:',
        '- `true`'
      )
    )
    expect(rubric.criteria.map(c => [c.id, c.section])).toEqual([
      ['a', 'must'],
      ['b', 'nice']
    ])
    expect(rubric.notes).toBe('n')
    expect(rubric.gates.map(g => g.command)).toEqual(['true'])
  })

  it('reads numbered and checkbox items, continuation lines and sub-headings', () => {
    const rubric = parse(
      lines(
        '## Criteria',
        '### API',
        '1. api: The endpoint returns 404',
        '   for unknown ids',
        '2) [x] Errors are logged',
        '* [ ] docs: Documented'
      )
    )
    expect(rubric.criteria.map(c => [c.id, c.description, c.line])).toEqual([
      ['api', 'The endpoint returns 404\nfor unknown ids', 3],
      ['errors-are-logged', 'Errors are logged', 5],
      ['docs', 'Documented', 6]
    ])
  })

  it('ignores criteria inside HTML comments and keeps line numbers right', () => {
    const rubric = parse(
      lines('## Criteria', '<!--', '- old: Removed', '-->', '- kept: Still here')
    )
    expect(rubric.criteria.map(c => [c.id, c.line])).toEqual([['kept', 5]])
  })

  it('keeps headings and code blocks inside Notes as notes', () => {
    const rubric = parse(
      lines('## Criteria', '- a: A', '## Notes', '### Background', '```', '## Gates', '```')
    )
    expect(rubric.notes).toBe('### Background\n```\n## Gates\n```')
    expect(rubric.gates).toEqual([])
  })

  it('takes prose before the first section as the preamble', () => {
    const rubric = parse(lines('# Title', 'Why this rubric exists.', '## Criteria', '- a: A'))
    expect(rubric.title).toBe('Title')
    expect(rubric.preamble).toBe('Why this rubric exists.')
  })
})

describe('gates', () => {
  it('reads the command from the code span, keeping backticks inside longer spans', () => {
    const rubric = parse(
      lines('## Gates', '- ``echo `date` ``', '- `npm test` runs the unit tests', '- `` `x` ``')
    )
    expect(rubric.gates.map(g => g.command)).toEqual(['echo `date`', 'npm test', '`x`'])
  })

  it('applies gate options and per-command timeouts from the front matter', () => {
    const rubric = parse(
      lines(
        '---',
        'gates:',
        '  timeout: 30',
        '  parallel: 3',
        '  working_directory: app',
        '  commands: [make, { run: make slow, timeout: 90 }]',
        '---',
        '## Gates',
        '- `make lint`'
      )
    )
    expect(rubric.gateOptions).toEqual({ timeout: 30, parallel: 3, workingDirectory: 'app' })
    expect(rubric.gates.map(g => [g.command, g.timeout, g.line])).toEqual([
      ['make', 30, 6],
      ['make slow', 90, 6],
      ['make lint', 30, 9]
    ])
  })

  it('runs gates one by one by default and four at once with parallel: true', () => {
    expect(parse(lines('## Gates', '- `a`')).gateOptions.parallel).toBe(1)
    expect(
      parse(lines('---', 'gates: { parallel: true }', '---', '## Gates', '- `a`')).gateOptions
        .parallel
    ).toBe(4)
  })

  it('a gates-only rubric gets no dimensions', () => {
    expect(parse(lines('## Gates', '- `make`')).dimensions).toEqual([])
  })
})

describe('structured criteria', () => {
  it('merges front-matter criteria with the Markdown ones, structured first', () => {
    const rubric = parse(
      lines(
        '---',
        'criteria:',
        '  - id: fm',
        '    description: From front matter',
        '  - description: Optional extra',
        '    required: false',
        '---',
        '## Criteria',
        '- md: From Markdown'
      )
    )
    expect(rubric.criteria.map(c => [c.id, c.section, c.weight, c.line])).toEqual([
      ['fm', 'must', 1, 3],
      ['optional-extra', 'nice', 0, 5],
      ['md', 'must', 1, 9]
    ])
  })

  it('adds settings to a Markdown criterion that shares its id and has no description', () => {
    const rubric = parse(
      lines(
        '---',
        'criteria:',
        '  - id: perf',
        '    weight: 2',
        '    score_ranges: { 0: Slow, 5: Acceptable, 8: Fast }',
        '    required_min_score: 5',
        '---',
        '## Nice to Have',
        '- perf: Responses within 200 ms'
      )
    )
    expect(rubric.criteria).toEqual([
      {
        id: 'perf',
        description: 'Responses within 200 ms',
        required: false,
        section: 'nice',
        weight: 2,
        line: 9,
        requiredMinScore: 5,
        scoreRanges: [
          { min: 0, max: 4, expectedOutcome: 'Slow' },
          { min: 5, max: 7, expectedOutcome: 'Acceptable' },
          { min: 8, max: 10, expectedOutcome: 'Fast' }
        ]
      }
    ])
  })

  it('sorts list-form score ranges', () => {
    const rubric = parse(
      lines(
        'criteria:',
        '  - id: x',
        '    description: X',
        '    score_ranges:',
        '      - { score_range: [6, 10], expected_outcome: high }',
        '      - { score_range: [0, 5], expected_outcome: low }'
      ),
      'rubric.yml'
    )
    expect(rubric.criteria[0]?.scoreRanges?.map(r => [r.min, r.max])).toEqual([
      [0, 5],
      [6, 10]
    ])
  })
})

describe('dimensions, focus, thresholds, council', () => {
  it('turns dimensions off with false, and keeps them with default on a criteria-less rubric', () => {
    expect(
      parse(lines('---', 'dimensions: false', '---', '## Criteria', '- a: A')).dimensions
    ).toEqual([])
    expect(
      parse(lines('---', 'dimensions: default', '---', '## Gates', '- `a`')).dimensions
    ).toHaveLength(5)
  })

  it('uses a map as the set of dimensions, normalising weights, built-in anchors kept', () => {
    const rubric = parse(
      lines(
        '---',
        'dimensions:',
        '  accuracy: 3',
        '  security: { weight: 1, description: No new attack surface }',
        '---',
        '## Criteria',
        '- a: A'
      )
    )
    expect(
      rubric.dimensions.map(d => [d.name, d.weight, d.normalisedWeight, d.description])
    ).toEqual([
      ['accuracy', 3, 0.75, BUILT_IN_DIMENSIONS.accuracy?.description],
      ['security', 1, 0.25, 'No new attack surface']
    ])
    expect(rubric.dimensions[0]?.anchors).toEqual(BUILT_IN_DIMENSIONS.accuracy?.anchors)
    expect(rubric.dimensions[0]?.anchors.map(a => [a.min, a.max])).toEqual([
      [9, 10],
      [7, 8],
      [5, 6],
      [3, 4],
      [1, 2]
    ])
  })

  it('turns the accuracy ceiling off without an accuracy dimension, or when asked', () => {
    const criteria = ['## Criteria', '- a: A']
    expect(
      parse(lines('---', 'dimensions: { clarity: 1 }', '---', ...criteria)).accuracyCeiling
    ).toBe(false)
    expect(parse(lines('---', 'accuracy_ceiling: false', '---', ...criteria)).accuracyCeiling).toBe(
      false
    )
  })

  it('adds the seed checks and red flags for each focus area, once each', () => {
    const rubric = parse(
      lines('---', 'focus: [security, performance, security]', '---', '## Criteria', '- a: A')
    )
    expect(rubric.focus.map(f => f.area)).toEqual(['security', 'performance'])
    expect(rubric.focus[0]?.redFlags).toContain('Hardcoded credentials or secrets')
    expect(
      parse(lines('---', 'focus: accessibility', '---', '## Criteria', '- a: A')).focus
    ).toEqual([{ area: 'accessibility', ...FOCUS_TEXT.accessibility }])
  })

  it('fills thresholds, council and scoring defaults', () => {
    const rubric = parse(lines('---', 'thresholds: { pass: 0.9 }', '---', '## Criteria', '- a: A'))
    expect(rubric.thresholds).toEqual({ pass: 0.9, fail: 0.6, confidence: 0.7 })
    expect(rubric.council).toEqual({ models: [], reserve: [], maxExtraVotes: 2 })
    expect(rubric.blocking).toBe('majority')
    expect(rubric.scoreWeights).toEqual({ dimensions: 1, criteria: 1 })
    expect(rubric.minCoverage).toBe(1)
  })

  it('reads a council with models, samples and quorum', () => {
    const rubric = parse(
      lines(
        '---',
        'council: { models: [openai:gpt-5-mini, anthropic:claude-sonnet-4-5], samples: 2, quorum: 3 }',
        '---',
        '## Criteria',
        '- a: A'
      )
    )
    expect(rubric.council).toEqual({
      models: ['openai:gpt-5-mini', 'anthropic:claude-sonnet-4-5'],
      samples: 2,
      quorum: 3,
      reserve: [],
      maxExtraVotes: 2
    })
  })

  it('reads reasoning efforts: the council’s, and members’ own beside plain members', () => {
    const rubric = parse(
      lines(
        'council:',
        '  reasoning: low',
        '  models:',
        '    - openai:gpt-5.4-mini',
        '    - model: anthropic:claude-sonnet-4-6',
        '      reasoning: high',
        '    - { model: google:gemini-3.5-flash }',
        'criteria: [{ id: a, description: A }]'
      ),
      'rubric.yml'
    )
    // The members stay a list of provider:model, in order; the efforts stand beside them.
    expect(rubric.council).toEqual({
      models: ['openai:gpt-5.4-mini', 'anthropic:claude-sonnet-4-6', 'google:gemini-3.5-flash'],
      reasoning: 'low',
      memberReasoning: { 'anthropic:claude-sonnet-4-6': 'high' },
      reserve: [],
      maxExtraVotes: 2
    })
  })

  it('reads reserves, with their own efforts, and the budget of extra votes', () => {
    const rubric = parse(
      lines(
        'council:',
        '  models: [openai:gpt-5.4-mini, anthropic:claude-sonnet-4-6]',
        '  reserve:',
        '    - google:gemini-3.5-flash',
        '    - { model: openai:gpt-5.4, reasoning: high }',
        '  max_extra_votes: 3',
        'criteria: [{ id: a, description: A }]'
      ),
      'rubric.yml'
    )
    expect(rubric.council).toEqual({
      models: ['openai:gpt-5.4-mini', 'anthropic:claude-sonnet-4-6'],
      memberReasoning: { 'openai:gpt-5.4': 'high' },
      reserve: ['google:gemini-3.5-flash', 'openai:gpt-5.4'],
      maxExtraVotes: 3
    })
  })

  it('reads the deprecated council.tie_breaks as max_extra_votes', () => {
    const rubric = parse(lines('---', 'council: { tie_breaks: 0 }', '---', '## Criteria', '- a: A'))
    expect(rubric.council.maxExtraVotes).toBe(0)
  })
})

describe('YAML rubrics and file encodings', () => {
  it('reads a YAML rubric with the same fields', () => {
    const rubric = parse(
      lines(
        'title: Y',
        'gates: [make test]',
        'notes: Context',
        'criteria:',
        '  - { id: a, description: A }'
      ),
      'rubric.yaml'
    )
    expect(rubric.title).toBe('Y')
    expect(rubric.gates.map(g => g.command)).toEqual(['make test'])
    expect(rubric.notes).toBe('Context')
    expect(rubric.criteria.map(c => c.id)).toEqual(['a'])
  })

  it('hashes the exact bytes (sha256, 12 hex), so an edit changes the hash', () => {
    const text = lines('## Gates', '- `make`')
    const expected = createHash('sha256').update(text).digest('hex').slice(0, 12)
    expect(parse(text).hash).toBe(expected)
    expect(parse(`${text} `).hash).not.toBe(expected)
  })

  it('parses CRLF and a byte-order mark like plain LF', () => {
    const text = lines('---', 'title: T', '---', '## Criteria', '- a: A', '## Gates', '- `make`')
    const plain = parse(text)
    const windows = parse(`\uFEFF${text.replace(/\n/g, '\r\n')}`)
    expect({ ...windows, hash: '', text: '' }).toEqual({ ...plain, hash: '', text: '' })
  })
})

describe('declaredName: the name a rubric gives itself, read even when the rubric is not valid', () => {
  it('reads it from the front matter, a YAML rubric, a BOM and CRLF line ends', () => {
    expect(declaredName({ text: '---\nname: api\n---\n## Criteria\n', path: 'a.md' })).toBe('api')
    expect(declaredName({ text: '\uFEFF---\r\nname: api\r\n---\r\n', path: 'a.md' })).toBe('api')
    expect(declaredName({ text: 'name: api\ncriteria: []\n', path: 'r.yml' })).toBe('api')
  })

  it('reads the top-level name line when the YAML around it does not parse, and nothing not a name', () => {
    expect(declaredName({ text: '---\nname: api\ncriteria: [\n---\n', path: 'a.md' })).toBe('api')
    expect(declaredName({ text: "---\nname: 'api' # ours\nx: [\n---\n", path: 'a.md' })).toBe('api')
    expect(declaredName({ text: '---\nname: api (weak)\n---\n', path: 'a.md' })).toBeUndefined()
    expect(declaredName({ text: '## Criteria\n- a: b\n', path: 'a.md' })).toBeUndefined()
  })
})
