import { createCouncil } from '../council/council.js'
import { issuedProviderKeys, providerVariables } from '../council/providers/index.js'
import { sealingKey } from '../engine/judgement-cache.js'
import { pullRequestEvidence, startDiff } from '../evidence/git-source.js'
import { gateEnvironment } from '../gates/environment.js'
import { recordedGates } from '../gates/recorded.js'
import { gatesHere } from '../gates/run.js'
import type { GateSource } from '../gates/types.js'
import type { PullRequestRun } from '../github/event.js'
import type { GitHubPort } from '../github/port.js'
import type { ActionDirs } from './context.js'
import type { Checkout } from '../engine/run-preparation.js'
import type { ActionInputs } from '../inputs/action-inputs.js'
import type { ActionIO } from './io.js'
import { guardedGates } from './gate-guard.js'
import { councilProgress } from './log.js'
import { machineryOf, type RunningWorkflow } from './machinery.js'
import type { ReviewPorts } from './review.js'
import type { Ticker } from '../util/ticker.js'

/**
 * The gates of a run whose checkout is not the pull request: none. `gatesHereProblem` has refused
 * a rubric with gates before the review starts; should one get here all the same, the review stops
 * with an internal error rather than run anything on the base branch's code.
 */
const noGatesHere: GateSource = {
  results: rubric => {
    if (rubric.gates.length > 0) {
      throw new Error('gates to run on a checkout that is not the pull request; none was run')
    }
    return Promise.resolve([])
  }
}

/**
 * The review's ports. The gates run here, without credentials (single-job mode), or their results
 * are read from the job that ran the gates sub-action (`gates: recorded`, the split and fork
 * layouts). The evidence comes from git: the diff starts now, in git's own process, while GitHub
 * is read, fetching what the checkout lacks with the action's token. The council asks the
 * providers whose keys are set. `bundleDir` is where the action's own files are.
 */
export function reviewPorts(options: {
  readonly env: NodeJS.ProcessEnv
  readonly inputs: ActionInputs
  readonly dirs: ActionDirs
  readonly run: PullRequestRun
  readonly checkout: Checkout
  readonly github: GitHubPort | undefined
  readonly mask: (text: string) => string
  readonly bundleDir: string
  /** The running workflow (GITHUB_WORKFLOW_REF): a central one is not the pull request's. */
  readonly workflow: RunningWorkflow | undefined
  readonly io: ActionIO
  /** Ticks while gates run or judges are pending, for the log's heartbeat and waiting lines. */
  readonly ticker?: Ticker
  /** Epoch ms: today, for the models' retirement dates; Date.now without it. */
  readonly now?: () => number
}): ReviewPorts & { readonly changedPaths: () => Promise<readonly string[]> } {
  const { env, inputs, dirs, run, mask, github } = options
  const diff = startDiff({
    cwd: dirs.workspace,
    baseSha: run.pr.baseSha,
    headSha: run.pr.headSha,
    auth: { serverUrl: env.GITHUB_SERVER_URL ?? 'https://github.com', token: inputs.githubToken }
  })
  const judgementKey = sealingKey(issuedProviderKeys(env))
  return {
    github,
    gates: gatesPort(options),
    evidence: pullRequestEvidence({
      diff,
      title: run.pr.title,
      body: run.pr.body,
      maxTokens: inputs.maxEvidenceTokens,
      exclude: inputs.exclude,
      order: inputs.evidenceOrder
    }),
    council: createCouncil({
      env,
      models: inputs.models,
      ...(inputs.samples !== undefined && { samples: inputs.samples }),
      mask,
      progress: councilProgress(options.io),
      ...(options.ticker && { ticker: options.ticker }),
      ...(options.now && { now: options.now }),
      thread: `${env.GITHUB_REPOSITORY ?? ''}#${String(run.pr.number)}`
    }),
    machinery: machineryOf(dirs.workspace, options.bundleDir, options.workflow),
    ...(judgementKey && { judgementKey }),
    // Renamed files by both names: a file moved out of a path is changed there too.
    changedPaths: async () =>
      (await diff).files.flatMap(f =>
        f.previousPath === undefined ? [f.path] : [f.path, f.previousPath]
      )
  }
}

/**
 * Where the review's gate results come from: the job that ran the gates sub-action (`gates:
 * recorded`), none on a checkout of the base, or the gates run here, without credentials, with
 * their heartbeat in the log.
 */
function gatesPort(options: Parameters<typeof reviewPorts>[0]): GateSource {
  const { env, inputs, dirs, run, github } = options
  if (inputs.gates === 'recorded' && github) {
    // The run that recorded the gates: the triggering one on workflow_run, else this one.
    const recording = run.trigger ?? {
      runId: Number(env.GITHUB_RUN_ID),
      attempt: Number(env.GITHUB_RUN_ATTEMPT ?? '1')
    }
    return recordedGates(github.recordingRun(recording.runId, recording.attempt, inputs.gatesJob), {
      pullRequest: run.pr.number,
      headSha: run.pr.headSha
    })
  }
  if (options.checkout === 'base') return noGatesHere
  const { ticker } = options
  return guardedGates(
    gatesHere({
      cwd: dirs.cwd,
      env: gateEnvironment(env, providerVariables()),
      log: options.io.gateLog,
      mask: options.mask,
      ...(ticker && { waiting: { ticker, now: options.now ?? Date.now, say: options.io.info } })
    }),
    {
      allowed: inputs.allowGatesWithSecrets,
      eventName: env.GITHUB_EVENT_NAME ?? '',
      env,
      writable: async () => (github ? github.writablePermissions(run.pr.headSha) : [])
    }
  )
}
