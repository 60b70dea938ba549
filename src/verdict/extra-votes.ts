import type { CouncilOutcome, JudgeRun } from '../council/types.js'
import type { Rubric } from '../rubric/types.js'
import { gradeCriterion } from './grade.js'
import { panelOf } from './panel.js'
import type { Tally } from './types.js'

/**
 * Extra votes (docs/verdict.md#the-numbers): when the judges are not agreed on a must-have, one
 * more independent vote at a time, until each such must-have has a lead of two votes. The rules
 * are here, as functions of the council's runs; the engine makes the calls.
 */

/**
 * A must-have's votes need another: they are not unanimous (a judge disagrees, or abstains), and
 * no side leads by two, so one more vote could take its majority away (or there is none).
 */
export function needsVote(tally: Tally): boolean {
  const unanimous =
    tally.abstain === 0 && tally.pass + tally.fail > 0 && (tally.pass === 0 || tally.fail === 0)
  return !unanimous && Math.abs(tally.pass - tally.fail) < 2
}

/**
 * The must-have checklist criteria that need another vote, the extra votes so far counted: what
 * the next extra call is asked for. None while the council is short of its quorum (row 3 decides).
 */
export function mustHavesInDoubt(rubric: Rubric, council: CouncilOutcome): string[] {
  const panel = panelOf(council)
  if (panel.answers < Math.max(1, council.quorum)) return []
  return rubric.criteria
    .filter(c => c.required && !c.scoreRanges)
    .map(c => gradeCriterion(c, panel))
    .filter(c => c.tally !== undefined && needsVote(c.tally))
    .map(c => c.id)
}

/** A voter for the next extra call. */
export interface Voter {
  readonly judge: string
  /** From `council.reserve`; else a member whose first call failed. */
  readonly reserve: boolean
}

/**
 * A failed call that another may not repeat: a malformed answer, or a provider error that was no
 * rejection of the request. A missing key, a retired model or a rejected request fails again; a
 * timeout or a rate limit (after the call's own retries) would spend the time the council has left.
 */
function worthAskingAgain(run: JudgeRun): boolean {
  if (run.status === 'ok') return false
  return (
    run.failure === 'invalid_output' ||
    (run.failure === 'provider_error' && run.rejected !== true && run.notAsked !== true)
  )
}

/**
 * Who casts the next extra vote, or nobody: a judge that has voted on nothing yet. First the
 * reserves in the rubric's order, then the members whose every call failed in a way another call
 * may not (`worthAskingAgain`). Never a member that answered (another sample of it would repeat its
 * vote), never a judge asked for an extra vote before.
 */
export function nextVoter(council: CouncilOutcome, reserves: readonly string[]): Voter | undefined {
  const spoken = new Set(
    council.runs.filter(r => r.status === 'ok' || r.extra !== undefined).map(r => r.judge)
  )
  const members = council.runs.filter(r => r.extra === undefined)
  const memberNames = new Set(members.map(r => r.judge))
  const reserve = reserves.find(judge => !spoken.has(judge) && !memberNames.has(judge))
  if (reserve !== undefined) return { judge: reserve, reserve: true }
  const failed = [...memberNames].find(
    judge => !spoken.has(judge) && members.filter(r => r.judge === judge).every(worthAskingAgain)
  )
  return failed === undefined ? undefined : { judge: failed, reserve: false }
}
