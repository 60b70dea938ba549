import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_THRESHOLDS,
  measureCalibration,
  type CalibrationRun
} from '../../src/calibrate/measure.js'
import {
  buildRecord,
  defaultRecordPath,
  parseCalibrationRecord,
  recordText
} from '../../src/calibrate/record.js'
import type { Expected } from '../../src/calibrate/set.js'

const ROOT = join(import.meta.dirname, '../..')
// The UTC form `toISOString` writes, which is all the reader accepts (ajv-formats is no dependency).
const validate = new Ajv2020({
  allErrors: true,
  strict: true,
  formats: { 'date-time': /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/ }
}).compile(
  JSON.parse(readFileSync(join(ROOT, 'schema/calibration-record.schema.json'), 'utf8')) as object
)

/** Eight cases of `x`, four labelled FAIL: the judges FAIL cases 0–4 (case 4 wrongly), case 5 flips. */
function report() {
  const labels: Expected[] = ['FAIL', 'FAIL', 'FAIL', 'FAIL', 'PASS', 'PASS', 'PASS', 'PASS']
  const answer = (i: number, repeat: number): 'PASS' | 'FAIL' =>
    i <= 4 || (i === 5 && repeat === 2) ? 'FAIL' : 'PASS'
  const runs: CalibrationRun[] = [1, 2].flatMap(repeat =>
    labels.map((_, i) => ({
      case: i,
      repeat,
      verdict: answer(i, repeat),
      criteria: [{ id: 'x', status: answer(i, repeat), votes: [answer(i, repeat)] }],
      tokens: { input: 1, output: 1 },
      dollars: 0,
      unpriced: 0
    }))
  )
  return measureCalibration({
    set: '.github/rubric-calibration.yml',
    rubric: '.github/rubric.md',
    evidenceOrder: 'diff',
    cases: labels.map((expect, i) => ({
      name: `case ${i}`,
      line: i + 2,
      column: 5,
      refs: { kind: 'range' as const, base: 'a', head: 'b' },
      base: 'a',
      head: 'b',
      expect,
      criteria: { x: expect }
    })),
    criteria: [{ id: 'x', required: true }],
    repeat: 2,
    runs,
    interrupted: false,
    thresholds: DEFAULT_THRESHOLDS
  })
}

const CONTEXT = {
  textHashes: { x: '0123456789ab' },
  council: {
    members: ['openai:gpt-5.5', 'anthropic:claude-sonnet-4-6'],
    samples: 2,
    reasoning: ['high' as const, null],
    temperature: [null, 0.7],
    reserve: [['google:gemini-3-pro', null] as const],
    maxExtraVotes: 2
  },
  promptVersion: 2,
  productVersion: '0.1.0',
  now: Date.UTC(2026, 6, 1, 12)
}

describe('the calibration record', () => {
  it('holds per criterion the figures calibrate measured, each with its 95% Wilson interval', () => {
    const measured = report()
    const record = buildRecord(measured, CONTEXT)
    const [x] = record.criteria
    const [reported] = measured.criteria
    // 16 runs: 8 FAILs of cases labelled FAIL, 2 of case 4 and 1 of case 5 labelled PASS.
    expect(x?.precision).toMatchObject({ count: 8, of: 11, value: reported?.precision })
    expect(x?.precision.low).toBeCloseTo(0.4344, 3)
    expect(x?.precision.high).toBeCloseTo(0.9025, 3)
    expect(x?.recall).toMatchObject({ count: 8, of: 8, value: 1, high: 1 })
    // Flip: case 5 of 8 cases.
    expect(x?.flip).toMatchObject({ count: 1, of: 8, value: reported?.flip })
    expect(x).toMatchObject({
      id: 'x',
      required: true,
      text_hash: '0123456789ab',
      council: {
        members: ['openai:gpt-5.5', 'anthropic:claude-sonnet-4-6'],
        samples: 2,
        reasoning: ['high', null],
        temperature: [null, 0.7],
        reserve: [['google:gemini-3-pro', null]],
        max_extra_votes: 2
      },
      prompt_version: 2,
      product_version: '0.1.0',
      repeat: 2,
      cases: { pass: 4, fail: 4 },
      recommendation: 'advise',
      reason: reported?.reason,
      recorded: '2026-07-01T12:00:00.000Z'
    })
    expect(validate(record), JSON.stringify(validate.errors)).toBe(true)
    expect(parseCalibrationRecord(recordText(record), 'r.json')).toEqual({
      ok: true,
      value: record
    })
  })

  it('is refused when invalid, each problem naming the file, the JSON pointer and the value', () => {
    const record = buildRecord(report(), CONTEXT) as unknown as {
      criteria: Record<string, unknown>[]
    }
    const [entry] = record.criteria
    if (entry === undefined) throw new Error('no entry')
    entry.recommendation = 'always'
    entry.text_hash = 'not/a~hash'
    const read = parseCalibrationRecord(JSON.stringify(record), '.github/rubric-calibration.json')
    expect(read.ok).toBe(false)
    expect(read.ok ? [] : read.problem).toEqual([
      '.github/rubric-calibration.json: /criteria/0/text_hash: Invalid string: must match pattern /^[0-9a-f]{12}$/, got "not/a~hash"',
      '.github/rubric-calibration.json: /criteria/0/recommendation: Invalid option: expected one of "block"|"advise", got "always"'
    ])
    expect(parseCalibrationRecord('{"schema": ', 'r.json')).toMatchObject({
      ok: false,
      problem: [expect.stringMatching(/^r\.json: not JSON: /)]
    })
    expect(parseCalibrationRecord('[]', 'r.json')).toEqual({
      ok: false,
      problem: ['r.json: /: Invalid input: expected object, received array, got []']
    })
  })

  it('goes beside the rubric', () => {
    expect(defaultRecordPath('.github/rubric.md')).toBe('.github/rubric-calibration.json')
    expect(defaultRecordPath('.github/rubrics/api.md')).toBe('.github/rubrics/api.calibration.json')
  })
})
