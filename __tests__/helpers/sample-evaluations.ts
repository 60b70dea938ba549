import type { JudgeRun } from '../../src/council/types.js'
import type { Evaluation } from '../../src/engine/evaluation.js'
import type { VerdictKind } from '../../src/verdict/types.js'
import { evaluationOf, gateResult, judgeRun, SEARCH_RUBRIC, type JudgeSpec } from './evaluation.js'

/**
 * One realistic evaluation per verdict, shared by the rendered-comment test and the screenshot
 * script so that the pictures in the docs show exactly what the test checks.
 */
export interface Sample {
  readonly name: 'pass' | 'fail' | 'unclear'
  readonly verdict: VerdictKind
  readonly evaluation: Evaluation
  /** The criterion a reader opens first: the failing or split one, else the first must-have. */
  readonly focus: string
}

export const SAMPLE_JUDGES = [
  'openai:gpt-5.4-mini',
  'anthropic:claude-sonnet-4-6',
  'google:gemini-3.5-flash'
] as const

type Judge = (typeof SAMPLE_JUDGES)[number]

/*
 * Reasoning in the words a judge would use, with the characters (`_`, `[`, `"`, `<`) that Markdown
 * escaping must round-trip; a placeholder sentence would hide an escape that shows as a backslash.
 */
const PRAISE: Readonly<Record<string, string>> = {
  relevance:
    'Results are ranked by BM25 over title and body, then re-ranked by the query_intent classifier; the new fixtures show "cheap flights" ranking fares above blog posts.',
  'edge-cases':
    'search_api.handle() trims the query, returns an empty result set for "" and caps queries at 512 characters; tests cover emoji and SQL-like input.',
  errors:
    'Failures are mapped to SearchError and shown as "Search is unavailable, try again"; the stack trace only goes to the log.',
  performance:
    'The benchmark in tests/bench_search.py reports p95 = 84 ms on the 10k-document fixture, well under 200 ms.'
}

const EMPTY_QUERY =
  'search_api.handle() reads params["q"] without a default, so a request without q raises KeyError and returns a 500; the new tests only cover non-empty queries.'

const RAW_TRACE =
  'SearchError is caught, but the handler returns str(error) in the response body, so users see "Traceback (most recent call last) ..." when the index is offline.'

function reasoning(overrides: Partial<Record<string, string>> = {}): (id: string) => string {
  return id =>
    overrides[id] ??
    PRAISE[id] ??
    `The ${id} of the change is good: the diff is small, named clearly and matches the description.`
}

function council(specs: readonly JudgeSpec[], failed: readonly JudgeRun[] = []) {
  return { runs: [...specs.map(s => judgeRun(SEARCH_RUBRIC, s)), ...failed], quorum: 2 }
}

const PASSING_GATES = [
  gateResult('pytest tests/test_search.py', 'pass', '24 passed in 0.41s\n'),
  gateResult('ruff check src/search/', 'pass', 'All checks passed!\n')
]

const judge = (i: 0 | 1 | 2): Judge => SAMPLE_JUDGES[i]

function passSample(): Sample {
  return {
    name: 'pass',
    verdict: 'PASS',
    focus: 'relevance',
    evaluation: evaluationOf(
      SEARCH_RUBRIC,
      PASSING_GATES,
      council(
        SAMPLE_JUDGES.map((j, i) => ({ judge: j, relevance: 8 + (i % 2), reasoning: reasoning() }))
      )
    )
  }
}

/** A failing gate and a failing must-have, so both kinds of failure have output to show. */
function failSample(): Sample {
  return {
    name: 'fail',
    verdict: 'FAIL',
    focus: 'edge-cases',
    evaluation: evaluationOf(
      SEARCH_RUBRIC,
      [
        gateResult(
          'pytest tests/test_search.py',
          'fail',
          [
            'tests/test_search.py ....F...................',
            '',
            "FAILED tests/test_search.py::test_empty_query - KeyError: 'q'",
            '1 failed, 23 passed in 0.44s'
          ].join('\n')
        ),
        PASSING_GATES[1] ?? gateResult('ruff check src/search/', 'pass')
      ],
      council([
        {
          judge: judge(0),
          fail: ['edge-cases'],
          reasoning: reasoning({ 'edge-cases': EMPTY_QUERY }),
          findings: [
            {
              severity: 'major',
              title: 'Empty query raises KeyError',
              path: 'src/search/api.py',
              line: 42,
              evidence: 'params["q"] is read without a default; GET /search with no q returns 500.'
            }
          ]
        },
        {
          judge: judge(1),
          fail: ['edge-cases'],
          relevance: 7,
          reasoning: reasoning({
            'edge-cases':
              'Long and special-character queries are handled, but an absent q is not: test_empty_query fails with KeyError, which the gate output confirms.'
          })
        },
        { judge: judge(2), reasoning: reasoning() }
      ])
    )
  }
}

/** The judges split on a must-have and one of them timed out: the council cannot decide. */
function unclearSample(): Sample {
  return {
    name: 'unclear',
    verdict: 'UNCLEAR',
    focus: 'errors',
    evaluation: evaluationOf(
      SEARCH_RUBRIC,
      PASSING_GATES,
      council(
        [
          { judge: judge(0), fail: ['errors'], reasoning: reasoning({ errors: RAW_TRACE }) },
          { judge: judge(1), reasoning: reasoning() }
        ],
        [
          {
            judge: judge(2),
            sample: 1,
            latencyMs: 30_000,
            status: 'failed',
            failure: 'timeout',
            message: 'no answer within 30 s'
          }
        ]
      )
    )
  }
}

/** PASS, FAIL and UNCLEAR, in that order. */
export function sampleEvaluations(): readonly Sample[] {
  return [passSample(), failSample(), unclearSample()]
}
