import type { GitHubPort } from '../github/port.js'
import { code } from '../report/escape.js'

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
/** How many of the base's must-haves a reply about an unknown criterion lists. */
const LISTED_CRITERIA = 30

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

/** What the bot answers to a command it does not know, or one it refuses. */
export const COMMANDS_HELP =
  'Commands: `/council rerun` asks the judges again about the head commit; ' +
  '`/council accept <reason>` accepts the whole check on the head commit, so it passes ' +
  'until the next push; `/council waive <criterion-id> <reason>` waives one must-have that ' +
  'failed on the head commit, and the gates and the others still bind. All need write permission on the repository.'

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

/** The reply to a whole-check acceptance that was recorded on `head`. */
export function acceptedReply(
  who: string,
  head: string,
  /** The reason's first word, when it is a must-have of the base's rubrics. */
  mustHave: string | undefined
): string {
  const said = `${who} accepted the whole check for ${head.slice(0, 7)}: its check run concludes success until the next push.`
  return mustHave === undefined
    ? said
    : `${said} Your reason starts with the must-have ${code(mustHave)}: \`/council accept\` always accepts the whole check, and \`/council waive <criterion-id> <reason>\` excuses one must-have only.`
}

/** The reply to a waiver that was recorded on `head`, once its review runs again. */
export function waivedReply(who: string, criterion: string, head: string): string {
  return `${who} waived ${code(criterion)} for ${head.slice(0, 7)}: the review runs again with it WAIVED, and the gates and every other must-have still bind.`
}

/**
 * The reply to `/council waive` of an id that is not a criterion of the base branch's rubrics
 * (`criteria`: id → must-have; undefined when the base has no valid rubric).
 */
export function unknownCriterionReply(
  who: string,
  criterion: string,
  criteria: ReadonlyMap<string, boolean> | undefined
): string {
  if (criteria === undefined) {
    return `${who} the base branch has no valid rubric, so it has no criterion to waive: nothing was waived.`
  }
  const must = [...criteria].filter(([, required]) => required).map(([id]) => id)
  const listed = must.slice(0, LISTED_CRITERIA).map(code).join(', ')
  const more = must.length > LISTED_CRITERIA ? ` and ${must.length - LISTED_CRITERIA} more` : ''
  return (
    `${who} ${code(criterion)} is not a criterion of the base branch's rubric: nothing was waived. ` +
    (must.length === 0
      ? 'It has no must-have to waive.'
      : `Its must-haves: ${listed}${more}; \`/council waive <criterion-id> <reason>\` names one of them.`)
  )
}

/** Only users with write permission on the repository (admin, maintain, write) give commands. */
export async function mayCommand(github: GitHubPort, login: string): Promise<boolean> {
  const permission = await github.permission(login)
  return permission === 'admin' || permission === 'write'
}
