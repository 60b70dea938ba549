import { mkdir, writeFile } from 'node:fs/promises'
import { isAbsolute, join, relative, resolve } from 'node:path'
import type { Evaluation } from '../engine/evaluation.js'
import type { ActionIO } from './io.js'
import { toJsonReport } from '../report/json.js'
import { renderMarkdown } from '../report/markdown.js'
import { formatNumber, reasonSentence } from '../publish/sentences.js'
import { invalidVerdict } from '../verdict/decide.js'
import { outcomeOf, type FailOn } from '../verdict/outcome.js'

/**
 * GitHub drops a step summary over 1 MiB of UTF-8 (1,048,576 bytes) entirely, so the report is
 * budgeted in bytes. 16 KiB (1.6 %) is kept in reserve: the runner states its check as "1024k"
 * without saying how it rounds, and the toolkit may add a line end when it writes the file; a
 * small margin costs little against losing the whole summary. (Budgeting 1 MiB / 3 characters
 * instead cut mostly-ASCII reports at a third of what fits.)
 */
export const SUMMARY_BUDGET_BYTES = 1024 * 1024 - 16 * 1024

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
export async function publish(
  evaluation: Evaluation,
  context: PublishContext,
  io: ActionIO
): Promise<void> {
  const { verdict, rubric } = evaluation
  await mkdir(context.tempDir, { recursive: true })
  const reportPath = join(context.tempDir, 'report.json')
  await writeFile(reportPath, `${JSON.stringify(toJsonReport(evaluation), null, 2)}\n`)

  for (const issue of rubric.problems) {
    const file = annotationPath(context.workspace, context.cwd, issue.file)
    io.error(issue.message, {
      title: `Invalid rubric (${issue.rule})`,
      ...(file !== undefined && { file }),
      ...(file !== undefined && issue.line !== undefined && { startLine: issue.line }),
      ...(file !== undefined && issue.column !== undefined && { startColumn: issue.column })
    })
  }

  const markdown = renderMarkdown(evaluation, {
    budget: SUMMARY_BUDGET_BYTES,
    unit: 'bytes',
    nextStep: 'pull-request'
  })
  await io.summary(markdown)

  io.setOutput('verdict', verdict.verdict)
  io.setOutput('exit-code', String(verdict.exitCode))
  io.setOutput('score', verdict.score === null ? '' : formatNumber(verdict.score))
  io.setOutput('confidence', verdict.confidence === null ? '' : formatNumber(verdict.confidence))
  io.setOutput('reasons', verdict.reasons.map(r => r.code).join(','))
  io.setOutput('recommendation', verdict.recommendation)
  io.setOutput('rubric-hash', rubric.hash ?? '')
  io.setOutput('report', reportPath)
  io.setOutput('comment-url', context.commentUrl ?? '')

  const headline = `Rubric Council: ${verdict.verdict}${verdict.reasons.length > 0 ? ` (${verdict.reasons.map(r => r.code).join(', ')})` : ''}`
  const outcome = outcomeOf(verdict, context.failOn, evaluation.acceptance !== undefined)
  if (evaluation.acceptance) {
    io.notice(
      `${headline}, accepted for ${evaluation.acceptance.commit.slice(0, 7)} by @${evaluation.acceptance.by}: ${evaluation.acceptance.reason}`
    )
  } else if (outcome.stepFails) {
    io.fail(
      `${headline}\n${verdict.reasons.map(r => `- ${reasonSentence(r, 'action')}`).join('\n')}`,
      outcome.exitCode
    )
  } else {
    io.info(headline)
  }
}

/** Annotations name files relative to the repository root; files outside it get none. */
function annotationPath(workspace: string, cwd: string, file: string): string | undefined {
  const path = relative(workspace, resolve(cwd, file))
  return path.startsWith('..') || isAbsolute(path) ? undefined : path
}

/**
 * A run that ends before any review: quietly, saying why, for an event with nothing to review;
 * UNCLEAR `invalid_input` for what the workflow must fix.
 */
export async function endEarly(
  why: { readonly kind: 'skip' | 'invalid'; readonly message: string },
  context: PublishContext,
  io: ActionIO
): Promise<void> {
  if (why.kind === 'skip') io.notice(`Rubric Council: ${why.message}`)
  else await publish(invalidInput(why.message), context, io)
}

/** An evaluation that stopped on an unusable input or event, before any rubric was read. */
function invalidInput(message: string): Evaluation {
  return {
    verdict: invalidVerdict('invalid_input', message),
    rubric: { path: '', source: 'file', problems: [], counts: { gates: 0, must: 0, nice: 0 } },
    gates: [],
    iteration: 1
  }
}

/** A bug: whatever was thrown, Error or not, fails the step with a name, never a verdict. */
export function internalError(error: unknown, io: ActionIO): void {
  io.setOutput('verdict', 'UNCLEAR')
  io.setOutput('exit-code', '2')
  io.setOutput('reasons', 'internal_error')
  io.fail(
    `Rubric Council failed with an internal error (please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    2
  )
}

/** The run's page, for the check run's details link. */
export function runUrl(env: NodeJS.ProcessEnv): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: id } = env
  return server && repository && id ? `${server}/${repository}/actions/runs/${id}` : undefined
}
