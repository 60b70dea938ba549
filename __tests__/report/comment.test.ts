import { describe, expect, it } from 'vitest'
import { commentMarker, renderComment } from '../../src/report/comment.js'
import type { HistoryEntry } from '../../src/engine/history.js'
import { MAX_HISTORY, readState, writeState } from '../../src/report/history.js'
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

  it('keeps the newest iterations when there are too many', () => {
    const history = Array.from({ length: MAX_HISTORY + 5 }, (_, i) => entry(i + 1))
    expect(readState(writeState({ history })).history.map(h => h.iteration)).toEqual(
      history.slice(5).map(h => h.iteration)
    )
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
    const history = Array.from({ length: MAX_HISTORY }, (_, i) => entry(i + 1))
    const huge = {
      runs: ['openai:a', 'openai:b', 'openai:c'].map(judge =>
        judgeRun(SEARCH_RUBRIC, { judge, reasoning: () => 'x'.repeat(40_000) })
      ),
      quorum: 2
    }
    const body = renderComment(
      { ...evaluationOf(SEARCH_RUBRIC, gates, huge), history, iteration: MAX_HISTORY },
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
