import {
  acceptanceOutput,
  acceptedComment,
  ownRubricNames,
  recordedCheckName,
  verdictOnHead,
  waivedComment,
  waiverRefused,
  type OnHead
} from '../bot/accept.js'
import {
  commandTaken,
  commentAsks,
  type CommandComment,
  type Said,
  type Taken
} from '../bot/commands.js'
import { acceptedReply, REPLY } from '../bot/replies.js'
import { parsePayload, type EventName, type Payload } from '../github/payload.js'
import type { PullRequest } from '../github/pull-request.js'
import { checkRunName } from '../publish/check-name.js'
import {
  askRerun,
  commentMarker,
  readState,
  refusalMarker,
  replaceState
} from '../publish/memory.js'
import { CHECK_RUN_MARK, otherCheckRuns, othersAlert, othersWarnings } from '../publish/plan.js'
import { mayCommand } from './asked.js'
import { healOutages, latestOurs, type HealContext } from './heal.js'
import { reverify } from './reverify.js'
import { checkRunsNamed } from './review-github.js'
import { rubricPushed } from './rubric-pushed.js'
import { baseCriteria, ownCheckNames } from './rubric.js'
import { branchRef, repositoryRubricPath } from '../engine/pull-request-rubric.js'

/** What the bot's job has: the API, its inputs, log and environment (`HealContext`), and the event. */
interface BotContext extends HealContext {
  /** The event's payload, as the runner wrote it: read by `parsePayload` into its event's type. */
  readonly payload: unknown
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

/** A command comment from a user with write permission, and its pull request now. */
interface Given extends CommandComment {
  /** Undefined when GitHub's answer is not one. */
  readonly pr: PullRequest | undefined
}

type CommandOf<K extends Taken['kind']> = Extract<Taken, { kind: K }>

type Handler<K extends Taken['kind']> = (
  context: BotContext,
  given: Given,
  command: CommandOf<K>
) => Promise<void>

/** Each command the bot takes, and its handler (docs/pr-bot.md#commands). */
const COMMANDS: { readonly [K in Taken['kind']]: Handler<K> } = {
  rerun: rerunGiven,
  accept: acceptGiven,
  waive: waiveGiven
}

/**
 * A comment on a pull request: `/council rerun`, `/council accept <reason>` or `/council waive
 * <criterion-id> <reason>` from a user with write permission, each to its handler; anything else
 * starting with `/council` gets a short reply (the commands, to one it does not know), at most one
 * per pull request to someone without write permission. Bots, the action's own comments and
 * comments on issues are left alone.
 */
export async function commandGiven(
  context: BotContext,
  event: Payload<'issue_comment'>
): Promise<void> {
  const { github, io } = context
  const asks = commentAsks(event)
  if (asks.kind === 'nothing') {
    io.notice(`Rubric Council: ${asks.notice}`)
    return
  }
  const { comment } = asks
  const permitted = await mayCommand(github, comment.login)
  const command = commandTaken(asks.command, comment.who, permitted)
  if (!command.ok) {
    await answer(context, { ...comment, permitted }, command.problem.reply)
    if (command.problem.notice !== undefined) io.notice(`Rubric Council: ${command.problem.notice}`)
    return
  }
  const given: Given = { ...comment, pr: await github.pullRequest(comment.number) }
  // The table pairs each command with its handler, which the compiler cannot follow through a union.
  await (COMMANDS[command.value.kind] as Handler<Taken['kind']>)(context, given, command.value)
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
    await github.reply(number, REPLY.notStarted(who, outcome.problem.message))
    return
  }
  io.info(
    `Rubric Council: /council rerun by ${who}: re-running ${outcome.value.runUrl} for #${number}`
  )
}

/**
 * The verdict `/council accept` or `/council waive` is about (see `verdictOnHead`), after a 👀 on
 * the command; otherwise the commenter is told why there is none, and undefined.
 */
async function onHead(
  context: BotContext,
  given: Given,
  verb: 'accept' | 'waive'
): Promise<OnHead | undefined> {
  const { github, inputs } = context
  await github.react(given.commentId, 'eyes')
  const [ours] = await github.comments(given.number, commentMarker(inputs.checkName))
  const found = verdictOnHead(ours, given.pr?.headSha ?? '', given, verb)
  if (found.ok) return found.value
  await said(context, given.number, found.problem)
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
  const { number, who, pr } = given
  const found = await onHead(context, given, 'accept')
  if (found === undefined) return
  const { head, ours } = found
  const names = await namesToAccept(context, given, found)
  if (names === undefined) return
  const { reason } = command
  const alerts = await Promise.all(
    names.map(async name => {
      const others = otherCheckRuns(await checkRunsNamed(github, head, [name], io))
      for (const warning of othersWarnings(name, others)) io.warning(warning)
      return othersAlert(name, others)
    })
  )
  const written = await Promise.all(
    names.map((name, i) =>
      github.completeCheckRun(
        { headSha: head, name, externalId: CHECK_RUN_MARK },
        'success',
        acceptanceOutput(found, given.login, reason, alerts[i] ?? '')
      )
    )
  )
  const check = written.find(w => !w.ok) ?? written[0]
  if (check !== undefined && !check.ok) {
    io.warning(`Rubric Council: ${check.problem}`)
    await github.reply(number, REPLY.acceptanceUnwritten(who, check.problem))
    return
  }
  const body = acceptedComment(found, given, reason, alerts[0] ?? '')
  await github.upsertComment(number, body, [ours])
  const first = reason.split(' ', 1)[0] ?? ''
  // Only for the reply's hint: the acceptance is recorded whatever the base's rubrics say.
  const criteria = await criteriaOfBase(context, pr).catch(() => undefined)
  await github.reply(
    number,
    acceptedReply(who, head, criteria?.get(first) === true ? first : undefined)
  )
  io.info(`Rubric Council: Accepted by @${given.login}: ${reason} (${head.slice(0, 7)})`)
}

/**
 * The check runs this pull request's verdicts on the head were posted on, under the names its
 * base gives now: with several rubrics each one judged on the head, else the one the state says. A
 * name of another check, or of another base (the pull request was retargeted after the verdict),
 * is never completed: the state can be edited, and a base can change without a review. Undefined,
 * with a reply saying why, when there are none or they cannot be read.
 */
async function namesToAccept(
  context: BotContext,
  given: Given,
  found: OnHead
): Promise<string[] | undefined> {
  const { github, inputs, io } = context
  const { number, who } = given
  const { head, state } = found
  const base = given.pr ?? { baseRef: '', defaultBranch: '' }
  let names: string[]
  try {
    if (state.rubrics) {
      const path = repositoryRubricPath(inputs)
      const own = await ownCheckNames(github, path, inputs.checkName, base)
      names = ownRubricNames(state.rubrics, head, own)
    } else {
      const name = checkRunName(inputs.checkName, base)
      names =
        recordedCheckName(state.check, name) ??
        ((await latestOurs(github, head, name)) === undefined ? [] : [name])
    }
  } catch (error) {
    // The 👀 is there already: the commenter is told, not left with it alone.
    const problem = error instanceof Error ? error.message : String(error)
    io.warning(`Rubric Council: /council accept by ${who}: ${problem}`)
    await github.reply(number, REPLY.checkRunsUnread(who, problem))
    return undefined
  }
  if (names.length > 0) return names
  await said(context, number, {
    reply: REPLY.notOurCheckRun(who, head, base.baseRef),
    notice: `/council accept by ${who} not taken for ${head.slice(0, 7)}: not this check's run under its base`
  })
  return undefined
}

/**
 * `/council waive <criterion-id> <reason>`: once the id names a must-have of the base branch's
 * rubrics (`waiverRefused`) and the verdict on the head is known, the waiver is kept in the
 * comment's state (for the head commit only) and the pull request reviewed again by re-running
 * its latest review run. That review checks the waiver's command comment through the API
 * (asked.ts `verifiedWaivers`) and computes the verdict with the must-have WAIVED; the judges'
 * answers are reused, so no provider is asked again.
 */
async function waiveGiven(
  context: BotContext,
  given: Given,
  command: CommandOf<'waive'>
): Promise<void> {
  const { github, inputs, io } = context
  const { number, who, pr } = given
  const refused = waiverRefused(who, command, await criteriaOfBase(context, pr))
  if (refused !== undefined) {
    await github.reply(number, refused)
    return
  }
  const found = await onHead(context, given, 'waive')
  if (found === undefined) return
  const { head, ours } = found
  const waiver = { commit: head, criterion: command.criterion, by: given.login }
  const noted = waivedComment(found, { ...waiver, commentId: given.commentId }, command.reason)
  if (!noted.ok) {
    await said(context, number, noted.problem)
    return
  }
  const written = await github.upsertComment(number, noted.value.body, [ours])
  if (!written.ok) {
    io.warning(`Rubric Council: ${written.problem}`)
    await github.reply(number, REPLY.waiverUnwritten(who, written.problem))
    return
  }
  const from = { headRepository: pr?.headRepository ?? '', headRef: pr?.headRef ?? '' }
  const outcome = await reverify(github, inputs.reviewWorkflow, { number, headSha: head, ...from })
  if (!outcome.ok) {
    io.warning(`Rubric Council: ${outcome.problem.message}`)
    await github.reply(number, REPLY.waiverNotStarted(who, outcome.problem.message))
    return
  }
  await github.reply(number, REPLY.waived(who, command.criterion, head))
  io.info(
    `Rubric Council: ${noted.value.note} (${head.slice(0, 7)}); re-running ${outcome.value.runUrl} for #${number}`
  )
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

/** The reply on pull request `number`, and its notice in the log when it has one. */
async function said(context: BotContext, number: number, what: Said): Promise<void> {
  await context.github.reply(number, what.reply)
  if (what.notice !== undefined) context.io.notice(`Rubric Council: ${what.notice}`)
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
