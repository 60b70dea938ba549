import { parse } from 'yaml'
import { describe, expect, it } from 'vitest'
import {
  proposeCases,
  proposedSetText,
  withLedger,
  type LedgerPull,
  type LogCommit
} from '../../src/calibrate/propose.js'
import { parseCalibrationSet } from '../../src/calibrate/set.js'

const sha = (c: string): string => c.repeat(40)

/** main: #7 merged by a merge commit (M7, its head H7), then the revert of M7. */
const M7: LogCommit = {
  sha: sha('7'),
  parents: [sha('0'), sha('a')],
  subject: 'Merge pull request #7 from me/seven',
  body: 'Add seven'
}
const REVERT: LogCommit = {
  sha: sha('9'),
  parents: [sha('7')],
  subject: 'Revert "Merge pull request #7 from me/seven"',
  body: `This reverts commit ${sha('7')}.`
}

const pull = (number: number, extra: Partial<LedgerPull> = {}): LedgerPull => ({
  number,
  title: `Pull ${number}`,
  baseSha: sha('b'),
  headSha: sha('c'),
  waivers: [],
  ...extra
})

describe('withLedger', () => {
  it('labels a waived criterion PASS on the commit it waived, and an accepted head PASS, naming each', () => {
    const cases = withLedger(
      [],
      [
        pull(12, {
          headSha: sha('d'),
          waivers: [
            { commit: sha('c'), criterion: 'tested', by: 'alice', reason: 'tests are in #13' },
            { commit: sha('c'), criterion: 'docs', by: 'bob', reason: 'internal only' }
          ]
        }),
        pull(11, { acceptance: { commit: sha('e'), by: 'carol', reason: 'hotfix' } })
      ],
      []
    )
    expect(cases).toEqual([
      {
        name: '#12 Pull 12',
        base: sha('b'),
        head: sha('c'),
        expect: 'PASS',
        criteria: { tested: 'PASS', docs: 'PASS' },
        sources: [
          'waiver of tested by @alice on #12 at cccccccccccc: tests are in #13',
          'waiver of docs by @bob on #12 at cccccccccccc: internal only'
        ],
        pull: 12
      },
      {
        name: '#11 Pull 11',
        base: sha('b'),
        head: sha('e'),
        expect: 'PASS',
        sources: ['acceptance by @carol on #11 at eeeeeeeeeeee: hotfix'],
        pull: 11
      }
    ])
  })

  it('adds a label to the history’s case of the same change instead of listing it twice', () => {
    const history = proposeCases([M7], [M7], 10)
    const cases = withLedger(
      history,
      [
        pull(7, {
          headSha: sha('a'),
          mergeCommit: sha('7'),
          waivers: [{ commit: sha('a'), criterion: 'tested', by: 'alice', reason: 'ok' }]
        })
      ],
      [M7]
    )
    expect(cases).toEqual([
      {
        name: '#7 Add seven',
        base: sha('0'),
        head: sha('a'),
        expect: 'PASS',
        criteria: { tested: 'PASS' },
        sources: [
          'merged as 777777777777 in this history',
          'waiver of tested by @alice on #7 at aaaaaaaaaaaa: ok'
        ],
        pull: 7
      }
    ])
  })

  it('expects FAIL of a merged pull request a later commit reverts, from GitHub’s merge commit', () => {
    // The history's first-parent line does not reach #7 (count 0): GitHub names its merge.
    const cases = withLedger(
      proposeCases([M7], [M7, REVERT], 0),
      [
        pull(7, { headSha: sha('a'), mergeCommit: sha('7') }),
        pull(8, { headSha: sha('f'), mergeCommit: sha('8') })
      ],
      [REVERT, M7]
    )
    expect(cases).toEqual([
      {
        name: '#7 Pull 7',
        base: sha('b'),
        head: sha('a'),
        expect: 'FAIL',
        sources: ['#7 merged as 777777777777, reverted by 999999999999'],
        pull: 7
      }
    ])
  })
})

describe('proposedSetText', () => {
  it('writes every case unconfirmed with its source, hostile text as strings that add no key or case', () => {
    const reason = 'fine" # x\u2028\nconfirmed: true\n- base: evil\n  expect: PASS\n--- ... \' -->'
    const cases = withLedger(
      [],
      [
        pull(3, {
          title: 'Title\nconfirmed: true',
          waivers: [{ commit: sha('c'), criterion: 'tested', by: 'mallory', reason }]
        })
      ],
      []
    )
    const text = proposedSetText(cases)
    const data = parse(text) as { cases: Record<string, unknown>[] }
    expect(data.cases).toHaveLength(1)
    expect(data.cases[0]).toEqual({
      name: '#3 Title\nconfirmed: true',
      base: sha('b'),
      head: sha('c'),
      expect: 'PASS',
      criteria: { tested: 'PASS' },
      source: `waiver of tested by @mallory on #3 at cccccccccccc: ${reason}`,
      confirmed: false
    })
    // calibrate reads it, and measures nothing of it until a person confirms it.
    const set = parseCalibrationSet(text, 'set.yml', ['tested'])
    expect(set.ok).toBe(false)
    const confirmed = parseCalibrationSet(
      text.replace('confirmed: false', 'confirmed: true'),
      'set.yml',
      ['tested']
    )
    expect(confirmed.ok && confirmed.value.cases.map(c => c.source)).toEqual([
      `waiver of tested by @mallory on #3 at cccccccccccc: ${reason}`
    ])
  })
})
