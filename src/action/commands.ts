import type { GitHubPort } from '../github/port.js'

/** The commands a pull request comment can give (docs/pr-bot.md). */
export type Command =
  | { readonly kind: 'rerun' }
  | { readonly kind: 'accept'; readonly reason: string }
  | { readonly kind: 'unknown'; readonly text: string }

/** How long an acceptance's reason may be; the rest is cut. */
const MAX_REASON = 300

/**
 * The command a comment gives: its first line starts with `/council`. Undefined for any other
 * comment, which the bot leaves alone.
 */
export function parseCommand(body: string): Command | undefined {
  const text = body.trim()
  const match = /^\/council(?![^\s])(?:[ \t]+(\S+))?([\s\S]*)$/.exec(text)
  if (match === null) return undefined
  const [, verb = '', rest = ''] = match
  if (verb === 'rerun' && rest.split('\n', 1)[0]?.trim() === '') return { kind: 'rerun' }
  if (verb === 'accept') {
    return { kind: 'accept', reason: rest.replace(/\s+/g, ' ').trim().slice(0, MAX_REASON) }
  }
  return { kind: 'unknown', text: text.split('\n', 1)[0]?.slice(0, 100) ?? '' }
}

/**
 * What a `/council accept` says, given the rubric's criteria (id → whether it is a must-have):
 * its first word naming a must-have waives that one (`/council accept <criterion-id> <reason>`);
 * naming a nice-to-have, nothing (there is nothing to waive); anything else accepts the whole
 * check (`/council accept <reason>`). A waiver's reason is the rest, possibly empty.
 */
export type AcceptForm =
  | { readonly kind: 'check'; readonly reason: string }
  | { readonly kind: 'waiver'; readonly criterion: string; readonly reason: string }
  | { readonly kind: 'nice-to-have'; readonly criterion: string }

export function acceptForm(reason: string, criteria: ReadonlyMap<string, boolean>): AcceptForm {
  const [word = '', ...rest] = reason.split(' ')
  const known = criteria.get(word)
  if (known === undefined) return { kind: 'check', reason }
  if (!known) return { kind: 'nice-to-have', criterion: word }
  return { kind: 'waiver', criterion: word, reason: rest.join(' ') }
}

/** What the bot answers to a command it does not know, or one it refuses. */
export const COMMANDS_HELP =
  'Commands: `/council rerun` asks the judges again about the head commit; ' +
  '`/council accept <reason>` accepts the verdict on the head commit, so the check passes ' +
  'until the next push; `/council accept <criterion-id> <reason>` waives one must-have that ' +
  'failed on the head commit, and the others still bind. All need write permission on the repository.'

/** Only users with write permission on the repository (admin, maintain, write) give commands. */
export async function mayCommand(github: GitHubPort, login: string): Promise<boolean> {
  const permission = await github.permission(login)
  return permission === 'admin' || permission === 'write'
}
