import { describe, expect, it } from 'vitest'
import { missingPart, parseCommand } from '../../src/bot/commands.js'
import { acceptedReply, unknownCriterionReply } from '../../src/bot/replies.js'

describe('parseCommand', () => {
  it.each([
    ['/council rerun', { kind: 'rerun' }],
    ['  /council rerun  \n', { kind: 'rerun' }],
    ['/council accept flaky judge', { kind: 'accept', reason: 'flaky judge' }],
    [
      '/council accept  the judge\nmisread   the diff',
      { kind: 'accept', reason: 'the judge misread the diff' }
    ],
    ['/council accept', { kind: 'accept', reason: '' }],
    // A first word that is a criterion's id is part of the reason: accept is the whole check.
    ['/council accept tests are flaky today', { kind: 'accept', reason: 'tests are flaky today' }],
    [
      '/council waive tests  the harness\nis broken, #12',
      { kind: 'waive', criterion: 'tests', reason: 'the harness is broken, #12' }
    ],
    ['/council waive tests', { kind: 'waive', criterion: 'tests', reason: '' }],
    ['/council waive', { kind: 'waive', criterion: '', reason: '' }],
    ['/council rerun now please', { kind: 'unknown', text: '/council rerun now please' }],
    ['/council approve', { kind: 'unknown', text: '/council approve' }],
    ['/council', { kind: 'unknown', text: '/council' }]
  ])('%j → %j', (body, command) => {
    expect(parseCommand(body)).toEqual(command)
  })

  it.each(['LGTM', 'please /council rerun', '/councilrerun', '> /council accept quoted'])(
    'leaves %j alone',
    body => {
      expect(parseCommand(body)).toBeUndefined()
    }
  )

  it('keeps at most 300 characters of a reason', () => {
    const command = parseCommand(`/council accept ${'x'.repeat(1000)}`)
    expect(command?.kind === 'accept' && command.reason.length).toBe(300)
    const waiver = parseCommand(`/council waive tests ${'x'.repeat(1000)}`)
    expect(waiver?.kind === 'waive' && waiver.reason.length).toBe(300)
  })
})

describe('what the bot says about a command', () => {
  it('asks for what is missing before anything is read', () => {
    expect(missingPart({ kind: 'accept', reason: '' })).toBe('say why: `/council accept <reason>`.')
    expect(missingPart({ kind: 'waive', criterion: '', reason: '' })).toBe(
      'say which must-have, and why: `/council waive <criterion-id> <reason>`.'
    )
    expect(missingPart({ kind: 'accept', reason: 'fine' })).toBeUndefined()
    expect(missingPart({ kind: 'rerun' })).toBeUndefined()
  })

  it('names the whole check, and the waive command when the reason starts with a must-have', () => {
    const head = 'abcdef0123456789'
    expect(acceptedReply('@m', head, undefined)).toBe(
      '@m accepted the whole check for abcdef0: its check run concludes success until the next push.'
    )
    expect(acceptedReply('@m', head, 'tests')).toContain(
      'Your reason starts with the must-have <code>tests</code>: `/council accept` always accepts the whole check, and `/council waive <criterion-id> <reason>` excuses one must-have only.'
    )
  })

  it('lists the must-haves that exist when a waiver names none of them', () => {
    const criteria = new Map([
      ['tested', true],
      ['tidy', false],
      ['documented', true]
    ])
    expect(unknownCriterionReply('@m', 'testd', criteria)).toBe(
      "@m <code>testd</code> is not a criterion of the base branch's rubric: nothing was waived. Its must-haves: <code>tested</code>, <code>documented</code>; `/council waive <criterion-id> <reason>` names one of them."
    )
    expect(unknownCriterionReply('@m', 'x', new Map([['tidy', false]]))).toContain(
      'It has no must-have to waive.'
    )
    expect(unknownCriterionReply('@m', 'x', undefined)).toBe(
      '@m the base branch has no valid rubric, so it has no criterion to waive: nothing was waived.'
    )
    const many = new Map(Array.from({ length: 40 }, (_, i) => [`c${String(i)}`, true] as const))
    expect(unknownCriterionReply('@m', 'x', many)).toContain('<code>c29</code> and 10 more;')
  })
})
