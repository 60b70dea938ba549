import * as core from '@actions/core'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { actionsGateLog } from './action/log.js'
import { publish } from './action/publish.js'
import { unconfiguredCouncil } from './council/unconfigured.js'
import { evaluate } from './engine.js'
import { InputError, readActionInputs, type FailOn } from './inputs.js'
import type { Evaluation } from './report/evaluation.js'
import { secretValues } from './secrets.js'
import { invalidVerdict } from './verdict/decide.js'

/**
 * The action's composition root: inputs and environment in, engine, reports out. Zero arguments,
 * so that `@github/local-action` can drive it. Nothing that goes wrong leaves the step green.
 */
export async function run(): Promise<void> {
  const env = process.env
  const workspace = env.GITHUB_WORKSPACE ?? process.cwd()
  const tempDir = join(env.RUNNER_TEMP ?? tmpdir(), 'rubric-council')
  // Registered first, so no log line, summary or annotation below can show them.
  for (const secret of secretValues(env)) core.setSecret(secret)

  let failOn: FailOn = 'unclear'
  let cwd = workspace
  try {
    let evaluation: Evaluation
    try {
      const inputs = readActionInputs(name => core.getInput(name))
      failOn = inputs.failOn
      cwd = resolve(workspace, inputs.workingDirectory)
      evaluation = await evaluate(
        {
          path: inputs.rubric,
          ...(inputs.checker !== undefined && { checker: inputs.checker }),
          cwd,
          tempDir
        },
        { council: unconfiguredCouncil, log: actionsGateLog(), env }
      )
    } catch (error) {
      if (!(error instanceof InputError)) throw error
      evaluation = {
        verdict: invalidVerdict('invalid_input', error.message),
        rubric: { path: '', source: 'file', problems: [], counts: { gates: 0, must: 0, nice: 0 } },
        gates: [],
        iteration: 1
      }
    }
    await publish(evaluation, { failOn, tempDir, workspace, cwd })
  } catch (error) {
    // A bug: whatever was thrown, Error or not, fails the step with a name.
    core.setOutput('verdict', 'UNCLEAR')
    core.setOutput('exit-code', '2')
    core.setOutput('reasons', 'internal_error')
    core.setFailed(
      `Rubric Council failed with an internal error (please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`
    )
    process.exitCode = 2
  }
}
