import { describe, expect, it } from 'vitest'
import { terminalCouncilProgress } from '../../src/report/terminal-progress.js'
import type { CliIo } from '../../src/cli/io.js'
import type { JudgeRun } from '../../src/council/types.js'
import { councilProgress } from '../../src/action/log.js'
import { recordingIO } from '../helpers/recording-io.js'

const CALLS = [
  { judge: 'openai:gpt-5.4-mini', sample: 1 },
  { judge: 'anthropic:claude-sonnet-4-6', sample: 1 }
]

const answered: JudgeRun = {
  judge: 'openai:gpt-5.4-mini',
  sample: 1,
  latencyMs: 12_345,
  requests: 1,
  tokens: { input: 21_004, cachedInput: 18_000, cacheWrite: 0, output: 812 },
  status: 'ok',
  answer: { findings: [], criteria: [], dimensions: [], verdict: 'ACCEPT', feedback: '' }
}

const failed: JudgeRun = {
  judge: 'anthropic:claude-sonnet-4-6',
  sample: 1,
  latencyMs: 3_000,
  requests: 3,
  status: 'failed',
  failure: 'provider_error',
  message: 'the provider failed (500) (after 3 tries)'
}

function io(live: boolean): { io: CliIo; err: string[] } {
  const err: string[] = []
  return {
    io: { stdout: () => undefined, stderr: line => err.push(line), env: {}, cwd: '.', live },
    err
  }
}

describe('the council’s progress on stderr', () => {
  it('in a log: who is asked, then one line per call as it ends, with time, tokens and requests', () => {
    const { io: cli, err } = io(false)
    const progress = terminalCouncilProgress(cli)
    progress.started(CALLS)
    progress.finished(failed)
    progress.finished(answered)
    expect(err).toEqual([
      'Asking 2 judges: openai:gpt-5.4-mini, anthropic:claude-sonnet-4-6',
      '  ✗ anthropic:claude-sonnet-4-6 #1: provider_error after 3.0 s · 3 requests: the provider failed (500) (after 3 tries)',
      '  ✓ openai:gpt-5.4-mini #1: ACCEPT in 12.3 s · 21,004 in (18,000 cached) / 812 out · 1 request'
    ])
  })

  it('says what a call wrote to the provider’s cache beside what it read', () => {
    const { io: cli, err } = io(false)
    const progress = terminalCouncilProgress(cli)
    progress.finished({
      ...answered,
      judge: 'anthropic:claude-sonnet-4-6',
      tokens: { input: 9_500, cachedInput: 0, cacheWrite: 2_804, output: 640 }
    })
    expect(err).toEqual([
      '  ✓ anthropic:claude-sonnet-4-6 #1: ACCEPT in 12.3 s · 9,500 in (2,804 written to the cache) / 640 out · 1 request'
    ])
  })

  it('in a terminal: a live line per call, redrawn in place as calls end', () => {
    const { io: cli, err } = io(true)
    let now = 1_000_000
    const progress = terminalCouncilProgress(cli, () => now)
    progress.started(CALLS)
    now += 4_000
    progress.finished(answered)
    expect(err).toEqual([
      'Asking 2 judges: openai:gpt-5.4-mini, anthropic:claude-sonnet-4-6',
      '\r\x1b[2K  ⋯ openai:gpt-5.4-mini #1: asking (0 s)',
      '\r\x1b[2K  ⋯ anthropic:claude-sonnet-4-6 #1: asking (0 s)',
      // Back up over both lines, then redraw them: the first has its answer.
      '\x1b[2A\r\x1b[2K  ✓ openai:gpt-5.4-mini #1: ACCEPT in 12.3 s · 21,004 in (18,000 cached) / 812 out · 1 request',
      '\r\x1b[2K  ⋯ anthropic:claude-sonnet-4-6 #1: asking (4 s)'
    ])
    progress.finished(failed)
    expect(err.at(-1)).toBe(
      '\r\x1b[2K  ✗ anthropic:claude-sonnet-4-6 #1: provider_error after 3.0 s · 3 requests: the provider failed (500) (after 3 tries)'
    )
  })

  it('counts samples: 2 judges × 2 samples are 4 calls', () => {
    const { io: cli, err } = io(false)
    terminalCouncilProgress(cli).started([...CALLS, ...CALLS.map(c => ({ ...c, sample: 2 }))])
    expect(err[0]).toBe(
      'Asking 2 judges, 2 samples each (4 calls): openai:gpt-5.4-mini, anthropic:claude-sonnet-4-6'
    )
  })
})

describe('an extra vote in the progress', () => {
  it('says which must-haves the judges are not agreed on and which reserve is asked, then how it answered', () => {
    const { io: cli, err } = io(false)
    const progress = terminalCouncilProgress(cli)
    progress.started(CALLS)
    progress.extraVote?.({ judge: 'openai:gpt-5.4', sample: 1, reserve: true }, ['edge-cases'])
    progress.finished({
      ...answered,
      judge: 'openai:gpt-5.4',
      extra: { criteria: ['edge-cases'], reserve: true }
    })
    expect(err.slice(1)).toEqual([
      'The judges are not agreed on edge-cases: asking openai:gpt-5.4 (reserve) for an extra vote',
      '  ✓ openai:gpt-5.4 #1: ACCEPT in 12.3 s · 21,004 in (18,000 cached) / 812 out · 1 request'
    ])
  })

  it('in a terminal, starts a new block of live lines below the first', () => {
    const { io: cli, err } = io(true)
    const progress = terminalCouncilProgress(cli, () => 0)
    progress.started(CALLS)
    progress.finished(answered)
    progress.finished(failed)
    const before = err.length
    progress.extraVote?.({ judge: 'openai:gpt-5.4', sample: 1, reserve: true }, ['edge-cases'])
    expect(err.slice(before)).toEqual([
      'The judges are not agreed on edge-cases: asking openai:gpt-5.4 (reserve) for an extra vote',
      '\r\x1b[2K  ⋯ openai:gpt-5.4 #1: asking (0 s)'
    ])
    progress.finished({
      ...answered,
      judge: 'openai:gpt-5.4',
      extra: { criteria: ['edge-cases'], reserve: true }
    })
    expect(err.at(-1)?.startsWith('\x1b[1A\r\x1b[2K  ✓ openai:gpt-5.4 #1: ACCEPT')).toBe(true)
  })
})

describe('whom the council still waits for', () => {
  const line = 'Judges: 1 of 2 done; still waiting on anthropic:claude-sonnet-4-6 (30 s)'

  it('in a log, a line of its own on stderr, under the calls', () => {
    const { io: cli, err } = io(false)
    terminalCouncilProgress(cli).waiting?.(line)
    expect(err).toEqual([`  ${line}`])
  })

  it('in a terminal, none: the live lines show each call’s time already', () => {
    const { io: cli } = io(true)
    expect(terminalCouncilProgress(cli).waiting).toBeUndefined()
  })

  it('in the job log, an info line', () => {
    const log = recordingIO()
    councilProgress(log).waiting?.(line)
    expect(log.log).toEqual([line])
  })
})

describe('a member that retires within 30 days', () => {
  const line =
    '"anthropic:claude-sonnet-4-5" retires on 2026-11-30, in 3 days; use "anthropic:claude-sonnet-4-6" before then'

  it('in the job log, a warning annotation', () => {
    const log = recordingIO()
    councilProgress(log).retiring?.(line)
    expect(log.log).toEqual([`warning: Rubric Council: ${line}`])
  })

  it('in a terminal, nothing more: check said it before the run, with the rubric’s line', () => {
    const { io: cli } = io(false)
    expect(terminalCouncilProgress(cli).retiring).toBeUndefined()
  })
})
