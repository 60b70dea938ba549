import type { Gate } from '../rubric/types.js'
import { withinChars, withinGateLimits } from './excerpt.js'
import { errorResult } from './error-result.js'
import { readRecord } from './record.js'
import { setupLabel } from './setup.js'
import type { GateResult, GateSource } from './types.js'

/** Where recorded results are read from: the run that ran the gates, through the API. */
export interface RecordingRun {
  /** Says which run and job, for messages: "the job `gates` of run 4242". */
  readonly description: string
  /** The results file's text from the run's artifact; undefined when the run recorded none. */
  readonly recordText: () => Promise<string | undefined>
  /**
   * The conclusion GitHub recorded for the job that ran the gates (`success`, `failure`, …);
   * null while it has none, undefined when the run has no such job.
   */
  readonly jobConclusion: () => Promise<string | null | undefined>
}

/** What the review is of: recorded results for anything else do not count. */
export interface RecordingFor {
  readonly pullRequest: number
  readonly headSha: string
}

/**
 * Gate results recorded by the gates sub-action in another job (the split layout). That job ran
 * the pull request's code, so its record is a claim: it counts only for this pull request, this
 * commit and this rubric, and only as far as GitHub's own record of the job agrees. A gate of the
 * rubric without a result is `error`, never `pass`; a record of all passes from a job that did not
 * succeed is not believed.
 */
export function recordedGates(run: RecordingRun, review: RecordingFor): GateSource {
  return {
    provenance: `recorded by ${run.description}, which ran the pull request's code; checked against that job's conclusion`,
    results: async rubric => {
      if (rubric.gates.length === 0) return []
      const unusable = (why: string): GateResult[] =>
        rubric.gates.map(gate => errorResult(gate, `${why}; this gate counts as not passed`))
      let text: string | undefined
      let conclusion: string | null | undefined
      try {
        ;[text, conclusion] = await Promise.all([run.recordText(), run.jobConclusion()])
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        return unusable(
          `the recorded gate results could not be read from ${run.description} (${message})`
        )
      }
      if (text === undefined) {
        return unusable(
          `${run.description} recorded no gate results (did its gates step run? It uploads them itself)`
        )
      }
      const read = readRecord(text)
      if (!read.ok) return unusable(`${run.description}: ${read.problem}`)
      const record = read.value
      if (record.pullRequest !== review.pullRequest || record.headSha !== review.headSha) {
        return unusable(
          `${run.description} recorded results for pull request #${record.pullRequest} at ${record.headSha.slice(0, 7)}, not #${review.pullRequest} at ${review.headSha.slice(0, 7)}`
        )
      }
      const ran = [
        { rubricHash: record.rubricHash, gates: record.gates },
        ...(record.others ?? [])
      ].find(r => r.rubricHash === rubric.hash)
      if (ran === undefined) {
        return unusable(
          `${run.description} ran the gates of rubric ${[record.rubricHash ?? '(unusable)', ...(record.others ?? []).map(o => o.rubricHash)].join(', ')}, but this review uses rubric ${rubric.hash}: run the workflow again`
        )
      }
      if (conclusion === undefined) {
        return unusable(`there is no such job in that run: set the gates-job input to its name`)
      }
      // The setup commands ran the pull request's code before the gates, like a gate: one that
      // did not pass is a gate that did not pass. Every limit a gate run here is kept to applies
      // again, the setup's command too: the record came from the pull request's own job.
      const results = [
        ...record.setup.map(s => ({ ...s, command: setupLabel(withinChars(s.command)) })),
        ...matchGates(rubric.gates, ran.gates)
      ].map(withinGateLimits)
      const allPass = results.every(r => r.status === 'pass')
      if (allPass && conclusion !== 'success') {
        return unusable(
          `${run.description} concluded ${conclusion ?? 'without a conclusion'}, yet its record says every gate passed: the record cannot be trusted`
        )
      }
      return results
    }
  }
}

/** Each gate of the rubric with its recorded result, in the rubric's order; `error` if none. */
function matchGates(gates: readonly Gate[], recorded: readonly GateResult[]): GateResult[] {
  const unused = [...recorded]
  return gates.map(gate => {
    const at = unused.findIndex(r => r.command === gate.command)
    if (at === -1) return errorResult(gate, 'no result was recorded for this gate')
    const [result] = unused.splice(at, 1)
    return result ?? errorResult(gate, 'no result was recorded for this gate')
  })
}
