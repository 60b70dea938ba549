import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Council, CouncilRequest, JudgeRun } from '../src/council/types.js'
import type { Rubric } from '../src/rubric/types.js'
import { evaluate, type EnginePorts, type EvaluationRequest } from '../src/engine/evaluate.js'
import { EvidenceUnavailableError, type EvidenceSource } from '../src/evidence/source.js'
import { DEFAULT_MAX_EVIDENCE_TOKENS } from '../src/evidence/build.js'
import type { Evidence } from '../src/evidence/types.js'
import { providerVariables } from '../src/council/providers/index.js'
import { gateEnvironment } from '../src/gates/environment.js'
import { gatesHere } from '../src/gates/run.js'
import type { GateLog } from '../src/gates/types.js'
import { maskSecrets, secretValues } from '../src/util/secrets.js'
import { COMMENT_LIMIT, renderMarkdown } from '../src/report/markdown.js'
import { toJsonReport } from '../src/report/json.js'
import { judgeRun } from './helpers/evaluation.js'
import { lines } from './helpers/rubric.js'

/** A council with no members: it answers nothing. */
const unconfiguredCouncil: Council = { convene: () => Promise.resolve({ runs: [], quorum: 1 }) }

const silent: GateLog = {
  startGroup: () => undefined,
  write: () => undefined,
  endGroup: () => undefined
}

function workspace(rubric: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'rc-engine-'))
  writeFileSync(join(dir, 'rubric.md'), rubric)
  return dir
}

const EVIDENCE: Evidence = {
  pr: { title: 'Add tests', body: '' },
  files: [
    { path: 'a.ts', status: 'added', additions: 1, deletions: 0, binary: false, kind: 'source' }
  ],
  diff: 'diff --git a/a.ts b/a.ts\n+x',
  receipt: {
    reviewed: [{ path: 'a.ts', kind: 'source', tokens: 5 }],
    omitted: [],
    redacted: [],
    reviewable: 1,
    ratio: 1,
    budgetTokens: 1000,
    usedTokens: 10
  },
  unlisted: 0,
  changed: ['a.ts']
}

const inMemory = (evidence: Evidence = EVIDENCE): EvidenceSource => ({
  budget: DEFAULT_MAX_EVIDENCE_TOKENS,
  collect: () => Promise.resolve(evidence)
})

/** The rubric at `cwd`/rubric.md, as the shell would have read it: its owner's. */
function rubricAt(cwd: string): EvaluationRequest {
  const text = readFileSync(join(cwd, 'rubric.md'), 'utf8')
  return { rubric: { ok: true, value: { text, path: 'rubric.md', kind: 'file' } }, trusted: true }
}

/** The ports of a local run in `cwd`: the gates run there, without the environment's credentials. */
function ports(
  cwd: string,
  council: Council,
  env: Record<string, string> = { PATH: process.env.PATH ?? '' },
  evidence: EvidenceSource = inMemory()
): EnginePorts {
  const secrets = secretValues(env)
  return {
    council,
    evidence,
    gates: gatesHere({
      cwd,
      env: gateEnvironment(env, providerVariables()),
      log: silent,
      mask: text => maskSecrets(text, secrets)
    })
  }
}

const RUBRIC = lines(
  '## Gates',
  '- `test -f rubric.md`',
  '## Criteria',
  '- tested: The change is tested'
)

/** Judges in-process: each returns a valid answer built from the rubric it is given. */
function judges(
  ...specs: { judge: string; fail?: string[] }[]
): Council & { requests: CouncilRequest[] } {
  const requests: CouncilRequest[] = []
  return {
    requests,
    convene: request => {
      requests.push(request)
      return Promise.resolve({ runs: specs.map(s => judgeRun(request.rubric, s)), quorum: 2 })
    }
  }
}

describe('evaluate', () => {
  it('runs the gates in the working directory, hands their results to the council, and decides', async () => {
    const cwd = workspace(RUBRIC)
    const council = judges({ judge: 'openai:a' }, { judge: 'anthropic:b' }, { judge: 'google:c' })
    const evaluation = await evaluate(rubricAt(cwd), ports(cwd, council))
    expect(evaluation.verdict.verdict).toBe('PASS')
    expect(evaluation.gates.map(g => [g.command, g.status])).toEqual([
      ['test -f rubric.md', 'pass']
    ])
    expect(council.requests[0]?.gates.map(g => g.status)).toEqual(['pass'])
    expect(evaluation.rubric).toMatchObject({
      path: 'rubric.md',
      source: 'file',
      counts: { gates: 1, must: 1, nice: 0 }
    })
  })

  it('judge-after-failed-gate: asked after a failed gate by default; with false, no judge is asked and the report says why', async () => {
    const cwd = workspace(RUBRIC.replace('test -f rubric.md', 'false'))
    const asked = judges({ judge: 'openai:a' }, { judge: 'anthropic:b' })
    const byDefault = await evaluate(rubricAt(cwd), ports(cwd, asked))
    expect(asked.requests).toHaveLength(1)
    expect(byDefault.council?.runs).toHaveLength(2)
    expect(byDefault.judgesNotAsked).toBeUndefined()

    const unasked = judges({ judge: 'openai:a' }, { judge: 'anthropic:b' })
    const request = { ...rubricAt(cwd), judgeAfterFailedGate: false }
    const evaluation = await evaluate(request, ports(cwd, unasked))
    expect(unasked.requests).toEqual([])
    expect(evaluation.verdict.reasons.map(r => r.code)).toEqual(['gate_failed'])
    expect(evaluation.judgesNotAsked).toBe('gate_failed')
    expect(renderMarkdown(evaluation, { budget: COMMENT_LIMIT })).toContain(
      'The judges were not asked: a gate failed, which decides FAIL whatever they would say, and `judge-after-failed-gate` is `false`'
    )
    expect(toJsonReport(evaluation).judges_not_asked).toMatchObject({ reason: 'gate_failed' })
    expect(toJsonReport(byDefault).judges_not_asked).toBeNull()

    // A gate that passes: the judges are asked whatever the input says.
    const passing = workspace(RUBRIC)
    const asked2 = judges({ judge: 'openai:a' }, { judge: 'anthropic:b' })
    await evaluate({ ...rubricAt(passing), judgeAfterFailedGate: false }, ports(passing, asked2))
    expect(asked2.requests).toHaveLength(1)
  })

  it('a majority FAIL from in-process judges fails the PR', async () => {
    const cwd = workspace(RUBRIC)
    const council = judges(
      { judge: 'a', fail: ['tested'] },
      { judge: 'b', fail: ['tested'] },
      { judge: 'c' }
    )
    const evaluation = await evaluate(rubricAt(cwd), ports(cwd, council))
    expect(evaluation.verdict.reasons.map(r => r.code)).toEqual(['criterion_failed'])
  })

  it('without any configured judge, a rubric with criteria is UNCLEAR missing_credentials', async () => {
    const cwd = workspace(RUBRIC)
    const evaluation = await evaluate(rubricAt(cwd), ports(cwd, unconfiguredCouncil))
    expect(evaluation.verdict.verdict).toBe('UNCLEAR')
    expect(evaluation.verdict.reasons.map(r => r.code)).toEqual(['missing_credentials'])
  })

  it('a council that throws ends as a named provider_error, not a crash or a PASS', async () => {
    const cwd = workspace(RUBRIC)
    const broken: Council = { convene: () => Promise.reject(new Error('socket hang up')) }
    const evaluation = await evaluate(rubricAt(cwd), ports(cwd, broken))
    expect(evaluation.verdict.verdict).toBe('UNCLEAR')
    expect(evaluation.verdict.reasons).toEqual([
      {
        code: 'provider_error',
        valid: 0,
        asked: 1,
        quorum: 1,
        failures: [
          { judge: 'council', message: 'internal error: socket hang up', failure: 'provider_error' }
        ],
        rejected: false
      }
    ])
  })

  it('hands the evidence to the council and enforces min_coverage with its receipt', async () => {
    const cwd = workspace(RUBRIC)
    const council = judges({ judge: 'a' }, { judge: 'b' }, { judge: 'c' })
    const partial = { ...EVIDENCE, receipt: { ...EVIDENCE.receipt, ratio: 0.5 } }
    const evaluation = await evaluate(
      rubricAt(cwd),
      ports(cwd, council, undefined, inMemory(partial))
    )
    expect(council.requests[0]?.evidence).toBe(partial)
    expect(evaluation.verdict.reasons.map(r => r.code)).toEqual(['incomplete_coverage'])
    expect(evaluation.evidence).toBe(partial)
  })

  it('does not ask the judges when the diff cannot be read, and says why', async () => {
    const cwd = workspace(RUBRIC)
    const council = judges({ judge: 'a' })
    const unreadable: EvidenceSource = {
      budget: DEFAULT_MAX_EVIDENCE_TOKENS,
      collect: () =>
        Promise.reject(new EvidenceUnavailableError('base commit abc is not in the repository'))
    }
    const evaluation = await evaluate(rubricAt(cwd), ports(cwd, council, undefined, unreadable))
    expect(council.requests).toHaveLength(0)
    expect(evaluation.verdict.reasons).toEqual([
      {
        code: 'incomplete_coverage',
        cause: 'unread',
        problem: 'base commit abc is not in the repository',
        judged: true
      }
    ])
  })

  it('does not ask the council for a gates-only rubric', async () => {
    const cwd = workspace(lines('## Gates', '- `true`'))
    const council = judges({ judge: 'a' })
    const evaluation = await evaluate(rubricAt(cwd), ports(cwd, council))
    expect(evaluation.verdict.verdict).toBe('PASS')
    expect(council.requests).toHaveLength(0)
    expect(evaluation.council).toBeUndefined()
  })

  it('turns an invalid rubric into UNCLEAR invalid_rubric with its problems, running nothing', async () => {
    const cwd = workspace(lines('## Gates', '- `touch ran`', '## Critera', '- a: A'))
    const evaluation = await evaluate(rubricAt(cwd), ports(cwd, unconfiguredCouncil))
    expect(evaluation.verdict.reasons.map(r => r.code)).toEqual(['invalid_rubric'])
    expect(evaluation.rubric.problems.map(p => p.rule)).toEqual(['unknown-section'])
    expect(evaluation.gates).toEqual([])
  })

  it('withholds credentials from gates and masks secrets in their output', async () => {
    const cwd = workspace(
      lines('## Gates', '- `echo "key=$OPENAI_API_KEY token=$MY_TOKEN" && echo tok-abcdefghij`')
    )
    const env = {
      PATH: process.env.PATH ?? '',
      OPENAI_API_KEY: 'sk-test-1234567890',
      MY_TOKEN: 'tok-abcdefghij'
    }
    const evaluation = await evaluate(rubricAt(cwd), ports(cwd, unconfiguredCouncil, env))
    // Neither the provider key nor a credential-like name reaches the gate; a secret the gate
    // finds some other way (here, written into the command) is masked in the report.
    expect(evaluation.gates[0]?.output.head).toBe('key= token=\n***\n')
  })

  it('runs the gates in the rubric’s gates.working_directory', async () => {
    const cwd = workspace(
      lines(
        '---',
        'gates: { working_directory: sub }',
        '---',
        '## Gates',
        '- `test "$(basename "$PWD")" = sub`'
      )
    )
    const { mkdirSync } = await import('node:fs')
    mkdirSync(join(cwd, 'sub'))
    const evaluation = await evaluate(rubricAt(cwd), ports(cwd, unconfiguredCouncil))
    expect(evaluation.verdict.verdict).toBe('PASS')
  })
})

describe('extra votes', () => {
  type Answer = 'PASS' | 'FAIL' | 'broken' | 'unreadable'
  /**
   * Members that answer `members` on `tested` (a failed call for `broken` or `unreadable`), and
   * reserves that answer `extra` when asked for an extra vote; every extra call is recorded.
   */
  function council(
    members: Readonly<Record<string, Answer>>,
    options: {
      readonly reserves?: readonly string[]
      readonly extra?: Readonly<Record<string, Answer>>
    } = {}
  ): Council & { asked: { judge: string; round: number; criteria: readonly string[] }[] } {
    const asked: { judge: string; round: number; criteria: readonly string[] }[] = []
    const answer = (rubric: Rubric, judge: string, said: Answer | undefined): JudgeRun =>
      said === 'broken' || said === 'unreadable'
        ? {
            judge,
            sample: 1,
            latencyMs: 1,
            status: 'failed',
            failure: said === 'broken' ? 'timeout' : 'invalid_output',
            message: 'no answer'
          }
        : judgeRun(rubric, { judge, ...(said === 'FAIL' && { fail: ['tested'] }) })
    return {
      asked,
      convene: request =>
        Promise.resolve({
          runs: Object.entries(members).map(([judge, said]) => answer(request.rubric, judge, said)),
          quorum: 1
        }),
      reserves: () => options.reserves ?? [],
      extraVote: (request, call) => {
        asked.push(call)
        return Promise.resolve(answer(request.rubric, call.judge, options.extra?.[call.judge]))
      }
    }
  }
  const withCouncil = (council: string): string =>
    lines('---', `council: { ${council} }`, '---', RUBRIC)
  const run = async (rubric: string, judges: Council) => {
    const cwd = workspace(rubric)
    return evaluate(rubricAt(cwd), ports(cwd, judges))
  }

  it('two members, the first fooled into PASS and the second FAIL: never PASS, and never a repeat of either', async () => {
    const split = { 'openai:fooled': 'PASS', 'anthropic:sound': 'FAIL' } as const
    // The council would answer PASS again for the fooled member: it is never asked.
    const alone = council(split, { extra: { 'openai:fooled': 'PASS', 'anthropic:sound': 'PASS' } })
    const unclear = await run(withCouncil('max_extra_votes: 5'), alone)
    expect(alone.asked).toEqual([])
    expect(unclear.verdict.verdict).toBe('UNCLEAR')
    expect(unclear.verdict.reasons.map(r => r.code)).toEqual(['judge_disagreement'])

    // With a reserve, its vote decides: FAIL here, and the report shows it as the reserve's.
    const reserved = council(split, {
      reserves: ['google:reserve'],
      extra: { 'google:reserve': 'FAIL' }
    })
    const failed = await run(RUBRIC, reserved)
    expect(reserved.asked).toEqual([{ judge: 'google:reserve', round: 1, criteria: ['tested'] }])
    expect(failed.verdict.verdict).toBe('FAIL')
    expect(failed.verdict.criteria[0]).toMatchObject({
      status: 'FAIL',
      tally: { pass: 1, fail: 2, abstain: 0 },
      extraVotes: [{ judge: 'google:reserve (reserve)', verdict: 'FAIL' }]
    })
    expect(failed.council?.runs.at(-1)).toMatchObject({
      judge: 'google:reserve',
      extra: { criteria: ['tested'], reserve: true }
    })
  })

  it('asks one voter at a time until a must-have leads by two: 2–1 then 3–1 stops', async () => {
    const judges = council(
      { 'openai:a': 'PASS', 'anthropic:b': 'PASS', 'google:c': 'FAIL' },
      { reserves: ['openai:r1', 'anthropic:r2'], extra: { 'openai:r1': 'PASS' } }
    )
    const evaluation = await run(RUBRIC, judges)
    expect(judges.asked.map(a => a.judge)).toEqual(['openai:r1'])
    expect(evaluation.verdict.verdict).toBe('PASS')
  })

  it('a lead of one that the next vote overturns to a tie asks the next reserve, which decides', async () => {
    const judges = council(
      { 'openai:a': 'PASS', 'anthropic:b': 'PASS', 'google:c': 'FAIL' },
      {
        reserves: ['openai:r1', 'anthropic:r2'],
        extra: { 'openai:r1': 'FAIL', 'anthropic:r2': 'FAIL' }
      }
    )
    const evaluation = await run(RUBRIC, judges)
    expect(judges.asked.map(a => a.judge)).toEqual(['openai:r1', 'anthropic:r2'])
    expect(evaluation.verdict.criteria[0]).toMatchObject({
      status: 'FAIL',
      tally: { pass: 2, fail: 3, abstain: 0 }
    })
  })

  it('stops at council.max_extra_votes: a tie left there is UNCLEAR; 0 asks nobody', async () => {
    const members = { 'openai:a': 'PASS', 'anthropic:b': 'PASS', 'google:c': 'FAIL' } as const
    const reserves = {
      reserves: ['openai:r1', 'anthropic:r2'],
      extra: { 'openai:r1': 'FAIL' as const }
    }
    const one = council(members, reserves)
    const tied = await run(withCouncil('max_extra_votes: 1'), one)
    expect(one.asked.map(a => a.judge)).toEqual(['openai:r1'])
    expect(tied.verdict.reasons.map(r => r.code)).toEqual(['judge_disagreement'])

    const none = council(members, reserves)
    const majority = await run(withCouncil('max_extra_votes: 0'), none)
    expect(none.asked).toEqual([])
    expect(majority.verdict.verdict).toBe('PASS')
  })

  it('a reserve whose call fails is followed by the next; a member whose output was unreadable after them; a timed-out one never', async () => {
    const judges = council(
      {
        'openai:a': 'PASS',
        'anthropic:b': 'FAIL',
        'google:slow': 'broken',
        'google:garbled': 'unreadable'
      },
      {
        reserves: ['openai:r1'],
        extra: { 'openai:r1': 'broken', 'google:garbled': 'FAIL', 'google:slow': 'PASS' }
      }
    )
    const evaluation = await run(withCouncil('max_extra_votes: 5'), judges)
    expect(judges.asked.map(a => a.judge)).toEqual(['openai:r1', 'google:garbled'])
    // 1–2, a lead of one, with no independent voter left: the majority decides.
    expect(evaluation.verdict.verdict).toBe('FAIL')
    expect(evaluation.verdict.criteria[0]?.extraVotes).toEqual([
      expect.objectContaining({ judge: 'google:garbled (extra vote)', verdict: 'FAIL' })
    ])
  })

  it('asks nobody when a gate failed: the verdict is FAIL whatever the votes', async () => {
    const judges = council(
      { 'openai:a': 'PASS', 'anthropic:b': 'FAIL' },
      { reserves: ['openai:r1'], extra: { 'openai:r1': 'FAIL' } }
    )
    const evaluation = await run(RUBRIC.replace('test -f rubric.md', 'false'), judges)
    expect(judges.asked).toEqual([])
    expect(evaluation.verdict.reasons.map(r => r.code)).toEqual(['gate_failed'])
  })

  it('asks nobody when the members are unanimous', async () => {
    const judges = council(
      { 'openai:a': 'PASS', 'anthropic:b': 'PASS' },
      { reserves: ['openai:r1'], extra: { 'openai:r1': 'FAIL' } }
    )
    const evaluation = await run(RUBRIC, judges)
    expect(judges.asked).toEqual([])
    expect(evaluation.verdict.verdict).toBe('PASS')
  })
})
