import type { SessionOutcome } from './session.js'

// What `rubric-council loop` says as it runs (docs/agent-loop.md).

/** The start of an iteration's part: the doer's, or the check's. */
export function iterationLine(iteration: number, max: number, part: 'the doer' | 'the check') {
  return `rubric-council: iteration ${iteration} of ${max}: ${part}`
}

/** The doer failed (`detail`: it timed out, or did not start), or exited other than 0. */
export function doerFailedLine(exitCode: number | null, detail: string | undefined): string {
  return `rubric-council: the doer ${detail ?? `exited ${exitCode}`}; the check runs all the same`
}

/** A session of every rubric, once the rubrics folder holds none. */
export function rubricsGoneLine(folder: string): string {
  return `rubric-council: the session checks every rubric of the repository, and ${folder}/ no longer holds one; start the loop again, or pass --rubric FILE`
}

/** The loop's last line: how it ended, and where the feedback is when it did not ACCEPT. */
export function endLine(
  outcome: SessionOutcome,
  iteration: number,
  max: number,
  session: string,
  feedback: string
): string {
  switch (outcome) {
    case 'accepted':
      return `ACCEPT at iteration ${iteration} of ${max} (session ${session})`
    case 'terminated':
      return `TERMINATE at iteration ${iteration} of ${max}: the judges recommend stopping (session ${session}); feedback: ${feedback}`
    default:
      return `no ACCEPT after ${iteration} iterations (session ${session}); the last feedback: ${feedback}`
  }
}

/** A session a signal (Ctrl-C, SIGTERM) ended: what of it is kept, and where. */
export function interruptedLine(session: string, iterations: number, state: string): string {
  const kept =
    iterations === 0
      ? 'no iteration had finished'
      : `its ${iterations} finished ${iterations === 1 ? 'iteration is' : 'iterations are'} kept`
  return `rubric-council: session ${session} interrupted; ${kept} in ${state}`
}
