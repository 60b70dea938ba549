import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RECORD_SCHEMA, type RecordEntry } from '../../src/calibrate/record.js'
import { criterionHash, PROMPT_VERSION } from '../../src/council/prompt.js'
import type { RubricsJsonReport } from '../../src/publish/rubrics.js'
import type { JsonReport } from '../../src/report/json.js'
import { pullRequest, runInProcess, type PullRequest } from '../helpers/in-process.js'
import { wireAnswer } from '../helpers/judge-answers.js'
import { startProviderStandIn, type StandIn } from '../helpers/provider-standin.js'
import { parse } from '../helpers/rubric.js'

/**
 * `calibration: required` in the action: the record is read from the base branch with the rubric,
 * so a pull request that edits it, deletes it, or adds the setting changes nothing about its own
 * check, and the comment shows the weakening. GitHub is in memory; the judge is the provider
 * stand-in.
 */

const MODEL = 'openai:gpt-5.4-nano'
const RECORD = '.github/rubric-calibration.json'
const CRITERIA = ['## Criteria', '- tested: The change is tested', '- documented: It is documented']
const rubricText = (...front: string[]): string =>
  ['---', 'dimensions: false', ...front, '---', ...CRITERIA, ''].join('\n')
const REQUIRED = rubricText('calibration: required')
const PLAIN = rubricText()

function measure(count: number, of: number): RecordEntry['precision'] {
  return { count, of, value: count / of, low: 0, high: 1 }
}

/** The record `calibrate --record` writes for this council: `tested` block, `documented` not. */
function recordOf(recommend: Readonly<Record<string, 'block' | 'advise'>>): string {
  const rubric = parse(REQUIRED)
  const criteria = rubric.criteria.map((c): RecordEntry => {
    const block = recommend[c.id] === 'block'
    return {
      id: c.id,
      required: true,
      text_hash: criterionHash(c),
      council: {
        members: [MODEL],
        samples: 1,
        reasoning: [null],
        temperature: [null],
        reserve: [],
        max_extra_votes: 0
      },
      prompt_version: PROMPT_VERSION,
      evidence_order: 'diff',
      product_version: '0.1.0',
      repeat: 2,
      cases: { pass: 9, fail: 9 },
      precision: block ? measure(18, 18) : measure(8, 13),
      recall: measure(8, 9),
      flip: measure(0, 18),
      thresholds: { min_precision: 0.9, max_flip: 0.1, min_labelled: 5 },
      recommendation: recommend[c.id] ?? 'advise',
      reason: block ? 'Precision 100%, flip 0%' : 'Precision 62% is below 90%',
      recorded: '2026-12-01T10:00:00.000Z'
    }
  })
  const record = { schema: RECORD_SCHEMA, rubric: '.github/rubric.md', set: 'set.yml' }
  return `${JSON.stringify({ ...record, interval: 'wilson-95', criteria }, null, 2)}\n`
}
const EARNED = recordOf({ tested: 'block', documented: 'advise' })

let providers: StandIn
/** The criteria the judge FAILs. */
let failing: string[] = []

beforeAll(async () => {
  providers = await startProviderStandIn(call => ({
    json: wireAnswer(call.schema, { fail: failing })
  }))
})
afterAll(async () => {
  await providers.close()
})

async function review(pr: PullRequest, fails: string[], inputs: Record<string, string> = {}) {
  failing = fails
  const run = await runInProcess(pr, {
    inputs: { models: MODEL, ...inputs },
    providers: {
      OPENAI_API_KEY: 'sk-calibration-0123456789',
      OPENAI_BASE_URL: providers.openaiBaseUrl
    }
  })
  const report = JSON.parse(readFileSync(run.outputs.report ?? '', 'utf8')) as JsonReport
  const comment = pr.github.commentsOn(pr.number)[0]?.body ?? ''
  const checkRun = pr.github.checkRuns.filter(c => c.head_sha === pr.repo.headSha).at(-1)
  return { verdict: run.outputs.verdict, report, comment, checkRun }
}

const standing = (report: JsonReport, id: string) =>
  report.criteria.find(c => c.id === id)?.calibration

describe('calibration: required, in the action', () => {
  it('a must-have the base’s record does not let block is advisory, shown on the comment and the check run', async () => {
    const pr = pullRequest({ '.github/rubric.md': REQUIRED, [RECORD]: EARNED })
    const run = await review(pr, ['tested', 'documented'])
    expect(run.verdict).toBe('FAIL')
    expect(run.report.reasons.map(r => r.code)).toEqual(['criterion_failed'])
    expect(run.report.reasons[0]?.message).not.toContain('documented')
    expect(run.comment).toContain(
      '<b>documented</b> · FAIL (0/1 PASS) · advisory: precision 0.62 &lt; 0.90 on 18 cases'
    )
    expect(run.comment).toContain(
      'Calibration: blocks: calibrated (precision 1.00, flip 0.00, 18 cases (9 PASS, 9 FAIL), recorded 2026-12-01)'
    )
    expect(run.checkRun?.title).toMatch(/^FAIL: must 0\/2 \(1 advisory\)/)
    expect(run.checkRun?.summary).toContain('Advisory must-haves: 1 of 2 (calibration: required)')
  })

  it('a workflow that shows the files in another order than the record was measured with: the must-have is advisory, and says why', async () => {
    const pr = pullRequest({ '.github/rubric.md': REQUIRED, [RECORD]: EARNED })
    const run = await review(pr, ['tested'], { 'evidence-order': 'least-recently-changed' })
    expect(run.verdict).not.toBe('FAIL')
    expect(standing(run.report, 'tested')).toMatchObject({
      blocks: false,
      cause: 'stale_evidence',
      reason: 'advisory: calibration stale, the order of the files shown changed (evidence-order)'
    })
    // In git's order, the order it was measured in, the same answers block.
    const same = await review(pullRequest({ '.github/rubric.md': REQUIRED, [RECORD]: EARNED }), [
      'tested'
    ])
    expect(same.verdict).toBe('FAIL')
  })

  it('a broken record on the base: every must-have not calibrated, the parse error shown, no crash', async () => {
    const pr = pullRequest({ '.github/rubric.md': REQUIRED, [RECORD]: '{ "schema": "nope" }' })
    const run = await review(pr, ['tested'])
    expect(run.verdict).not.toBe('FAIL')
    expect(standing(run.report, 'tested')).toMatchObject({ blocks: false, cause: 'record_broken' })
    expect(standing(run.report, 'tested')?.reason).toMatch(
      /^advisory: not calibrated, the calibration record \.github\/rubric-calibration\.json is not valid: \.github\/rubric-calibration\.json: \/schema: /
    )
  })

  it('with several rubrics, each reads its own record: .github/rubrics/<name>.calibration.json', async () => {
    const pr = pullRequest({
      '.github/rubric.md': REQUIRED,
      '.github/rubrics/api.md': REQUIRED,
      '.github/rubrics/api.calibration.json': EARNED
    })
    failing = ['tested']
    const run = await runInProcess(pr, {
      inputs: { models: MODEL },
      providers: {
        OPENAI_API_KEY: 'sk-calibration-0123456789',
        OPENAI_BASE_URL: providers.openaiBaseUrl
      }
    })
    const set = JSON.parse(readFileSync(run.outputs.report ?? '', 'utf8')) as RubricsJsonReport
    const tested = (name: string) =>
      set.rubrics.find(r => r.name === name)?.report?.criteria.find(c => c.id === 'tested')
        ?.calibration
    expect(tested('api')).toMatchObject({ blocks: true, cause: 'calibrated' })
    expect(tested('rubric')).toMatchObject({ blocks: false, cause: 'not_calibrated' })
    expect(set.rubrics.map(r => [r.name, r.report?.verdict])).toEqual([
      ['api', 'FAIL'],
      ['rubric', 'PASS']
    ])
  })

  describe('attack: a pull request that moves its own must-haves to advisory', () => {
    it('rewrites the record to advise tested: judged with the base’s, and the comment shows the weakening', async () => {
      const pr = pullRequest(
        { '.github/rubric.md': REQUIRED, [RECORD]: EARNED },
        { [RECORD]: recordOf({}) }
      )
      const run = await review(pr, ['tested'])
      expect(run.verdict).toBe('FAIL')
      expect(standing(run.report, 'tested')).toMatchObject({ blocks: true })
      expect(run.comment).toContain('This pull request **weakens the rubric** that grades it')
      expect(run.comment).toContain(
        'must-have "tested" moved from blocking to advisory: the record recommends advise'
      )
      expect(run.report.rubric_review).toMatchObject({ source: 'base', weakened: true })
    })

    it('deletes the record: judged with the base’s, shown as a weakening', async () => {
      const pr = pullRequest(
        { '.github/rubric.md': REQUIRED, [RECORD]: EARNED },
        { [RECORD]: null }
      )
      const run = await review(pr, ['tested'])
      expect(run.verdict).toBe('FAIL')
      expect(run.comment).toContain(
        'must-have "tested" moved from blocking to advisory: not calibrated'
      )
    })

    it('adds calibration: required to the rubric: every must-have still blocks, shown as a weakening', async () => {
      const pr = pullRequest({ '.github/rubric.md': PLAIN }, { '.github/rubric.md': REQUIRED })
      const run = await review(pr, ['documented'])
      expect(run.verdict).toBe('FAIL')
      expect(standing(run.report, 'documented')).toBeNull()
      expect(run.comment).toContain('calibration none → required')
      expect(run.comment).toContain(
        'must-have "documented" moved from blocking to advisory: not calibrated'
      )
    })
  })
})
