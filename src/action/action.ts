import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { GitHubPort } from '../github/port.js'
import { maskSecrets, secretValues } from '../util/secrets.js'
import type { FailOn } from '../publish/outcome.js'
import { readPayload } from '../github/event.js'
import { BOT_HANDLERS } from './bot.js'
import { gatesHereProblem, prepareRun } from './context.js'
import { InputError, readActionInputs, type GetInput } from './inputs.js'
import type { ActionIO } from './io.js'
import { reviewPorts } from './ports.js'
import { endEarly, internalError, publishSkipped, runUrl } from './publish.js'
import { reviewPullRequest } from './review.js'
import { chooseRubric, repositoryRubricPath, severalRubrics } from './rubric.js'
import { plannedRubric, type RubricChoice } from '../engine/rubric-choice.js'
import { reviewRubrics } from './review-rubrics.js'
import { planRubrics } from '../engine/rubric-set.js'
import { skipOf } from './skip.js'
import { runningWorkflow } from './machinery.js'
import { centralWorkflowLine } from './log.js'
import { checkRunName } from '../publish/check-name.js'
import { CHECK_RUN_MARK } from '../publish/plan.js'
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
 * One run of the action: inputs and context, the rubric's choice, the ports, then one review.
 * Nothing that goes wrong leaves the step green: every failure ends in a verdict with a named
 * reason, or the step fails.
 */
export async function runAction(shell: ActionShell): Promise<void> {
  const { env, io } = shell
  // Registered first, so no log line, summary or annotation below can show them.
  const secrets = secretValues(env)
  for (const secret of secrets) io.setSecret(secret)
  const mask = (text: string): string => maskSecrets(text, secrets)
  const workspace = env.GITHUB_WORKSPACE ?? process.cwd()
  const tempDir = join(env.RUNNER_TEMP ?? tmpdir(), 'rubric-council')
  let where = { failOn: 'unclear' as FailOn, workspace, tempDir, cwd: workspace }
  try {
    const inputs = readActionInputs(shell.getInput)
    where = { ...where, failOn: inputs.failOn, cwd: resolve(workspace, inputs.workingDirectory) }
    const github = shell.github(inputs.githubToken)
    const event = env.GITHUB_EVENT_NAME ?? ''
    if (Object.hasOwn(BOT_HANDLERS, event)) {
      // Not a review: the bot acts on pull requests through the API.
      if (!github) {
        await endEarly(
          {
            kind: 'invalid',
            message: `on ${event} the bot works through the API: give it a github-token`
          },
          where,
          io
        )
        return
      }
      await BOT_HANDLERS[event]?.({
        github,
        inputs,
        io,
        payload: await readPayload(env.GITHUB_EVENT_PATH),
        env
      })
      return
    }
    const prepared = await prepareRun(env, inputs, where, github)
    if (prepared.kind !== 'ready') {
      await endEarly(prepared, where, io)
      return
    }
    const { run, checkout } = prepared
    const workflow = runningWorkflow(env.GITHUB_WORKFLOW_REF, env.GITHUB_REPOSITORY)
    if (workflow?.central === true) io.info(centralWorkflowLine(workflow))
    const several = await severalRubrics(github, run, inputs, where)
    const choose = (path: string): Promise<RubricChoice> =>
      chooseRubric(github, run, { ...inputs, rubric: path }, where, checkout, workflow?.central)
    const reads = (several ?? []).map(file => ({ ...file, choice: choose(file.path) }))
    const single = several ? undefined : choose(inputs.rubric)
    const choices = single ? [single] : reads.map(read => read.choice)
    if (checkout === 'base') {
      // Before anything is fetched or started: whether gates would run on the base is known now.
      for (const choice of choices) {
        const problem = gatesHereProblem(run, checkout, await choice, inputs)
        if (problem !== undefined) {
          await endEarly({ kind: 'invalid', message: problem }, where, io)
          return
        }
      }
    }
    const ports = reviewPorts({
      env,
      inputs,
      dirs: where,
      run,
      checkout,
      github,
      mask,
      bundleDir: shell.bundleDir,
      workflow,
      io,
      ...(shell.ticker && { ticker: shell.ticker }),
      ...(shell.now && { now: shell.now })
    })
    // Why a skip rule that held did not skip: the log and the report say it.
    let skipRefused: string | undefined
    const skipped = await skipOf(
      run,
      inputs.skip,
      {
        workspace,
        rubricPath: inputs.checker === undefined ? repositoryRubricPath(inputs) : undefined,
        changedPaths: ports.changedPaths,
        machinery: ports.machinery,
        workflow,
        twins: async () =>
          github === undefined
            ? []
            : (await github.openPullRequests(run.pr.baseRef))
                .filter(pr => pr.headSha === run.pr.headSha && pr.number !== run.pr.number)
                .map(pr => pr.number)
      },
      message => {
        io.warning(`Rubric Council: ${message}`)
        skipRefused = message
      }
    )
    if (skipped !== undefined) {
      const detailsUrl = runUrl(env)
      // Every rubric's check run says so: a required one must not wait.
      const names = single
        ? [inputs.checkName]
        : planRubrics(
            await Promise.all(
              reads.map(async read => ({ ...read, ...plannedRubric(await read.choice) }))
            ),
            undefined,
            inputs.checkName
          ).map(plan => plan.checkName)
      const places = names.map(name => ({
        headSha: run.pr.headSha,
        name: checkRunName(name, run.pr),
        externalId: CHECK_RUN_MARK,
        ...(detailsUrl !== undefined && { detailsUrl })
      }))
      await publishSkipped(skipped, places, github, inputs.dryRun, io)
      return
    }
    if (single === undefined) {
      const rubrics = await Promise.all(
        reads.map(async read => ({ ...read, choice: await read.choice }))
      )
      await reviewRubrics(
        { run, inputs, rubrics, ports, ...(skipRefused !== undefined && { skipRefused }) },
        { ...where, detailsUrl: runUrl(env) },
        io
      )
      return
    }
    await reviewPullRequest(
      { run, inputs, rubric: single, ports, ...(skipRefused !== undefined && { skipRefused }) },
      { ...where, detailsUrl: runUrl(env) },
      io
    )
  } catch (error) {
    if (error instanceof InputError)
      await endEarly({ kind: 'invalid', message: error.message }, where, io)
    else internalError(error, io)
  }
}
