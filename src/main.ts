import * as core from '@actions/core'
import { tmpdir } from 'node:os'
import { lstat } from 'node:fs/promises'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { actionsGateLog } from './action/log.js'
import { machineryOf } from './action/machinery.js'
import { publish } from './action/publish.js'
import { chooseRubric, historyEntry, publishToPullRequest } from './action/review.js'
import { createCouncil } from './council/council.js'
import { evaluate } from './engine.js'
import { pullRequestEvidence, startDiff } from './evidence/git-source.js'
import { checkoutProblem } from './evidence/git.js'
import { createGitHub, type GitHub } from './github/client.js'
import { commentMarker } from './report/comment.js'
import { findComments, type IssueComment } from './github/comment.js'
import { readRunContext, type PullRequestRun } from './github/event.js'
import { InputError, readActionInputs, type ActionInputs, type FailOn } from './inputs.js'
import type { Evaluation } from './report/evaluation.js'
import { readHistory } from './report/history.js'
import { councilStartLine, judgeLine, tieBreakLine } from './report/progress.js'
import { maskSecrets, secretValues } from './secrets.js'
import { invalidVerdict } from './verdict/decide.js'

/**
 * The action's composition root: inputs, event and clients in; engine; reports out. Zero
 * arguments, so that `@github/local-action` can drive it. Nothing that goes wrong leaves the
 * step green: every failure ends in a verdict with a named reason, or the step fails.
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
    let inputs: ActionInputs
    try {
      inputs = readActionInputs(name => core.getInput(name))
    } catch (error) {
      if (!(error instanceof InputError)) throw error
      await publish(invalidInput(error.message), { failOn, tempDir, workspace, cwd })
      return
    }
    failOn = inputs.failOn
    cwd = resolve(workspace, inputs.workingDirectory)
    const context = { failOn, tempDir, workspace, cwd }

    // Without a token (a local dry run), nothing is read from GitHub or written to it. The
    // client is made once it is needed, so that git can start on the diff first.
    let github: GitHub | undefined
    const connect = (): GitHub | undefined =>
      inputs.githubToken === ''
        ? undefined
        : (github ??= createGitHub(
            inputs.githubToken,
            env.GITHUB_API_URL ?? 'https://api.github.com',
            core.warning
          ))
    const run = await readRunContext({
      eventName: env.GITHUB_EVENT_NAME,
      eventPath: env.GITHUB_EVENT_PATH,
      repository: env.GITHUB_REPOSITORY,
      pullRequestInput: inputs.pullRequest,
      getPullRequest: async (owner, repo, pull_number) => {
        const client = connect()
        if (!client)
          throw new InputError('github-token', '', 'a token to read the pull request with')
        return (await client.rest.pulls.get({ owner, repo, pull_number })).data
      }
    })
    if (run.kind === 'skip') {
      core.notice(`Rubric Council: ${run.message}`)
      return
    }
    if (run.kind === 'unsupported') {
      await publish(invalidInput(run.message), context)
      return
    }
    // The gates run on the working tree and the verdict is posted on the head commit: they must
    // be the same pull request.
    const checkout = await checkoutProblem(workspace, run.pr.headSha, run.event, run.pr.number)
    if (checkout !== undefined) {
      await publish(invalidInput(checkout), context)
      return
    }
    const rubricPath = await rubricPathProblem(workspace, cwd, inputs)
    if (rubricPath !== undefined) {
      await publish(invalidInput(rubricPath), context)
      return
    }

    // git computes the diff in its own process while the client is made and the comments and
    // the rubric are read.
    const diff = startDiff({ cwd: workspace, baseSha: run.pr.baseSha, headSha: run.pr.headSha })
    connect()
    // The comment holds the history: read it first, so the judges see the earlier iterations.
    // The rubric is read at the same time.
    const [existing, { choice, review }] = await Promise.all([
      inputs.comment === 'sticky' && github
        ? ourComments(github, run, commentMarker(inputs.checkName))
        : [],
      chooseRubric(github, run, inputs, { workspace, cwd, tempDir })
    ])
    const prior = existing[0] ? readHistory(existing[0].body) : []

    const evidence = pullRequestEvidence({
      diff,
      title: run.pr.title,
      body: run.pr.body,
      maxTokens: inputs.maxEvidenceTokens,
      exclude: inputs.exclude,
      iteration: prior.length + 1,
      history: prior
    })
    const council = createCouncil({
      env,
      models: inputs.models,
      ...(inputs.samples !== undefined && { samples: inputs.samples }),
      mask,
      progress: {
        started: calls => {
          core.info(councilStartLine(calls))
        },
        finished: run => {
          core.info(judgeLine(run))
        },
        tieBreak: (call, split) => {
          core.info(tieBreakLine(call.judge, split))
        }
      }
    })
    const evaluated = await evaluate(
      choice,
      {
        council,
        evidence,
        log: actionsGateLog(),
        env,
        machinery: machineryOf(workspace, dirname(fileURLToPath(import.meta.url)))
      },
      prior.length + 1
    )
    const evaluation: Evaluation = {
      ...evaluated,
      history: [...prior, historyEntry(evaluated, run.pr.headSha)],
      ...(review && { rubricReview: review })
    }

    const commentUrl = await publishToPullRequest(github, run, inputs, evaluation, {
      existing,
      detailsUrl: runUrl(env)
    })
    await publish(evaluation, { ...context, ...(commentUrl !== undefined && { commentUrl }) })
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

/** Our earlier comments on the pull request; none, with a warning, when they cannot be read. */
async function ourComments(
  github: GitHub,
  run: PullRequestRun,
  marker: string
): Promise<readonly IssueComment[]> {
  try {
    return await findComments(github, {
      owner: run.owner,
      repo: run.repo,
      issue: run.pr.number,
      marker
    })
  } catch (error) {
    core.warning(
      `Could not read the pull request's comments: ${error instanceof Error ? error.message : String(error)}`
    )
    return []
  }
}

/**
 * The `rubric` input must name a file inside the workspace, and not a symlink: a pull request
 * could otherwise point it at a file of its choosing outside what the base branch controls.
 */
async function rubricPathProblem(
  workspace: string,
  cwd: string,
  inputs: ActionInputs
): Promise<string | undefined> {
  if (inputs.checker !== undefined) return undefined
  const full = resolve(cwd, inputs.rubric)
  const inside = relative(workspace, full)
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    return `the rubric "${inputs.rubric}" is outside the workspace (${workspace}); give a path inside the repository`
  }
  const stat = await lstat(full).catch(() => undefined)
  return stat?.isSymbolicLink()
    ? `the rubric "${inputs.rubric}" is a symbolic link; give the path of the file itself`
    : undefined
}

/** An evaluation that stopped on an unusable input, before any rubric was read. */
function invalidInput(message: string): Evaluation {
  return {
    verdict: invalidVerdict('invalid_input', message),
    rubric: { path: '', source: 'file', problems: [], counts: { gates: 0, must: 0, nice: 0 } },
    gates: [],
    iteration: 1
  }
}

function runUrl(env: NodeJS.ProcessEnv): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: id } = env
  return server && repository && id ? `${server}/${repository}/actions/runs/${id}` : undefined
}
