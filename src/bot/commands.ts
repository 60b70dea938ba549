import type { CommentByUser } from '../github/port.js'
import type { Payload } from '../github/payload.js'
import { failed, ok, type Result } from '../util/result.js'
import { REPLY } from './replies.js'

/** The commands a pull request comment can give (docs/pr-bot.md). */
export type Command =
  | { readonly kind: 'rerun' }
  /** `/council accept <reason>`: always the whole check, whatever the reason's first word. */
  | { readonly kind: 'accept'; readonly reason: string }
  /** `/council waive <criterion-id> <reason>`: one must-have. */
  | { readonly kind: 'waive'; readonly criterion: string; readonly reason: string }
  | { readonly kind: 'unknown'; readonly text: string }

/** How long an acceptance's or a waiver's reason may be; the rest is cut. */
const MAX_REASON = 300
/** How much of a criterion id is kept to be named in a reply; a longer one is never waived. */
const MAX_NAMED = 100

/**
 * The command a comment gives: its first line starts with `/council`. Undefined for any other
 * comment, which the bot leaves alone. Each form has its own verb, so what a command does never
 * depends on which ids the rubric happens to have.
 */
export function parseCommand(body: string): Command | undefined {
  const text = body.trim()
  const match = /^\/council(?![^\s])(?:[ \t]+(\S+))?([\s\S]*)$/.exec(text)
  if (match === null) return undefined
  const [, verb = '', rest = ''] = match
  if (verb === 'rerun' && rest.split('\n', 1)[0]?.trim() === '') return { kind: 'rerun' }
  const words = rest.replace(/\s+/g, ' ').trim()
  if (verb === 'accept') return { kind: 'accept', reason: words.slice(0, MAX_REASON) }
  if (verb === 'waive') {
    const [criterion = '', ...reason] = words.split(' ')
    return {
      kind: 'waive',
      criterion: criterion.slice(0, MAX_NAMED),
      reason: reason.join(' ').slice(0, MAX_REASON)
    }
  }
  return { kind: 'unknown', text: text.split('\n', 1)[0]?.slice(0, 100) ?? '' }
}

/**
 * What a command still needs before anything is read, as the reply says it; undefined when
 * nothing. (A waiver's reason is asked for once its criterion is known to be one.)
 */
export function missingPart(command: Command): string | undefined {
  if (command.kind === 'accept' && command.reason === '') {
    return 'say why: `/council accept <reason>`.'
  }
  return command.kind === 'waive' && command.criterion === ''
    ? 'say which must-have, and why: `/council waive <criterion-id> <reason>`.'
    : undefined
}

/** A command comment, as the event gives it. */
export interface CommandComment {
  /** The pull request it is on. */
  readonly number: number
  readonly login: string
  /** `@login`, for the replies. */
  readonly who: string
  readonly commentId: number
  /** When it was written (GitHub's `created_at`): a command binds to the verdict given before. */
  readonly writtenAt: string
}

/**
 * What a comment asks of the bot: a command, with who gave it where; or nothing (a comment that
 * is not new, on an issue, by a bot, the action's own, or not starting with `/council`), with the
 * log's notice.
 */
export function commentAsks(
  event: Payload<'issue_comment'>
):
  | { readonly kind: 'command'; readonly command: Command; readonly comment: CommandComment }
  | { readonly kind: 'nothing'; readonly notice: string } {
  const { issue, comment } = event
  if (event.action !== 'created' || issue.pull_request === undefined) {
    return { kind: 'nothing', notice: 'not a new comment on a pull request; nothing to do' }
  }
  const command = parseCommand(comment.body)
  if (
    command === undefined ||
    comment.user.type === 'Bot' ||
    comment.body.startsWith('<!-- rubric-council')
  ) {
    return { kind: 'nothing', notice: 'not a command for the bot; nothing to do' }
  }
  const { login } = comment.user
  return {
    kind: 'command',
    command,
    comment: {
      number: issue.number,
      login,
      who: `@${login}`,
      commentId: comment.id,
      writtenAt: comment.created_at
    }
  }
}

/** Only users with write permission on the repository (admin, maintain, write) give commands. */
export function permitsCommands(permission: string | undefined): boolean {
  return permission === 'admin' || permission === 'write'
}

/** What a reply says, and what the log notes of it (undefined: nothing more). */
export interface Said {
  readonly reply: string
  readonly notice?: string
}

/** A command the bot takes. */
export type Taken = Exclude<Command, { readonly kind: 'unknown' }>

/**
 * `command` when the bot takes it from `who`; otherwise what stops it before anything is read:
 * the reply (the commands, to one it does not know; who may, to someone without write permission;
 * what is missing) and the log's notice.
 */
export function commandTaken(
  command: Command,
  who: string,
  permitted: boolean
): Result<Taken, Said> {
  if (command.kind === 'unknown') {
    return failed({
      reply: REPLY.unknown(who, command.text),
      notice: `unknown command from ${who}`
    })
  }
  if (!permitted) {
    return failed({
      reply: REPLY.refused(who, command.kind),
      notice: `refused /council ${command.kind} from ${who}: no write permission`
    })
  }
  const missing = missingPart(command)
  return missing === undefined ? ok(command) : failed({ reply: `${who} ${missing}` })
}

/**
 * The reason of the command a comment's state records (`stored`: an acceptance, or a waiver of a
 * criterion), when its command comment, read again (`comment`; undefined when it is gone), still
 * gives it: on pull request `number`, by the user the state names, the same command with a
 * reason. Undefined for anything else (an edited or deleted command, a waiver's command for an
 * acceptance, a command on another pull request): the state can be edited by anyone with write
 * access. Whether its author may still command is asked apart.
 */
export function commandReason(
  comment: CommentByUser | undefined,
  stored: { readonly by: string; readonly criterion?: string },
  number: number
): string | undefined {
  const command = comment === undefined ? undefined : parseCommand(comment.body)
  if (comment?.issue !== number || comment.login !== stored.by || command === undefined) {
    return undefined
  }
  const reason =
    stored.criterion === undefined
      ? command.kind === 'accept' && command.reason
      : command.kind === 'waive' && command.criterion === stored.criterion && command.reason
  return reason === false || reason === '' ? undefined : reason
}
