import * as core from '@actions/core'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { actionsGateLog } from './action/log.js'
import { publish } from './action/publish.js'
import { createCouncil } from './council/council.js'
import { evaluate } from './engine.js'
import { noEvidence, pullRequestEvidence } from './evidence/git-source.js'
import { readPullRequest } from './github/event.js'
import { InputError, readActionInputs, type FailOn } from './inputs.js'
import type { Evaluation } from './report/evaluation.js'
import { maskSecrets, secretValues } from './secrets.js'
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
  const secrets = secretValues(env)
  for (const secret of secrets) core.setSecret(secret)
  const mask = (text: string): string => maskSecrets(text, secrets)

  let failOn: FailOn = 'unclear'
  let cwd = workspace
  try {
    let evaluation: Evaluation
    try {
      const inputs = readActionInputs(name => core.getInput(name))
      failOn = inputs.failOn
      cwd = resolve(workspace, inputs.workingDirectory)
      const pr = await readPullRequest(env.GITHUB_EVENT_PATH)
      const settings = {
        maxTokens: inputs.maxEvidenceTokens,
        exclude: inputs.exclude,
        iteration: 1,
        history: []
      }
      const evidence = pr
        ? pullRequestEvidence({ ...settings, cwd: workspace, ...pr })
        : noEvidence(
            `this run (event "${env.GITHUB_EVENT_NAME ?? 'unknown'}") is not for a pull request, so there is no change to review`
          )
      const council = createCouncil({
        env,
        models: inputs.models,
        ...(inputs.samples !== undefined && { samples: inputs.samples }),
        mask
      })
      evaluation = await evaluate(
        {
          path: inputs.rubric,
          ...(inputs.checker !== undefined && { checker: inputs.checker }),
          cwd,
          tempDir
        },
        { council, evidence, log: actionsGateLog(), env }
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
