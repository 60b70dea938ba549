import { statusOf } from '../github/client.js'
import type { GitHubPort } from '../github/port.js'
import {
  headOf,
  messageOf,
  notRerun,
  runToRerun,
  unlisted,
  type PullRequestHead,
  type Refusal,
  type Reverification
} from '../bot/reverify.js'
import { failed, ok } from '../util/result.js'

/**
 * Re-runs the newest run of `workflow` (a file in .github/workflows) on `pr`'s head commit that ran
 * on a pull request event for it (`runToRerun`, bot/reverify.ts). What could not be done comes
 * back as a problem whose message names the cause and what to do.
 */
export async function reverify(
  github: GitHubPort,
  workflow: string,
  pr: PullRequestHead
): Promise<Reverification> {
  let runs
  try {
    runs = await github.workflowRunsAt(workflow, pr.headSha)
  } catch (error) {
    return failed(unlisted(workflow, refusalOf(error)))
  }
  const run = runToRerun(workflow, runs, pr)
  if (!run.ok) return run
  try {
    await github.rerunWorkflowRun(run.value.id)
  } catch (error) {
    return failed(notRerun(workflow, run.value, headOf(pr), refusalOf(error), Date.now()))
  }
  return ok({ runUrl: run.value.htmlUrl })
}

function refusalOf(error: unknown): Refusal {
  return { status: statusOf(error), said: messageOf(error) }
}
