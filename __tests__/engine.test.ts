import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Council, CouncilRequest } from '../src/council/types.js'
import { evaluate, type EnginePorts, type EvaluationRequest } from '../src/engine/evaluate.js'
import { EvidenceUnavailableError, type EvidenceSource } from '../src/evidence/source.js'
import type { Evidence } from '../src/evidence/types.js'
import { gateEnvironment } from '../src/gates/environment.js'
import { gatesHere } from '../src/gates/run.js'
import type { GateLog } from '../src/gates/types.js'
import { maskSecrets, secretValues } from '../src/util/secrets.js'
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
      env: gateEnvironment(env),
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

describe('tie-breaks', () => {
  /** Two judges that split on `tested`; tie-break calls answer with `tieBreaks` in turn. */
  function splitCouncil(
    tieBreaks: readonly ('PASS' | 'FAIL' | 'broken')[]
  ): Council & { asked: { round: number; split: readonly string[] }[] } {
    const asked: { round: number; split: readonly string[] }[] = []
    return {
      asked,
      convene: request =>
        Promise.resolve({
          runs: [
            judgeRun(request.rubric, { judge: 'openai:a', fail: ['tested'] }),
            judgeRun(request.rubric, { judge: 'anthropic:b' })
          ],
          quorum: 2
        }),
      tieBreak: (request, round, split) => {
        asked.push({ round, split })
        const answer = tieBreaks[round - 1]
        if (answer === undefined) return Promise.resolve(undefined)
        if (answer === 'broken')
          return Promise.resolve({
            judge: 'openai:a',
            sample: 1 + round,
            latencyMs: 1,
            status: 'failed',
            failure: 'timeout',
            message: 'no answer'
          })
        return Promise.resolve({
          ...judgeRun(request.rubric, {
            judge: 'openai:a',
            ...(answer === 'FAIL' && { fail: ['tested'] })
          }),
          sample: 1 + round
        })
      }
    }
  }
  const withTieBreaks = (n: number): string =>
    lines('---', `council: { tie_breaks: ${n} }`, '---', RUBRIC)

  it('a split must-have is settled by one more call, and the verdict says it rests on it', async () => {
    const cwd = workspace(RUBRIC)
    const council = splitCouncil(['FAIL'])
    const evaluation = await evaluate(rubricAt(cwd), ports(cwd, council))
    expect(council.asked).toEqual([{ round: 1, split: ['tested'] }])
    expect(evaluation.verdict.reasons.map(r => r.code)).toEqual(['criterion_failed'])
    expect(evaluation.verdict.criteria[0]).toMatchObject({
      status: 'FAIL',
      tieBreak: { judge: 'openai:a (tie-break)', verdict: 'FAIL' }
    })
    expect(evaluation.council?.runs.at(-1)).toMatchObject({ tieBreak: true, sample: 2 })
  })

  it('a tie-break that fails is followed by the next, up to council.tie_breaks', async () => {
    const cwd = workspace(withTieBreaks(2))
    const council = splitCouncil(['broken', 'PASS'])
    const evaluation = await evaluate(rubricAt(cwd), ports(cwd, council))
    expect(council.asked.map(a => a.round)).toEqual([1, 2])
    expect(evaluation.verdict.verdict).toBe('PASS')
  })

  it('with tie_breaks: 0, or none left, a split must-have stays UNCLEAR judge_disagreement', async () => {
    for (const [rubric, tieBreaks] of [
      [withTieBreaks(0), ['PASS']],
      [RUBRIC, ['broken', 'PASS']]
    ] as const) {
      const cwd = workspace(rubric)
      const evaluation = await evaluate(rubricAt(cwd), ports(cwd, splitCouncil(tieBreaks)))
      expect(evaluation.verdict.reasons.map(r => r.code)).toEqual(['judge_disagreement'])
    }
  })

  it('asks no tie-break when nothing is split', async () => {
    const cwd = workspace(RUBRIC)
    const council = {
      ...judges({ judge: 'a' }, { judge: 'b' }, { judge: 'c' }),
      tieBreak: () => Promise.reject(new Error('not expected'))
    }
    const evaluation = await evaluate(rubricAt(cwd), ports(cwd, council))
    expect(evaluation.verdict.verdict).toBe('PASS')
  })
})
