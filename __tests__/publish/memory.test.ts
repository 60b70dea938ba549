import { describe, expect, it } from 'vitest'
import type { HistoryEntry } from '../../src/engine/history.js'
import {
  commentMarker,
  historyEntry,
  MAX_HISTORY,
  MAX_WAIVER_ID,
  MAX_WAIVERS,
  mergeHistories,
  readState,
  renderComment,
  verdictToAccept,
  withAcceptance,
  withAlert,
  writeState,
  type CommentState
} from '../../src/publish/memory.js'
import { COMMENT_LIMIT } from '../../src/report/markdown.js'
import { diffRubrics } from '../../src/rubric/diff.js'
import { evaluationOf, gateResult, judgeRun, SEARCH_RUBRIC } from '../helpers/evaluation.js'
import { parse } from '../helpers/rubric.js'

const entry = (iteration: number, rubricHash = 'aaaaaaaaaaaa'): HistoryEntry => ({
  iteration,
  commit: `${iteration}`.padStart(7, '0') + 'abcdef',
  verdict: iteration % 2 ? 'FAIL' : 'PASS',
  summary: `gates 1/1 · must ${iteration}/3`,
  rubricHash,
  reasons: iteration % 2 ? ['criterion_failed'] : []
})

describe('the history kept in the comment', () => {
  it('round-trips through the hidden state, and ignores anything unreadable', () => {
    const history = [entry(1), entry(2, 'bbbbbbbbbbbb')]
    const body = `<!-- rubric-council:x -->\nreport\n${writeState({ history })}\n`
    expect(readState(body).history).toEqual(history)
    expect(readState('no state here').history).toEqual([])
    expect(readState('<!-- rubric-council-state:!!notbase64 -->').history).toEqual([])
    const forged = Buffer.from(JSON.stringify({ v: 1, history: [{ iteration: -1 }] })).toString(
      'base64'
    )
    expect(readState(`<!-- rubric-council-state:${forged} -->`).history).toEqual([])
  })

  it('keeps the newest iterations when there are too many, the older ones said in one entry', () => {
    const history = Array.from({ length: MAX_HISTORY + 5 }, (_, i) => entry(i + 1))
    const kept = readState(writeState({ history })).history
    expect(kept.slice(1)).toEqual(history.slice(5))
    expect(kept[0]).toMatchObject({ iteration: 5, note: '5 earlier iterations not kept' })
  })
})

describe('the sticky comment', () => {
  const gates = [gateResult('npm test', 'pass')]
  const council = {
    runs: ['openai:a', 'openai:b'].map(judge => judgeRun(SEARCH_RUBRIC, { judge })),
    quorum: 2
  }

  it('starts with the marker, shows the iterations with rubric changes marked, and ends with the state', () => {
    const history = [entry(1), entry(2), entry(3, 'cccccccccccc')]
    const body = renderComment(
      { ...evaluationOf(SEARCH_RUBRIC, gates, council), history, iteration: 3 },
      'rubric-council'
    )
    expect(body.split('\n')[0]).toBe('<!-- rubric-council:rubric-council -->')
    expect(body).toContain('<summary><b>Iterations</b> · 3</summary>')
    expect(body).toContain(
      '| 3 | <code>0000003</code> | ❌ FAIL | gates 1/1 · must 3/3 | <code>cccccccccccc</code> ✎ changed |'
    )
    expect(body).toContain('| 2 | <code>0000002</code> | ✅ PASS |')
    expect(readState(body).history).toEqual(history)
  })

  it('fits the comment limit with a long history and huge reasonings, keeping the state whole', () => {
    const history = Array.from({ length: 100 }, (_, i) => entry(i + 1))
    const huge = {
      runs: ['openai:a', 'openai:b', 'openai:c'].map(judge =>
        judgeRun(SEARCH_RUBRIC, { judge, reasoning: () => 'x'.repeat(40_000) })
      ),
      quorum: 2
    }
    const body = renderComment(
      { ...evaluationOf(SEARCH_RUBRIC, gates, huge), history, iteration: 100 },
      'rubric-council'
    )
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT)
    expect(readState(body).history).toEqual(history)
  })

  it('keeps check names apart, and a name cannot end the marker', () => {
    expect(commentMarker('rubric-council')).not.toBe(commentMarker('security'))
    expect(commentMarker('a --> b')).toBe('<!-- rubric-council:a _ b -->')
  })

  it('warns at the top when the pull request weakens its rubric', () => {
    const weaker = parse(
      SEARCH_RUBRIC.text.replace('- `ruff check src/search/`\n', ''),
      '.github/rubric.md'
    )
    const diff = diffRubrics(SEARCH_RUBRIC, weaker)
    const body = renderComment(
      { ...evaluationOf(SEARCH_RUBRIC, gates, council), rubricReview: { source: 'base', diff } },
      'rubric-council'
    )
    expect(body).toContain(
      '> [!WARNING]\n> This pull request **weakens the rubric** that grades it; the verdict uses the rubric from the base branch. Weakened: gate \\`ruff check src/search/\\` removed'
    )
    expect(body).toContain('- ⚠️ **weakens:** gate \\`ruff check src/search/\\` removed')
    expect(body).toContain(
      '<summary><b>Rubric</b> · Search feature · read from the base · changed by this PR, weakened</summary>'
    )
  })

  it('says what to do next right under the summary line, on FAIL and UNCLEAR only', () => {
    const failing = [gateResult('npm test', 'fail'), gateResult('npm run lint', 'pass')]
    const body = renderComment(evaluationOf(SEARCH_RUBRIC, failing, council), 'rubric-council')
    expect(body.split('\n').slice(1, 6)).toEqual([
      '### ❌ Rubric Council: FAIL',
      '',
      '**gates 1/2 · must 3/3 · nice 1/1 · score 0.85 · confidence 1 · judges 2/2**',
      '',
      '**Next:** Run <code>npm test</code> locally to see why it failed, fix it and push; the check runs again on every push.'
    ])
    const passing = renderComment(evaluationOf(SEARCH_RUBRIC, gates, council), 'rubric-council')
    expect(passing).not.toContain('**Next:**')
  })

  it('keeps the next step when the report is shortened, and when only the fallback fits', () => {
    const huge = {
      runs: ['openai:a', 'openai:b', 'openai:c'].map(judge =>
        judgeRun(SEARCH_RUBRIC, { judge, reasoning: () => 'x'.repeat(40_000) })
      ),
      quorum: 2
    }
    const next =
      '**Next:** Fix the gates that failed (the report shows their output) and push; the check runs again on every push.'
    const failing = evaluationOf(
      SEARCH_RUBRIC,
      [gateResult('npm test', 'fail', 'y'.repeat(200_000)), gateResult('npm run lint', 'timeout')],
      huge
    )
    const body = renderComment(failing, 'rubric-council')
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT)
    expect(body).toContain('This report was shortened to fit.')
    expect(body.split('\n')[5]).toBe(next)
    // A budget too small for the head itself: the fallback still says what to do.
    const tiny = renderComment(failing, 'rubric-council', {}, 2_000)
    expect(tiny.length).toBeLessThanOrEqual(2_000)
    expect(tiny).toContain('The report is too long to show here')
    expect(tiny).toContain(next)
  })
})

/** The most a history entry can hold as the state's schema reads it, in the costliest characters. */
const costly = (length: number): string => '"\u0007é'.repeat(length).slice(0, length)
const maximal = (iteration: number): HistoryEntry => ({
  iteration,
  commit: iteration.toString(16).padStart(64, 'f'),
  verdict: 'FAIL',
  summary: costly(500),
  rubricHash: 'h'.repeat(64),
  reasons: Array.from({ length: 20 }, (_, i) => `${'r'.repeat(62)}${String(i).padStart(2, '0')}`),
  note: costly(500),
  at: new Date(Date.UTC(2026, 0, 1, 0, 0, iteration)).toISOString()
})
/** The largest judgement the verdict cache keeps, the longest acceptance, and the most waivers. */
const KEPT: Omit<CommentState, 'history'> = {
  judgement: {
    iteration: 1,
    digest: 'd'.repeat(64),
    runs: 'A'.repeat(24_000),
    quorum: 2,
    seal: 'e'.repeat(64)
  },
  accepted: {
    commit: 'c'.repeat(64),
    by: `${'m'.repeat(39)}[bot]`,
    reason: costly(500),
    commentId: 2 ** 31
  },
  waivers: Array.from({ length: MAX_WAIVERS }, (_, i) => ({
    commit: 'c'.repeat(64),
    criterion: `${i}`.padEnd(64, 'w'),
    by: `${'w'.repeat(39)}[bot]`,
    commentId: 2 ** 31 + i
  }))
}
/** GitHub counts a comment's length in Unicode code points. */
const codePoints = (text: string): number => Array.from(text).length

describe('the comment at any number of iterations', () => {
  const council = {
    runs: ['openai:a', 'openai:b', 'openai:c'].map(judge =>
      judgeRun(SEARCH_RUBRIC, { judge, reasoning: () => 'x'.repeat(12_000) })
    ),
    quorum: 2
  }
  const failing = evaluationOf(
    SEARCH_RUBRIC,
    [gateResult('npm test', 'fail', 'y'.repeat(30_000))],
    council
  )

  it('stays within 65,536 characters over 1,000 iterations of maximal entries, keeping the newest', () => {
    let history: readonly HistoryEntry[] = []
    let body = ''
    for (let iteration = 1; iteration <= 1_000; iteration++) {
      const next = [...history, maximal(iteration)]
      // Every comment while the history fills up; then every 100th (rendering is the slow part),
      // the state in between carried as the comment carries it.
      if (iteration <= 30 || iteration % 100 === 0) {
        body = renderComment({ ...failing, history: next, iteration }, 'rubric-council', KEPT)
        expect(codePoints(body)).toBeLessThanOrEqual(65_536)
        history = readState(body).history
      } else {
        history = readState(writeState({ ...KEPT, history: next })).history
      }
      // The newest entry whole, and the iterations before it without a gap.
      expect(history.at(-1)).toEqual(maximal(iteration))
      const tail = history.filter(h => !(h.note?.endsWith('not kept') ?? false))
      expect(tail.map(h => h.iteration)).toEqual(
        Array.from({ length: tail.length }, (_, i) => iteration - tail.length + 1 + i)
      )
      expect(tail.length).toBeGreaterThanOrEqual(Math.min(iteration, 20))
    }
    expect(history[0]?.note).toBe(`${history[0]?.iteration} earlier iterations not kept`)
    // The report is still there, shortened.
    expect(body).toContain('### ❌ Rubric Council: FAIL')
    expect(body).toContain('This report was shortened to fit.')
  }, 60_000)

  it('has room for an acceptance the bot adds later without rendering the report again', () => {
    let body = ''
    for (let iteration = 1; iteration <= 30; iteration++) {
      const history = [...readState(body).history, maximal(iteration)]
      body = renderComment({ ...failing, history, iteration }, 'rubric-council', KEPT)
    }
    const state = readState(body)
    const accepted = withAcceptance(
      body,
      { by: 'm'.repeat(39), reason: '|*_<'.repeat(75), commit: 'c'.repeat(64) },
      { ...state, history: [...state.history, maximal(31)] }
    )
    expect(codePoints(accepted)).toBeLessThanOrEqual(65_536)
    expect(accepted).toContain(`> **Accepted by @${'m'.repeat(39)}** for`)
    expect(readState(accepted).history.at(-1)).toEqual(maximal(31))
    // A second acceptance replaces the first note.
    const again = withAcceptance(
      accepted,
      { by: 'octocat', reason: 'second look', commit: 'c'.repeat(64) },
      readState(accepted)
    )
    expect(again.match(/Accepted by/g)).toHaveLength(1)
    expect(again).toContain('**Accepted by @octocat**')
  })

  it('takes a new alert about other check runs in place of the old one, beside an acceptance, and keeps it through one', () => {
    const alert = (id: number): string =>
      `> [!WARNING]\n> Another check run named <code>rubric-council</code>: check run ${String(id)}.\n\n`
    const body = renderComment(failing, 'rubric-council', {}, COMMENT_LIMIT, alert(1))
    expect(body.split('\n').slice(0, 3)).toEqual([
      commentMarker('rubric-council'),
      '<!-- rubric-council-alert -->',
      '> [!WARNING]'
    ])
    const state = readState(body)
    const accepted = withAcceptance(
      body,
      { by: 'octocat', reason: 'fine', commit: 'c'.repeat(40) },
      state
    )
    expect(accepted).toContain('check run 1.')
    const refreshed = withAlert(accepted, alert(2))
    expect(refreshed).not.toContain('check run 1.')
    expect(refreshed.match(/Another check run named/g)).toHaveLength(1)
    // Under the acceptance's note, which stays; the report and the state as they were.
    expect(refreshed.indexOf('Accepted by')).toBeLessThan(refreshed.indexOf('check run 2.'))
    expect(refreshed.slice(refreshed.indexOf('### '))).toBe(
      accepted.slice(accepted.indexOf('### '))
    )
    expect(withAlert(refreshed, alert(2))).toBe(refreshed)
    // Into a comment that had none, under the marker; and none at all again.
    const plain = renderComment(failing, 'rubric-council')
    expect(withAlert(plain, alert(3)).split('\n')[1]).toBe('<!-- rubric-council-alert -->')
    expect(withAlert(withAlert(plain, alert(3)), '')).toBe(plain)
    // Never over the limit: the comment stays as it was instead.
    expect(withAlert(plain, alert(4), plain.length + 10)).toBe(plain)
  })

  it('drops a judgement too large to leave room for the newest entries, never the entries', () => {
    const history = [maximal(1)]
    const state = readState(writeState({ ...KEPT, history }, 33_000))
    expect(state.history).toEqual(history)
    expect(state.judgement).toBeUndefined()
    // Entries of everyday size: the largest judgement and a long history fit together.
    const everyday = Array.from({ length: 300 }, (_, i) => ({ ...entry(i + 1), at: maximal(1).at }))
    const both = readState(writeState({ ...KEPT, history: everyday }))
    expect(both.judgement).toEqual(KEPT.judgement)
    expect(both.history.length).toBeGreaterThan(20)
    expect(both.history.at(-1)).toEqual(everyday.at(-1))
  })
})

describe('two writes of the history made at once', () => {
  const at = (iteration: number, commit: string): HistoryEntry => ({
    ...entry(iteration),
    commit: commit.repeat(40),
    at: `2026-01-01T00:00:0${iteration}.000Z`
  })

  it('keeps every run of both, once, the current head’s last', () => {
    const fresh = [at(1, 'a'), at(2, 'c')]
    const ours = [at(1, 'a'), at(2, 'b')]
    expect(mergeHistories(fresh, ours, 'c'.repeat(40))).toEqual([
      at(1, 'a'),
      at(2, 'b'),
      at(2, 'c')
    ])
    expect(mergeHistories(ours, fresh, 'c'.repeat(40))).toEqual([
      at(1, 'a'),
      at(2, 'b'),
      at(2, 'c')
    ])
  })

  it('puts the current head’s newest run last, even when a late run of an older head started after it', () => {
    const fresh = [at(1, 'b')]
    const ours = [at(1, 'b'), at(2, 'a')]
    expect(mergeHistories(fresh, ours, 'b'.repeat(40))).toEqual([at(2, 'a'), at(1, 'b')])
  })

  it('does not bring back what the comment has already compacted away', () => {
    const fresh = [at(5, 'e'), at(6, 'f')]
    expect(mergeHistories(fresh, [at(3, 'a'), at(7, 'b')], 'b'.repeat(40))).toEqual([
      at(5, 'e'),
      at(6, 'f'),
      at(7, 'b')
    ])
  })
})

describe('what /council accept accepts', () => {
  const head = 'a'.repeat(40)
  const verdict = { ...entry(1), commit: head, at: '2026-01-01T10:00:00.000Z' }
  it.each([
    [
      'the newest verdict is the head’s and older than the command',
      [verdict],
      '2026-01-01T10:05:00Z',
      true
    ],
    [
      'the verdict on the head came after the command (a push since)',
      [verdict],
      '2026-01-01T09:59:59Z',
      'verdict_after_command'
    ],
    [
      'the newest verdict is about another commit',
      [{ ...verdict, commit: 'b'.repeat(40) }],
      '2026-01-01T10:05:00Z',
      'no_verdict'
    ],
    ['no verdict at all', [], '2026-01-01T10:05:00Z', 'no_verdict'],
    [
      'a verdict without its time (written by an older version)',
      [{ ...verdict, at: undefined }],
      '2026-01-01T10:05:00Z',
      'verdict_after_command'
    ],
    ['a command without its time', [verdict], undefined, 'verdict_after_command']
  ] as const)('%s', (_, history, commandAt, expected) => {
    const result = verdictToAccept(history, head, commandAt)
    expect(result.ok ? true : result.problem).toBe(expected)
  })
})

describe('what a waiver may name', () => {
  it('records the failed and split must-haves a waiver may name, never breaking the history over a long id', () => {
    const long = 'x'.repeat(MAX_WAIVER_ID + 1)
    const rubric = parse(
      [
        '---',
        'dimensions: false',
        '---',
        '## Criteria',
        '- a: First',
        `- ${long}: Long`,
        '- c: Third'
      ].join('\n')
    )
    const runs = ['openai:a', 'openai:b'].map(judge =>
      judgeRun(rubric, { judge, fail: ['a', long] })
    )
    const evaluation = evaluationOf(rubric, [], { runs, quorum: 2 })
    const entry = historyEntry(evaluation, 'f'.repeat(40), undefined, new Date(0))
    expect(entry.waivable).toEqual(['a'])
    expect(readState(writeState({ history: [entry] })).history).toEqual([entry])
  })
})
