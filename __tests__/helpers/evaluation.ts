import type { CouncilOutcome, JudgeAnswer, JudgeRun } from '../../src/council/types.js'
import { describe as describeRubric } from '../../src/engine/evaluate.js'
import type { GateResult } from '../../src/gates/types.js'
import type { Evaluation } from '../../src/engine/evaluation.js'
import type { Rubric } from '../../src/rubric/types.js'
import { decide } from '../../src/verdict/decide.js'
import { lines, parse } from './rubric.js'

/** The seed's search rubric with a score-range criterion, as a realistic report subject. */
export const SEARCH_RUBRIC = parse(
  lines(
    '---',
    'title: Search feature',
    'criteria:',
    '  - id: relevance',
    '    description: Search results are relevant to query intent',
    '    weight: 2',
    '    required_min_score: 7',
    '    score_ranges: { 0: Keyword matches only, 4: Partly relevant, 7: Ranks by intent }',
    '---',
    '## Gates',
    '- `pytest tests/test_search.py`',
    '- `ruff check src/search/`',
    '## Criteria',
    '- edge-cases: Empty queries, special characters and very long queries are handled',
    '- errors: Error states show user-friendly messages, not stack traces',
    '## Nice to Have',
    '- performance: Search returns within 200 ms for typical queries'
  ),
  '.github/rubric.md'
)

export function gateResult(command: string, status: GateResult['status'], output = ''): GateResult {
  return {
    command,
    status,
    exitCode: status === 'pass' ? 0 : status === 'fail' ? 1 : null,
    durationMs: status === 'timeout' ? 600_000 : 1234,
    output: { head: output, tail: '', elidedBytes: 0, totalBytes: output.length },
    ...(status === 'timeout' && { detail: 'timed out after 600 s; the process group was killed' })
  }
}

export interface JudgeSpec {
  readonly judge: string
  readonly fail?: readonly string[]
  readonly relevance?: number
  readonly accuracy?: number
  readonly findings?: JudgeAnswer['findings']
  readonly reasoning?: (id: string) => string
}

export function judgeRun(rubric: Rubric, spec: JudgeSpec): JudgeRun {
  const reasoning =
    spec.reasoning ??
    ((id: string) => `The diff addresses ${id}: the handler in src/search/api.py covers it.`)
  const answer: JudgeAnswer = {
    findings: spec.findings ?? [],
    criteria: rubric.criteria.map(c =>
      c.scoreRanges
        ? { id: c.id, score: spec.relevance ?? 8, reasoning: reasoning(c.id) }
        : {
            id: c.id,
            verdict: spec.fail?.includes(c.id) ? 'FAIL' : 'PASS',
            reasoning: reasoning(c.id)
          }
    ),
    dimensions: rubric.dimensions.map(d => ({
      name: d.name,
      score: d.name === 'accuracy' ? (spec.accuracy ?? 8) : 8,
      reasoning: reasoning(d.name)
    })),
    verdict: 'ACCEPT',
    feedback: 'Looks good overall.'
  }
  return {
    judge: spec.judge,
    sample: 1,
    latencyMs: 2150,
    tokens: { input: 12_345, cachedInput: 10_240, cacheWrite: 0, output: 678 },
    costUsd: 0.0123,
    cacheCostUsd: { read: 0.0008, write: 0 },
    status: 'ok',
    answer
  }
}

/** An evaluation computed by the real verdict function from the given parts. */
export function evaluationOf(
  rubric: Rubric,
  gates: readonly GateResult[],
  council?: CouncilOutcome
): Evaluation {
  const verdict = decide({ rubric, gates, ...(council && { council }) })
  return {
    verdict,
    rubric: describeRubric(rubric),
    gates,
    ...(council && { council }),
    iteration: 1
  }
}
