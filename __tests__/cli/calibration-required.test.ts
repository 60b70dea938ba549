import { execFile, execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CliIo } from '../../src/cli/io.js'
import { main } from '../../src/cli.js'
import type { JsonReport } from '../../src/report/json.js'
import { askedBy, wireAnswer } from '../helpers/judge-answers.js'
import { startProviderStandIn, type StandIn } from '../helpers/provider-standin.js'

/**
 * `calibration: required` end to end: a record made by `calibrate --record` on labelled commits
 * (the stand-in judge accurate on `tested`, failing `docs` on every case), committed on the base
 * branch; then the built CLI's `check` of a branch, graded by the base's rubric and record.
 */

const BIN = join(import.meta.dirname, '../../bin/rubric-council.js')
const KEY = 'sk-test-calibration-required-0123'
const RECORD = '.github/rubric-calibration.json'

const RUBRIC = `---
calibration: required
council:
  models: [openai:gpt-5.5]
dimensions: false
---
# Calibrated

## Criteria
- tested: Every changed behaviour has a test
- docs: Public functions are documented
`

let standIn: StandIn
beforeAll(async () => {
  standIn = await startProviderStandIn()
})
afterAll(async () => {
  await standIn.close()
})

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], {
    cwd,
    encoding: 'utf8'
  }).trim()
}

function write(dir: string, files: Record<string, string | null>): void {
  for (const [path, text] of Object.entries(files)) {
    if (text === null) rmSync(join(dir, path))
    else {
      mkdirSync(dirname(join(dir, path)), { recursive: true })
      writeFileSync(join(dir, path), text)
    }
  }
}

function commit(dir: string, files: Record<string, string | null>, message: string): string {
  write(dir, files)
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '--allow-empty', '-m', message)
  return git(dir, 'rev-parse', 'HEAD')
}

/** The judge fails exactly `fail` of what it is asked. */
function judgeFails(fail: (call: { text: string }) => readonly string[]): void {
  standIn.setScript(call => {
    const asked = askedBy(call.schema).checklist
    return { json: wireAnswer(call.schema, { fail: asked.filter(id => fail(call).includes(id)) }) }
  })
}

/**
 * A repository whose main branch holds the rubric, ten labelled cases and the record that
 * `calibrate --record` wrote from them: `tested` recommended block, `docs` advise.
 */
async function calibratedRepository(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'rc-required-'))
  git(dir, 'init', '-q', '-b', 'main')
  const commits = [commit(dir, { '.github/rubric.md': RUBRIC, 'README.md': '# P\n' }, 'base')]
  for (let i = 0; i < 10; i++) {
    commits.push(commit(dir, { [`case-${i}.txt`]: `case ${i}\n` }, `case ${i}`))
  }
  const labels = (i: number) => ({ tested: i < 5 ? 'FAIL' : 'PASS', docs: i % 2 ? 'PASS' : 'FAIL' })
  const set = Array.from({ length: 10 }, (_, i) => {
    const l = labels(i)
    const expect = l.tested === 'FAIL' || l.docs === 'FAIL' ? 'FAIL' : 'PASS'
    return `  - { name: case ${i}, base: ${commits[i]}, head: ${commits[i + 1]}, expect: ${expect}, criteria: { tested: ${l.tested}, docs: ${l.docs} } }\n`
  })
  write(dir, { '.github/rubric-calibration.yml': `cases:\n${set.join('')}` })
  // Accurate on `tested`; `docs` failed on every case: right half the time.
  judgeFails(call => {
    const i = Number(/case-(\d+)\.txt/.exec(call.text)?.[1])
    return [...(i < 5 ? ['tested'] : []), 'docs']
  })
  const io: CliIo = {
    stdout: () => undefined,
    stderr: () => undefined,
    env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: standIn.openaiBaseUrl },
    cwd: dir
  }
  expect(await main(['calibrate', '--repeat', '2', '--record'], io)).toBe(0)
  commit(dir, {}, 'calibration set and record')
  return dir
}

/** The built CLI's `check` of `branch` against main: its exit code, terminal and JSON report. */
async function check(
  dir: string,
  branch: string
): Promise<{ code: number; out: string; err: string; report: JsonReport }> {
  git(dir, 'checkout', '-q', branch)
  const json = join(dir, '..', `${branch}-${Date.now()}.json`)
  const run = await promisify(execFile)(
    process.execPath,
    [BIN, 'check', '--base', 'main', '--json', json],
    {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        OPENAI_API_KEY: KEY,
        OPENAI_BASE_URL: standIn.openaiBaseUrl
      }
    }
  ).then(
    r => ({ code: 0, out: r.stdout, err: r.stderr }),
    (error: unknown) => {
      const e = error as { code: number; stdout: string; stderr: string }
      return { code: e.code, out: e.stdout, err: e.stderr }
    }
  )
  return { ...run, report: JSON.parse(readFileSync(json, 'utf8')) as JsonReport }
}

/** A branch from main that changes `feature.ts`, and whatever else `files` says. */
function branch(dir: string, name: string, files: Record<string, string | null> = {}): string {
  git(dir, 'checkout', '-q', 'main')
  git(dir, 'checkout', '-q', '-b', name)
  commit(dir, { 'src/feature.ts': `export const ${name.replace(/-/g, '_')} = 1\n`, ...files }, name)
  return name
}

const standingOf = (report: JsonReport, id: string) =>
  report.criteria.find(c => c.id === id)?.calibration

describe('calibration: required, through the built CLI', () => {
  let dir: string
  beforeAll(async () => {
    dir = await calibratedRepository()
  }, 120_000)

  it('the record blocks tested and advises docs', () => {
    const record = JSON.parse(readFileSync(join(dir, RECORD), 'utf8')) as {
      criteria: { id: string; recommendation: string }[]
    }
    expect(record.criteria.map(c => [c.id, c.recommendation])).toEqual([
      ['tested', 'block'],
      ['docs', 'advise']
    ])
  })

  it('a change only docs fails is not FAIL: its FAIL is shown advisory with its precision', async () => {
    judgeFails(() => ['docs'])
    const run = await check(dir, branch(dir, 'only-docs'))
    expect(run.code).toBe(0)
    expect(run.report.verdict).toBe('PASS')
    expect(run.out).toMatch(
      /✗ docs +FAIL 0\/1 · advisory: precision 0.50 < 0.90 on 10 cases \(flip 0.00, 5 PASS and 5 FAIL, recorded \d{4}-\d\d-\d\d\)/
    )
    expect(standingOf(run.report, 'docs')).toMatchObject({
      blocks: false,
      cause: 'advise',
      reason: 'advisory: precision 0.50 < 0.90 on 10 cases',
      precision: 0.5,
      cases: { pass: 5, fail: 5 }
    })
    expect(standingOf(run.report, 'tested')).toMatchObject({
      blocks: true,
      precision: 1,
      flip: 0
    })
  })

  it('a change failing both is FAIL by tested only', async () => {
    judgeFails(() => ['tested', 'docs'])
    const run = await check(dir, branch(dir, 'both'))
    expect(run.code).toBe(1)
    expect(run.report.reasons.map(r => [r.code, r.message])).toEqual([
      ['criterion_failed', expect.stringContaining('tested')]
    ])
    expect(run.report.reasons[0]?.message).not.toContain('docs')
  })

  it('with the record removed from the base, neither blocks: both shown not calibrated', async () => {
    git(dir, 'checkout', '-q', 'main')
    commit(dir, { [RECORD]: null }, 'record removed')
    judgeFails(() => ['tested', 'docs'])
    const run = await check(dir, branch(dir, 'unrecorded'))
    expect(run.report.verdict).not.toBe('FAIL')
    expect(run.report.reasons.map(r => r.code)).not.toContain('criterion_failed')
    expect(standingOf(run.report, 'tested')?.reason).toBe('advisory: not calibrated')
    expect(standingOf(run.report, 'docs')?.reason).toBe('advisory: not calibrated')
    expect(run.out).toContain('advisory: not calibrated')
    git(dir, 'checkout', '-q', 'main')
    git(dir, 'revert', '--no-edit', 'HEAD')
  })

  it('attack: a branch that rewrites the record to advise tested is still FAIL by the base’s, and is told it weakens', async () => {
    const record = JSON.parse(readFileSync(join(dir, RECORD), 'utf8')) as {
      criteria: { id: string; recommendation: string }[]
    }
    for (const c of record.criteria) c.recommendation = 'advise'
    judgeFails(() => ['tested'])
    const run = await check(
      dir,
      branch(dir, 'downgrade', { [RECORD]: `${JSON.stringify(record, null, 2)}\n` })
    )
    expect(run.code).toBe(1)
    expect(run.report.reasons[0]?.code).toBe('criterion_failed')
    expect(run.err).toMatch(
      /differs from the base's and weakens it: WEAKENS: must-have "tested" moved from blocking to advisory: the record recommends advise/
    )
    expect(run.report.rubric_review).toMatchObject({ source: 'base', weakened: true })
  })

  it('a member sent another temperature than the record was measured at: stale, tested advisory', async () => {
    const record = JSON.parse(readFileSync(join(dir, RECORD), 'utf8')) as {
      criteria: { council: { temperature: unknown } }[]
    }
    // As calibrate --record wrote it: openai is sent no temperature unless the member sets one.
    expect(record.criteria.map(c => c.council.temperature)).toEqual([[null], [null]])
    git(dir, 'checkout', '-q', 'main')
    const warmer = RUBRIC.replace(
      'models: [openai:gpt-5.5]',
      'models: [{ model: openai:gpt-5.5, temperature: 0.7 }]'
    )
    commit(dir, { '.github/rubric.md': warmer }, 'the judge at temperature 0.7')
    judgeFails(() => ['tested'])
    const run = await check(dir, branch(dir, 'warmer'))
    expect(run.code).toBe(0)
    expect(run.report.verdict).toBe('PASS')
    expect(standingOf(run.report, 'tested')).toMatchObject({
      blocks: false,
      cause: 'stale_council',
      reason: 'advisory: calibration stale, the council changed'
    })
    expect(run.out).toMatch(
      /✗ tested +FAIL 0\/1 · advisory: calibration stale, the council changed/
    )
    git(dir, 'checkout', '-q', 'main')
    git(dir, 'revert', '--no-edit', 'HEAD')
  })

  it('a record measured in the order the workflow sets (evidence-order): check cannot know that input, compares no order, and tested blocks', async () => {
    git(dir, 'checkout', '-q', 'main')
    const record = JSON.parse(readFileSync(join(dir, RECORD), 'utf8')) as {
      criteria: { evidence_order: string }[]
    }
    expect(record.criteria.map(c => c.evidence_order)).toEqual(['diff', 'diff'])
    for (const entry of record.criteria) entry.evidence_order = 'least-recently-changed'
    commit(dir, { [RECORD]: JSON.stringify(record) }, 'measured least recently changed first')
    judgeFails(() => ['tested'])
    const run = await check(dir, branch(dir, 'reordered'))
    expect(run.code).toBe(1)
    expect(standingOf(run.report, 'tested')).toMatchObject({ blocks: true, cause: 'calibrated' })
    git(dir, 'checkout', '-q', 'main')
    git(dir, 'revert', '--no-edit', 'HEAD')
  })
})
