import { execFile, execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Evaluation } from '../src/engine/evaluation.js'
import { rubricsJsonReport, type RubricOutcome } from '../src/publish/rubrics.js'
import { toJsonReport } from '../src/report/json.js'
import { decide } from '../src/verdict/decide.js'
import { renderSchemas } from '../scripts/schemas.js'
import { SEARCH_RUBRIC } from './helpers/evaluation.js'
import { RANKING_EVIDENCE } from './helpers/evidence.js'
import { sampleEvaluations } from './helpers/sample-evaluations.js'

/**
 * The JSON Schemas of the two report forms (schema/report.schema.json, schema/report-set.schema.json):
 * generated from the report types, fresh in the repository, and true of the reports the product
 * writes, so a user's script may validate what it reads.
 */

const ROOT = join(import.meta.dirname, '..')
const checkedIn = (file: string): string => readFileSync(join(ROOT, file), 'utf8')

function compile(file: string): ValidateFunction {
  // Strict: a keyword the draft does not define is an error in the schema, not ignored.
  return new Ajv({ allErrors: true, strict: true }).compile(JSON.parse(checkedIn(file)) as object)
}
const one = compile('schema/report.schema.json')
const set = compile('schema/report-set.schema.json')

/** The validator's verdict and its errors, so a failure shows which field broke. */
function check(validate: ValidateFunction, data: unknown) {
  const valid = validate(data)
  return { valid, errors: (validate.errors ?? []).map(e => ({ at: e.instancePath, ...brief(e) })) }
}
const brief = (e: ErrorObject) => ({ keyword: e.keyword, message: e.message })
const VALID = { valid: true, errors: [] }

/** A copy of `data` as JSON, as a user's script reads it. */
const asRead = (data: unknown): Record<string, unknown> =>
  JSON.parse(JSON.stringify(data)) as Record<string, unknown>

describe('the files of schema/', () => {
  let rendered: Record<string, string>
  beforeAll(() => {
    rendered = renderSchemas()
  }, 60_000)

  it('are each what `npm run schema` writes, and there is no other', () => {
    expect(Object.keys(rendered).sort()).toEqual(
      readdirSync(join(ROOT, 'schema'))
        .map(f => `schema/${f}`)
        .sort()
    )
    for (const [file, text] of Object.entries(rendered)) {
      expect(checkedIn(file), `${file} is stale: run \`npm run schema\``).toBe(text)
    }
  })

  it('each have an $id at their address on the default branch, a title and a description', () => {
    const repository = (
      JSON.parse(checkedIn('package.json')) as { repository: { url: string } }
    ).repository.url.replace(/^git\+https:\/\/github\.com\/|\.git$/g, '')
    for (const file of ['schema/report.schema.json', 'schema/report-set.schema.json']) {
      const schema = JSON.parse(checkedIn(file)) as Record<string, unknown>
      expect(schema.$id).toBe(`https://raw.githubusercontent.com/${repository}/main/${file}`)
      expect(schema.title).toMatch(/^Rubric Council report/)
      expect(schema.description).toMatch(/rubric-council\/report@1/)
    }
  })
})

/** PASS, FAIL and UNCLEAR: the evaluations the rendered-comment test and the screenshots show. */
const SAMPLES = sampleEvaluations().map(s => s.evaluation)

/** A rubric's part of a review of several: judged when given its evaluation, else not applicable. */
const outcome = (name: string, evaluation?: Evaluation): RubricOutcome => ({
  checkName: `rubric-council / ${name}`,
  name,
  path: `.github/rubrics/${name}.md`,
  ...(evaluation
    ? { evaluation }
    : { notApplicable: `not applicable: no changed file matches paths ${name}/**` })
})

/**
 * A report with every optional part present: a waived must-have, coverage with omitted and
 * redacted files, earlier iterations, a reused and accepted verdict, a changed and inherited rubric.
 */
function fullEvaluation(): Evaluation {
  const [pass, fail] = SAMPLES
  if (pass === undefined || fail?.council === undefined) throw new Error('no PASS or FAIL sample')
  const waived = [{ criterion: 'edge-cases', by: 'octocat', reason: 'covered by #12' }]
  const change = { text: 'criterion "edge-cases" removed', weakens: true }
  return {
    ...fail,
    // The gates passing, the must-have the judges failed waived.
    gates: pass.gates,
    verdict: decide({ rubric: SEARCH_RUBRIC, gates: pass.gates, council: fail.council, waived }),
    rubric: {
      ...fail.rubric,
      inherited: { from: ['o/r/base.md@v1'], overrides: [change], weakened: true }
    },
    gatesProvenance: 'run 42, job gates',
    evidence: {
      ...RANKING_EVIDENCE,
      receipt: {
        ...RANKING_EVIDENCE.receipt,
        omitted: [
          { path: 'big.ts', reason: 'budget', detail: 'more than 1,200 tokens', counts: true }
        ],
        redacted: [{ path: '.env', secrets: 2, kinds: ['AWS access key'], secretFile: '.env' }]
      }
    },
    history: [
      {
        iteration: 1,
        commit: 'a1b2c3d',
        verdict: 'FAIL',
        summary: 'must 3/4',
        rubricHash: 'h1',
        reasons: ['criterion_failed']
      },
      {
        iteration: 2,
        commit: 'e4f5a6b',
        verdict: 'PASS',
        summary: 'must 4/4',
        rubricHash: 'h1',
        reasons: [],
        note: '/council rerun by @octocat'
      }
    ],
    rubricReview: {
      source: 'base',
      note: 'the base rubric grades',
      diff: { changes: [change], weakened: true }
    },
    iteration: 2,
    reusedFrom: 1,
    acceptance: { by: 'octocat', reason: 'flaky judge', commit: 'e4f5a6b' }
  }
}

describe('the reports the product writes', () => {
  it('of one rubric are valid for schema/report.schema.json, whatever the verdict and the parts present', () => {
    const evaluations = [...SAMPLES, fullEvaluation()]
    const reports = evaluations.map(e => asRead(toJsonReport(e)))
    expect(reports.map(r => r.verdict)).toEqual(['PASS', 'FAIL', 'UNCLEAR', 'PASS'])
    const full = reports[3] as {
      criteria: { waived: unknown }[]
      coverage: { redacted: unknown[] }
    }
    expect(full.criteria.some(c => c.waived !== null)).toBe(true)
    expect(full.coverage.redacted).toHaveLength(1)
    for (const report of reports) expect(check(one, report)).toEqual(VALID)
  })

  it('of several rubrics are valid for schema/report-set.schema.json, a rubric that did not apply included', () => {
    const outcomes = [
      ...[...SAMPLES, fullEvaluation()].map((e, i) => outcome(`part-${String(i)}`, e)),
      outcome('docs')
    ]
    const report = asRead(rubricsJsonReport(outcomes))
    expect([report.schema, report.verdict, report.exit_code]).toEqual([
      'rubric-council/report-set@1',
      'FAIL',
      1
    ])
    expect(check(set, report)).toEqual(VALID)
  })
})

/** Runs the bundled CLI in `cwd`, as a user runs it. */
async function bundled(args: string[], cwd: string): Promise<number> {
  try {
    await promisify(execFile)(process.execPath, [join(ROOT, 'bin/rubric-council.js'), ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '' }
    })
    return 0
  } catch (error) {
    return (error as { code: number }).code
  }
}

/** A git repository whose branch `change` changes `services/payments/a.ts` from `main`. */
async function repository(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rc-report-schema-'))
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      cwd: dir
    })
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true })
    await writeFile(join(dir, path), text)
  }
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('commit', '-qm', 'base')
  git('checkout', '-qb', 'change')
  await writeFile(join(dir, 'services/payments/a.ts'), 'b\n')
  git('commit', '-qam', 'change')
  return dir
}

const gatesOnly = (paths: string, gate: string): string =>
  `---\npaths: [${paths}]\n---\n## Gates\n- \`${gate}\`\n`

describe('check --json of the built CLI', () => {
  it('writes a report valid for schema/report.schema.json with one rubric', async () => {
    const dir = await repository({ 'services/payments/a.ts': 'a\n' })
    expect(await bundled(['check', '--checker', 'echo hello', '--json', 'r.json'], dir)).toBe(0)
    const report = asRead(JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')))
    expect([report.schema, report.verdict]).toEqual(['rubric-council/report@1', 'PASS'])
    expect(check(one, report)).toEqual(VALID)
  })

  it('writes a report valid for schema/report-set.schema.json with several', async () => {
    const dir = await repository({
      '.github/rubrics/payments.md': gatesOnly("'services/payments/**'", 'false'),
      '.github/rubrics/docs.md': gatesOnly("'docs/**'", 'true'),
      'services/payments/a.ts': 'a\n',
      'docs/a.md': 'a\n'
    })
    expect(await bundled(['check', '--base', 'main', '--json', 'r.json'], dir)).toBe(1)
    const report = asRead(JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')))
    expect([report.schema, report.verdict, report.exit_code]).toEqual([
      'rubric-council/report-set@1',
      'FAIL',
      1
    ])
    expect(check(set, report)).toEqual(VALID)
  })
})

describe('a report the schemas reject', () => {
  const report = asRead(toJsonReport(fullEvaluation()))
  const several = asRead(rubricsJsonReport([outcome('api', fullEvaluation()), outcome('docs')]))
  const without = (data: Record<string, unknown>, key: string) =>
    Object.fromEntries(Object.entries(data).filter(([k]) => k !== key))
  const errorsOf = (validate: ValidateFunction, data: unknown) => check(validate, data).errors

  it('declares another schema: a later version, or the other form', () => {
    expect(errorsOf(one, { ...report, schema: 'rubric-council/report@2' })).toContainEqual(
      expect.objectContaining({ at: '/schema', keyword: 'const' })
    )
    expect(errorsOf(set, { ...several, schema: 'rubric-council/report@1' })).toContainEqual(
      expect.objectContaining({ at: '/schema', keyword: 'const' })
    )
    expect(check(set, report).valid).toBe(false)
    expect(check(one, several).valid).toBe(false)
  })

  it('lacks exit_code', () => {
    for (const [validate, data] of [
      [set, several],
      [one, report]
    ] as const) {
      expect(errorsOf(validate, without(data, 'exit_code'))).toContainEqual({
        at: '',
        keyword: 'required',
        message: "must have required property 'exit_code'"
      })
    }
  })

  it('has an unknown verdict, at the top or in a rubric’s report', () => {
    expect(errorsOf(one, { ...report, verdict: 'MAYBE' })).toContainEqual(
      expect.objectContaining({ at: '/verdict', keyword: 'enum' })
    )
    expect(errorsOf(set, { ...several, verdict: 'MAYBE' })).toContainEqual(
      expect.objectContaining({ at: '/verdict', keyword: 'enum' })
    )
    const rubrics = several.rubrics as { report: Record<string, unknown> }[]
    const inner = [{ ...rubrics[0], report: { ...rubrics[0]?.report, verdict: 'MAYBE' } }]
    expect(errorsOf(set, { ...several, rubrics: inner })).toContainEqual(
      expect.objectContaining({ at: '/rubrics/0/report/verdict', keyword: 'enum' })
    )
  })

  it('has a key its type does not declare, or an exit code the verdicts do not map to', () => {
    expect(errorsOf(one, { ...report, verdict_override: 'PASS' })).toContainEqual(
      expect.objectContaining({ at: '', keyword: 'additionalProperties' })
    )
    expect(errorsOf(set, { ...several, exit_code: 3 })).toContainEqual(
      expect.objectContaining({ at: '/exit_code', keyword: 'enum' })
    )
  })
})
