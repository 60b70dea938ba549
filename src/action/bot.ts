import type { GitHubPort } from '../github/port.js'
import { checkRunName } from '../publish/check-name.js'
import { CHECK_RUN_MARK } from '../publish/plan.js'
import { nextIteration } from '../engine/history.js'
import {
  commentMarker,
  historyEntryNoted,
  readState,
  refusalMarker,
  MAX_WAIVER_ID,
  MAX_WAIVERS,
  replaceState,
  type CommentState,
  type StoredWaiver,
  verdictToAccept,
  withAcceptance
} from '../publish/memory.js'
import { code, escapeMarkdown } from '../report/escape.js'
import { isRecord } from '../util/is-record.js'
import { acceptForm, COMMANDS_HELP, mayCommand, parseCommand } from './commands.js'
import { baseCriteria, branchRef, ownCheckNames, repositoryRubricPath } from './rubric.js'
import type { HistoryEntry } from '../engine/history.js'
import type { IssueComment } from '../github/comment.js'
import type { ActionInputs } from './inputs.js'
import type { ActionIO } from './io.js'
import { healOutages, latestOurs } from './heal.js'
import { reverify } from './reverify.js'
import { rubricPushed } from './rubric-pushed.js'

interface BotContext {
  readonly github: GitHubPort
  readonly inputs: ActionInputs
  readonly io: ActionIO
  /** The event's payload, as the runner wrote it. */
  readonly payload: unknown
  /** The job's environment: on `schedule`, the provider keys and endpoints the probes use. */
  readonly env: Readonly<Record<string, string | undefined>>
}

/** The bot's events, and what it does on each: not a review, but something about pull requests. */
export const BOT_HANDLERS: Readonly<Record<string, (context: BotContext) => Promise<void>>> = {
  push: context => rubricPushed(context),
  issue_comment: context => commandGiven(context),
  schedule: context => healOutages(context)
}

/**
 * A comment on a pull request: `/council rerun`, `/council accept <reason>` or `/council accept
 * <criterion-id> <reason>` (a waiver, see `waiverGiven`) from a user with
 * write permission; anything else starting with `/council` gets a short reply, at most one per
 * pull request to someone without write permission. Bots, the action's own comments and comments
 * on issues are left alone.
 */
export async function commandGiven(context: BotContext): Promise<void> {
  const { github, inputs, io, payload } = context
  const record = isRecord(payload) ? payload : {}
  const issue = isRecord(record.issue) ? record.issue : {}
  const comment = isRecord(record.comment) ? record.comment : {}
  const user = isRecord(comment.user) ? comment.user : {}
  const body = typeof comment.body === 'string' ? comment.body : ''
  const login = typeof user.login === 'string' ? user.login : ''
  const number = typeof issue.number === 'number' ? issue.number : 0
  const commentId = typeof comment.id === 'number' ? comment.id : 0
  const writtenAt = typeof comment.created_at === 'string' ? comment.created_at : undefined
  const command = parseCommand(body)
  if (record.action !== 'created' || !isRecord(issue.pull_request) || number === 0) {
    io.notice('Rubric Council: not a new comment on a pull request; nothing to do')
    return
  }
  if (command === undefined || user.type === 'Bot' || body.startsWith('<!-- rubric-council')) {
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
  if (command.kind === 'accept' && command.reason === '') {
    await github.reply(number, `${who} say why: \`/council accept <reason>\`.`)
    return
  }
  const pr = await github.pullRequest(number)
  const form =
    command.kind === 'accept' && pr
      ? acceptForm(
          command.reason,
          (await baseCriteria(github, repositoryRubricPath(inputs), branchRef(pr.baseRef))) ??
            new Map()
        )
      : undefined
  if (form?.kind === 'nice-to-have') {
    await github.reply(
      number,
      `${who} ${code(form.criterion)} is a nice-to-have: it never fails the check, so there is nothing to waive. Nothing was waived.`
    )
    return
  }
  if (form?.kind === 'waiver' && form.reason === '') {
    await github.reply(number, `${who} say why: \`/council accept ${form.criterion} <reason>\`.`)
    return
  }
  await github.react(commentId, 'eyes')

  const head = pr?.headSha ?? ''
  const [ours] = await github.comments(number, commentMarker(inputs.checkName))
  const state = ours ? readState(ours.body) : { history: [] }

  if (command.kind === 'rerun') {
    // The cached answers are dropped and the rerun noted: the review re-run next asks the
    // judges again. Editing the comment the same way can only cause the same.
    if (ours) {
      await github.upsertComment(
        number,
        replaceState(ours.body, {
          history: state.history,
          ...(state.check !== undefined && { check: state.check }),
          ...(state.accepted && { accepted: state.accepted }),
          ...(state.heal && { heal: state.heal }),
          ...(state.waivers && { waivers: state.waivers }),
          // Each rubric's history stays; its answers go, as the pull request's do.
          ...(state.rubrics && {
            rubrics: Object.fromEntries(
              Object.entries(state.rubrics).map(([name, m]) => [name, { history: m.history }])
            )
          }),
          rerun: { commit: head, by: login }
        }),
        [ours]
      )
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
    return
  }

  const verdict = verdictToAccept(state.history, head, writtenAt)
  if (ours && verdict.ok && form?.kind === 'waiver') {
    await waiverGiven(context, {
      number,
      head,
      ours,
      state,
      last: verdict.value,
      waiver: { commit: head, criterion: form.criterion, by: login, commentId },
      reason: form.reason,
      from: { headRepository: pr?.headRepository ?? '', headRef: pr?.headRef ?? '' }
    })
    return
  }
  if (!ours || !verdict.ok) {
    const short = head.slice(0, 7)
    await github.reply(
      number,
      verdict.ok || verdict.problem === 'no_verdict'
        ? `${who} there is no verdict on the head commit ${short} yet to accept; wait for the review to finish, then accept it.`
        : `${who} the pull request changed after your comment: the verdict on its head commit ${short} was given after it, so it is not accepted. Read the report on ${short}, then accept it again.`
    )
    io.notice(
      `Rubric Council: /council accept by ${who} not taken for ${short}: ${verdict.ok ? 'no comment' : verdict.problem}`
    )
    return
  }
  const last = verdict.value
  const reason = command.reason
  const accepted = `Accepted by @${login}: ${reason}`
  // The check runs this pull request's verdicts were posted on, under the names its base gives
  // now: with several rubrics each one judged on the head, else the one the state says. A name of
  // another check, or of another base (the pull request was retargeted after the verdict), is
  // never completed: the state can be edited, and a base can change without a review.
  const base = pr ?? { baseRef: '', defaultBranch: '' }
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
    return
  }
  if (names.length === 0) {
    const short = head.slice(0, 7)
    await github.reply(
      number,
      `${who} the verdict on ${short} was not posted on the check run that this pull request's base branch ${code(base.baseRef)} requires (the pull request was retargeted, or the base's rubrics changed, since its review): nothing was accepted. Comment \`/council rerun\` to have it reviewed under ${code(base.baseRef)}, then accept it.`
    )
    io.notice(
      `Rubric Council: /council accept by ${who} not taken for ${short}: not this check's run under its base`
    )
    return
  }
  const written = await Promise.all(
    names.map(name =>
      github.completeCheckRun({ headSha: head, name, externalId: CHECK_RUN_MARK }, 'success', {
        title: accepted,
        summary:
          `@${login} accepted the council's verdict on ${head.slice(0, 7)} ` +
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
  await github.upsertComment(
    number,
    withAcceptance(
      ours.body,
      { by: login, reason, commit: head },
      {
        ...state,
        history: [
          ...state.history,
          historyEntryNoted(last, nextIteration(state.history), `accepted by @${login}: ${reason}`)
        ],
        accepted: { commit: head, by: login, reason, commentId }
      }
    ),
    [ours]
  )
  io.info(`Rubric Council: ${accepted} (${head.slice(0, 7)})`)
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
 * `/council accept <criterion-id> <reason>`, once the verdict on the head is known: the waiver is
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
      `Rubric Council: /council accept ${waiver.criterion} by ${who} not taken: it did not fail on ${short}`
    )
    return
  }
  const others = (state.waivers ?? []).filter(
    w => w.commit === head && w.criterion !== waiver.criterion
  )
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
    replaceState(ours.body, {
      ...state,
      history: [...state.history, historyEntryNoted(last, nextIteration(state.history), note)],
      waivers: [...others, waiver]
    }),
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
