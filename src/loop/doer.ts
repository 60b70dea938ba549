import { runGate } from '../gates/run.js'
import type { GateLog, GateResult } from '../gates/types.js'

/**
 * The doer is the user's own command (an agent, a script), run with their whole environment: it
 * may need its own keys. Like a gate it runs in its own process group, which nothing outlives; an
 * agent may take long, so the only limit is the timer's (about 24 days).
 */
const DOER_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000)

/** Where the doer runs: the checkout, the user's environment, its output's log and masking. */
export interface DoerPlace {
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly log: GateLog
  readonly mask: (text: string) => string
}

/**
 * The doer, run like a gate (bash, its own process group), told the iteration, the session and,
 * from the second iteration, the feedback file (docs/agent-loop.md).
 */
export function runDoer(
  command: string,
  iteration: number,
  session: string,
  feedback: string | undefined,
  place: DoerPlace
): Promise<GateResult> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(place.env)) if (value !== undefined) env[name] = value
  env.RUBRIC_COUNCIL_ITERATION = String(iteration)
  env.RUBRIC_COUNCIL_SESSION = session
  if (feedback === undefined) delete env.RUBRIC_COUNCIL_FEEDBACK
  else env.RUBRIC_COUNCIL_FEEDBACK = feedback
  return runGate(
    { command, timeout: DOER_TIMEOUT_SECONDS, line: 0 },
    // As `bash -c` runs a command line: each of its commands runs, whatever the one before did.
    {
      cwd: place.cwd,
      env,
      log: place.log,
      mask: place.mask,
      parallel: 1,
      shellOptions: []
    }
  )
}
