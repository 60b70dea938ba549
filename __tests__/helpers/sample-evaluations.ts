import type { JudgeAnswer, JudgeRun } from '../../src/council/types.js'
import type { Evaluation } from '../../src/engine/evaluation.js'
import { publicationSettings, readActionInputs } from '../../src/inputs/action-inputs.js'
import { historyEntry } from '../../src/publish/memory.js'
import { planReview, type ReviewPublication } from '../../src/publish/review-plan.js'
import type { VerdictKind } from '../../src/verdict/types.js'
import { evaluationOf, gateResult, judgeRun, SEARCH_RUBRIC, type JudgeSpec } from './evaluation.js'
import { lines, parse } from './rubric.js'

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

/** The pull request the samples are posted on, and its head commit. */
export const SAMPLE_PULL_REQUEST = {
  number: 7,
  headSha: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678'
}

/**
 * What the action publishes about `evaluation` on a pull request's first review, with every input
 * of the workflow at its default: the action's own plan (`planReview`), the evaluation carrying
 * this run's history entry as the review gives it. `postedComment` is the sticky comment it posts.
 */
export function samplePublication(evaluation: Evaluation): ReviewPublication {
  const inputs = readActionInputs(() => '')
  const { headSha } = SAMPLE_PULL_REQUEST
  const at = new Date('2026-11-27T10:00:00Z')
  return planReview(
    [
      {
        name: 'rubric',
        checkName: inputs.checkName,
        path: inputs.rubric,
        evaluation: { ...evaluation, history: [historyEntry(evaluation, headSha, undefined, at)] }
      }
    ],
    publicationSettings(inputs),
    {
      headSha,
      pullRequest: SAMPLE_PULL_REQUEST.number,
      reportPath: 'rubric-council-report.json',
      alone: true,
      prior: [],
      waivers: [],
      at,
      base: { baseRef: 'main', defaultBranch: 'main' }
    }
  )
}

/** The sticky comment the action posts about `evaluation` (`samplePublication`). */
export function postedComment(evaluation: Evaluation): string {
  const publication = samplePublication(evaluation)
  return publication.comment(publication.state)
}

/**
 * A rubric of `count` must-haves, `c1` to `c<count>`, each with a description longer than a
 * criterion's line shows, judged by the three sample judges: each writes `reasoning` characters on
 * every criterion, two of them fail those in `fail` (so each reads FAIL, 1/3 PASS), and each
 * reports `findings`. The largest report a comment must still name every criterion of (issue 38).
 */
export function manyCriteria(
  count: number,
  options: {
    readonly reasoning: number
    readonly fail?: readonly string[]
    readonly findings?: JudgeAnswer['findings']
  }
): Evaluation {
  const rubric = parse(
    lines(
      '## Criteria',
      ...Array.from(
        { length: count },
        (_, i) =>
          `- c${i + 1}: Behaviour ${i + 1} of the search API works as the specification says, ` +
          'with a test that shows it and a line in the docs that tells users about it'
      )
    )
  )
  const said = 'The diff handles this in src/search/api.py & its tests <ok>; '
  const reasoning = (id: string): string =>
    `${id}: ${said.repeat(Math.ceil(options.reasoning / said.length))}`.slice(0, options.reasoning)
  const runs = SAMPLE_JUDGES.map((judge, i) =>
    judgeRun(rubric, {
      judge,
      reasoning,
      ...(i < 2 && options.fail && { fail: options.fail }),
      ...(options.findings && { findings: options.findings })
    })
  )
  return evaluationOf(rubric, PASSING_GATES, { runs, quorum: 2 })
}
