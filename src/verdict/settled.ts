import type { CouncilOutcome, JudgeAnswer, JudgeRun } from '../council/types.js'
import type { Rubric } from '../rubric/types.js'
import { decide, type VerdictInput } from './decide.js'
import type { ReasonCode, Verdict } from './types.js'

/**
 * A verdict as soon as it is settled (docs/verdict.md#a-settled-verdict): the verdict the answers in
 * hand give, when no completion of the outstanding calls (each answers anything, or fails) and of
 * the extra votes that could follow them can change it; else undefined, and the council waits.
 *
 * Every completion is covered without listing them, by one completion that is the most favourable
 * to the change on every count a hard failure (row 4) is counted on: each outstanding call answers
 * PASS on every checklist criterion, 10 on every score, with no finding and ACCEPT, and every extra
 * vote that could still be cast is a PASS on every must-have. Each hard failure is monotone in
 * these: a PASS vote, a higher score, an answer without a blocking finding or a judge that accepts
 * only ever takes a hard failure away, never adds one. So when that completion still fails on a
 * hard failure, with the quorum already met (row 3 cannot intervene), every completion does.
 *
 * Only a FAIL settles early: by such a hard failure, or by a failed gate (row 2), whatever the
 * judges say. A PASS never does, nor an UNCLEAR: the score and the agreement are not monotone in
 * the answers, and the required check must never go green by an early stop.
 */
export function settledVerdict(input: VerdictInput, outstanding: Outstanding): Verdict | undefined {
  const council = input.council
  if (council === undefined) return undefined
  const inHand = decide(input)
  const first = inHand.reasons[0]?.code
  if (first === 'gate_failed') return inHand
  if (outstanding.pending.length === 0) return undefined
  if (inHand.verdict !== 'FAIL' || !inHand.reasons.every(r => HARD.has(r.code))) return undefined
  const favourable = decide({
    ...input,
    council: favourableCompletion(input, council, outstanding)
  })
  const stillHard = favourable.verdict === 'FAIL' && favourable.reasons.every(r => HARD.has(r.code))
  return stillHard ? inHand : undefined
}

/** The calls still out, and who could cast an extra vote after them. */
export interface Outstanding {
  readonly pending: readonly { readonly judge: string; readonly sample: number }[]
  /** The reserves the council may ask for an extra vote (`Council.reserves`). */
  readonly reserves: readonly string[]
}

/** Row 4's reasons: each monotone in the answers, as `settledVerdict` needs. */
const HARD: ReadonlySet<ReasonCode> = new Set([
  'criterion_failed',
  'min_score',
  'blocking_issue',
  'terminate'
])

function favourableCompletion(
  input: VerdictInput,
  council: CouncilOutcome,
  { pending, reserves }: Outstanding
): CouncilOutcome {
  const answer = favourableAnswer(input.rubric)
  const answered: JudgeRun[] = pending.map(({ judge, sample }) => ({
    judge,
    sample,
    latencyMs: 0,
    status: 'ok',
    answer
  }))
  const must = input.rubric.criteria.filter(c => c.required && !c.scoreRanges).map(c => c.id)
  const extras: JudgeRun[] = Array.from(
    { length: extraVotesLeft(input, council, pending, reserves) },
    (_, i) => ({
      // A name no member or reserve has: each extra vote counts once, as a voter of its own.
      judge: `\u0000extra-${i + 1}`,
      sample: 1,
      latencyMs: 0,
      status: 'ok',
      answer,
      extra: { criteria: must, reserve: true }
    })
  )
  return { ...council, runs: [...council.runs, ...answered, ...extras] }
}

/** The answer most favourable to the change: what a judge that approves everything would give. */
function favourableAnswer(rubric: Rubric): JudgeAnswer {
  return {
    findings: [],
    criteria: rubric.criteria.map(c =>
      c.scoreRanges
        ? { id: c.id, score: 10, reasoning: '' }
        : { id: c.id, verdict: 'PASS', reasoning: '' }
    ),
    dimensions: rubric.dimensions.map(d => ({ name: d.name, score: 10, reasoning: '' })),
    verdict: 'ACCEPT',
    feedback: ''
  }
}

/**
 * At most how many extra votes could still be cast (src/engine/evaluate.ts): none after a failed
 * gate; else up to the rubric's budget less those cast, one per voter who has not voted: a reserve,
 * or a member without an answer and without a call still out (a member with one out votes in it).
 */
function extraVotesLeft(
  { rubric, gates }: VerdictInput,
  council: CouncilOutcome,
  pending: Outstanding['pending'],
  reserves: readonly string[]
): number {
  if (!gates.every(g => g.status === 'pass')) return 0
  const cast = council.runs.filter(r => r.extra !== undefined)
  const answered = new Set(council.runs.filter(r => r.status === 'ok').map(r => r.judge))
  const out = new Set(pending.map(p => p.judge))
  const members = new Set(council.runs.filter(r => r.extra === undefined).map(r => r.judge))
  const silent = [...members].filter(j => !answered.has(j) && !out.has(j))
  const voters = new Set([...reserves.filter(r => !members.has(r)), ...silent])
  const spoken = new Set(cast.map(r => r.judge))
  const left = [...voters].filter(v => !spoken.has(v)).length
  return Math.max(0, Math.min(rubric.council.maxExtraVotes - cast.length, left))
}
