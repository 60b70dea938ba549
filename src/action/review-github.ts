import type { CheckRunPlace, ListedCheckRun } from '../github/check-run.js'
import type { IssueComment } from '../github/comment.js'
import type { PullRequestRun } from '../github/event.js'
import type { GitHubPort } from '../github/port.js'
import { commentMarker, type CommentState } from '../publish/memory.js'
import type { ReviewPublication } from '../publish/review-plan.js'
import type { ActionInputs } from '../inputs/action-inputs.js'
import type { ActionIO } from './io.js'
import { stickyComment } from './sticky-comment.js'

// A review's reads and writes at GitHub (src/action/review.ts decides what they are).

/** Our earlier comments on the pull request; none, with a warning, when they cannot be read. */
export async function ourComments(
  github: GitHubPort | undefined,
  run: PullRequestRun,
  checkName: string,
  io: ActionIO
): Promise<readonly IssueComment[]> {
  if (!github) return []
  try {
    return await github.comments(run.pr.number, commentMarker(checkName))
  } catch (error) {
    io.warning(
      `Could not read the pull request's comments: ${error instanceof Error ? error.message : String(error)}`
    )
    return []
  }
}

/**
 * The check runs of these names on the head commit, for the plan to name those Rubric Council
 * did not write. None without a token, and none, with a warning, when they cannot be listed.
 */
export async function checkRunsNamed(
  github: GitHubPort | undefined,
  headSha: string,
  names: readonly string[],
  io: ActionIO
): Promise<ListedCheckRun[]> {
  if (!github || names.length === 0) return []
  try {
    return await github.checkRunsNamed(headSha, names)
  } catch (error) {
    io.warning(
      `Rubric Council: could not list the check runs named ${names.map(n => `"${n}"`).join(', ')} on ${headSha.slice(0, 7)}: ${error instanceof Error ? error.message : String(error)}`
    )
    return []
  }
}

/**
 * The sticky comment and each rubric's check run, as planned; a dry run prints them instead.
 * Without a token both degrade to a warning; the verdict stands and the job summary has the
 * report. The comment's URL, if any.
 */
export async function publishToPullRequest(
  publication: ReviewPublication,
  review: {
    readonly run: PullRequestRun
    readonly inputs: ActionInputs
    readonly ports: { readonly github: GitHubPort | undefined }
  },
  read: { readonly existing: readonly IssueComment[]; readonly state: CommentState },
  io: ActionIO
): Promise<string | undefined> {
  const { run, inputs } = review
  if (inputs.dryRun) {
    const { comment, checkRuns } = publication.dryRun
    if (comment) io.group(comment.title, comment.body)
    for (const line of checkRuns) io.info(line)
    return undefined
  }
  const github = review.ports.github
  if (!github) {
    io.warning(
      'Rubric Council: no github-token, so no comment and no check run; the report is in the job summary'
    )
    return undefined
  }
  const { history, ...kept } = publication.state
  const [url] = await Promise.all([
    inputs.comment === 'sticky'
      ? stickyComment(
          github,
          run,
          inputs.checkName,
          { history, render: publication.comment, read: read.state, kept, existing: read.existing },
          io
        )
      : undefined,
    ...publication.checkRuns.map(planned => writeCheckRun(github, planned, io))
  ])
  return url
}

/** A rubric's check run as planned: completed with its report, or "not applicable". */
async function writeCheckRun(
  github: GitHubPort,
  planned: ReviewPublication['checkRuns'][number],
  io: ActionIO
): Promise<void> {
  const { rubric } = planned
  const written =
    'run' in planned
      ? await github.checkRun({
          ...planned.run,
          ...(rubric.checkRunId !== undefined && { id: rubric.checkRunId })
        })
      : await github.completeCheckRun(planned.place, 'success', planned.text)
  if (!written.ok) io.warning(`Rubric Council: ${written.problem}`)
  else {
    const conclusion = 'run' in planned ? planned.run.conclusion : `success (${planned.text.title})`
    io.info(`Check run "${rubric.checkName}": ${conclusion}`)
  }
}

/** A pending check must not stay pending: each started one ends as a failure that says why. */
export async function failBegun(
  begun: readonly { readonly place: CheckRunPlace; readonly id?: number }[],
  writer: GitHubPort | undefined,
  error: unknown
): Promise<void> {
  const why = error instanceof Error ? error.message : String(error)
  await Promise.all(
    begun.map(async ({ place, id }) => {
      if (!writer || id === undefined) return
      await writer.completeCheckRun({ ...place, id }, 'failure', {
        title: 'Rubric Council failed with an internal error',
        summary: `The run stopped before a verdict: ${why}`
      })
    })
  )
}
