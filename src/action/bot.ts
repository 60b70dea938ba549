import type { GitHubPort } from '../github/port.js'
import { checkRunName } from '../publish/check-name.js'
import { CHECK_RUN_MARK, otherCheckRuns, othersAlert, othersWarnings } from '../publish/plan.js'
import { nextIteration } from '../engine/history.js'
import {
  askRerun,
  commentMarker,
  historyEntryNoted,
  noteAcceptance,
  noteWaiver,
  otherWaivers,
  readState,
  refusalMarker,
  MAX_WAIVER_ID,
  MAX_WAIVERS,
  replaceState,
  type CommentState,
  type StoredWaiver,
  verdictToAccept,
  withAcceptance,
  withAlert
} from '../publish/memory.js'
import { code, escapeMarkdown } from '../report/escape.js'
import { parsePayload, type EventName, type Payload } from '../github/payload.js'
import {
  acceptedReply,
  COMMANDS_HELP,
  mayCommand,
  missingPart,
  parseCommand,
  unknownCriterionReply,
  waivedReply,
  type Command
} from './commands.js'
import { baseCriteria, branchRef, ownCheckNames, repositoryRubricPath } from './rubric.js'
import type { HistoryEntry } from '../engine/history.js'
import type { IssueComment } from '../github/comment.js'
import type { PullRequest } from '../github/pull-request.js'
import type { ActionInputs } from './inputs.js'
import type { ActionIO } from './io.js'
import { healOutages, latestOurs } from './heal.js'
import { reverify } from './reverify.js'
import { checkRunsNamed } from './review.js'
import { rubricPushed } from './rubric-pushed.js'

interface BotContext {
  readonly github: GitHubPort
  readonly inputs: ActionInputs
  readonly io: ActionIO
  /** The event's payload, as the runner wrote it: read by `parsePayload` into its event's type. */
  readonly payload: unknown
  /** The job's environment: on `schedule`, the provider keys and endpoints the probes use. */
  readonly env: Readonly<Record<string, string | undefined>>
}

/** The bot's events, and what it does on each: not a review, but something about pull requests. */
export const BOT_HANDLERS: Readonly<Record<string, (context: BotContext) => Promise<void>>> = {
  push: context => withPayload(context, 'push', push => rubricPushed(context, push)),
  issue_comment: context =>
    withPayload(context, 'issue_comment', comment => commandGiven(context, comment)),
  schedule: context => withPayload(context, 'schedule', cron => healOutages(context, cron))
}

/** `then`, on the event's payload once read into its type; a payload that cannot be is said and left. */
async function withPayload<E extends EventName>(
  context: BotContext,
  event: E,
  then: (payload: Payload<E>) => Promise<void>
): Promise<void> {
  const parsed = parsePayload(event, context.payload)
  if (parsed.ok) await then(parsed.value)
  else context.io.notice(`Rubric Council: ${parsed.problem}; nothing to do`)
}

/** A command comment, as the event gives it, once its author may give commands. */
interface Given {
  readonly number: number
  readonly login: string
  /** `@login`, for the replies. */
  readonly who: string
  readonly commentId: number
  /** When the command was written (GitHub's `created_at`). */
  readonly writtenAt: string | undefined
  /** The pull request now; undefined when GitHub's answer is not one. */
  readonly pr: PullRequest | undefined
}

type CommandOf<K extends Command['kind']> = Extract<Command, { kind: K }>

/**
 * A comment on a pull request: `/council rerun`, `/council accept <reason>` or `/council waive
 * <criterion-id> <reason>` from a user with write permission, each to its handler; anything else
 * starting with `/council` gets a short reply, at most one per pull request to someone without
 * write permission. Bots, the action's own comments and comments on issues are left alone.
 */
export async function commandGiven(
  context: BotContext,
  event: Payload<'issue_comment'>
): Promise<void> {
  const { github, io } = context
  const { issue, comment } = event
  const { body } = comment
  const { login } = comment.user
  const { number } = issue
  const command = parseCommand(body)
  if (event.action !== 'created' || issue.pull_request === undefined) {
    io.notice('Rubric Council: not a new comment on a pull request; nothing to do')
    return
  }
  if (
    command === undefined ||
    comment.user.type === 'Bot' ||
    body.startsWith('<!-- rubric-council')
  ) {
    io.notice('Rubric Council: not a command for the bot; nothing to do')
    return
  }
  const who = `@${login}`
  const permitted = await mayCommand(github, login)
  const refusal = { number, login, permitted }
  if (command.kind === 'unknown') {
    await answer(
      context,
      refusal,
      `${who} ${code(command.text)} is not a command I know. ${COMMANDS_HELP}`
    )
    io.notice(`Rubric Council: unknown command from ${who}`)
    return
  }
  if (!permitted) {
    await answer(
      context,
      refusal,
      `${who} only people with write permission on the repository may run \`/council ${command.kind}\`. ${COMMANDS_HELP}`
    )
    io.notice(`Rubric Council: refused /council ${command.kind} from ${who}: no write permission`)
    return
  }
  const missing = missingPart(command)
  if (missing !== undefined) {
    await github.reply(number, `${who} ${missing}`)
    return
  }
  const given: Given = {
    number,
    login,
    who,
    commentId: comment.id,
    writtenAt: comment.created_at,
    pr: await github.pullRequest(number)
  }
  if (command.kind === 'rerun') await rerunGiven(context, given)
  else if (command.kind === 'accept') await acceptGiven(context, given, command)
  else await waiveGiven(context, given, command)
}

/**
 * `/council rerun`: the cached answers are dropped and the rerun noted, and the pull request's
 * latest review run re-run, whose review asks the judges again. Editing the comment the same way
 * can only cause the same.
 */
async function rerunGiven(context: BotContext, given: Given): Promise<void> {
  const { github, inputs, io } = context
  const { number, who, pr } = given
  await github.react(given.commentId, 'eyes')
  const head = pr?.headSha ?? ''
  const [ours] = await github.comments(number, commentMarker(inputs.checkName))
  if (ours) {
    const state = askRerun(readState(ours.body), { commit: head, by: given.login })
    await github.upsertComment(number, replaceState(ours.body, state), [ours])
  }
  const outcome = await reverify(github, inputs.reviewWorkflow, {
    number,
    headSha: head,
    headRepository: pr?.headRepository ?? '',
    headRef: pr?.headRef ?? ''
  })
  if (!outcome.ok) {
    io.warning(`Rubric Council: ${outcome.problem.message}`)
    await github.reply(
      number,
      `${who} I could not start the review again: ${outcome.problem.message}`
    )
    return
  }
  io.info(
    `Rubric Council: /council rerun by ${who}: re-running ${outcome.value.runUrl} for #${number}`
  )
}

/** The sticky comment and the verdict on the head a command written then is about. */
interface OnHead {
  readonly head: string
  readonly ours: IssueComment
  readonly state: CommentState
  readonly last: HistoryEntry
}

/**
 * The verdict `/council accept` or `/council waive` is about: the newest, on the pull request's
 * head now, given before the command was written. Otherwise the commenter is told why there is
 * none, and undefined.
 */
async function verdictOnHead(
  context: BotContext,
  given: Given,
  kind: 'accept' | 'waive'
): Promise<OnHead | undefined> {
  const { github, inputs, io } = context
  const { number, who } = given
  await github.react(given.commentId, 'eyes')
  const head = given.pr?.headSha ?? ''
  const [ours] = await github.comments(number, commentMarker(inputs.checkName))
  const state = ours ? readState(ours.body) : { history: [] }
  const verdict = verdictToAccept(state.history, head, given.writtenAt)
  if (ours && verdict.ok) return { head, ours, state, last: verdict.value }
  const short = head.slice(0, 7)
  await github.reply(
    number,
    verdict.ok || verdict.problem === 'no_verdict'
      ? `${who} there is no verdict on the head commit ${short} yet to ${kind === 'accept' ? 'accept' : 'waive a must-have of'}; wait for the review to finish, then ${kind === 'accept' ? 'accept it' : 'waive it'}.`
      : `${who} the pull request changed after your comment: the verdict on its head commit ${short} was given after it, so it is not ${kind === 'accept' ? 'accepted' : 'waived'}. Read the report on ${short}, then ${kind === 'accept' ? 'accept it' : 'waive it'} again.`
  )
  io.notice(
    `Rubric Council: /council ${kind} by ${who} not taken for ${short}: ${verdict.ok ? 'no comment' : verdict.problem}`
  )
  return undefined
}

/**
 * `/council accept <reason>`: the whole check, whatever the reason's first word, on the head whose
 * verdict the maintainer could read. The check runs that verdict was posted on conclude `success`,
 * the comment notes it, and the reply says so (with a word on `/council waive` when the reason
 * starts with a must-have's id).
 */
async function acceptGiven(
  context: BotContext,
  given: Given,
  command: CommandOf<'accept'>
): Promise<void> {
  const { github, io } = context
  const { number, who, login, pr } = given
  const onHead = await verdictOnHead(context, given, 'accept')
  if (onHead === undefined) return
  const { head, ours, state, last } = onHead
  const names = await namesToAccept(context, given, head, state)
  if (names === undefined) return
  const reason = command.reason
  const accepted = `Accepted by @${login}: ${reason}`
  const short = head.slice(0, 7)
  const alerts = await Promise.all(
    names.map(async name => {
      const others = otherCheckRuns(await checkRunsNamed(github, { headSha: head, name }, io))
      for (const warning of othersWarnings(name, others)) io.warning(warning)
      return othersAlert(name, others)
    })
  )
  const written = await Promise.all(
    names.map((name, i) =>
      github.completeCheckRun({ headSha: head, name, externalId: CHECK_RUN_MARK }, 'success', {
        title: accepted,
        summary:
          (alerts[i] ?? '') +
          `@${login} accepted the council's verdict on ${short} ` +
          `(${last.verdict}${last.reasons.length > 0 ? `: ${last.reasons.join(', ')}` : ''}): ${escapeMarkdown(reason)}\n\n` +
          `It holds for this commit only; a new push is judged again. The report: ${ours.html_url}`
      })
    )
  )
  const check = written.find(w => !w.ok) ?? written[0]
  if (check !== undefined && !check.ok) {
    io.warning(`Rubric Council: ${check.problem}`)
    await github.reply(number, `${who} I could not record the acceptance: ${check.problem}.`)
    return
  }
  const noted = withAcceptance(
    ours.body,
    { by: login, reason, commit: head },
    noteAcceptance(
      state,
      historyEntryNoted(last, nextIteration(state.history), `accepted by @${login}: ${reason}`),
      { commit: head, by: login, reason, commentId: given.commentId }
    )
  )
  // The comment of several rubrics has no alert: each rubric's check run carries its own.
  await github.upsertComment(number, state.rubrics ? noted : withAlert(noted, alerts[0] ?? ''), [
    ours
  ])
  const first = reason.split(' ', 1)[0] ?? ''
  // Only for the reply's hint: the acceptance is recorded whatever the base's rubrics say.
  const criteria = await criteriaOfBase(context, pr).catch(() => undefined)
  await github.reply(
    number,
    acceptedReply(who, head, criteria?.get(first) === true ? first : undefined)
  )
  io.info(`Rubric Council: ${accepted} (${short})`)
}

/**
 * The check runs this pull request's verdicts on `head` were posted on, under the names its base
 * gives now: with several rubrics each one judged on the head, else the one the state says. A
 * name of another check, or of another base (the pull request was retargeted after the verdict),
 * is never completed: the state can be edited, and a base can change without a review. Undefined,
 * with a reply saying why, when there are none or they cannot be read.
 */
async function namesToAccept(
  context: BotContext,
  given: Given,
  head: string,
  state: CommentState
): Promise<string[] | undefined> {
  const { github, io } = context
  const { number, who } = given
  const base = given.pr ?? { baseRef: '', defaultBranch: '' }
  let names: string[]
  try {
    names = state.rubrics
      ? await ownRubricNames(context, state.rubrics, head, base)
      : await ownCheckName(context, state.check, head, base)
  } catch (error) {
    // The 👀 is there already: the commenter is told, not left with it alone.
    const said = error instanceof Error ? error.message : String(error)
    io.warning(`Rubric Council: /council accept by ${who}: ${said}`)
    await github.reply(
      number,
      `${who} I could not read which check runs to accept (${said}): nothing was accepted. Accept it again in a moment.`
    )
    return undefined
  }
  if (names.length > 0) return names
  const short = head.slice(0, 7)
  await github.reply(
    number,
    `${who} the verdict on ${short} was not posted on the check run that this pull request's base branch ${code(base.baseRef)} requires (the pull request was retargeted, or the base's rubrics changed, since its review): nothing was accepted. Comment \`/council rerun\` to have it reviewed under ${code(base.baseRef)}, then accept it.`
  )
  io.notice(
    `Rubric Council: /council accept by ${who} not taken for ${short}: not this check's run under its base`
  )
  return undefined
}

/**
 * `/council waive <criterion-id> <reason>`: the id must name a must-have of the base branch's
 * rubrics (read through the API, never the pull request's); an unknown id is refused with the
 * must-haves that exist, a nice-to-have with why there is nothing to waive.
 */
async function waiveGiven(
  context: BotContext,
  given: Given,
  command: CommandOf<'waive'>
): Promise<void> {
  const { github } = context
  const { number, who, pr } = given
  const { criterion } = command
  const criteria = await criteriaOfBase(context, pr)
  const known = criteria?.get(criterion)
  if (known === undefined) {
    await github.reply(number, unknownCriterionReply(who, criterion, criteria))
    return
  }
  if (!known) {
    await github.reply(
      number,
      `${who} ${code(criterion)} is a nice-to-have: it never fails the check, so there is nothing to waive. Nothing was waived.`
    )
    return
  }
  if (command.reason === '') {
    await github.reply(number, `${who} say why: \`/council waive ${criterion} <reason>\`.`)
    return
  }
  const onHead = await verdictOnHead(context, given, 'waive')
  if (onHead === undefined) return
  await waiverGiven(context, {
    ...onHead,
    number,
    waiver: { commit: onHead.head, criterion, by: given.login, commentId: given.commentId },
    reason: command.reason,
    from: { headRepository: pr?.headRepository ?? '', headRef: pr?.headRef ?? '' }
  })
}

/**
 * The criteria of the base branch's rubrics (id → must-have); undefined when there is no valid
 * rubric, or it cannot be read.
 */
async function criteriaOfBase(
  context: BotContext,
  pr: PullRequest | undefined
): Promise<ReadonlyMap<string, boolean> | undefined> {
  if (pr === undefined) return undefined
  return baseCriteria(context.github, repositoryRubricPath(context.inputs), branchRef(pr.baseRef))
}

/** The rubrics judged on `head`, among several, by this check's run names for a pull request into `base`. */
async function ownRubricNames(
  context: BotContext,
  rubrics: NonNullable<CommentState['rubrics']>,
  head: string,
  base: { readonly baseRef: string; readonly defaultBranch: string }
): Promise<string[]> {
  const { github, inputs } = context
  const own = await ownCheckNames(github, repositoryRubricPath(inputs), inputs.checkName, base)
  return Object.entries(rubrics).flatMap(([name, memory]) =>
    memory.history.at(-1)?.commit === head && own.has(name) ? [name] : []
  )
}

/**
 * The one rubric's check run name for a pull request into `base`, when its verdict was posted
 * there: the name the state records (`check`); for a state written before it did, when this
 * check has a run of that name on `head`.
 */
async function ownCheckName(
  context: BotContext,
  recorded: string | undefined,
  head: string,
  base: { readonly baseRef: string; readonly defaultBranch: string }
): Promise<string[]> {
  const name = checkRunName(context.inputs.checkName, base)
  if (recorded !== undefined) return recorded === name ? [name] : []
  return (await latestOurs(context.github, head, name)) === undefined ? [] : [name]
}

/**
 * `/council waive <criterion-id> <reason>`, once the verdict on the head is known: the waiver is
 * kept in the comment's state (for the head commit only) and the pull request reviewed again by
 * re-running its latest review run. That review checks the waiver's command comment through the
 * API (review.ts `verifiedWaivers`) and computes the verdict with the must-have WAIVED; the
 * judges' answers are reused, so no provider is asked again. A must-have that did not fail or
 * split on the head is not waived.
 */
async function waiverGiven(
  context: BotContext,
  given: {
    readonly number: number
    readonly head: string
    readonly ours: IssueComment
    readonly state: CommentState
    readonly last: HistoryEntry
    readonly waiver: StoredWaiver
    readonly reason: string
    /** Its head's repository and branch, which tell its review runs from others' at `head`. */
    readonly from: { readonly headRepository: string; readonly headRef: string }
  }
): Promise<void> {
  const { github, inputs, io } = context
  const { number, head, ours, state, last, waiver, reason, from } = given
  const who = `@${waiver.by}`
  const short = head.slice(0, 7)
  if (waiver.criterion.length > MAX_WAIVER_ID) {
    await github.reply(
      number,
      `${who} a criterion id longer than ${MAX_WAIVER_ID} characters cannot be waived; nothing was waived. Accept the whole check instead: \`/council accept <reason>\`.`
    )
    return
  }
  if (!(last.waivable ?? []).includes(waiver.criterion)) {
    await github.reply(
      number,
      `${who} ${code(waiver.criterion)} did not fail or split on the head commit ${short}: there is nothing to waive, and nothing was waived.`
    )
    io.notice(
      `Rubric Council: /council waive ${waiver.criterion} by ${who} not taken: it did not fail on ${short}`
    )
    return
  }
  const others = otherWaivers(state, head, waiver.criterion)
  if (others.length >= MAX_WAIVERS) {
    await github.reply(
      number,
      `${who} ${short} already has ${MAX_WAIVERS} waivers, the most one commit can have; nothing more was waived. Accept the whole check instead: \`/council accept <reason>\`.`
    )
    return
  }
  const note = `waived ${waiver.criterion} by ${who}: ${reason}`
  const written = await github.upsertComment(
    number,
    replaceState(
      ours.body,
      noteWaiver(state, historyEntryNoted(last, nextIteration(state.history), note), waiver)
    ),
    [ours]
  )
  if (!written.ok) {
    io.warning(`Rubric Council: ${written.problem}`)
    await github.reply(number, `${who} I could not record the waiver: ${written.problem}.`)
    return
  }
  const outcome = await reverify(github, inputs.reviewWorkflow, { number, headSha: head, ...from })
  if (!outcome.ok) {
    io.warning(`Rubric Council: ${outcome.problem.message}`)
    await github.reply(
      number,
      `${who} the waiver is recorded, but I could not start the review again: ${outcome.problem.message}`
    )
    return
  }
  await github.reply(number, waivedReply(who, waiver.criterion, head))
  io.info(`Rubric Council: ${note} (${short}); re-running ${outcome.value.runUrl} for #${number}`)
}

/**
 * The reply to a command the bot does not take. Someone without write permission gets one per pull
 * request, whatever they post: the reply's hidden first line names them, and finding it among our
 * comments (GitHub's own record, which only our account can add to) means they were answered.
 */
async function answer(
  context: BotContext,
  to: { readonly number: number; readonly login: string; readonly permitted: boolean },
  text: string
): Promise<void> {
  const { github, io } = context
  if (to.permitted) {
    await github.reply(to.number, text)
    return
  }
  const marker = refusalMarker(to.login)
  if ((await github.comments(to.number, marker)).length > 0) {
    io.notice(
      `Rubric Council: @${to.login} was already answered on #${to.number}; not replying again`
    )
    return
  }
  await github.reply(to.number, `${marker}\n${text}`)
}
