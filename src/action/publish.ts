import { mkdir, writeFile } from 'node:fs/promises'
import { isAbsolute, join, relative, resolve } from 'node:path'
import type { Evaluation } from '../engine/evaluation.js'
import type { ActionIO } from './io.js'
import { toJsonReport } from '../report/json.js'
import type { FailOn } from '../publish/outcome.js'
import { planPublication } from '../publish/plan.js'
import type { ReviewPublication } from '../publish/review-plan.js'
import { invalidVerdict } from '../verdict/decide.js'
import type { SkipReason } from '../engine/skip.js'
import type { CheckRunPlace } from '../github/check-run.js'
import type { GitHubPort } from '../github/port.js'
import { skipNext, skipTitle } from '../sentences/scope.js'

export interface PublishContext {
  readonly failOn: FailOn
  /** Where the JSON report is written (the run's temp folder). */
  readonly tempDir: string
  /** The repository root, for annotation paths, and the directory rubric paths are relative to. */
  readonly workspace: string
  readonly cwd: string
}

/** Where the JSON report goes: the `report` output. */
export function reportPathIn(tempDir: string): string {
  return join(tempDir, 'report.json')
}

/** What a run says to the runner: the report file, annotations, warnings, summary, outputs, end. */
export type Said = Pick<
  ReviewPublication,
  'report' | 'annotations' | 'warnings' | 'summary' | 'outputs' | 'step'
>

/**
 * Says to the runner what `said` says: writes the JSON report, then the rubrics' problems as
 * annotations, the warnings, the job summary, the outputs (with the comment's URL, which only its
 * write knew), and ends the step as planned.
 */
export async function sayToRunner(
  said: Said,
  context: PublishContext & { readonly commentUrl?: string | undefined },
  io: ActionIO
): Promise<void> {
  await mkdir(context.tempDir, { recursive: true })
  await writeFile(reportPathIn(context.tempDir), `${JSON.stringify(said.report, null, 2)}\n`)
  for (const issue of said.annotations) {
    const file = annotationPath(context.workspace, context.cwd, issue.file)
    io.error(issue.message, {
      title: issue.title,
      ...(file !== undefined && { file }),
      ...(file !== undefined && issue.line !== undefined && { startLine: issue.line }),
      ...(file !== undefined && issue.column !== undefined && { startColumn: issue.column })
    })
  }
  for (const warning of said.warnings) io.warning(warning)
  await io.summary(said.summary)
  for (const [name, value] of Object.entries(said.outputs)) io.setOutput(name, value)
  io.setOutput('comment-url', context.commentUrl ?? '')
  const { step } = said
  if (step.fails) io.fail(step.message, step.exitCode)
  else if (step.level === 'notice') io.notice(step.message)
  else io.info(step.message)
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
  if (why.kind === 'skip') {
    io.notice(`Rubric Council: ${why.message}`)
    return
  }
  const evaluation = invalidInput(why.message)
  // Nothing is posted on a pull request: only the summary, the outputs and the step's end.
  const plan = planPublication(
    evaluation,
    { checkName: '', failOn: context.failOn, comment: false },
    { headSha: '', reportPath: reportPathIn(context.tempDir) }
  )
  await sayToRunner({ ...plan, report: toJsonReport(evaluation), annotations: [] }, context, io)
}

/**
 * A run a `skip-*` rule skipped: the check run (each rubric's, with several) concludes `success`
 * and says why and what runs it for real; the outputs say SKIPPED. Nothing is judged, and the
 * sticky comment stays as it was.
 */
export async function publishSkipped(
  reason: SkipReason,
  places: readonly CheckRunPlace[],
  writer: GitHubPort | undefined,
  dryRun: boolean,
  io: ActionIO
): Promise<void> {
  const text = { title: skipTitle(reason), summary: skipNext(reason) }
  for (const place of places) {
    if (dryRun)
      io.info(`Dry run: the check run "${place.name}" would conclude success: ${text.title}`)
    else if (writer) {
      const written = await writer.completeCheckRun(place, 'success', text)
      if (!written.ok) io.warning(`Rubric Council: ${written.problem}`)
    }
  }
  await io.summary(`**Rubric Council: ${text.title}**\n\n${text.summary}\n`)
  io.setOutput('verdict', 'SKIPPED')
  io.setOutput('exit-code', '0')
  io.setOutput('reasons', 'skipped')
  io.setOutput('comment-url', '')
  io.notice(`Rubric Council: ${text.title}`)
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
