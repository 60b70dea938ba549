import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { GitHubPort } from '../github/port.js'
import { maskSecrets, secretValues } from '../util/secrets.js'
import type { FailOn } from '../publish/outcome.js'
import { readPayload } from '../github/event.js'
import { BOT_HANDLERS } from './bot.js'
import { prepareRun, type ActionDirs } from './context.js'
import { gatesHereProblem, type Prepared } from '../engine/run-preparation.js'
import {
  InputError,
  readActionInputs,
  type ActionInputs,
  type GetInput
} from '../inputs/action-inputs.js'
import type { ActionIO } from './io.js'
import { reviewPorts } from './ports.js'
import { endEarly, internalError, publishSkipped, runUrl, type PublishContext } from './publish.js'
import { skippedCheckRuns } from '../publish/review-plan.js'
import { reviewPullRequest, type ReviewPorts, type RubricRead } from './review.js'
import { chooseRubric, severalRubrics } from './rubric.js'
import { repositoryRubricPath } from '../engine/pull-request-rubric.js'
import type { SkipReason } from '../engine/skip.js'
import type { PullRequestRun } from '../github/event.js'
import { skipOf } from './skip.js'
import { runningWorkflow, type RunningWorkflow } from './machinery.js'
import { centralWorkflowLine } from './log.js'
import type { Ticker } from '../util/ticker.js'

/** What the action is given by the runner: its environment, inputs, log and a way to GitHub. */
export interface ActionShell {
  readonly env: NodeJS.ProcessEnv
  readonly getInput: GetInput
  readonly io: ActionIO
  /** The repository's GitHub through `token`; undefined without one (nothing is written then). */
  readonly github: (token: string) => GitHubPort | undefined
  /** Where the action's own files are (its bundle), which a pull request may not change. */
  readonly bundleDir: string
  /** Ticks while judges are pending, for the log's waiting lines; none without it. */
  readonly ticker?: Ticker
  /** Epoch ms: today, for the models' retirement dates; Date.now without it. */
  readonly now?: () => number
}

/**
 * One run of the action: inputs and context, the rubrics' choice, the ports, then one review.
 * Nothing that goes wrong leaves the step green: every failure ends in a verdict with a named
 * reason, or the step fails.
 */
export async function runAction(shell: ActionShell): Promise<void> {
  const { env, io } = shell
  // Registered first, so no log line, summary or annotation below can show them.
  const secrets = secretValues(env)
  for (const secret of secrets) io.setSecret(secret)
  const workspace = env.GITHUB_WORKSPACE ?? process.cwd()
  const tempDir = join(env.RUNNER_TEMP ?? tmpdir(), 'rubric-council')
  let where = { failOn: 'unclear' as FailOn, workspace, tempDir, cwd: workspace }
  try {
    const inputs = readActionInputs(shell.getInput)
    where = { ...where, failOn: inputs.failOn, cwd: resolve(workspace, inputs.workingDirectory) }
    const github = shell.github(inputs.githubToken)
    const event = env.GITHUB_EVENT_NAME ?? ''
    if (Object.hasOwn(BOT_HANDLERS, event)) {
      await runBot(event, { github, inputs, where }, shell)
      return
    }
    const prepared = await prepareRun(env, inputs, where, github)
    if (prepared.kind !== 'ready') {
      await endEarly(prepared, where, io)
      return
    }
    await review(
      prepared,
      { github, inputs, where, mask: text => maskSecrets(text, secrets) },
      shell
    )
  } catch (error) {
    if (error instanceof InputError)
      await endEarly({ kind: 'invalid', message: error.message }, where, io)
    else internalError(error, io)
  }
}

/** Not a review: the bot acts on pull requests through the API, which it needs a token for. */
async function runBot(
  event: string,
  given: {
    readonly github: GitHubPort | undefined
    readonly inputs: ActionInputs
    where: ActionDirs & PublishContext
  },
  shell: ActionShell
): Promise<void> {
  const { github, inputs, where } = given
  if (!github) {
    await endEarly(
      {
        kind: 'invalid',
        message: `on ${event} the bot works through the API: give it a github-token`
      },
      where,
      shell.io
    )
    return
  }
  await BOT_HANDLERS[event]?.({
    github,
    inputs,
    io: shell.io,
    payload: await readPayload(shell.env.GITHUB_EVENT_PATH),
    env: shell.env
  })
}

/**
 * The review of a pull request: its rubrics chosen (the base's, see `chooseRubric`), the ports,
 * then skipped by a `skip-*` rule or reviewed, every rubric at once.
 */
async function review(
  prepared: Extract<Prepared, { kind: 'ready' }>,
  given: {
    readonly github: GitHubPort | undefined
    readonly inputs: ActionInputs
    readonly where: ActionDirs & PublishContext
    readonly mask: (text: string) => string
  },
  shell: ActionShell
): Promise<void> {
  const { env, io } = shell
  const { github, inputs, where } = given
  const { run, checkout } = prepared
  const workflow = runningWorkflow(env.GITHUB_WORKFLOW_REF, env.GITHUB_REPOSITORY)
  if (workflow?.central === true) io.info(centralWorkflowLine(workflow))
  const { rubrics, alone } = await chosenRubrics(prepared, given, workflow)
  // Before anything is fetched or started: whether gates would run on the base is known now.
  const problem = rubrics
    .map(({ choice }) => gatesHereProblem(run, checkout, choice, inputs))
    .find(p => p !== undefined)
  if (problem !== undefined) {
    await endEarly({ kind: 'invalid', message: problem }, where, io)
    return
  }
  const ports = reviewPorts({
    env,
    inputs,
    dirs: where,
    run,
    checkout,
    github,
    mask: given.mask,
    bundleDir: shell.bundleDir,
    workflow,
    io,
    ...(shell.ticker && { ticker: shell.ticker }),
    ...(shell.now && { now: shell.now })
  })
  const skip = await skipped(run, { inputs, github, workflow, ports, where }, io)
  const detailsUrl = runUrl(env)
  if (skip.reason !== undefined) {
    const places = skippedCheckRuns(rubrics, alone, {
      checkName: inputs.checkName,
      pr: run.pr,
      detailsUrl
    })
    await publishSkipped(skip.reason, places, github, inputs.dryRun, io)
    return
  }
  const refused = skip.refused === undefined ? {} : { skipRefused: skip.refused }
  await reviewPullRequest(
    { run, inputs, rubrics, alone, ports, ...refused },
    { ...where, detailsUrl },
    io
  )
}

/**
 * The rubrics of the review, each with its choice (see `chooseRubric`): those of the `rubrics/`
 * folder with the main one, or the main one alone.
 */
async function chosenRubrics(
  prepared: Extract<Prepared, { kind: 'ready' }>,
  given: {
    readonly github: GitHubPort | undefined
    readonly inputs: ActionInputs
    readonly where: ActionDirs
  },
  workflow: RunningWorkflow | undefined
): Promise<{ readonly rubrics: RubricRead[]; readonly alone: boolean }> {
  const { github, inputs, where } = given
  const { run, checkout } = prepared
  const several = await severalRubrics(prepared.base, inputs, where)
  const files = several ?? [
    { path: inputs.rubric, repoPath: repositoryRubricPath(inputs), main: true }
  ]
  const rubrics = await Promise.all(
    files.map(async file => {
      const named = { ...inputs, rubric: file.path }
      const choice = await chooseRubric(
        github,
        prepared.base,
        run,
        named,
        where,
        checkout,
        workflow?.central
      )
      return { ...file, choice }
    })
  )
  return { rubrics, alone: several === undefined }
}

/** The `skip-*` rule that skips this run, or why one that held did not (for the log and report). */
async function skipped(
  run: PullRequestRun,
  given: {
    readonly inputs: ActionInputs
    readonly github: GitHubPort | undefined
    readonly workflow: RunningWorkflow | undefined
    readonly ports: ReviewPorts
    readonly where: ActionDirs
  },
  io: ActionIO
): Promise<{ readonly reason?: SkipReason; readonly refused?: string }> {
  const { inputs, github, ports } = given
  let refused: string | undefined
  const reason = await skipOf(
    run,
    inputs.skip,
    {
      workspace: given.where.workspace,
      rubricPath: inputs.checker === undefined ? repositoryRubricPath(inputs) : undefined,
      changedPaths: ports.changedPaths,
      machinery: ports.machinery,
      workflow: given.workflow,
      twins: async () =>
        github === undefined
          ? []
          : (await github.openPullRequests(run.pr.baseRef))
              .filter(pr => pr.headSha === run.pr.headSha && pr.number !== run.pr.number)
              .map(pr => pr.number)
    },
    message => {
      io.warning(`Rubric Council: ${message}`)
      refused = message
    }
  )
  return { ...(reason !== undefined && { reason }), ...(refused !== undefined && { refused }) }
}
