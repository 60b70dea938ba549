import { describe, expect, it } from 'vitest'
import { HEAD_BYTES, TAIL_BYTES } from '../../src/gates/excerpt.js'
import { writeRecord, type GatesRecord } from '../../src/gates/record.js'
import { recordedGates, type RecordingRun } from '../../src/gates/recorded.js'
import { gateResult } from '../helpers/evaluation.js'
import { lines, parse } from '../helpers/rubric.js'

const RUBRIC = parse(lines('## Gates', '- `npm test`', '- `npm run lint`'))
const HEAD = 'a'.repeat(40)
const REVIEW = { pullRequest: 7, headSha: HEAD }

function record(overrides: Partial<GatesRecord> = {}): GatesRecord {
  return {
    repository: 'octo-org/octo-repo',
    pullRequest: 7,
    headSha: HEAD,
    rubricHash: RUBRIC.hash,
    setup: [],
    gates: [gateResult('npm test', 'pass', '12 passed'), gateResult('npm run lint', 'pass')],
    ...overrides
  }
}

/** The gates job of run 4242, recording `text` and concluding `conclusion`. */
function run(text: string | undefined, conclusion: string | null | undefined): RecordingRun {
  return {
    description: 'the job `gates` of run 4242',
    recordText: () => Promise.resolve(text),
    jobConclusion: () => Promise.resolve(conclusion)
  }
}

const statuses = async (source: RecordingRun) =>
  (await recordedGates(source, REVIEW).results(RUBRIC)).map(r => [r.command, r.status, r.detail])

describe('recorded gate results: a claim from a job that ran the pull request’s code', () => {
  it('counts a record for this pull request, commit and rubric, from a job that agrees', async () => {
    expect(await statuses(run(writeRecord(record()), 'success'))).toEqual([
      ['npm test', 'pass', undefined],
      ['npm run lint', 'pass', undefined]
    ])
    const failing = record({
      gates: [gateResult('npm run lint', 'fail', '3 problems'), gateResult('npm test', 'pass')]
    })
    // In the rubric's order, whatever the record's.
    expect(await statuses(run(writeRecord(failing), 'failure'))).toEqual([
      ['npm test', 'pass', undefined],
      ['npm run lint', 'fail', undefined]
    ])
  })

  it('keeps a forged record to the limits a gate run here is kept to, and says so', async () => {
    const huge = 'é'.repeat(1_750_000) // 3.5 million bytes of UTF-8
    const forged: GatesRecord = record({
      gates: [
        {
          ...gateResult('npm test', 'fail'),
          output: { head: `start${huge}`, tail: `${huge}end`, elidedBytes: 0, totalBytes: 0 },
          detail: `x${'y'.repeat(100_000)}`
        },
        gateResult('npm run lint', 'pass')
      ]
    })
    const [test, lint] = await recordedGates(run(writeRecord(forged), 'failure'), REVIEW).results(
      RUBRIC
    )
    const { head, tail, elidedBytes, totalBytes } = test?.output ?? {}
    expect(Buffer.byteLength(head ?? '')).toBeLessThanOrEqual(HEAD_BYTES)
    expect(Buffer.byteLength(tail ?? '')).toBeLessThanOrEqual(TAIL_BYTES)
    expect(head).toMatch(/^starté+$/)
    expect(tail).toMatch(/^é+end$/)
    const cut = 2 * Buffer.byteLength(huge) + 8 - Buffer.byteLength(`${head}${tail}`)
    expect(elidedBytes).toBe(cut)
    expect(totalBytes).toBe(cut + Buffer.byteLength(`${head}${tail}`))
    expect(test?.detail?.length).toBeLessThan(1200)
    expect(test?.detail).toContain('more than a gate keeps; they are left out')
    expect(test?.status).toBe('fail')
    // A record within the limits is taken as it is.
    expect(lint).toEqual(gateResult('npm run lint', 'pass'))
  })

  it('does not believe a record of all passes from a job that failed', async () => {
    const results = await statuses(run(writeRecord(record()), 'failure'))
    expect(results.map(([, status]) => status)).toEqual(['error', 'error'])
    expect(String(results[0]?.[2])).toContain(
      'concluded failure, yet its record says every gate passed: the record cannot be trusted'
    )
  })

  it('shows the setup commands first, labelled, and a failed one fails like a gate', async () => {
    const setup = [gateResult('npm ci', 'pass'), gateResult('npm run build', 'fail', 'TS2322')]
    const failed = record({
      setup,
      gates: [
        {
          ...gateResult('npm test', 'error'),
          detail: 'not run: the setup command "npm run build" did not pass (fail)'
        },
        { ...gateResult('npm run lint', 'error'), detail: 'not run' }
      ]
    })
    const results = await recordedGates(run(writeRecord(failed), 'failure'), REVIEW).results(RUBRIC)
    expect(results.map(r => [r.command, r.status])).toEqual([
      ['setup: npm ci', 'pass'],
      ['setup: npm run build', 'fail'],
      ['npm test', 'error'],
      ['npm run lint', 'error']
    ])
    expect(results[1]?.output.head).toContain('TS2322')
    // Setup that passed with gates that passed is believed only from a job that succeeded.
    const passed = record({ setup: [gateResult('npm ci', 'pass')] })
    expect(await statuses(run(writeRecord(passed), 'success'))).toEqual([
      ['setup: npm ci', 'pass', undefined],
      ['npm test', 'pass', undefined],
      ['npm run lint', 'pass', undefined]
    ])
    const disbelieved = await statuses(run(writeRecord(passed), 'failure'))
    expect(disbelieved.map(([, status]) => status)).toEqual(['error', 'error'])
  })

  it('makes a gate without a recorded result an error, never a pass', async () => {
    const partial = record({
      gates: [gateResult('npm test', 'pass'), gateResult('rm -rf /', 'pass')]
    })
    expect(await statuses(run(writeRecord(partial), 'success'))).toEqual([
      ['npm test', 'pass', undefined],
      ['npm run lint', 'error', 'no result was recorded for this gate']
    ])
  })

  it.each([
    ['another pull request', record({ pullRequest: 8 }), 'for pull request #8'],
    ['another commit', record({ headSha: 'b'.repeat(40) }), `at bbbbbbb, not #7 at aaaaaaa`],
    [
      'another rubric',
      record({ rubricHash: '0123456789ab' }),
      'ran the gates of rubric 0123456789ab'
    ]
  ])('ignores a record for %s', async (_, other, says) => {
    const results = await statuses(run(writeRecord(other), 'success'))
    expect(results.map(([, status]) => status)).toEqual(['error', 'error'])
    expect(String(results[0]?.[2])).toContain(says)
  })

  it.each([
    ['no record at all', run(undefined, 'failure'), 'recorded no gate results'],
    ['a record that is not JSON', run('{"schema": ', 'success'), 'is not JSON'],
    [
      'a record of another shape',
      run(JSON.stringify({ schema: 'rubric-council/gates@2', gates: 'pass' }), 'success'),
      'is not a rubric-council/gates@2 record'
    ],
    [
      'a record with a field the format does not have',
      run(writeRecord(record()).replace('"setup"', '"passed": true, "setup"'), 'success'),
      'is not a rubric-council/gates@2 record'
    ],
    [
      'a record of the format before setup commands',
      run(writeRecord(record()).replace('gates@2', 'gates@1'), 'success'),
      'is a rubric-council/gates@1 record, but this action reads rubric-council/gates@2: use the same version of the action and of its gates sub-action'
    ],
    ['no such job in the run', run(writeRecord(record()), undefined), 'set the gates-job input'],
    [
      'a record that cannot be read',
      {
        description: 'the job `gates` of run 4242',
        recordText: () => Promise.reject(new Error('403 Resource not accessible by integration')),
        jobConclusion: () => Promise.resolve('success')
      },
      'could not be read from the job `gates` of run 4242 (403 Resource not accessible'
    ]
  ])('makes every gate an error with %s', async (_, source, says) => {
    const results = await statuses(source)
    expect(results.map(([, status]) => status)).toEqual(['error', 'error'])
    expect(String(results[0]?.[2])).toContain(says)
  })

  it('asks nothing of a rubric without gates', async () => {
    const asked: string[] = []
    const source: RecordingRun = {
      description: 'x',
      recordText: () => (asked.push('record'), Promise.resolve(undefined)),
      jobConclusion: () => (asked.push('job'), Promise.resolve(undefined))
    }
    expect(
      await recordedGates(source, REVIEW).results(parse(lines('## Criteria', '- a: A')))
    ).toEqual([])
    expect(asked).toEqual([])
  })
})
