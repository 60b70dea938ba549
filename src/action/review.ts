import type { Council } from '../council/types.js'
import type { HistoryEntry } from '../engine/history.js'
import { evaluate } from '../engine/evaluate.js'
import type { Acceptance, Evaluation } from '../engine/evaluation.js'
import { nextIteration } from '../engine/history.js'
import { cachingCouncil } from '../engine/judgement-cache.js'
import type { CheckRunPlace } from '../github/check-run.js'
import { mayCommand, parseCommand } from './commands.js'
import type { Waiver } from '../verdict/types.js'
import type { EvidenceSource } from '../evidence/source.js'
import type { GateSource } from '../gates/types.js'
import type { IssueComment } from '../github/comment.js'
import type { PullRequestRun } from '../github/event.js'
import type { GitHubPort } from '../github/port.js'
import {
  CHECK_RUN_MARK,
  planPublication,
  type NamedCheckRun,
  type Publication
} from '../publish/plan.js'
import {
  commentMarker,
  historyEntry,
  iterationNote,
  readState,
  type CommentState,
  type RubricMemory,
  type StoredAcceptance,
  type StoredWaiver
} from '../publish/memory.js'
import type { SealedJudgement } from '../engine/judgement-cache.js'
import type { EvidenceScope } from '../evidence/types.js'
import { checkRunName } from '../publish/check-name.js'
import type { ActionInputs } from './inputs.js'
import type { ActionIO } from './io.js'
import { publish, reportPathIn, type PublishContext } from './publish.js'
import type { RubricChoice } from '../engine/rubric-choice.js'
import { stickyComment } from './sticky-comment.js'

/** What a review runs on: gate results, evidence and judgement come in through these. */
export interface ReviewPorts {
  /** Absent without a token: nothing is read from GitHub or written to it then. */
  readonly github: GitHubPort | undefined
  readonly gates: GateSource
  readonly evidence: EvidenceSource
  readonly council: Council
  readonly machinery: (path: string) => boolean
  /** Seals the judges' answers kept for the next run; none without a provider key. */
  readonly judgementKey?: Buffer
}

/**
 * One review of a pull request: the check run started (pending), the earlier runs and what else
 * the sticky comment remembers, the evaluation (reusing the judges' answers when nothing they saw
 * changed), then the comment, the completed check run, the job summary and the outputs. The
 * rubric is still being read (`rubric`) while the comments are.
 */
export async function reviewPullRequest(
  review: {
    readonly run: PullRequestRun
    readonly inputs: ActionInputs
    readonly rubric: Promise<RubricChoice>
    readonly ports: ReviewPorts
    /** Why a `skip-*` rule that held did not skip this run (`skipOf`), for the report. */
    readonly skipRefused?: string
  },
  context: PublishContext & { readonly detailsUrl?: string | undefined },
  io: ActionIO
): Promise<void> {
  const { run, inputs, rubric, ports } = review
  const place: CheckRunPlace = {
    headSha: run.pr.headSha,
    name: checkRunName(inputs.checkName, run.pr),
    externalId: CHECK_RUN_MARK,
    ...(context.detailsUrl !== undefined && { detailsUrl: context.detailsUrl })
  }
  const writer = inputs.dryRun ? undefined : ports.github
  const [existing, choice, started] = await Promise.all([
    inputs.comment === 'sticky' ? ourComments(ports.github, run, inputs.checkName, io) : [],
    rubric,
    writer?.startCheckRun(place, {
      title: 'Reviewing…',
      summary: `Rubric Council is reviewing ${run.pr.headSha.slice(0, 7)}: gates, then the judges.`
    })
  ])
  if (started?.ok === false) io.warning(`Rubric Council: ${started.problem}`)
  const checkRunId = started?.ok === true ? started.value : undefined
  try {
    const state: CommentState = existing[0] ? readState(existing[0].body) : { history: [] }
    const asked = await askedOf(state, run.pr, ports.github, io)
    const { heal, waivers } = asked
    const judged = await judgeRubric({ choice, memory: state, head: run.pr.headSha, asked }, ports)
    const acceptance = await verifiedAcceptance(
      ports.github,
      state.accepted,
      { head: run.pr.headSha, number: run.pr.number },
      io
    )
    const evaluation: Evaluation = {
      ...judged.evaluation,
      ...(acceptance && { acceptance }),
      ...(review.skipRefused !== undefined && { skipRefused: review.skipRefused })
    }
    const kept = {
      check: place.name,
      ...(judged.sealed && { judgement: judged.sealed }),
      ...(acceptance && state.accepted && { accepted: state.accepted }),
      ...(heal && { heal: { ...heal, due: false } }),
      ...(waivers.length > 0 && { waivers })
    }
    const settings = {
      checkName: inputs.checkName,
      failOn: inputs.failOn,
      comment: inputs.comment === 'sticky'
    }
    const planned = {
      headSha: run.pr.headSha,
      pullRequest: run.pr.number,
      ...(context.detailsUrl !== undefined && { detailsUrl: context.detailsUrl }),
      kept,
      reportPath: reportPathIn(context.tempDir),
      ...(checkRunId !== undefined && { checkRunId }),
      checkRunsNamed: writer ? await checkRunsNamed(writer, place, io) : [],
      base: run.pr
    }
    const plan = planPublication(evaluation, settings, planned)
    // Another review may have written the comment meanwhile: it is planned again for the state
    // the two make together.
    const render = ({ history, ...remembered }: CommentState): string =>
      planPublication({ ...evaluation, history }, settings, { ...planned, kept: remembered })
        .comment ?? ''
    const commentUrl = await publishToPullRequest(ports.github, run, inputs, plan, io, {
      existing,
      read: state,
      kept,
      history: evaluation.history ?? [],
      render,
      ...(checkRunId !== undefined && { checkRunId })
    })
    await publish(evaluation, plan, { ...context, commentUrl }, io)
  } catch (error) {
    // A pending check must not stay pending: it ends as a failure that says why.
    if (writer && checkRunId !== undefined) {
      await writer.completeCheckRun({ ...place, id: checkRunId }, 'failure', {
        title: 'Rubric Council failed with an internal error',
        summary: `The run stopped before a verdict: ${error instanceof Error ? error.message : String(error)}`
      })
    }
    throw error
  }
}

/** What the comment's memory asks of a review of `head`, read for that head only. */
export interface Asked {
  /** `/council rerun`: the judges are asked again, whatever they answered before. */
  readonly rerun?: NonNullable<CommentState['rerun']>
  /** The bot's re-runs after a provider outage of this head: counted while the head stays. */
  readonly heal?: NonNullable<CommentState['heal']>
  readonly waivers: readonly StoredWaiver[]
  /** The waivers whose commands still hold (`verifiedWaivers`). */
  readonly waived: readonly Waiver[]
}

export async function askedOf(
  state: CommentState,
  pr: { readonly headSha: string; readonly number: number },
  github: GitHubPort | undefined,
  io: ActionIO
): Promise<Asked> {
  const head = pr.headSha
  const waivers = (state.waivers ?? []).filter(w => w.commit === head)
  return {
    ...(state.rerun?.commit === head && { rerun: state.rerun }),
    ...(state.heal?.commit === head && { heal: state.heal }),
    waivers,
    waived: await verifiedWaivers(github, waivers, pr.number, io)
  }
}

/**
 * One rubric judged with what it remembers (its history, and the judges' answers it may reuse):
 * the evaluation with its history entry, and the answers to keep for the next run.
 */
export async function judgeRubric(
  request: {
    readonly choice: RubricChoice
    readonly memory: RubricMemory
    readonly head: string
    readonly asked: Asked
    /** A rubric among several: which changed files its judges see. */
    readonly scope?: EvidenceScope
  },
  ports: ReviewPorts
): Promise<{ readonly evaluation: Evaluation; readonly sealed?: SealedJudgement }> {
  const { choice, memory, head, asked } = request
  const prior = memory.history
  const council = cachingCouncil(ports.council, {
    key: ports.judgementKey,
    ...(asked.rerun === undefined && memory.judgement && { previous: memory.judgement }),
    iteration: nextIteration(prior)
  })
  const evaluated = await evaluate(
    {
      rubric: choice.rubric,
      trusted: choice.trusted,
      ...(choice.review && { review: choice.review }),
      history: prior,
      ...(request.scope && { scope: request.scope }),
      ...(asked.waived.length > 0 && { waived: asked.waived })
    },
    { ...ports, council }
  )
  const cache = council.result()
  const note = iterationNote(
    prior,
    head,
    evaluated.rubric.hash,
    { ...(asked.rerun && { rerun: asked.rerun }), healed: asked.heal?.due === true },
    cache.reusedFrom
  )
  return {
    evaluation: {
      ...evaluated,
      ...(cache.reusedFrom !== undefined && { reusedFrom: cache.reusedFrom }),
      history: [...prior, historyEntry(evaluated, head, note, new Date())]
    },
    ...(cache.sealed && { sealed: cache.sealed })
  }
}

/**
 * The acceptance the comment records for this head commit, once the `/council accept` comment it
 * names has been read again through the API: on this pull request, by the user the state names,
 * who still has write permission. Anything else (another commit, an edited or deleted command, a
 * waiver's command, a command on another pull request, a lost permission) counts as none.
 */
export async function verifiedAcceptance(
  github: GitHubPort | undefined,
  stored: StoredAcceptance | undefined,
  of: { readonly head: string; readonly number: number },
  io: ActionIO
): Promise<Acceptance | undefined> {
  const { head } = of
  if (!github || stored?.commit !== head) return undefined
  try {
    const comment = await github.issueComment(stored.commentId)
    const command = comment === undefined ? undefined : parseCommand(comment.body)
    if (
      comment?.issue === of.number &&
      comment.login === stored.by &&
      command?.kind === 'accept' &&
      command.reason !== '' &&
      (await mayCommand(github, stored.by))
    ) {
      return { by: stored.by, reason: command.reason, commit: head }
    }
  } catch (error) {
    io.warning(
      `Rubric Council: the acceptance by @${stored.by} could not be checked, so it does not count: ${error instanceof Error ? error.message : String(error)}`
    )
    return undefined
  }
  io.warning(
    `Rubric Council: the acceptance recorded for ${head.slice(0, 7)} does not match a /council accept comment by a user with write permission; it does not count`
  )
  return undefined
}

/**
 * The waivers the comment records for this head commit (`stored`, already of this head), each
 * checked as an acceptance is: its `/council waive <criterion-id> <reason>` comment read again
 * through the API, on pull request `number`, written by the same user, naming the same criterion
 * with a reason, and its author still with write permission. The reason is the comment's, not the
 * state's. Any other counts as none, with a warning; the verdict decides whether the criterion
 * failed at all.
 */
export async function verifiedWaivers(
  github: GitHubPort | undefined,
  stored: readonly StoredWaiver[],
  number: number,
  io: ActionIO
): Promise<Waiver[]> {
  if (!github) return []
  const verified: Waiver[] = []
  for (const waiver of stored) {
    try {
      const comment = await github.issueComment(waiver.commentId)
      const command = comment === undefined ? undefined : parseCommand(comment.body)
      if (
        comment?.issue === number &&
        comment.login === waiver.by &&
        command?.kind === 'waive' &&
        command.criterion === waiver.criterion &&
        command.reason !== '' &&
        (await mayCommand(github, waiver.by))
      ) {
        verified.push({ criterion: command.criterion, by: waiver.by, reason: command.reason })
        continue
      }
      io.warning(
        `Rubric Council: the waiver of ${waiver.criterion} recorded for ${waiver.commit.slice(0, 7)} does not match a /council waive ${waiver.criterion} comment by a user with write permission; it does not count`
      )
    } catch (error) {
      io.warning(
        `Rubric Council: the waiver of ${waiver.criterion} by @${waiver.by} could not be checked, so it does not count: ${error instanceof Error ? error.message : String(error)}`
      )
    }
  }
  return verified
}

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
 * The check runs of the check's name on the head commit, for the plan to name those Rubric Council
 * did not write. None, with a warning, when they cannot be listed.
 */
export async function checkRunsNamed(
  github: GitHubPort,
  place: CheckRunPlace,
  io: ActionIO
): Promise<NamedCheckRun[]> {
  try {
    return await github.checkRunsNamed(place.headSha, place.name)
  } catch (error) {
    io.warning(
      `Rubric Council: could not list the check runs named "${place.name}" on ${place.headSha.slice(0, 7)}: ${error instanceof Error ? error.message : String(error)}`
    )
    return []
  }
}

/**
 * The sticky comment and the check run, as planned. Without write permission both degrade to a
 * warning; the verdict stands and the job summary has the report. Returns the comment's URL, if
 * any.
 */
async function publishToPullRequest(
  github: GitHubPort | undefined,
  run: PullRequestRun,
  inputs: ActionInputs,
  plan: Publication,
  io: ActionIO,
  options: {
    readonly existing: readonly IssueComment[]
    readonly read: CommentState
    readonly kept: Omit<CommentState, 'history'>
    readonly history: readonly HistoryEntry[]
    readonly render: (state: CommentState) => string
    readonly checkRunId?: number
  }
): Promise<string | undefined> {
  if (inputs.dryRun) {
    if (plan.dryRun.comment) io.group(plan.dryRun.comment.title, plan.dryRun.comment.body)
    io.info(plan.dryRun.checkRun)
    return undefined
  }
  if (!github) {
    io.warning(
      'Rubric Council: no github-token, so no comment and no check run; the report is in the job summary'
    )
    return undefined
  }
  // The comment and the check run are written at once; the client still sends one write at a
  // time, so this only overlaps one request's wait with the other's.
  const [url, check] = await Promise.all([
    plan.comment === undefined
      ? undefined
      : stickyComment(github, run, inputs.checkName, options, io),
    github.checkRun({
      ...plan.checkRun,
      ...(options.checkRunId !== undefined && { id: options.checkRunId })
    })
  ])
  if (!check.ok) io.warning(`Rubric Council: ${check.problem}`)
  else io.info(`Check run "${plan.checkRun.name}": ${plan.checkRun.conclusion}`)
  return url
}
