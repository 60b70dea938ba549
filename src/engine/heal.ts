import type { ReasonCode } from '../verdict/types.js'
import type { HistoryEntry } from './history.js'

/**
 * Healing (docs/pr-bot.md#healing): which UNCLEAR verdicts a re-run may turn into a judgement once
 * the providers answer again. A function of what GitHub says of the check run and of what the
 * sticky comment remembers; nothing here asks anyone.
 */

/** A provider that did not answer: the same commit, asked again later, may get a verdict. */
export const TRANSIENT_REASONS: ReadonlySet<ReasonCode> = new Set<ReasonCode>([
  'rate_limited',
  'provider_error',
  'timeout'
])

/**
 * Reasons a re-run of the same commit under the same rubric and workflow gives again, whatever the
 * providers do: beside one of them, a re-run cannot change the verdict, so none is started.
 */
export const LASTING_REASONS: ReadonlySet<ReasonCode> = new Set<ReasonCode>([
  'invalid_rubric',
  'invalid_input',
  'gate_failed',
  'missing_credentials',
  'rejected_credentials',
  'workflow_modified',
  'incomplete_coverage'
])

/** The most times the bot re-runs the review of one head commit after an outage. */
export const MAX_HEALS_PER_COMMIT = 3

/** Our latest check run on the head commit, as GitHub lists it. */
export interface CheckRunSeen {
  readonly status: string
  readonly conclusion: string | null
  readonly title: string
}

/**
 * Whether a check run of ours is an UNCLEAR verdict: completed as an UNCLEAR concludes
 * (`action_required` or `neutral`, see publish/outcome.ts) with the verdict's title. An accepted
 * one concludes `success`, a run that failed `failure`.
 */
export function isUnclear(check: CheckRunSeen | undefined): boolean {
  return (
    check?.status === 'completed' &&
    (check.conclusion === 'action_required' || check.conclusion === 'neutral') &&
    check.title.startsWith('UNCLEAR:')
  )
}

/** Why a pull request is not re-run: nothing to heal, or not by a re-run. */
export type NotHealed =
  /** Our latest check on the head is not an UNCLEAR verdict (none, pending, PASS, FAIL, accepted). */
  | { readonly kind: 'not-unclear' }
  /** The comment records no UNCLEAR verdict on the head (another commit's, or none). */
  | { readonly kind: 'no-record' }
  /** Its reasons name no provider outage (`judge_disagreement`, …). */
  | { readonly kind: 'not-transient'; readonly reasons: readonly string[] }
  /** An outage, and beside it reasons a re-run gives again (`lasting`: `gate_failed`, …). */
  | {
      readonly kind: 'lasting'
      readonly reasons: readonly string[]
      readonly lasting: readonly string[]
    }
  /** Re-run `MAX_HEALS_PER_COMMIT` times already for this head. */
  | { readonly kind: 'enough'; readonly count: number }

/** A pull request to re-run: its verdict's reasons, and the how-manieth re-run this is. */
export interface ToHeal {
  readonly reasons: readonly string[]
  readonly count: number
}

/**
 * Whether the verdict on `head` is one a re-run may heal. The check run is GitHub's record, which
 * a pull request cannot write: it must be an UNCLEAR verdict of ours. The comment's history (which
 * a person with write access can edit) gives the reasons and `healed`, the times the bot re-ran
 * this head already; an edit of either can only start a re-run or hold one back, and a re-run
 * judges the commit afresh: it never carries a verdict over.
 */
export function healDecision(
  head: string,
  check: CheckRunSeen | undefined,
  history: readonly HistoryEntry[],
  healed: { readonly commit: string; readonly count: number } | undefined
):
  | { readonly heal: true; readonly value: ToHeal }
  | { readonly heal: false; readonly why: NotHealed } {
  if (!isUnclear(check)) return { heal: false, why: { kind: 'not-unclear' } }
  const entry = history.findLast(e => e.commit === head)
  if (entry?.verdict !== 'UNCLEAR') return { heal: false, why: { kind: 'no-record' } }
  const { reasons } = entry
  const among = (set: ReadonlySet<string>): string[] => reasons.filter(r => set.has(r))
  if (among(TRANSIENT_REASONS).length === 0) {
    return { heal: false, why: { kind: 'not-transient', reasons } }
  }
  const lasting = among(LASTING_REASONS)
  if (lasting.length > 0) return { heal: false, why: { kind: 'lasting', reasons, lasting } }
  const before = healed?.commit === head ? healed.count : 0
  if (before >= MAX_HEALS_PER_COMMIT) return { heal: false, why: { kind: 'enough', count: before } }
  return { heal: true, value: { reasons, count: before + 1 } }
}
