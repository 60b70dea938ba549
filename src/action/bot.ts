import { posix } from 'node:path'
import { statusOf } from '../github/client.js'
import type { GitHubPort } from '../github/port.js'
import { commentMarker } from '../report/comment.js'
import { code, escapeMarkdown } from '../report/escape.js'
import { acceptanceNote } from '../report/markdown.js'
import { historyEntryNoted, readState, replaceState } from '../report/history.js'
import { rubricHash } from '../rubric/hash.js'
import { mapBounded } from '../util/pool.js'
import { isRecord } from '../util/is-record.js'
import { COMMANDS_HELP, mayCommand, parseCommand } from './commands.js'
import type { ActionInputs } from './inputs.js'
import type { ActionIO } from './io.js'

/** How many pull requests are dispatched at once when the base rubric changes. */
const DISPATCH_WIDTH = 4

const NO_COMMIT = /^0+$/

interface BotContext {
  readonly github: GitHubPort
  readonly inputs: ActionInputs
  readonly io: ActionIO
  /** The event's payload, as the runner wrote it. */
  readonly payload: unknown
}

/** The bot's events, and what it does on each: not a review, but something about pull requests. */
export const BOT_HANDLERS: Readonly<Record<string, (context: BotContext) => Promise<void>>> = {
  push: context => rubricPushed(context),
  issue_comment: context => commandGiven(context)
}

/**
 * A push to a branch: when it changes the rubric, every open pull request based on that branch is
 * reviewed again by dispatching the review workflow, and its check marked pending meanwhile.
 * Dispatch first, pending second: without permission to dispatch, the verdicts already posted are
 * left alone rather than pending for ever.
 */
export async function rubricPushed(context: BotContext): Promise<void> {
  const { github, inputs, io, payload } = context
  const record = isRecord(payload) ? payload : {}
  const ref = typeof record.ref === 'string' ? record.ref : ''
  const before = typeof record.before === 'string' ? record.before : ''
  const after = typeof record.after === 'string' ? record.after : ''
  if (!ref.startsWith('refs/heads/') || NO_COMMIT.test(after) || NO_COMMIT.test(before)) {
    io.notice(`Rubric Council: nothing to re-verify for a push to ${ref || 'an unknown ref'}`)
    return
  }
  const branch = ref.slice('refs/heads/'.length)
  const path = posix.normalize(posix.join(inputs.workingDirectory, inputs.rubric))
  const [old, now] = await Promise.all([github.fileAt(path, before), github.fileAt(path, after)])
  if (old === now) {
    io.info(`Rubric Council: ${path} did not change on ${branch}; nothing to re-verify`)
    return
  }
  const change = `${old === undefined ? 'none' : rubricHash(old)} → ${now === undefined ? 'none' : rubricHash(now)}`
  const pulls = await github.openPullRequests(branch)
  io.info(
    `Rubric Council: the rubric changed on ${branch} (${change}); re-verifying ${pulls.length} open pull request${pulls.length === 1 ? '' : 's'}`
  )
  let stopped: string | undefined
  let pending = true
  const done = await mapBounded(pulls, DISPATCH_WIDTH, async pr => {
    if (stopped !== undefined) return false
    try {
      await github.dispatchWorkflow(inputs.reviewWorkflow, branch, {
        'pull-request': String(pr.number)
      })
    } catch (error) {
      stopped ??= dispatchProblem(error, inputs.reviewWorkflow, branch)
      return false
    }
    if (pending) {
      const started = await github.startCheckRun(
        { headSha: pr.headSha, name: inputs.checkName },
        {
          title: `The rubric changed: ${change}; re-verifying`,
          summary: `The rubric at ${path} on ${branch} changed (${change}). This pull request is being reviewed again under the new rubric.`
        }
      )
      if (started.action === 'failed') {
        // No permission for one is no permission for any: say it once.
        pending = false
        io.warning(
          `Rubric Council: cannot mark the checks pending (${started.reason}); give the workflow "checks: write"`
        )
      }
    }
    return true
  })
  const dispatched = done.filter(Boolean).length
  if (stopped !== undefined) io.warning(`Rubric Council: ${stopped}`)
  io.info(
    `Rubric Council: dispatched ${inputs.reviewWorkflow} for ${dispatched} of ${pulls.length} pull request${pulls.length === 1 ? '' : 's'}`
  )
}

function dispatchProblem(error: unknown, workflow: string, ref: string): string {
  const status = statusOf(error)
  const message = error instanceof Error ? error.message : String(error)
  if (status === 403) {
    return `cannot dispatch ${workflow} (403): give the workflow "actions: write"; the verdicts already posted are left as they are`
  }
  if (status === 404) {
    return `cannot dispatch ${workflow} (404): no such workflow in .github/workflows on ${ref}; set the review-workflow input`
  }
  if (status === 422) {
    return `cannot dispatch ${workflow} (422: ${message}): it needs "on: workflow_dispatch" with the input "pull-request"`
  }
  return `cannot dispatch ${workflow}: ${message}`
}

/**
 * A comment on a pull request: `/council rerun` or `/council accept <reason>` from a user with
 * write permission; anything else starting with `/council` gets a short reply. Bots, the action's
 * own comments and comments on issues are left alone.
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
  if (command.kind === 'unknown') {
    await github.reply(
      number,
      `${who} ${code(command.text)} is not a command I know. ${COMMANDS_HELP}`
    )
    io.notice(`Rubric Council: unknown command from ${who}`)
    return
  }
  if (!(await mayCommand(github, login))) {
    await github.reply(
      number,
      `${who} only people with write permission on the repository may run \`/council ${command.kind}\`. ${COMMANDS_HELP}`
    )
    io.notice(`Rubric Council: refused /council ${command.kind} from ${who}: no write permission`)
    return
  }
  if (command.kind === 'accept' && command.reason === '') {
    await github.reply(number, `${who} say why: \`/council accept <reason>\`.`)
    return
  }
  await github.react(commentId, 'eyes')

  const pr = await github.pullRequest(number)
  const head =
    isRecord(pr) && isRecord(pr.head) && typeof pr.head.sha === 'string' ? pr.head.sha : ''
  const base =
    isRecord(pr) && isRecord(pr.base) && typeof pr.base.ref === 'string' ? pr.base.ref : ''
  const [ours] = await github.comments(number, commentMarker(inputs.checkName))
  const state = ours ? readState(ours.body) : { history: [] }

  if (command.kind === 'rerun') {
    // The cached answers are dropped and the rerun noted: the review dispatched next asks the
    // judges again. Editing the comment the same way can only cause the same.
    if (ours) {
      await github.upsertComment(
        number,
        replaceState(ours.body, {
          history: state.history,
          ...(state.accepted && { accepted: state.accepted }),
          rerun: { commit: head, by: login }
        }),
        [ours]
      )
    }
    try {
      await github.dispatchWorkflow(inputs.reviewWorkflow, base, { 'pull-request': String(number) })
    } catch (error) {
      const problem = dispatchProblem(error, inputs.reviewWorkflow, base)
      io.warning(`Rubric Council: ${problem}`)
      await github.reply(number, `${who} I could not start the review: ${problem}.`)
      return
    }
    io.info(
      `Rubric Council: /council rerun by ${who}: ${inputs.reviewWorkflow} dispatched for #${number}`
    )
    return
  }

  const last = state.history.at(-1)
  if (!ours || last?.commit !== head) {
    await github.reply(
      number,
      `${who} there is no verdict on the head commit ${head.slice(0, 7)} yet to accept; wait for the review to finish, then accept it.`
    )
    return
  }
  const reason = command.reason
  const accepted = `Accepted by @${login}: ${reason}`
  const check = await github.completeCheckRun(
    { headSha: head, name: inputs.checkName },
    'success',
    {
      title: accepted,
      summary:
        `@${login} accepted the council's verdict on ${head.slice(0, 7)} ` +
        `(${last.verdict}${last.reasons.length > 0 ? `: ${last.reasons.join(', ')}` : ''}): ${escapeMarkdown(reason)}\n\n` +
        `It holds for this commit only; a new push is judged again. The report: ${ours.html_url}`
    }
  )
  if (check.action === 'failed') {
    io.warning(`Rubric Council: ${check.reason}`)
    await github.reply(number, `${who} I could not record the acceptance: ${check.reason}.`)
    return
  }
  const note = acceptanceNote({ by: login, reason, commit: head })
  const [marker = '', ...rest] = ours.body.split('\n')
  await github.upsertComment(
    number,
    replaceState([marker, note + rest.join('\n')].join('\n'), {
      ...state,
      history: [
        ...state.history,
        historyEntryNoted(last, state.history.length + 1, `accepted by @${login}: ${reason}`)
      ],
      accepted: { commit: head, by: login, reason, commentId }
    }),
    [ours]
  )
  io.info(`Rubric Council: ${accepted} (${head.slice(0, 7)})`)
}
