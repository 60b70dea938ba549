import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { JudgeRun } from '../../src/council/types.js'
import type { Evaluation } from '../../src/engine/evaluation.js'
import { renderTerminal, shorten } from '../../src/report/terminal.js'
import type { CriterionResult, Verdict } from '../../src/verdict/types.js'
import { evaluationOf, gateResult, judgeRun, SEARCH_RUBRIC } from '../helpers/evaluation.js'
import { lines, parse } from '../helpers/rubric.js'

const GATES = [
  gateResult('pytest tests/test_search.py', 'pass'),
  gateResult('ruff check src/search/', 'pass')
]
/** A rubric of one gate and nothing else. */
const GATE_ONLY = parse(lines('---', 'dimensions: false', '---', '## Gates', '- `npm test`'))
const JUDGES = ['openai:gpt-5.4-mini', 'anthropic:claude-sonnet-4-6', 'google:gemini-3.5-flash']

/** The search rubric's evaluation by three judges, each as `spec` says. */
function searchEvaluation(specs: Omit<Parameters<typeof judgeRun>[1], 'judge'>[]): Evaluation {
  return evaluationOf(SEARCH_RUBRIC, GATES, {
    runs: specs.map((spec, i) => judgeRun(SEARCH_RUBRIC, { judge: JUDGES[i] ?? '', ...spec })),
    quorum: 2
  })
}

/** An evaluation whose verdict carries exactly these criteria. */
function withCriteria(criteria: CriterionResult[]): Evaluation {
  const base = searchEvaluation([{}, {}, {}])
  const verdict: Verdict = { ...base.verdict, criteria }
  return { ...base, verdict }
}

function checklist(id: string, status: CriterionResult['status'], pass: number, fail: number) {
  return {
    id,
    description: id,
    required: true,
    weight: 1,
    kind: 'checklist',
    status,
    score: null,
    votes: [
      ...Array.from({ length: pass }, (_, i) => ({
        judge: `j${i}`,
        verdict: 'PASS' as const,
        reasoning: `${id} is handled.`
      })),
      ...Array.from({ length: fail }, (_, i) => ({
        judge: `k${i}`,
        verdict: 'FAIL' as const,
        reasoning: `${id} is not handled in api.py.`
      }))
    ],
    tally: { pass, fail, abstain: 0 }
  } satisfies CriterionResult
}

/** The row of criterion `id`, as printed. */
function rowOf(text: string, id: string): string {
  return (
    text
      .split('\n')
      .find(l =>
        new RegExp(`^ +\\S+ ${id} +(PASS|FAIL|SPLIT|SCORED|UNGRADED|WAIVED)\\b`).test(l)
      ) ?? ''
  )
}

describe('the terminal view: criterion marks', () => {
  const text = renderTerminal(
    withCriteria([
      checklist('passes', 'PASS', 3, 0),
      checklist('fails', 'FAIL', 1, 2),
      checklist('splits', 'SPLIT', 2, 2),
      {
        ...checklist('scored', 'SCORED', 0, 0),
        kind: 'score',
        median: 6.5,
        votes: [
          { judge: 'j0', score: 6, reasoning: 'Ranks by keyword.' },
          { judge: 'j1', score: 7, reasoning: 'Ranks by intent.' }
        ]
      },
      { ...checklist('ungraded', 'UNGRADED', 0, 0), tally: { pass: 0, fail: 0, abstain: 0 } },
      {
        ...checklist('waived', 'WAIVED', 1, 2),
        waived: { by: 'octocat', reason: 'the harness is broken upstream, #12' }
      }
    ])
  )

  it('gives each status its own mark, a split its votes, a scored criterion its median', () => {
    expect(rowOf(text, 'passes')).toMatch(/^ +✓ passes +PASS 3\/3$/)
    expect(rowOf(text, 'fails')).toMatch(
      /^ +✗ fails +FAIL 1\/3 - fails is not handled in api\.py\.$/
    )
    expect(rowOf(text, 'splits')).toMatch(
      /^ +± splits +SPLIT 2–2 \(PASS–FAIL\) - splits is not handled in api\.py\.$/
    )
    expect(rowOf(text, 'scored')).toMatch(/^ +6\.5 scored +SCORED median 6\.5\/10$/)
    expect(rowOf(text, 'ungraded')).toMatch(/^ +– ungraded +UNGRADED$/)
    // Who waived it and why, in place of the judges' objection.
    expect(rowOf(text, 'waived')).toMatch(
      /^ +⚑ waived +WAIVED 1\/3 - waived by @octocat: the harness is broken upstream, #12$/
    )
  })

  it('lines the names up when a score is wider than a mark', () => {
    const columns = ['passes', 'fails', 'splits', 'scored', 'ungraded'].map(id =>
      rowOf(text, id).indexOf(` ${id} `)
    )
    expect(new Set(columns).size).toBe(1)
  })

  it('does not mark a split like a failure', () => {
    expect(rowOf(text, 'splits')).not.toContain('✗')
  })

  it('shows a score-range criterion against its minimum', () => {
    const failing = renderTerminal(
      searchEvaluation([{ relevance: 4 }, { relevance: 5 }, { relevance: 9 }])
    )
    expect(rowOf(failing, 'relevance')).toMatch(/✗ relevance +FAIL median 5\/10 \(min 7\)/)
  })
})

describe('the terminal view: shortened reasoning', () => {
  it('ends at a word boundary with an ellipsis, within the width', () => {
    const reasoning =
      'The handler reads query["q"] without a default, so an empty query raises a KeyError ' +
      'before the validation in src/search/api.py can reject it with a message.'
    const text = renderTerminal(
      searchEvaluation([
        { fail: ['errors'], reasoning: () => reasoning },
        { fail: ['errors'], reasoning: () => reasoning },
        {}
      ])
    )
    const shown = rowOf(text, 'errors').split(' - ')[1] ?? ''
    expect(shown).toBe(
      'The handler reads query["q"] without a default, so an empty query raises a…'
    )
    expect(reasoning.startsWith(`${shown.slice(0, -1)} `)).toBe(true)
  })

  it('puts reasoning of several lines on one, and strips terminal escape sequences', () => {
    const reasoning = (): string =>
      'Empty queries crash.\n\n\u001b[2J\u001b[31mStack trace\u0007 shown.'
    const text = renderTerminal(
      searchEvaluation([{ fail: ['errors'], reasoning }, { fail: ['errors'], reasoning }, {}])
    )
    expect(rowOf(text, 'errors')).toMatch(/ - Empty queries crash\. \[2J\[31mStack trace shown\.$/)
    expect(text.includes('\u001b') || text.includes('\u0007')).toBe(false)
  })

  it('drops a long word that straddles the cut instead of cutting into it', () => {
    expect(shorten('see https://example.com/a/very/long/path/to/the/handler for it', 30)).toBe(
      'see…'
    )
  })

  it('leaves text that fits alone', () => {
    expect(shorten('short enough', 12)).toBe('short enough')
  })

  it('cuts inside a single word only when it is longer than the whole width', () => {
    expect(shorten('Supercalifragilisticexpialidocious', 10)).toBe('Supercali…')
  })

  it('counts characters, not bytes or UTF-16 units, and never splits one', () => {
    const text = 'Die Prüfung für 🚀 schlägt fehl, weil die Größe überläuft'
    const short = shorten(text, 24)
    expect(short).toBe('Die Prüfung für 🚀…')
    expect(shorten('日本語 の テキスト 🚀🚀🚀🚀🚀🚀', 12)).toBe('日本語 の テキスト…')
    expect(shorten('🚀🚀🚀🚀🚀🚀🚀🚀', 4)).toBe('🚀🚀🚀…')
  })

  it('keeps every shortened text within the width, whole words from the start', () => {
    const word = fc.constantFrom('a', 'Größe', '日本語', '🚀🚀', 'query["q"]', 'src/search/api.py')
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 8, max: 80 }),
        (words, max) => {
          const text = words.join(' ')
          const short = shorten(text, max)
          expect(Array.from(short).length).toBeLessThanOrEqual(max)
          if (short === text) return
          expect(short.endsWith('…')).toBe(true)
          const kept = short.slice(0, -1)
          // Whole words, unless the first word alone is wider than the room.
          if (kept.includes(' ')) expect(words.join(' ').startsWith(`${kept} `)).toBe(true)
          else expect(text.startsWith(kept)).toBe(true)
          expect(kept).not.toMatch(/\uFFFD|[\uD800-\uDBFF]$/)
        }
      )
    )
  })
})

describe('the terminal view: findings, dimensions, score and cost', () => {
  const failing = searchEvaluation([
    {
      fail: ['errors'],
      findings: [
        {
          severity: 'minor',
          title: 'Log line lacks the query',
          evidence: 'logger.info("search")'
        },
        {
          severity: 'major',
          title: 'Empty query raises KeyError',
          path: 'src/search/api.py',
          line: 42,
          evidence: 'query["q"]'
        }
      ]
    },
    {
      fail: ['errors'],
      findings: [
        {
          severity: 'major',
          title: 'Empty query raises KeyError',
          path: 'src/search/api.py',
          line: 42,
          evidence: 'query["q"] again'
        }
      ]
    },
    {}
  ])
  const text = renderTerminal(failing)

  it('lists the findings, gravest first, one judged twice once', () => {
    const at = text.indexOf('findings: 1 major, 1 minor\n')
    expect(at).toBeGreaterThan(0)
    expect(text.slice(at).split('\n').slice(1, 3)).toEqual([
      '  major    Empty query raises KeyError · src/search/api.py:42 (2 judges)',
      '  minor    Log line lacks the query'
    ])
  })

  it('lists at most five findings and counts the rest', () => {
    const many = searchEvaluation([
      {
        findings: Array.from({ length: 7 }, (_, i) => ({
          severity: 'info' as const,
          title: `Note ${i + 1}`,
          evidence: 'x'
        }))
      },
      {},
      {}
    ])
    const listed = renderTerminal(many).split('\n')
    const at = listed.indexOf('findings: 7 info')
    expect(listed.slice(at + 1, at + 7)).toEqual([
      ...[1, 2, 3, 4, 5].map(n => `  info     Note ${n}`),
      '  … 2 more in the full report'
    ])
  })

  it('shows the dimensions, the score with its parts and thresholds, and the cost', () => {
    expect(text).toContain(
      'dimensions: accuracy 8 · completeness 8 · clarity 8 · conciseness 8 · relevance 8 (weighted 8/10)'
    )
    expect(text).toMatch(
      /^score: 0\.\d+ from criteria 0\.\d+, dimensions 0\.8 · pass ≥ 0\.8, fail < 0\.6$/m
    )
    expect(text).toContain('cost: 37,035 in (30,720 cached) / 2,034 out · est. $0.0369\n')
  })

  it('says the accuracy ceiling capped the score', () => {
    const capped = renderTerminal(searchEvaluation([{ accuracy: 4 }, { accuracy: 5 }, {}]))
    expect(capped).toMatch(/^score: .*, capped by the accuracy ceiling · pass/m)
  })

  it('leaves out findings, dimensions, score and cost when there are none', () => {
    const gatesOnly = renderTerminal(evaluationOf(GATE_ONLY, [gateResult('npm test', 'pass')]))
    expect(gatesOnly).not.toMatch(/^(findings|dimensions|score|cost):/m)
    const pass = renderTerminal(searchEvaluation([{}, {}, {}]))
    expect(pass).not.toContain('findings:')
  })

  it('counts the tokens without a price when no model has one', () => {
    const unpriced = searchEvaluation([{}, {}, {}])
    // A model without a known price: its runs carry no cost.
    const runs = (unpriced.council?.runs ?? []).map(r =>
      Object.fromEntries(Object.entries(r).filter(([key]) => key !== 'costUsd'))
    ) as unknown as JudgeRun[]
    const text = renderTerminal({ ...unpriced, council: { runs, quorum: 2 } })
    expect(text).toContain('cost: 37,035 in (30,720 cached) / 2,034 out\n')
  })
})

describe('the terminal view: size and the pointer to the full report', () => {
  it('keeps a PASS with nothing notable to a few lines, one per group', () => {
    const text = renderTerminal(searchEvaluation([{}, {}, {}]))
    expect(
      renderTerminal(evaluationOf(GATE_ONLY, [gateResult('npm test', 'pass')]))
        .trimEnd()
        .split('\n')
    ).toEqual([
      'PASS (exit 0) · gates 1/1',
      '',
      'gates: ✓ 1/1 · npm test',
      '',
      'recommendation: ACCEPT'
    ])
    expect(text).toContain('must-have: ✓ 3/3 · relevance, edge-cases, errors\n')
    expect(text.trimEnd().split('\n').length).toBeLessThanOrEqual(12)
  })

  it('ends with the file the full report is in, and names no command to run again', () => {
    const evaluation = searchEvaluation([{ fail: ['errors'] }, { fail: ['errors'] }, {}])
    expect(renderTerminal(evaluation)).not.toContain('Full report')
    expect(
      renderTerminal(evaluation, { markdownFile: 'report.md' }).trimEnd().split('\n').at(-1)
    ).toBe('Full report: report.md')
  })
})

describe('the terminal view as a whole', () => {
  it('for a FAIL with a split criterion, findings and cost', async () => {
    const evaluation = evaluationOf(SEARCH_RUBRIC, GATES, {
      runs: [
        judgeRun(SEARCH_RUBRIC, {
          judge: JUDGES[0] ?? '',
          fail: ['edge-cases', 'performance'],
          relevance: 6,
          reasoning: id =>
            id === 'performance'
              ? 'Each keystroke sends a query with no debounce, so typing a long query fires dozens of requests at the backend.'
              : `The diff does not cover ${id}.`,
          findings: [
            {
              severity: 'major',
              title: 'Empty query raises KeyError',
              path: 'src/search/api.py',
              line: 42,
              evidence: 'query["q"] is read without a default'
            },
            {
              severity: 'minor',
              title: 'No test for a query of 10,000 characters',
              evidence: 'tests/test_search.py has none'
            }
          ]
        }),
        judgeRun(SEARCH_RUBRIC, {
          judge: JUDGES[1] ?? '',
          fail: ['edge-cases'],
          relevance: 8,
          reasoning: id => `The diff does not cover ${id}.`
        })
      ],
      quorum: 2
    })
    await expect(renderTerminal(evaluation)).toMatchFileSnapshot(
      '../__snapshots__/terminal-fail-split.txt'
    )
  })
})
