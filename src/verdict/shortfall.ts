import type { CouncilFailure, CouncilOutcome } from '../council/types.js'
import { keyVariable } from '../council/providers/index.js'
import { parseModelId } from '../rubric/model-id.js'
import type { Reason } from './types.js'

/** The order in which a failure is named when several kinds keep the council short of quorum. */
const FAILURE_PRECEDENCE: readonly CouncilFailure[] = [
  'missing_credentials',
  'rejected_credentials',
  'rate_limited',
  'timeout',
  'context_overflow',
  'provider_error',
  'answer_cut',
  'invalid_output'
]

/**
 * Row 3's reason: the council fell short of its quorum. The most frequent failure names the
 * cause; ties (and no failures at all: no judge could be formed) go by precedence.
 */
export function shortfallReason(
  council: CouncilOutcome | undefined,
  valid: number,
  quorum: number
): Reason {
  const failed = (council?.runs ?? []).flatMap(r => (r.status === 'failed' ? [r] : []))
  const counts = new Map<CouncilFailure, number>()
  for (const run of failed) counts.set(run.failure, (counts.get(run.failure) ?? 0) + 1)
  const cause =
    [...FAILURE_PRECEDENCE].sort((a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0))[0] ??
    'missing_credentials'
  const providerErrors = failed.filter(r => r.failure === 'provider_error')
  return {
    code: cause,
    valid,
    asked: council?.runs.length ?? 0,
    quorum,
    failures: failed.map(r => {
      const keyRejected = r.failure === 'rejected_credentials' ? keyOf(r.judge) : undefined
      return {
        judge: r.judge,
        message: r.message,
        failure: r.failure,
        ...(keyRejected !== undefined && { keyRejected }),
        ...(r.notAsked && { notAsked: true as const })
      }
    }),
    // A request the providers rejected as such will be rejected again.
    rejected: providerErrors.length > 0 && providerErrors.every(r => r.rejected === true)
  }
}

/** The variable a judge's provider reads its key from (the provider table's). */
function keyOf(judge: string): string | undefined {
  const id = parseModelId(judge)
  return id.ok ? keyVariable(id.value.provider) : undefined
}
