import * as core from '@actions/core'
import { tmpdir } from 'node:os'
import { isAbsolute, relative, resolve } from 'node:path'
import { InputError, readActionInputs } from './inputs.js'
import { describeRubric } from './rubric/describe.js'
import { formatIssue, RubricError } from './rubric/errors.js'
import { resolveRubric } from './rubric/resolve.js'

/**
 * The action's composition root. Zero arguments, so that `@github/local-action` can drive it.
 * Every failure ends the step failed with a named reason: nothing that goes wrong leaves it green.
 */
export async function run(): Promise<void> {
  const workspace = process.env.GITHUB_WORKSPACE ?? process.cwd()
  let cwd = workspace
  try {
    const inputs = readActionInputs(name => core.getInput(name))
    cwd = resolve(workspace, inputs.workingDirectory)
    const rubric = await resolveRubric({
      path: inputs.rubric,
      ...(inputs.checker !== undefined && { checker: inputs.checker }),
      cwd,
      tempDir: resolve(process.env.RUNNER_TEMP ?? tmpdir(), 'rubric-council')
    })
    core.setOutput('rubric-hash', rubric.hash)
    core.info(`${rubric.source.path}: ok (${describeRubric(rubric)})`)
  } catch (error) {
    fail(error, file => annotationPath(workspace, cwd, file))
  }
}

/** Annotations name files relative to the repository root; files outside it get none. */
function annotationPath(workspace: string, cwd: string, file: string): string | undefined {
  const path = relative(workspace, resolve(cwd, file))
  return path.startsWith('..') || isAbsolute(path) ? undefined : path
}

function fail(error: unknown, pathOf: (file: string) => string | undefined): void {
  if (error instanceof RubricError) {
    for (const issue of error.issues) {
      const file = pathOf(issue.file)
      core.error(issue.message, {
        title: `Invalid rubric (${issue.rule})`,
        ...(file !== undefined && { file }),
        ...(file !== undefined && issue.line !== undefined && { startLine: issue.line }),
        ...(file !== undefined && issue.column !== undefined && { startColumn: issue.column })
      })
    }
    core.setOutput('reasons', 'invalid_rubric')
    const count = error.issues.length
    core.setFailed(
      `The rubric is invalid (${count} error${count === 1 ? '' : 's'}):\n${error.issues.map(formatIssue).join('\n')}`
    )
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
