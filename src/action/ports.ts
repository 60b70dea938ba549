import { createCouncil } from '../council/council.js'
import { pullRequestEvidence, startDiff } from '../evidence/git-source.js'
import { gateEnvironment } from '../gates/environment.js'
import { gatesHere } from '../gates/run.js'
import type { PullRequestRun } from '../github/event.js'
import type { GitHubPort } from '../github/port.js'
import type { ActionDirs } from './context.js'
import type { ActionInputs } from './inputs.js'
import { actionsGateLog, councilProgress } from './log.js'
import { machineryOf } from './machinery.js'
import type { ReviewPorts } from './review.js'

/**
 * The review's ports in the single-job layout: the gates run here, without credentials; the
 * evidence comes from git (the diff starts now, in git's own process, while GitHub is read); the
 * council from the providers whose keys are set. `bundleDir` is where the action's own files are.
 */
export function singleJobPorts(options: {
  readonly env: NodeJS.ProcessEnv
  readonly inputs: ActionInputs
  readonly dirs: ActionDirs
  readonly run: PullRequestRun
  readonly github: GitHubPort | undefined
  readonly mask: (text: string) => string
  readonly bundleDir: string
}): ReviewPorts {
  const { env, inputs, dirs, run, mask } = options
  const diff = startDiff({ cwd: dirs.workspace, baseSha: run.pr.baseSha, headSha: run.pr.headSha })
  return {
    github: options.github,
    gates: gatesHere({ cwd: dirs.cwd, env: gateEnvironment(env), log: actionsGateLog(), mask }),
    evidence: pullRequestEvidence({
      diff,
      title: run.pr.title,
      body: run.pr.body,
      maxTokens: inputs.maxEvidenceTokens,
      exclude: inputs.exclude
    }),
    council: createCouncil({
      env,
      models: inputs.models,
      ...(inputs.samples !== undefined && { samples: inputs.samples }),
      mask,
      progress: councilProgress()
    }),
    machinery: machineryOf(dirs.workspace, options.bundleDir)
  }
}
