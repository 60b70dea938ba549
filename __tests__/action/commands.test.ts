import { describe, expect, it } from 'vitest'
import { acceptForm, parseCommand } from '../../src/action/commands.js'

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
  })
})

describe('acceptForm: a waiver or the whole check, by the rubric', () => {
  const criteria = new Map([
    ['tested', true],
    ['tidy', false]
  ])
  it.each([
    [
      'tested flaky harness, #12',
      { kind: 'waiver', criterion: 'tested', reason: 'flaky harness, #12' }
    ],
    ['tested', { kind: 'waiver', criterion: 'tested', reason: '' }],
    ['tidy not needed', { kind: 'nice-to-have', criterion: 'tidy' }],
    ['tested-ish and fine', { kind: 'check', reason: 'tested-ish and fine' }],
    ['the judges misread it', { kind: 'check', reason: 'the judges misread it' }]
  ])('%j → %j', (reason, form) => {
    expect(acceptForm(reason, criteria)).toEqual(form)
  })
})
