import type { Council } from '../council/types.js'
import { evaluate } from '../engine/evaluate.js'
import type { Evaluation } from '../engine/evaluation.js'
import type { EvidenceSource } from '../evidence/source.js'
import type { GateSource } from '../gates/types.js'
import { annotationsOf } from '../github/check-run.js'
import type { IssueComment } from '../github/comment.js'
import type { PullRequestRun } from '../github/event.js'
import type { GitHubPort } from '../github/port.js'
import { commentMarker, renderComment } from '../report/comment.js'
import { historyEntry, readHistory } from '../report/history.js'
import { outcomeOf } from '../verdict/outcome.js'
import type { ActionInputs } from './inputs.js'
import type { ActionIO } from './io.js'
import { publish, type PublishContext } from './publish.js'
import type { RubricChoice } from './rubric.js'

/** What a review runs on: gate results, evidence and judgement come in through these. */
export interface ReviewPorts {
  /** Absent without a token: nothing is read from GitHub or written to it then. */
  readonly github: GitHubPort | undefined
  readonly gates: GateSource
  readonly evidence: EvidenceSource
  readonly council: Council
  readonly machinery: (path: string) => boolean
}

/**
 * One review of a pull request: the earlier runs from the sticky comment, the evaluation, then
 * the comment, the check run, the job summary and the outputs. The rubric is still being read
 * (`rubric`) while the comments are.
 */
export async function reviewPullRequest(
  review: {
    readonly run: PullRequestRun
    readonly inputs: ActionInputs
    readonly rubric: Promise<RubricChoice>
    readonly ports: ReviewPorts
  },
  context: PublishContext & { readonly detailsUrl?: string | undefined },
  io: ActionIO
): Promise<void> {
  const { run, inputs, rubric, ports } = review
  const [existing, choice] = await Promise.all([
    inputs.comment === 'sticky' ? ourComments(ports.github, run, inputs.checkName, io) : [],
    rubric
  ])
  const prior = existing[0] ? readHistory(existing[0].body) : []
  const evaluated = await evaluate(
    {
      rubric: choice.rubric,
      trusted: choice.trusted,
      ...(choice.review && { review: choice.review }),
      history: prior
    },
    ports
  )
  const evaluation: Evaluation = {
    ...evaluated,
    history: [...prior, historyEntry(evaluated, run.pr.headSha)]
  }
  const commentUrl = await publishToPullRequest(ports.github, run, inputs, evaluation, io, {
    existing,
    ...(context.detailsUrl !== undefined && { detailsUrl: context.detailsUrl })
  })
  await publish(evaluation, { ...context, ...(commentUrl !== undefined && { commentUrl }) }, io)
}

/** Our earlier comments on the pull request; none, with a warning, when they cannot be read. */
async function ourComments(
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
 * The sticky comment and the check run. Without write permission both degrade to a warning; the
 * verdict stands and the job summary has the report. Returns the comment's URL, if any.
 */
async function publishToPullRequest(
  github: GitHubPort | undefined,
  run: PullRequestRun,
  inputs: ActionInputs,
  evaluation: Evaluation,
  io: ActionIO,
  options: { readonly existing: readonly IssueComment[]; readonly detailsUrl?: string }
): Promise<string | undefined> {
  const conclusion = outcomeOf(evaluation.verdict, inputs.failOn).conclusion
  if (inputs.dryRun) {
    printDryRun(run, inputs, evaluation, conclusion, io)
    return undefined
  }
  if (!github) {
    io.warning(
      'Rubric Council: no github-token, so no comment and no check run; the report is in the job summary'
    )
    return undefined
  }
  // The comment and the check run are written at once; the client still sends one write at a
  // time, so this only overlaps rendering one with sending the other.
  const [url, check] = await Promise.all([
    inputs.comment === 'sticky'
      ? stickyComment(github, run, inputs, evaluation, options.existing, io)
      : undefined,
    github.checkRun(
      {
        headSha: run.pr.headSha,
        name: inputs.checkName,
        ...(options.detailsUrl !== undefined && { detailsUrl: options.detailsUrl })
      },
      evaluation,
      inputs.failOn
    )
  ])
  if (check.action === 'failed') io.warning(`Rubric Council: ${check.reason}`)
  else io.info(`Check run "${inputs.checkName}": ${conclusion}`)
  return url
}

/** Creates or updates the sticky comment, unless a newer push is already being reviewed. */
async function stickyComment(
  github: GitHubPort,
  run: PullRequestRun,
  inputs: ActionInputs,
  evaluation: Evaluation,
  existing: readonly IssueComment[],
  io: ActionIO
): Promise<string | undefined> {
  const current = await currentHead(github, run)
  if (current !== undefined && current !== run.pr.headSha) {
    // A newer push is being reviewed; its result must not be overwritten by this older one.
    io.notice(
      `Rubric Council: not updating the comment: this run reviewed ${run.pr.headSha.slice(0, 7)}, but the pull request is now at ${current.slice(0, 7)}`
    )
    return undefined
  }
  const outcome = await github.upsertComment(
    run.pr.number,
    renderComment(evaluation, inputs.checkName),
    existing
  )
  if (outcome.action === 'failed') {
    io.warning(`Rubric Council: ${outcome.reason}`)
    return undefined
  }
  return outcome.url
}

/** What a real run would post, printed instead (dry-run). */
function printDryRun(
  run: PullRequestRun,
  inputs: ActionInputs,
  evaluation: Evaluation,
  conclusion: string,
  io: ActionIO
): void {
  if (inputs.comment === 'sticky') {
    io.group(
      `Rubric Council (dry run): the comment it would post on #${run.pr.number}`,
      renderComment(evaluation, inputs.checkName)
    )
  }
  const annotations = annotationsOf(evaluation).length
  io.info(
    `Rubric Council (dry run): it would create the check run "${inputs.checkName}" on ${run.pr.headSha.slice(0, 7)} ` +
      `concluding ${conclusion}, with ${annotations} annotation${annotations === 1 ? '' : 's'}`
  )
}

/** The pull request's head now, or undefined when it cannot be read (then nothing is withheld). */
async function currentHead(github: GitHubPort, run: PullRequestRun): Promise<string | undefined> {
  try {
    const pr = await github.pullRequest(run.pr.number)
    const head = (pr as { head?: { sha?: unknown } }).head?.sha
    return typeof head === 'string' ? head : undefined
  } catch {
    return undefined
  }
}
