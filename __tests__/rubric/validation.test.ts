import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { formatIssue } from '../../src/rubric/errors.js'
import { loadRubric } from '../../src/rubric/load.js'
import { errorsOf, lines, parse } from '../helpers/rubric.js'

const CRITERIA = ['## Criteria', '- a: A']

describe('unknown keys', () => {
  it('names the key, suggests the close one and lists the known ones', () => {
    expect(errorsOf(lines('---', 'tresholds: { pass: 0.9 }', '---', ...CRITERIA))).toEqual([
      'rubric.md:2:1: error: unknown key "tresholds" in the front matter; did you mean "thresholds"? ' +
        '(known keys: title, criteria, gates, notes, dimensions, accuracy_ceiling, focus, thresholds, ' +
        'council, blocking, calibration, score_weights, min_coverage, exclude, name, paths, paths-ignore, extends) [unknown-key]'
    ])
  })

  it('points at nested keys, in criteria too, and says "rubric" for a YAML file', () => {
    expect(
      errorsOf(
        lines(
          'thresholds: { pass: 0.9, confidense: 0.5 }',
          'criteria:',
          '  - id: a',
          '    description: A',
          '    wieght: 2'
        ),
        'rubric.yml'
      )
    ).toEqual([
      'rubric.yml:1:26: error: unknown key "confidense" in thresholds; did you mean "confidence"? ' +
        '(known keys: pass, fail, confidence) [unknown-key]',
      'rubric.yml:5:5: error: unknown key "wieght" in criterion "a"; did you mean "weight"? ' +
        '(known keys: id, description, required, weight, required_min_score, score_ranges) [unknown-key]'
    ])
    expect(errorsOf(lines('colour: red', 'gates: [make]'), 'rubric.yml')[0]).toContain(
      'unknown key "colour" in the rubric (known keys:'
    )
  })

  it('treats names of Object.prototype as the unknown names they are', () => {
    expect(errorsOf(lines('__proto__: 1', 'constructor: 2', 'gates: [make]'), 'r.yml')).toEqual([
      expect.stringMatching(
        /^r\.yml:1:1: error: unknown key "__proto__" in the rubric \(known keys: /
      ),
      expect.stringMatching(
        /^r\.yml:2:1: error: unknown key "constructor" in the rubric \(known keys: /
      )
    ])
    expect(errorsOf(lines('## constructor', '- a: A'))[0]).toMatch(
      /^rubric\.md:1:1: error: unknown section "## constructor"/
    )
    expect(errorsOf(lines('---', 'dimensions: { toString: 1 }', '---', ...CRITERIA))[0]).toContain(
      'dimension "toString" is not built in, so it needs a description'
    )
  })

  it('gives no suggestion when nothing is close', () => {
    expect(errorsOf(lines('---', 'zzzzzzzz: 1', '---', ...CRITERIA))[0]).toMatch(
      /^rubric\.md:2:1: error: unknown key "zzzzzzzz" in the front matter \(known keys: /
    )
  })

  it('reports an unknown section with a suggestion, and does not read its items', () => {
    expect(errorsOf(lines('## Gates', '- `make`', '## Critera', '- a: A'))).toEqual([
      'rubric.md:3:1: error: unknown section "## Critera"; did you mean "## Criteria"? ' +
        '(sections: ## Gates, ## Criteria, ## Must Have, ## Nice to Have, ## Notes) [unknown-section]'
    ])
  })
})

describe('wrong types', () => {
  it.each([
    ['title: [a, b]', 'rubric.md:2:8: error: title must be text, got ["a","b"] [type]'],
    ['criteria: { a: 1 }', 'rubric.md:2:11: error: criteria must be a list, got a mapping [type]'],
    [
      'gates: yes please',
      'rubric.md:2:8: error: gates must be a list or a mapping of keys to values, got "yes please" [type]'
    ],
    ['dimensions: many', 'rubric.md:2:13: error: dimensions must be "default", got "many" [type]'],
    [
      'focus: [securty]',
      'rubric.md:2:9: error: focus[0] must be "security", "performance" or "accessibility", got "securty"; ' +
        'did you mean "security"? [type]'
    ],
    [
      'blocking: all',
      'rubric.md:2:11: error: blocking must be "majority" or "any", got "all"; did you mean "any"? [type]'
    ],
    [
      'accuracy_ceiling: "yes"',
      'rubric.md:2:19: error: accuracy_ceiling must be true or false, got "yes" [type]'
    ],
    [
      'gates: { parallel: 0 }',
      'rubric.md:2:20: error: gates.parallel must be at least 1, got 0 [type]'
    ],
    [
      'criteria: [{ id: "has space", description: D }]',
      'rubric.md:2:18: error: criterion "has space": id may contain only letters, digits, - and _, got "has space" [invalid-id]'
    ]
  ])('%s', (yaml, message) => {
    expect(errorsOf(lines('---', yaml, '---', ...CRITERIA))).toEqual([message])
  })

  it('requires the front matter to be a mapping', () => {
    expect(errorsOf(lines('---', '- a', '- b', '---', ...CRITERIA))).toEqual([
      'rubric.md:2:1: error: the front matter must be a mapping of keys (title, criteria, gates, …), got ["a","b"] [type]'
    ])
  })

  it('reports invalid YAML at its cause, quoting the line', () => {
    expect(errorsOf(lines('---', 'title: [unclosed', '---', ...CRITERIA))).toEqual([
      'rubric.md:2:8: error: invalid YAML: the [ that starts a list here is never closed with ]: ' +
        '"title: [unclosed"; add the ] after the list\'s last item (lines inside [ … ] are indented ' +
        'deeper than this one) [yaml-syntax]'
    ])
    expect(errorsOf(lines('---', 'title: a', 'title: b', '---', ...CRITERIA))).toEqual([
      'rubric.md:3:1: error: invalid YAML: the key "title" is set twice in the same mapping ' +
        '(first on line 2): "title: b"; keep one of them [yaml-syntax]'
    ])
  })

  it('refuses front matter in another language, and never evaluates it', () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'rc-')), 'evaluated')
    const js = `---js\n{ title: (require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'), 'T') }\n---\n## Criteria\n- a: A\n`
    expect(errorsOf(js)).toEqual([
      'rubric.md:1:1: error: front matter must be YAML, but it is marked "---js" [yaml-syntax]'
    ])
    expect(existsSync(marker)).toBe(false)
  })

  it('reports front matter that is never closed', () => {
    expect(errorsOf(lines('---', 'title: T', '## Criteria', '- a: A'))).toEqual([
      'rubric.md:1:1: error: the front matter opened with --- on line 1 is never closed with --- [yaml-syntax]'
    ])
  })

  it('closes front matter on a line that is --- (blanks after it allowed); body lines keep the file’s numbers', () => {
    const rubric = parse(lines('---yaml', 'title: T', '---  ', ...CRITERIA))
    expect(rubric.title).toBe('T')
    expect(errorsOf(lines('---', 'title: T', '---', '## Criteria', '- a: A', '- A: B'))).toEqual([
      expect.stringMatching(/^rubric\.md:6:3: error: criterion id "A" is already used on line 5/)
    ])
    // A first line of four dashes is a thematic break in the body, not front matter.
    expect(parse(lines('----', ...CRITERIA)).criteria.map(c => c.id)).toEqual(['a'])
  })
})

describe('the commonest YAML mistakes in front matter, at their cause', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rc-yaml-'))
  /** What the loader says of a rubric file with this front matter, as `validate` prints it. */
  const loaded = async (...frontMatter: string[]): Promise<string[]> => {
    writeFileSync(join(dir, 'rubric.md'), lines('---', ...frontMatter, '---', ...CRITERIA))
    const result = await loadRubric(join(dir, 'rubric.md'), '.github/rubric.md')
    return result.ok ? [] : result.problem.map(formatIssue)
  }

  it('an unclosed { is reported where it opens, not where the parser noticed (the lines after it)', async () => {
    expect(
      await loaded(
        'title: Payments',
        'blocking: any',
        'thresholds: { pass: 0.85, fail: 0.7',
        '# stricter than the default',
        'gates:',
        '  timeout: 900'
      )
    ).toEqual([
      '.github/rubric.md:4:13: error: invalid YAML: the { that starts a mapping here is never closed with }: ' +
        '"thresholds: { pass: 0.85, fail: 0.7"; add the } after the mapping\'s last item ' +
        '(lines inside { … } are indented deeper than this one) [yaml-syntax]'
    ])
  })

  it('an unclosed [ inside a { is the one named, though the } is there', async () => {
    expect(
      await loaded('council: { models: [openai:gpt-5.5, anthropic:claude-sonnet-4-6 }')
    ).toEqual([
      '.github/rubric.md:2:20: error: invalid YAML: the [ that starts a list here is never closed with ]: ' +
        '"council: { models: [openai:gpt-5.5, anthropic:claude-sonnet-4-6 }"; add the ] after the ' +
        "list's last item (lines inside [ … ] are indented deeper than this one) [yaml-syntax]"
    ])
  })

  it('an unclosed quote is reported on the line it opens', async () => {
    expect(await loaded('title: "Payments', 'blocking: any', 'focus: ["security"]')).toEqual([
      '.github/rubric.md:2:8: error: invalid YAML: the " that starts a quoted value here is never closed: ' +
        '"title: \\"Payments"; end the value with " on the same line [yaml-syntax]'
    ])
  })

  it('quotes a line as a JSON string, so an escape sequence in it never reaches the terminal', async () => {
    const [message = ''] = await loaded('title: "\u001b]0;pwned\u0007 Payments')
    expect(message).toContain('"title: \\"\\u001b]0;pwned\\u0007 Payments"')
    expect(message).not.toContain('\u001b')
    expect(message).not.toContain('\u0007')
  })

  it('a quote closed lines later, by the next value’s quote, is named where it opens', async () => {
    expect(await loaded('title: "Payments', '  blocking: any', '  name: "payments"')).toEqual([
      '.github/rubric.md:2:8: error: invalid YAML: the " that starts a quoted value here is closed only on line 4: ' +
        '"title: \\"Payments"; end the value with " on the same line [yaml-syntax]'
    ])
  })

  it('a tab in the indentation is named, and shown', async () => {
    expect(await loaded('thresholds:', '\tpass: 0.8')).toEqual([
      '.github/rubric.md:3:1: error: invalid YAML: this line is indented with a tab: "\\tpass: 0.8"; ' +
        'YAML indents with spaces only: replace the tab with spaces [yaml-syntax]'
    ])
  })

  it('an unquoted ": " in a value says to quote it, and how', async () => {
    expect(
      await loaded('criteria:', '  - id: keys', '    description: Secrets: none in code or logs')
    ).toEqual([
      '.github/rubric.md:4:18: error: invalid YAML: the value "Secrets: none in code or logs" contains ": ", ' +
        'which YAML reads as a key inside the value: "    description: Secrets: none in code or logs"; ' +
        'put the value in quotes: description: "Secrets: none in code or logs" [yaml-syntax]'
    ])
  })

  it('a duplicate key names the line it was first set on', async () => {
    expect(await loaded('thresholds:', '  pass: 0.8', '  fail: 0.5', '  pass: 0.9')).toEqual([
      '.github/rubric.md:5:3: error: invalid YAML: the key "pass" is set twice in the same mapping ' +
        '(first on line 3): "  pass: 0.9"; keep one of them [yaml-syntax]'
    ])
  })

  it.each([
    [
      'a key indented deeper than its siblings',
      ['thresholds:', '  pass: 0.8', '   fail: 0.5'],
      '.github/rubric.md:4:4: error: invalid YAML: this line is indented deeper than the keys beside it, ' +
        'so YAML reads it as the rest of the value on line 3: "   fail: 0.5"; indent it exactly as the ' +
        'keys beside it [yaml-syntax]'
    ],
    [
      'a key indented less than its siblings',
      ['thresholds:', '    pass: 0.8', '  fail: 0.5'],
      '.github/rubric.md:4:3: error: invalid YAML: this key is not lined up with the keys above it in the ' +
        'same mapping: "  fail: 0.5"; indent it exactly as they are [yaml-syntax]'
    ],
    [
      'a list item out of line',
      ['criteria:', '  - id: a', '    description: A', '   - id: b', '     description: B'],
      '.github/rubric.md:5:4: error: invalid YAML: the - of this list item is not lined up with the items ' +
        'above it: "   - id: b"; indent it exactly as they are [yaml-syntax]'
    ]
  ])('bad indentation: %s', async (_, frontMatter, message) => {
    expect(await loaded(...frontMatter)).toEqual([message])
  })
})

describe('duplicate and missing ids', () => {
  it('rejects the same id twice in the Markdown, naming the first line', () => {
    expect(errorsOf(lines('## Criteria', '- a: One', '## Nice to Have', '- A: Two'))).toEqual([
      'rubric.md:4:3: error: criterion id "A" is already used on line 2; ids must be unique: ' +
        'start one of them with its own "your-id: " [duplicate-id]'
    ])
  })

  it('rejects two criteria whose text gives the same slug', () => {
    expect(
      errorsOf(
        lines('## Criteria', '- Errors are logged with context', '- Errors are logged with care')
      )
    ).toEqual([
      'rubric.md:3:3: error: criterion id "errors-are-logged-with" is already used on line 2; ids must be unique: ' +
        'start one of them with its own "your-id: " [duplicate-id]'
    ])
  })

  it('rejects a front-matter criterion that also describes a Markdown one', () => {
    expect(
      errorsOf(lines('---', 'criteria:', '  - { id: a, description: Again }', '---', ...CRITERIA))
    ).toEqual([
      'rubric.md:3:11: error: criterion id "a" is also a Markdown criterion (line 6); ' +
        'to add settings to it, leave out description here [duplicate-id]'
    ])
  })

  it('rejects duplicates within the front matter', () => {
    expect(
      errorsOf(
        lines('criteria:', '  - { id: a, description: One }', '  - { id: a, description: Two }'),
        'r.yml'
      )
    ).toEqual([
      'r.yml:3:11: error: criterion id "a" is already used on line 2; ids must be unique [duplicate-id]'
    ])
  })

  it('rejects settings for an id that no criterion has', () => {
    expect(
      errorsOf(lines('---', 'criteria:', '  - { id: ghost, weight: 2 }', '---', ...CRITERIA))
    ).toEqual([
      'rubric.md:3:5: error: criterion "ghost" has no description, and no Markdown criterion has that id [type]'
    ])
  })

  it('rejects settings whose `required` contradicts the Markdown section', () => {
    expect(
      errorsOf(lines('---', 'criteria:', '  - { id: a, required: false }', '---', ...CRITERIA))
    ).toEqual([
      'rubric.md:3:24: error: criterion "a": required: false contradicts its Markdown section ' +
        '(## Criteria, line 6) [type]'
    ])
  })
})

describe('weights', () => {
  it.each([
    [
      'criteria: [{ id: x, description: X, weight: -1 }]',
      'rubric.md:2:45: error: criterion "x": weight must be at least 0, got -1 [weight]'
    ],
    [
      'criteria: [{ id: x, description: X, weight: heavy }]',
      'rubric.md:2:45: error: criterion "x": weight must be a number, got "heavy" [type]'
    ],
    [
      'dimensions: { accuracy: 0 }',
      'rubric.md:2:25: error: dimension "accuracy": weight must be greater than 0, got 0 [weight]'
    ],
    [
      'dimensions: { clarity: { weight: -2 } }',
      'rubric.md:2:34: error: dimension "clarity": weight must be greater than 0, got -2 [weight]'
    ],
    [
      'score_weights: { dimensions: 0, criteria: 0 }',
      'rubric.md:2:16: error: score_weights must not all be 0 [weight]'
    ],
    // Weights whose sum overflows to Infinity would make the score NaN, which no threshold catches.
    [
      'criteria: [{ id: x, description: X, weight: 1e308 }]',
      'rubric.md:2:45: error: criterion "x": weight must be at most 1000000, got 1e+308 [weight]'
    ],
    [
      'dimensions: { accuracy: 1e308 }',
      'rubric.md:2:25: error: dimension "accuracy": weight must be at most 1000000, got 1e+308 [weight]'
    ]
  ])('%s', (yaml, message) => {
    expect(errorsOf(lines('---', yaml, '---', ...CRITERIA))).toEqual([message])
  })
})

describe('thresholds', () => {
  it.each([
    [
      'thresholds: { pass: 1.5 }',
      'rubric.md:2:21: error: thresholds.pass must be at most 1, got 1.5 [threshold]'
    ],
    [
      'thresholds: { confidence: -0.1 }',
      'rubric.md:2:27: error: thresholds.confidence must be at least 0, got -0.1 [threshold]'
    ],
    [
      'thresholds: { pass: 0.5, fail: 0.7 }',
      'rubric.md:2:32: error: thresholds.fail (0.7) must not exceed thresholds.pass (0.5) [threshold]'
    ],
    [
      'thresholds: { pass: 0.5 }',
      'rubric.md:2:13: error: thresholds.fail (0.6) must not exceed thresholds.pass (0.5) [threshold]'
    ],
    ['min_coverage: 2', 'rubric.md:2:15: error: min_coverage must be at most 1, got 2 [threshold]']
  ])('%s', (yaml, message) => {
    expect(errorsOf(lines('---', yaml, '---', ...CRITERIA))).toEqual([message])
  })

  it('accepts fail equal to pass', () => {
    expect(() =>
      errorsOf(lines('---', 'thresholds: { pass: 0.7, fail: 0.7 }', '---', ...CRITERIA))
    ).toThrow('expected the rubric to be invalid')
  })
})

describe('score ranges', () => {
  const withRanges = (ranges: string, extra = ''): string =>
    lines(
      'criteria:',
      '  - id: relevance',
      '    description: R',
      ...(extra ? [extra] : []),
      `    score_ranges: ${ranges}`
    )

  it('names the overlap, at the later range', () => {
    expect(
      errorsOf(
        withRanges(
          '[{ score_range: [0, 3], expected_outcome: a }, { score_range: [4, 6], expected_outcome: b }, ' +
            '{ score_range: [5, 8], expected_outcome: c }, { score_range: [9, 10], expected_outcome: d }]'
        ),
        'rubric.yml'
      )
    ).toEqual([
      'rubric.yml:4:112: error: criterion "relevance": score_ranges [4,6] and [5,8] overlap [score-range-overlap]'
    ])
  })

  it('names the bounds, once per range', () => {
    expect(
      errorsOf(withRanges('[{ score_range: [-1, 12], expected_outcome: a }]'), 'rubric.yml')
    ).toEqual([
      'rubric.yml:4:35: error: criterion "relevance": score_range [-1,12] is out of bounds: ' +
        'a range is two whole numbers within 0–10 [score-range-bounds]'
    ])
    expect(
      errorsOf(withRanges('[{ score_range: [0, 2.5], expected_outcome: a }]'), 'rubric.yml')[0]
    ).toContain('score_range [0,2.5] is out of bounds')
    expect(
      errorsOf(withRanges('[{ score_range: [7, 3], expected_outcome: a }]'), 'rubric.yml')
    ).toEqual([
      'rubric.yml:4:35: error: criterion "relevance": score_range [7,3] has its bounds reversed ' +
        '(low must not exceed high) [score-range-bounds]'
    ])
    expect(errorsOf(withRanges('{ 0: a, 11: b }'), 'rubric.yml')).toEqual([
      'rubric.yml:4:27: error: criterion "relevance": score_ranges key "11" is out of bounds: ' +
        'band starts are whole numbers from 0 to 10 [score-range-bounds]'
    ])
  })

  it('names the coverage gaps', () => {
    expect(
      errorsOf(
        withRanges(
          '[{ score_range: [0, 3], expected_outcome: a }, { score_range: [6, 8], expected_outcome: b }]'
        ),
        'rubric.yml'
      )
    ).toEqual([
      'rubric.yml:4:19: error: criterion "relevance": score_ranges leave 4–5, 9–10 uncovered; ' +
        'coverage must include every score 0–10 [score-range-coverage]'
    ])
    expect(errorsOf(withRanges('{ 3: a, 7: b }'), 'rubric.yml')).toEqual([
      'rubric.yml:4:19: error: criterion "relevance": score_ranges leave 0–2 uncovered; coverage must include ' +
        'every score 0–10 (the first band must start at 0) [score-range-coverage]'
    ])
    expect(errorsOf(withRanges('[]'), 'rubric.yml')).toEqual([
      'rubric.yml:4:19: error: criterion "relevance": score_ranges must list at least 1 item, got [] [score-range-coverage]'
    ])
  })

  it('reports range problems even when the same criterion has other errors', () => {
    const errors = errorsOf(
      withRanges(
        '[{ score_range: [0, 5], expected_outcome: a }, { score_range: [5, 10], expected_outcome: b }]',
        '    weight: -3'
      ),
      'rubric.yml'
    )
    expect(errors.map(e => /\[([a-z-]+)\]$/.exec(e)?.[1])).toEqual([
      'weight',
      'score-range-overlap'
    ])
  })

  it('requires score ranges for required_min_score, and an integer 0–10', () => {
    expect(
      errorsOf(lines('criteria: [{ id: c, description: C, required_min_score: 5 }]'), 'r.yml')
    ).toEqual([
      'r.yml:1:57: error: criterion "c": required_min_score needs score_ranges (a checklist criterion is PASS or FAIL) [min-score]'
    ])
    expect(errorsOf(withRanges('{ 0: a }', '    required_min_score: 11'), 'r.yml')).toEqual([
      'r.yml:4:25: error: criterion "relevance": required_min_score must be at most 10, got 11 [min-score]'
    ])
  })
})

describe('dimensions and council', () => {
  it('needs a description for a dimension that is not built in, and rejects an empty map', () => {
    expect(errorsOf(lines('---', 'dimensions: { security: 2 }', '---', ...CRITERIA))).toEqual([
      'rubric.md:2:15: error: dimension "security" is not built in, so it needs a description: ' +
        '{ weight: 10, description: "…" } (built in: accuracy, completeness, clarity, conciseness, relevance) [dimension]'
    ])
    expect(errorsOf(lines('---', 'dimensions: {}', '---', ...CRITERIA))).toEqual([
      'rubric.md:2:13: error: dimensions is an empty map; write dimensions: false to turn them off [dimension]'
    ])
  })

  it('needs an accuracy dimension for accuracy_ceiling: true', () => {
    expect(
      errorsOf(
        lines('---', 'dimensions: { clarity: 1 }', 'accuracy_ceiling: true', '---', ...CRITERIA)
      )
    ).toEqual([
      'rubric.md:3:19: error: accuracy_ceiling needs an "accuracy" dimension; add one or remove accuracy_ceiling [dimension]'
    ])
  })

  it('checks model ids, duplicates, samples and quorum', () => {
    expect(
      errorsOf(
        lines(
          '---',
          'council: { models: [openai:gpt-5, acme:m1, gpt-4o], samples: 11 }',
          '---',
          ...CRITERIA
        )
      )
    ).toEqual([
      'rubric.md:2:35: error: council.models[1]: unknown provider "acme" in "acme:m1" ' +
        '(known: openai, anthropic, google, openrouter, ollama, openai-compatible) [council]',
      'rubric.md:2:44: error: council.models[2]: "gpt-4o" is not of the form provider:model (e.g. openai:gpt-5.4-mini) [council]',
      'rubric.md:2:62: error: council.samples must be at most 10, got 11 [council]'
    ])
    expect(
      errorsOf(
        lines(
          '---',
          'council: { models: [openai:a, openai:a], samples: 2, quorum: 5 }',
          '---',
          ...CRITERIA
        )
      )
    ).toEqual([
      'rubric.md:2:31: error: council.models lists "openai:a" twice; use council.samples to ask a judge more than once [council]',
      'rubric.md:2:62: error: council.quorum (5) exceeds the 4 answers the council can give (2 models × 2 samples) [council]'
    ])
    expect(errorsOf(lines('---', 'council: { tie_breaks: 6 }', '---', ...CRITERIA))).toEqual([
      'rubric.md:2:24: error: council.tie_breaks must be at most 5, got 6 [council]'
    ])
  })

  it('checks the reserves and the budget of extra votes, each error at its line', () => {
    const council = (...reserve: string[]) =>
      lines(
        'council:',
        '  models: [openai:gpt-5.4-mini, anthropic:claude-sonnet-4-6]',
        '  reserve:',
        ...reserve.map(r => `    - ${r}`),
        'criteria: [{ id: a, description: A }]'
      )
    expect(
      errorsOf(
        council(
          'anthropic:claude-sonnet-4-6',
          'google:gemini-3.5-flash',
          'google:gemini-3.5-flash'
        ),
        'rubric.yml'
      )
    ).toEqual([
      'rubric.yml:4:7: error: council.reserve names "anthropic:claude-sonnet-4-6", a member of council.models; a reserve must be another model, whose vote is independent of the members\' [council]',
      'rubric.yml:6:7: error: council.reserve lists "google:gemini-3.5-flash" twice [council]'
    ])
    expect(
      errorsOf(
        council('gpt-5.4', '{ model: openai:gpt-5.4, reasoning: extreme }').replace(
          'criteria:',
          '  max_extra_votes: 9\ncriteria:'
        ),
        'rubric.yml'
      )
    ).toEqual([
      'rubric.yml:4:7: error: council.reserve[0]: "gpt-5.4" is not of the form provider:model (e.g. openai:gpt-5.4-mini) [council]',
      'rubric.yml:5:43: error: council.reserve[1].reasoning must be "low", "medium" or "high", got "extreme" [council]',
      'rubric.yml:6:20: error: council.max_extra_votes must be at most 5, got 9 [council]'
    ])
    expect(
      errorsOf(lines('---', 'council: { tie_breaks: 1, max_extra_votes: 2 }', '---', ...CRITERIA))
    ).toEqual([
      'rubric.md:2:12: error: council.tie_breaks is the old name of council.max_extra_votes; give only max_extra_votes (got tie_breaks: 1 and max_extra_votes: 2) [council]'
    ])
  })

  it('checks reasoning efforts, the council’s and each member’s, and the members’ mappings', () => {
    expect(
      errorsOf(
        lines(
          '---',
          'council:',
          '  reasoning: hihg',
          '  models:',
          '    - openai:gpt-5.4',
          '    - { model: anthropic:claude-sonnet-4-6, reasoning: extreme }',
          '    - { model: acme:x }',
          '    - { modle: openai:gpt-5 }',
          '    - { model: openai:gpt-5.4, reasoning: low }',
          '---',
          ...CRITERIA
        )
      )
    ).toEqual([
      'rubric.md:3:14: error: council.reasoning must be "low", "medium" or "high", got "hihg"; did you mean "high"? [council]',
      'rubric.md:6:56: error: council.models[1].reasoning must be "low", "medium" or "high", got "extreme" [council]',
      'rubric.md:7:16: error: council.models[2].model: unknown provider "acme" in "acme:x" (known: openai, anthropic, google, openrouter, ollama, openai-compatible) [council]',
      'rubric.md:8:7: error: council.models[3].model is required [type]',
      'rubric.md:8:9: error: unknown key "modle" in council.models[3]; did you mean "model"? (known keys: model, reasoning, window, max_output_tokens, temperature) [unknown-key]'
    ])
    // A member named twice, once with settings of its own, is still named twice.
    expect(
      errorsOf(
        lines(
          'council:',
          '  models:',
          '    - openai:gpt-5.4',
          '    - model: openai:gpt-5.4',
          '      reasoning: max',
          'criteria: [{ id: a, description: A }]'
        ),
        'rubric.yml'
      )
    ).toEqual([
      'rubric.yml:5:18: error: council.models[1].reasoning must be "low", "medium" or "high", got "max" [council]'
    ])
    expect(
      errorsOf(
        lines(
          '---',
          'council: { models: [openai:gpt-5.4, { model: openai:gpt-5.4, reasoning: high }] }',
          '---',
          ...CRITERIA
        )
      )
    ).toEqual([
      'rubric.md:2:37: error: council.models lists "openai:gpt-5.4" twice; use council.samples to ask a judge more than once [council]'
    ])
  })
})

describe('the Markdown body', () => {
  it('requires gates to be backticked commands', () => {
    expect(errorsOf(lines('## Gates', '- npm test', '- `npm run lint', '- ` `', '-'))).toEqual([
      'rubric.md:2:3: error: gate "npm test" is not a command in backticks; write it as - `your command` [gate-syntax]',
      'rubric.md:3:3: error: gate "`npm run lint" has no closing ` [gate-syntax]',
      'rubric.md:4:3: error: gate command is empty [gate-syntax]',
      'rubric.md:5:1: error: empty list item in ## Gates [section-content]'
    ])
  })

  it('rejects prose and code blocks outside list items in list sections', () => {
    expect(
      errorsOf(lines('## Criteria', '- a: A', '', 'Some prose.', '## Gates', '```', 'make', '```'))
    ).toEqual([
      'rubric.md:4:1: error: text outside a list item in ## Criteria: each criterion is a list item; put prose in ## Notes [section-content]',
      'rubric.md:6:1: error: code block outside a list item in ## Gates: each gate is a list item holding a backticked command; put prose in ## Notes [section-content]'
    ])
  })

  it('reports an unclosed HTML comment, which would otherwise hide the rest of the file', () => {
    expect(errorsOf(lines('## Criteria', '- a: A', '<!-- - b: B'))).toEqual([
      'rubric.md:3: error: HTML comment "<!--" is never closed with "-->" [section-content]'
    ])
  })

  it('rejects a criterion with no words to make an id of', () => {
    expect(errorsOf(lines('## Criteria', '- !!!'))).toEqual([
      'rubric.md:2:3: error: criterion "!!!" has no words to make an id from; start it with "your-id: " [invalid-id]'
    ])
  })
})

describe('empty and missing rubrics', () => {
  it('rejects an empty file', () => {
    expect(errorsOf('\n  \n')).toEqual([
      'rubric.md:1: error: the rubric file is empty; it needs gates, criteria or dimensions [empty-rubric]'
    ])
  })

  it('rejects a rubric that would pass everything', () => {
    expect(
      errorsOf(lines('---', 'title: Nothing', '---', '# Nothing', '## Notes', 'Only notes.'))
    ).toEqual([
      'rubric.md:1: error: the rubric has no gates, no criteria and no dimensions, so it would pass everything; ' +
        'add a "## Gates" or "## Criteria" section [empty-rubric]'
    ])
    expect(errorsOf(lines('dimensions: false'), 'r.yml')[0]).toContain('[empty-rubric]')
  })

  it('reports a missing file as missing, never as an empty rubric', async () => {
    const result = await loadRubric('/nonexistent/rubric.md', '.github/rubric.md')
    expect(result.ok ? [] : result.problem.map(formatIssue)).toEqual([
      '.github/rubric.md: error: rubric file not found [missing-file]'
    ])
  })

  it('refuses a directory and bytes that are not UTF-8', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-'))
    const latin1 = join(dir, 'latin1.md')
    writeFileSync(latin1, Buffer.from('## Criteria\n- caf\xe9: ok\n', 'latin1'))
    const messages = async (path: string): Promise<string[]> =>
      loadRubric(path, 'r.md').then(result => (result.ok ? [] : result.problem.map(formatIssue)))
    expect(await messages(dir)).toEqual([
      'r.md: error: is a directory, not a rubric file [unreadable-file]'
    ])
    expect(await messages(latin1)).toEqual([
      'r.md: error: the rubric file is not valid UTF-8 text [unreadable-file]'
    ])
  })
})

describe('all errors at once', () => {
  it('reports every problem of a file, in line order', () => {
    const errors = errorsOf(
      lines(
        '---',
        'tresholds: {}',
        'thresholds: { pass: 2 }',
        'criteria:',
        '  - { id: r, description: R, score_ranges: { 0: a, 3: b, 12: c } }',
        '---',
        '## Gates',
        '- make',
        '## Criteria',
        '- r: duplicate',
        '## Extras'
      )
    )
    expect(errors.map(e => /^rubric\.md:(\d+)/.exec(e)?.[1])).toEqual([
      '2',
      '3',
      '5',
      '5',
      '8',
      '11'
    ])
    expect(errors.map(e => /\[([a-z-]+)\]$/.exec(e)?.[1])).toEqual([
      'unknown-key',
      'threshold',
      'duplicate-id',
      'score-range-bounds',
      'gate-syntax',
      'unknown-section'
    ])
  })
})

describe('one error of a criterion never hides another', () => {
  const overlapping = [
    '    score_ranges:',
    '      - { score_range: [0, 6], expected_outcome: low }',
    '      - { score_range: [5, 10], expected_outcome: high }'
  ]

  it('reports overlapping ranges of a criterion that has no description', () => {
    expect(errorsOf(lines('---', 'criteria:', '  - id: ranked', ...overlapping, '---'))).toEqual([
      'rubric.md:3:5: error: criterion "ranked" has no description, and no Markdown criterion has that id [type]',
      'rubric.md:6:9: error: criterion "ranked": score_ranges [0,6] and [5,10] overlap [score-range-overlap]'
    ])
  })

  it('reports overlapping ranges of a criterion with neither id nor description', () => {
    expect(errorsOf(lines('---', 'criteria:', '  - weight: 2', ...overlapping, '---'))).toEqual([
      'rubric.md:3:5: error: criteria item 1 needs an id or a description [type]',
      'rubric.md:6:9: error: criteria item 1: score_ranges [0,6] and [5,10] overlap [score-range-overlap]'
    ])
  })

  it('reports an invalid weight and a bad id of the same criterion', () => {
    expect(
      errorsOf(lines('criteria:', '  - { id: "two words", description: D, weight: -1 }'), 'r.yml')
    ).toEqual([
      'r.yml:2:11: error: criterion "two words": id may contain only letters, digits, - and _, got "two words" [invalid-id]',
      'r.yml:2:48: error: criterion "two words": weight must be at least 0, got -1 [weight]'
    ])
  })

  it('reports a duplicate id of a criterion whose weight is invalid, whichever comes first', () => {
    const valid = '  - { id: dup, description: One }'
    const invalid = '  - { id: dup, description: Two, weight: -2 }'
    expect(errorsOf(lines('criteria:', valid, invalid), 'r.yml')).toEqual([
      'r.yml:3:11: error: criterion id "dup" is already used on line 2; ids must be unique [duplicate-id]',
      'r.yml:3:42: error: criterion "dup": weight must be at least 0, got -2 [weight]'
    ])
    expect(errorsOf(lines('criteria:', invalid, valid), 'r.yml')).toEqual([
      'r.yml:2:42: error: criterion "dup": weight must be at least 0, got -2 [weight]',
      'r.yml:3:11: error: criterion id "dup" is already used on line 2; ids must be unique [duplicate-id]'
    ])
  })

  it('reports required_min_score without score ranges beside the criterion’s other errors', () => {
    expect(
      errorsOf(
        lines('criteria:', '  - { id: m, description: M, weight: -1, required_min_score: 5 }'),
        'r.yml'
      )
    ).toEqual([
      'r.yml:2:38: error: criterion "m": weight must be at least 0, got -1 [weight]',
      'r.yml:2:62: error: criterion "m": required_min_score needs score_ranges (a checklist criterion is PASS or FAIL) [min-score]'
    ])
  })

  it('reports ranges of settings that contradict their Markdown section, or describe a Markdown criterion', () => {
    const contradicting = errorsOf(
      lines(
        '---',
        'criteria:',
        '  - id: a',
        '    required: false',
        ...overlapping,
        '---',
        ...CRITERIA
      )
    )
    expect(contradicting.map(e => /\[([a-z-]+)\]$/.exec(e)?.[1])).toEqual([
      'type',
      'score-range-overlap'
    ])
    const described = errorsOf(
      lines(
        '---',
        'criteria:',
        '  - id: a',
        '    description: again',
        ...overlapping,
        '---',
        ...CRITERIA
      )
    )
    expect(described.map(e => /\[([a-z-]+)\]$/.exec(e)?.[1])).toEqual([
      'duplicate-id',
      'score-range-overlap'
    ])
  })

  it('does not add "needs an id" to an id that is already reported as invalid', () => {
    expect(errorsOf(lines('criteria:', '  - { id: 7 }'), 'r.yml')).toEqual([
      'r.yml:2:11: error: criteria item 1: id must be text, got 7 [type]'
    ])
  })
})

describe('one error of an object never hides a rule relating its other fields', () => {
  const rules = (text: string): (string | undefined)[] =>
    errorsOf(lines('---', text, '---', ...CRITERIA)).map(e => /\[([a-z-]+)\]$/.exec(e)?.[1])

  it('checks fail against pass when confidence is out of range', () => {
    expect(
      errorsOf(
        lines('---', 'thresholds: { pass: 0.5, fail: 0.7, confidence: 2 }', '---', ...CRITERIA)
      )
    ).toEqual([
      'rubric.md:2:32: error: thresholds.fail (0.7) must not exceed thresholds.pass (0.5) [threshold]',
      'rubric.md:2:49: error: thresholds.confidence must be at most 1, got 2 [threshold]'
    ])
  })

  it('does not compare fail with the default pass when the pass written is invalid', () => {
    expect(rules('thresholds: { pass: 2, fail: 0.9 }')).toEqual(['threshold'])
  })

  it('reports a model listed twice beside invalid samples, and no quorum against default samples', () => {
    expect(
      errorsOf(
        lines(
          '---',
          'council: { models: [openai:gpt-5, openai:gpt-5], samples: 0 }',
          '---',
          ...CRITERIA
        )
      )
    ).toEqual([
      'rubric.md:2:35: error: council.models lists "openai:gpt-5" twice; use council.samples to ask a judge more than once [council]',
      'rubric.md:2:59: error: council.samples must be at least 1, got 0 [council]'
    ])
    expect(rules('council: { models: [openai:gpt-5], samples: 0, quorum: 3 }')).toEqual(['council'])
  })

  it('reports a dimension that is not built in as needing a description beside its invalid weight', () => {
    expect(
      errorsOf(lines('---', 'dimensions:', '  foo: { weight: -1 }', '---', ...CRITERIA))
    ).toEqual([
      'rubric.md:3:3: error: dimension "foo" is not built in, so it needs a description: { weight: 10, description: "…" } ' +
        '(built in: accuracy, completeness, clarity, conciseness, relevance) [dimension]',
      'rubric.md:3:18: error: dimension "foo": weight must be greater than 0, got -1 [weight]'
    ])
    // Its weight is there, only invalid: no "needs a weight" on top.
    expect(rules('dimensions: { foo: { weight: -1, description: F }, accuracy: -3 }')).toEqual([
      'weight',
      'weight'
    ])
  })
})
