import { z } from 'zod'
import type { Evaluation } from '../engine/evaluation.js'
import type { HistoryEntry } from '../engine/history.js'
import { summaryLine } from './summary.js'

const Entry = z.object({
  iteration: z.int().positive(),
  commit: z.string().regex(/^[0-9a-f]{7,64}$/),
  verdict: z.enum(['PASS', 'FAIL', 'UNCLEAR']),
  summary: z.string().max(500),
  rubricHash: z.string().max(64),
  reasons: z.array(z.string().max(64)).max(20)
})
const State = z.object({ v: z.literal(1), history: z.array(Entry).max(500) })

/** The most iterations kept; older ones are dropped so the comment stays small. */
export const MAX_HISTORY = 100

const STATE_OPEN = '<!-- rubric-council-state:'
const STATE_CLOSE = ' -->'

/**
 * The history, hidden at the end of the comment as base64 JSON (base64 so that no text in it can
 * end the HTML comment). Anything unreadable is treated as no history, never as an error.
 */
export function readHistory(body: string): HistoryEntry[] {
  const start = body.lastIndexOf(STATE_OPEN)
  if (start === -1) return []
  const end = body.indexOf(STATE_CLOSE, start)
  if (end === -1) return []
  try {
    const json: unknown = JSON.parse(
      Buffer.from(body.slice(start + STATE_OPEN.length, end), 'base64').toString('utf8')
    )
    const parsed = State.safeParse(json)
    return parsed.success ? parsed.data.history : []
  } catch {
    return []
  }
}

export function writeHistory(history: readonly HistoryEntry[]): string {
  const kept = history.slice(-MAX_HISTORY)
  return `${STATE_OPEN}${Buffer.from(JSON.stringify({ v: 1, history: kept })).toString('base64')}${STATE_CLOSE}`
}

/** What a run adds to the history: the evaluation of `commit`, in one line. */
export function historyEntry(evaluation: Evaluation, commit: string): HistoryEntry {
  return {
    iteration: evaluation.iteration,
    commit,
    verdict: evaluation.verdict.verdict,
    summary: summaryLine(evaluation),
    rubricHash: evaluation.rubric.hash ?? '',
    reasons: evaluation.verdict.reasons.map(r => r.code)
  }
}
