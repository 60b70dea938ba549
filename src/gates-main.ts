import * as core from '@actions/core'
import { mkdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { prepareRun } from './action/context.js'
import { InputError, readActionInputs } from './action/inputs.js'
import { actionsGateLog } from './action/log.js'
import { coreIO } from './action/io.js'
import { internalError } from './action/publish.js'
import { chooseRubric } from './action/rubric.js'
import { gateEnvironment } from './gates/environment.js'
import { GATES_FILE, writeRecord } from './gates/record.js'
import { gatesHere } from './gates/run.js'
import { actionGitHub } from './github/port.js'
import { formatIssue } from './rubric/errors.js'
import { parseRubric } from './rubric/parse.js'
import { maskSecrets, secretValues } from './util/secrets.js'

/**
 * The gates sub-action (gates/action.yml): the untrusted half of the split layout. Runs the
 * rubric's gates in the job that holds no secret, records their results for the council job
 * (`results-file`, uploaded as an artifact by the next step), and fails the step when a gate
 * did not pass. It gives no verdict: the council job does.
 */
export async function runGatesAction(): Promise<void> {
  const env = process.env
  const secrets = secretValues(env)
  for (const secret of secrets) core.setSecret(secret)
  const workspace = env.GITHUB_WORKSPACE ?? process.cwd()
  const tempDir = join(env.RUNNER_TEMP ?? tmpdir(), 'rubric-council-gates')
  try {
    const inputs = readActionInputs(name => core.getInput(name))
    const dirs = { workspace, tempDir, cwd: resolve(workspace, inputs.workingDirectory) }
    const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/')
    const github = actionGitHub(env, inputs.githubToken, core.warning)
    const prepared = await prepareRun(env, inputs, dirs, github)
    if (prepared.kind === 'skip') {
      core.notice(`Rubric Council gates: ${prepared.message}`)
      return
    }
    if (prepared.kind === 'invalid') {
      core.setFailed(`Rubric Council gates: ${prepared.message}`)
      process.exitCode = 2
      return
    }
    const { run } = prepared
    if (prepared.checkout === 'base') {
      // This step runs the pull request's code: only on a checkout of the pull request.
      core.setFailed(
        `Rubric Council gates: on ${run.event} the checkout is not the pull request's head ${run.pr.headSha.slice(0, 7)}: run the gates on pull_request, in a job without secrets (\`rubric-council init\`, or \`init --forks\` for pull requests from forks)`
      )
      process.exitCode = 2
      return
    }
    const choice = await chooseRubric(github, run, inputs, dirs)
    const parsed = choice.rubric.ok ? parseRubric(choice.rubric.rubric) : choice.rubric
    const rubric = parsed.ok ? parsed.rubric : undefined
    const results = rubric
      ? await gatesHere({
          cwd: dirs.cwd,
          env: gateEnvironment(env),
          log: actionsGateLog(),
          mask: text => maskSecrets(text, secrets)
        }).results(rubric)
      : []
    const file = join(tempDir, GATES_FILE)
    await mkdir(tempDir, { recursive: true })
    await writeFile(
      file,
      writeRecord({
        repository: `${owner}/${repo}`,
        pullRequest: run.pr.number,
        headSha: run.pr.headSha,
        rubricHash: rubric?.hash ?? null,
        gates: results
      })
    )
    const passed = rubric !== undefined && results.every(r => r.status === 'pass')
    core.setOutput('results-file', file)
    core.setOutput('passed', String(passed))
    if (!parsed.ok) {
      for (const issue of parsed.issues) core.error(formatIssue(issue))
      core.setFailed('Rubric Council gates: the rubric is unusable; the council job will say why')
      process.exitCode = 2
    } else if (!passed) {
      const failed = results
        .filter(r => r.status !== 'pass')
        .map(r => `"${r.command}" (${r.status})`)
      core.setFailed(
        `Rubric Council gates: ${failed.length} of ${results.length} did not pass: ${failed.join(', ')}`
      )
      process.exitCode = 1
    } else {
      core.info(
        `Rubric Council gates: all ${results.length} passed; the council job gives the verdict`
      )
    }
  } catch (error) {
    if (error instanceof InputError) {
      core.setFailed(`Rubric Council gates: ${error.message}`)
      process.exitCode = 2
    } else internalError(error, coreIO())
  }
}
