import * as core from '@actions/core'
import { tmpdir } from 'node:os'
import { resolve } from 'node:path'
import { InputError, readActionInputs } from './inputs.js'
import { describeRubric } from './rubric/describe.js'
import { formatIssue, RubricError } from './rubric/errors.js'
import { resolveRubric } from './rubric/resolve.js'

/**
 * The action's composition root. Zero arguments, so that `@github/local-action` can drive it.
 * Every failure ends the step failed with a named reason: nothing that goes wrong leaves it green.
 */
export async function run(): Promise<void> {
  try {
    const inputs = readActionInputs(name => core.getInput(name))
    const cwd = resolve(process.env.GITHUB_WORKSPACE ?? process.cwd(), inputs.workingDirectory)
    const rubric = await resolveRubric({
      path: inputs.rubric,
      ...(inputs.checker !== undefined && { checker: inputs.checker }),
      cwd,
      tempDir: resolve(process.env.RUNNER_TEMP ?? tmpdir(), 'rubric-council')
    })
    core.setOutput('rubric-hash', rubric.hash)
    core.info(`${rubric.source.path}: ok (${describeRubric(rubric)})`)
  } catch (error) {
    fail(error)
  }
}

function fail(error: unknown): void {
  if (error instanceof RubricError) {
    for (const issue of error.issues) {
      core.error(issue.message, {
        title: `Rubric: ${issue.rule}`,
        file: issue.file,
        ...(issue.line !== undefined && { startLine: issue.line }),
        ...(issue.column !== undefined && { startColumn: issue.column })
      })
    }
    core.setOutput('reasons', 'invalid_rubric')
    core.setFailed(`The rubric is invalid:\n${error.issues.map(formatIssue).join('\n')}`)
  } else if (error instanceof InputError) {
    core.setOutput('reasons', 'invalid_input')
    core.setFailed(error.message)
  } else {
    // Whatever was thrown, Error or not, fails the step.
    core.setFailed(
      `Internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`
    )
  }
  process.exitCode = 2
}
