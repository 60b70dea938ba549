import type { Gate } from '../rubric/types.js'
import { runGate, type GateRunOptions } from './run.js'
import type { GateResult } from './types.js'
import { errorResult } from './error-result.js'

/**
 * The setup commands of the gates sub-action (its `setup` input: `npm ci`, `pip install -r …`).
 * They run the pull request's code (install scripts, build hooks) just as the gates do, so the
 * sub-action runs them itself, after its own code is loaded: a separate `run:` step before it
 * could rewrite the sub-action's files in the runner's actions folder (docs/security.md).
 */

/** How a setup command is named in the log, the record's reader and the report. */
export function setupLabel(command: string): string {
  return `setup: ${command}`
}

/** One command a line; blank lines and `#` comments are skipped. */
export function readSetupCommands(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map(line => line.trim())
    .filter(line => line !== '' && !line.startsWith('#'))
}

/**
 * Runs the setup commands one after another, each like a gate (`bash -eo pipefail -c`, its
 * timeout, its log group, the gates' environment); stops at the first that does not pass, since
 * what comes after it would run on a half-installed project.
 */
export async function runSetup(
  commands: readonly string[],
  timeout: number,
  options: Omit<GateRunOptions, 'parallel'>
): Promise<GateResult[]> {
  const log = {
    ...options.log,
    startGroup: (name: string) => {
      options.log.startGroup(setupLabel(name))
    }
  }
  const results: GateResult[] = []
  for (const command of commands) {
    const gate: Gate = { command, timeout, line: 0 }
    const result = await runGate(gate, { ...options, log, parallel: 1 })
    results.push(result)
    if (result.status !== 'pass') break
  }
  return results
}

/** A gate that was not run because a setup command did not pass. */
export function notRun(gate: Gate, failed: GateResult): GateResult {
  return errorResult(
    gate,
    `not run: the setup command "${failed.command}" did not pass (${failed.status})`
  )
}
