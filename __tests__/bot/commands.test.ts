import { describe, expect, it } from 'vitest'
import {
  commandReason,
  commandTaken,
  commentAsks,
  missingPart,
  parseCommand,
  permitsCommands
} from '../../src/bot/commands.js'
import { acceptedReply, COMMANDS_HELP, unknownCriterionReply } from '../../src/bot/replies.js'

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

describe('what a comment asks of the bot', () => {
  const event = (
    body: string,
    change: Partial<{ action: string; type: string; pr: boolean }> = {}
  ) => ({
    action: change.action ?? 'created',
    issue: { number: 7, ...(change.pr !== false && { pull_request: {} }) },
    comment: {
      id: 42,
      body,
      created_at: '2026-12-04T12:00:00Z',
      user: { login: 'octo-maintainer', type: change.type ?? 'User' }
    }
  })

  it('a command on a pull request, with who gave it and when', () => {
    expect(commentAsks(event('/council rerun'))).toEqual({
      kind: 'command',
      command: { kind: 'rerun' },
      comment: {
        number: 7,
        login: 'octo-maintainer',
        who: '@octo-maintainer',
        commentId: 42,
        writtenAt: '2026-12-04T12:00:00Z'
      }
    })
  })

  it('nothing from an edit, an issue, a bot, our own comment, or a comment that is no command', () => {
    const notices = [
      event('/council rerun', { action: 'edited' }),
      event('/council rerun', { pr: false }),
      event('/council rerun', { type: 'Bot' }),
      event('<!-- rubric-council:x -->\n/council rerun'),
      event('LGTM')
    ].map(e => {
      const asks = commentAsks(e)
      return asks.kind === 'nothing' ? asks.notice : asks.kind
    })
    expect(notices).toEqual([
      'not a new comment on a pull request; nothing to do',
      'not a new comment on a pull request; nothing to do',
      'not a command for the bot; nothing to do',
      'not a command for the bot; nothing to do',
      'not a command for the bot; nothing to do'
    ])
  })
})

describe('whether a command is taken', () => {
  it('from someone with write permission, once it has what it needs', () => {
    expect(commandTaken({ kind: 'rerun' }, '@m', true)).toEqual({
      ok: true,
      value: { kind: 'rerun' }
    })
    expect(commandTaken({ kind: 'accept', reason: '' }, '@m', true)).toEqual({
      ok: false,
      problem: { reply: '@m say why: `/council accept <reason>`.' }
    })
  })

  it('attack: refused without write permission, naming the command and who may', () => {
    const refused = commandTaken({ kind: 'accept', reason: 'ship it' }, '@reader', false)
    expect(refused).toEqual({
      ok: false,
      problem: {
        reply: expect.stringContaining(
          '@reader only people with write permission on the repository may run `/council accept`.'
        ) as string,
        notice: 'refused /council accept from @reader: no write permission'
      }
    })
  })

  it('an unknown one gets the commands, whoever wrote it', () => {
    const unknown = commandTaken({ kind: 'unknown', text: '/council merge' }, '@m', false)
    expect(!unknown.ok && unknown.problem.reply).toBe(
      `@m <code>/council merge</code> is not a command I know. ${COMMANDS_HELP}`
    )
  })

  it('only admin and write (maintain sums up as write) may command', () => {
    expect(['admin', 'write', 'read', 'none', undefined].map(permitsCommands)).toEqual([
      true,
      true,
      false,
      false,
      false
    ])
  })
})

describe('commandReason: a recorded command, read again', () => {
  const comment = (body: string, change: Partial<{ issue: number; login: string }> = {}) => ({
    body,
    login: change.login ?? 'octo-maintainer',
    type: 'User',
    issue: change.issue ?? 7
  })
  const by = { by: 'octo-maintainer' }

  it('gives the reason the command comment says now', () => {
    expect(commandReason(comment('/council accept flaky'), by, 7)).toBe('flaky')
    const waiver = { ...by, criterion: 'tested' }
    expect(commandReason(comment('/council waive tested flaky'), waiver, 7)).toBe('flaky')
  })

  it('attack: none for an edited, moved, deleted or borrowed command', () => {
    const waiver = { ...by, criterion: 'tested' }
    expect([
      commandReason(comment('/council accept'), by, 7),
      commandReason(comment('thanks'), by, 7),
      commandReason(comment('/council accept flaky', { issue: 8 }), by, 7),
      commandReason(comment('/council accept flaky', { login: 'someone' }), by, 7),
      commandReason(undefined, by, 7),
      commandReason(comment('/council waive tested flaky'), by, 7),
      commandReason(comment('/council accept tested flaky'), waiver, 7),
      commandReason(comment('/council waive tidy flaky'), waiver, 7)
    ]).toEqual(Array.from({ length: 8 }, () => undefined))
  })
})
