import * as core from '@actions/core'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { prepareRun } from './action/context.js'
import { InputError, readActionInputs } from './action/inputs.js'
import { reviewPorts } from './action/ports.js'
import { coreIO } from './action/io.js'
import { endEarly, internalError, runUrl } from './action/publish.js'
import { reviewPullRequest } from './action/review.js'
import { chooseRubric } from './action/rubric.js'
import { actionGitHub } from './github/port.js'
import type { FailOn } from './verdict/outcome.js'
import { maskSecrets, secretValues } from './util/secrets.js'

/**
 * The action's shell: inputs, context and clients in, one review out (src/action/review.ts).
 * Zero arguments, so that `@github/local-action` can drive it. Nothing that goes wrong leaves
 * the step green: every failure ends in a verdict with a named reason, or the step fails.
 */
export async function run(): Promise<void> {
  const env = process.env
  const io = coreIO()
  // Registered first, so no log line, summary or annotation below can show them.
  const secrets = secretValues(env)
  for (const secret of secrets) core.setSecret(secret)
  const mask = (text: string): string => maskSecrets(text, secrets)
  const workspace = env.GITHUB_WORKSPACE ?? process.cwd()
  const tempDir = join(env.RUNNER_TEMP ?? tmpdir(), 'rubric-council')
  let where = { failOn: 'unclear' as FailOn, workspace, tempDir, cwd: workspace }
  try {
    const inputs = readActionInputs(name => core.getInput(name))
    where = { ...where, failOn: inputs.failOn, cwd: resolve(workspace, inputs.workingDirectory) }
    const github = actionGitHub(env, inputs.githubToken, io.warning)
    const prepared = await prepareRun(env, inputs, where, github)
    if (prepared.kind !== 'ready') {
      await endEarly(prepared, where, io)
      return
    }
    const { run } = prepared
    const bundleDir = dirname(fileURLToPath(import.meta.url))
    const ports = reviewPorts({ env, inputs, dirs: where, run, github, mask, bundleDir, io })
    const rubric = chooseRubric(github, run, inputs, where)
    await reviewPullRequest(
      { run, inputs, rubric, ports },
      { ...where, detailsUrl: runUrl(env) },
      io
    )
  } catch (error) {
    if (error instanceof InputError)
      await endEarly({ kind: 'invalid', message: error.message }, where, io)
    else internalError(error, io)
  }
}
