import type { Payload } from '../github/payload.js'
import type { GitHubPort } from '../github/port.js'
import { checkRunName } from '../publish/check-name.js'
import { CHECK_RUN_MARK } from '../publish/plan.js'
import { rubricsFolder } from '../rubric/defaults.js'
import { rubricHash } from '../rubric/hash.js'
import { mapBounded } from '../util/pool.js'
import type { ActionInputs } from './inputs.js'
import type { ActionIO } from './io.js'
import { reverify, SHARED_PROBLEMS } from './reverify.js'
import { repositoryRubricPath, rubricFilesAt } from './rubric.js'

/** How many pull requests are re-verified at once when the base rubric changes. */
const REVERIFY_WIDTH = 4
/** Pull requests named one by one in the warning about those that were not re-verified. */
const LISTED_PROBLEMS = 10

const NO_COMMIT = /^0+$/

/** What the bot's `push` job has: the API, its inputs and log. */
interface PushContext {
  readonly github: GitHubPort
  readonly inputs: ActionInputs
  readonly io: ActionIO
}

/**
 * A push to a branch: when it changes the rubric, every open pull request based on that branch is
 * reviewed again by re-running its own latest review run (in its pull request's scope, see
 * reverify.ts), and its check marked pending meanwhile. Re-run first, pending second: a pull
 * request that could not be re-run keeps the verdict already posted rather than pending for ever.
 */
export async function rubricPushed(context: PushContext, push: Payload<'push'>): Promise<void> {
  const { github, inputs, io } = context
  const { ref, before, after } = push
  if (!ref.startsWith('refs/heads/') || NO_COMMIT.test(after) || NO_COMMIT.test(before)) {
    io.notice(`Rubric Council: nothing to re-verify for a push to ${ref || 'an unknown ref'}`)
    return
  }
  const branch = ref.slice('refs/heads/'.length)
  const defaultBranch = push.repository.default_branch
  const name = checkRunName(inputs.checkName, { baseRef: branch, defaultBranch })
  let pending = true
  const main = repositoryRubricPath(inputs)
  // The rubric, and the rubrics in the folder beside it (docs/rubric.md#several-rubrics).
  const listed = await Promise.all([
    rubricFilesAt(github, main, before),
    rubricFilesAt(github, main, after)
  ])
  const paths = [main, ...new Set(listed.flat())]
  const versions = await Promise.all(
    paths.map(async p => [await github.fileAt(p, before), await github.fileAt(p, after)] as const)
  )
  const changed = paths.filter((_, i) => versions[i]?.[0] !== versions[i]?.[1])
  if (changed.length === 0) {
    const what = paths.length === 1 ? main : `${main} and ${rubricsFolder(main)}/`
    io.info(`Rubric Council: ${what} did not change on ${branch}; nothing to re-verify`)
    return
  }
  const hash = (text: string | undefined): string =>
    text === undefined ? 'none' : rubricHash(text)
  const [old, now] = versions[paths.indexOf(changed[0] ?? main)] ?? []
  const path = changed.join(', ')
  const change =
    changed.length === 1 ? `${hash(old)} → ${hash(now)}` : `${changed.length} rubrics changed`
  // With several rubrics each has its check run, which the review marks pending itself.
  if (listed[1].length > 0) pending = false
  const pulls = await github.openPullRequests(branch)
  io.info(
    `Rubric Council: the rubric changed on ${branch} (${change}); re-verifying ${pulls.length} open pull request${pulls.length === 1 ? '' : 's'}`
  )
  let stopped: string | undefined
  const problems: string[] = []
  const done = await mapBounded(pulls, REVERIFY_WIDTH, async pr => {
    if (stopped !== undefined) return false
    const outcome = await reverify(github, inputs.reviewWorkflow, pr)
    if (!outcome.ok) {
      if (SHARED_PROBLEMS.has(outcome.problem.kind)) stopped ??= outcome.problem.message
      else problems.push(outcome.problem.message)
      return false
    }
    if (pending) {
      const started = await github.startCheckRun(
        { headSha: pr.headSha, name, externalId: CHECK_RUN_MARK },
        {
          title: `The rubric changed: ${change}; re-verifying`,
          summary: `The rubric at ${path} on ${branch} changed (${change}). This pull request is being reviewed again under the new rubric.`
        }
      )
      if (!started.ok) {
        // No permission for one is no permission for any: say it once.
        pending = false
        io.warning(
          `Rubric Council: cannot mark the checks pending (${started.problem}); give the workflow "checks: write"`
        )
      }
    }
    return true
  })
  const rerun = done.filter(Boolean).length
  if (stopped !== undefined) {
    io.warning(`Rubric Council: ${stopped}; the verdicts already posted are left as they are`)
  }
  if (problems.length > 0) {
    const more = problems.length - LISTED_PROBLEMS
    io.warning(
      [
        `Rubric Council: ${problems.length} pull request${problems.length === 1 ? ' was' : 's were'} not re-verified; their verdicts are left as they are:`,
        ...problems.slice(0, LISTED_PROBLEMS).map(p => `- ${p}`),
        ...(more > 0 ? [`- and ${more} more`] : [])
      ].join('\n')
    )
  }
  io.info(
    `Rubric Council: re-ran the review (${inputs.reviewWorkflow}) of ${rerun} of ${pulls.length} pull request${pulls.length === 1 ? '' : 's'}`
  )
}
