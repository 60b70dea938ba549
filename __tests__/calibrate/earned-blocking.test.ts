import { execFile, execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CalibrationRecord } from '../../src/calibrate/record.js'
import { askedBy, wireAnswer } from '../helpers/judge-answers.js'
import {
  startProviderStandIn,
  type RecordedCall,
  type StandIn
} from '../helpers/provider-standin.js'
import { seeded } from '../helpers/seeded.js'

/**
 * Blocking earned by the calibration record, as a team goes through it with the bundled CLI
 * (docs/calibration.md#earning-the-right-to-block): a rubric with `calibration: required`, a record
 * made by `calibrate --record` on 20 labelled commits with a judge of known accuracy (always right
 * on `tested`, a coin on `docs`), then `check` on the changes that follow.
 */

const ROOT = join(import.meta.dirname, '../..')
const KEY = 'sk-test-earned-0123456789'

const RUBRIC = `---
calibration: required
council:
  models: [openai:gpt-5.5]
dimensions: false
---
# Earned

## Criteria
- tested: Every new behaviour is covered by a test
- docs: The README documents every new option
`

type Label = 'PASS' | 'FAIL'

let standIn: StandIn
let repo: string
let record: CalibrationRecord

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@e',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@e'
    }
  }).trim()
}

function write(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
}

/** The bundled CLI in `cwd`, its judge played by the stand-in. */
async function cli(cwd: string, args: readonly string[]) {
  return promisify(execFile)(process.execPath, [join(ROOT, 'bin/rubric-council.js'), ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: cwd,
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: standIn.openaiBaseUrl
    },
    maxBuffer: 64 * 1024 * 1024
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: unknown) => error as { code: number; stdout: string; stderr: string }
  )
}

/** The 20 labelled cases: `tested` FAIL in the first 10, `docs` FAIL in every other one. */
const labels = Array.from({ length: 20 }, (_, i): Record<string, Label> => ({
  tested: i < 10 ? 'FAIL' : 'PASS',
  docs: i % 2 === 0 ? 'FAIL' : 'PASS'
}))

/**
 * The judge: on a case of the set, right about `tested` and a coin about `docs`; on a change
 * checked later, it fails what the change's file says it lacks (`lacks-tests`, `lacks-docs`).
 */
function judge(): (call: RecordedCall) => { json: Record<string, unknown> } {
  const coin = seeded(40)
  return call => {
    const asked = askedBy(call.schema).checklist
    const labelled = /case-(\d+)\.txt/.exec(call.text)?.[1]
    const fail =
      labelled === undefined
        ? asked.filter(id => call.text.includes(`lacks-${id}`))
        : asked.filter(id =>
            id === 'tested' ? labels[Number(labelled)]?.tested === 'FAIL' : coin() < 0.5
          )
    return { json: wireAnswer(call.schema, { fail }) }
  }
}

/** A pull request's branch from `main`: `files` written (and `remove` deleted), committed. */
function branch(name: string, files: Record<string, string>, remove: string[] = []): void {
  git(repo, 'checkout', '-q', '-B', name, 'main')
  write(repo, files)
  for (const path of remove) git(repo, 'rm', '-q', path)
  git(repo, 'add', '-A')
  git(repo, 'commit', '-q', '-m', `PR ${name}`)
}

beforeAll(async () => {
  standIn = await startProviderStandIn()
  standIn.setScript(judge())
  repo = mkdtempSync(join(tmpdir(), 'rc-earned-'))
  git(repo, 'init', '-q', '-b', 'main')
  write(repo, { '.github/rubric.md': RUBRIC, 'README.md': '# Project\n' })
  git(repo, 'add', '-A')
  git(repo, 'commit', '-q', '-m', 'base')
  const commits = [git(repo, 'rev-parse', 'HEAD')]
  for (let i = 0; i < labels.length; i++) {
    write(repo, { [`case-${i}.txt`]: `The change of case ${i}.\n` })
    git(repo, 'add', '-A')
    git(repo, 'commit', '-q', '-m', `Case ${i}`)
    commits.push(git(repo, 'rev-parse', 'HEAD'))
  }
  const cases = labels.map(
    (criteria, i) =>
      `  - base: ${commits[i]}\n    head: ${commits[i + 1]}\n    expect: ${Object.values(criteria).includes('FAIL') ? 'FAIL' : 'PASS'}\n    criteria: { tested: ${criteria.tested}, docs: ${criteria.docs} }\n`
  )
  write(repo, { '.github/rubric-calibration.yml': `cases:\n${cases.join('')}` })
  const recorded = await cli(repo, ['calibrate', '--record'])
  expect(recorded.code, recorded.stderr).toBe(0)
  record = JSON.parse(
    readFileSync(join(repo, '.github/rubric-calibration.json'), 'utf8')
  ) as CalibrationRecord
  git(repo, 'add', '-A')
  git(repo, 'commit', '-q', '-m', 'Calibrate the rubric')
}, 180_000)

afterAll(async () => {
  await standIn.close()
})

/** `check` of the branch checked out, against main, with its JSON report. */
async function check() {
  // Outside the repository: the branches commit everything in it.
  const json = join(mkdtempSync(join(tmpdir(), 'rc-earned-report-')), 'report.json')
  const run = await cli(repo, ['check', '--base', 'main', '--json', json])
  const report = JSON.parse(readFileSync(json, 'utf8')) as {
    verdict: string
    reasons: { code: string; message: string }[]
  }
  return { ...run, report }
}

describe('blocking earned by the calibration record (bundled CLI)', () => {
  it('the record says what the judge was: `tested` may block, the coin on `docs` may not', () => {
    const entry = (id: string) => record.criteria.find(c => c.id === id)
    expect(entry('tested')).toMatchObject({
      recommendation: 'block',
      cases: { pass: 10, fail: 10 },
      precision: { value: 1 },
      flip: { value: 0 }
    })
    expect(entry('docs')?.recommendation).toBe('advise')
    expect(entry('docs')?.precision.value).toBeLessThan(0.9)
  })

  it('a change only the coin fails is not FAIL: its `docs` FAIL is shown as advisory, with its precision', async () => {
    branch('docs-only', { 'src/option.ts': '// lacks-docs\nexport const verbose = true\n' })
    const run = await check()
    expect(run.code, run.stdout).toBe(0)
    expect(run.report.verdict).toBe('PASS')
    expect(run.stdout).toMatch(/docs +FAIL 0\/1 · advisory: precision 0\.\d\d < 0\.90 on 20 cases/)
    expect(run.stdout).toMatch(/tested +PASS 1\/1 · blocks: calibrated \(precision 1\.00/)
  })

  it('a change with an untested behaviour is FAIL, on `tested`', async () => {
    branch('untested', { 'src/retry.ts': '// lacks-tested\nexport const retries = 3\n' })
    const run = await check()
    expect(run.code, run.stdout).toBe(1)
    expect(run.report).toMatchObject({ verdict: 'FAIL', reasons: [{ code: 'criterion_failed' }] })
    expect(run.report.reasons[0]?.message).toContain('tested')
    expect(run.report.reasons[0]?.message).not.toContain('docs')
  })

  it('attack: a pull request that deletes the record is judged with the base branch’s, and still fails on `tested`', async () => {
    branch('drop-record', { 'src/retry.ts': '// lacks-tested\nexport const retries = 3\n' }, [
      '.github/rubric-calibration.json'
    ])
    const run = await check()
    expect(run.code, run.stdout).toBe(1)
    expect(run.report.verdict).toBe('FAIL')
    // Its edit is shown, as the weakening it is; the base's record grades.
    expect(run.stdout).toContain(
      'WEAKENS must-have "tested" moved from blocking to advisory: not calibrated'
    )
    expect(run.stdout).toMatch(/tested +FAIL 0\/1 · blocks: calibrated/)
  })

  it('with the record removed from main, neither criterion blocks and both are shown "not calibrated"', async () => {
    git(repo, 'checkout', '-q', 'main')
    git(repo, 'rm', '-q', '.github/rubric-calibration.json')
    git(repo, 'commit', '-q', '-m', 'Drop the calibration record')
    branch('both', {
      'src/both.ts': '// lacks-tested lacks-docs\nexport const mode = "fast"\n'
    })
    const run = await check()
    expect(run.code, run.stdout).toBe(0)
    expect(run.report.verdict).toBe('PASS')
    expect(run.stdout).toMatch(/tested +FAIL 0\/1 · advisory: not calibrated/)
    expect(run.stdout).toMatch(/docs +FAIL 0\/1 · advisory: not calibrated/)
  })
})
