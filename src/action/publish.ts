import * as core from '@actions/core'
import { mkdir, writeFile } from 'node:fs/promises'
import { isAbsolute, join, relative, resolve } from 'node:path'
import type { FailOn } from '../inputs.js'
import type { Evaluation } from '../report/evaluation.js'
import { toJsonReport } from '../report/json.js'
import { renderMarkdown } from '../report/markdown.js'
import { stepFails } from '../step.js'
import { formatNumber } from '../verdict/decide.js'

/**
 * GitHub keeps at most 1 MiB of job summary per step. A UTF-16 code unit is at most 3 bytes of
 * UTF-8, so this many characters always fit.
 */
export const SUMMARY_BUDGET = 340_000

export interface PublishContext {
  readonly failOn: FailOn
  /** Where the JSON report is written (the run's temp folder). */
  readonly tempDir: string
  /** The repository root, for annotation paths, and the directory rubric paths are relative to. */
  readonly workspace: string
  readonly cwd: string
  readonly commentUrl?: string
}

/** Writes everything the action reports, then ends the step per `fail-on`. */
export async function publish(evaluation: Evaluation, context: PublishContext): Promise<void> {
  const { verdict, rubric } = evaluation
  await mkdir(context.tempDir, { recursive: true })
  const reportPath = join(context.tempDir, 'report.json')
  await writeFile(reportPath, `${JSON.stringify(toJsonReport(evaluation), null, 2)}\n`)

  for (const issue of rubric.problems) {
    const file = annotationPath(context.workspace, context.cwd, issue.file)
    core.error(issue.message, {
      title: `Invalid rubric (${issue.rule})`,
      ...(file !== undefined && { file }),
      ...(file !== undefined && issue.line !== undefined && { startLine: issue.line }),
      ...(file !== undefined && issue.column !== undefined && { startColumn: issue.column })
    })
  }

  const markdown = renderMarkdown(evaluation, { budget: SUMMARY_BUDGET })
  if (process.env.GITHUB_STEP_SUMMARY) {
    await core.summary.addRaw(markdown).write()
  } else {
    // Outside the runner (a local run) there is no job summary: the log gets the report.
    core.info(markdown)
  }

  core.setOutput('verdict', verdict.verdict)
  core.setOutput('exit-code', String(verdict.exitCode))
  core.setOutput('score', verdict.score === null ? '' : formatNumber(verdict.score))
  core.setOutput('confidence', verdict.confidence === null ? '' : formatNumber(verdict.confidence))
  core.setOutput('reasons', verdict.reasons.map(r => r.code).join(','))
  core.setOutput('recommendation', verdict.recommendation)
  core.setOutput('rubric-hash', rubric.hash ?? '')
  core.setOutput('report', reportPath)
  core.setOutput('comment-url', context.commentUrl ?? '')

  const headline = `Rubric Council: ${verdict.verdict}${verdict.reasons.length > 0 ? ` (${verdict.reasons.map(r => r.code).join(', ')})` : ''}`
  if (stepFails(verdict, context.failOn)) {
    core.setFailed(`${headline}\n${verdict.reasons.map(r => `- ${r.message}`).join('\n')}`)
    process.exitCode = verdict.exitCode
  } else {
    core.info(headline)
  }
}

/** Annotations name files relative to the repository root; files outside it get none. */
function annotationPath(workspace: string, cwd: string, file: string): string | undefined {
  const path = relative(workspace, resolve(cwd, file))
  return path.startsWith('..') || isAbsolute(path) ? undefined : path
}
