import { code } from '../report/escape.js'
import type { Command } from './commands.js'

/**
 * What the bot says on a pull request (docs/pr-bot.md): its replies to commands, each addressed
 * to `who` (`@login`). Pure.
 */

/** What the bot answers to a command it does not know, or one it refuses. */
export const COMMANDS_HELP =
  'Commands: `/council rerun` asks the judges again about the head commit; ' +
  '`/council accept <reason>` accepts the whole check on the head commit, so it passes ' +
  'until the next push; `/council waive <criterion-id> <reason>` waives one must-have that ' +
  'failed on the head commit, and the gates and the others still bind. All need write permission on the repository.'

/** How many of the base's must-haves a reply about an unknown criterion lists. */
const LISTED_CRITERIA = 30

/** What a command is about: the whole check, or one must-have. */
type Verb = 'accept' | 'waive'

export const REPLY = {
  unknown: (who: string, text: string) =>
    `${who} ${code(text)} is not a command I know. ${COMMANDS_HELP}`,
  refused: (who: string, kind: Command['kind']) =>
    `${who} only people with write permission on the repository may run \`/council ${kind}\`. ${COMMANDS_HELP}`,
  waiveWhy: (who: string, criterion: string) =>
    `${who} say why: \`/council waive ${criterion} <reason>\`.`,
  notStarted: (who: string, problem: string) =>
    `${who} I could not start the review again: ${problem}`,
  noVerdict: (who: string, head: string, verb: Verb) =>
    `${who} there is no verdict on the head commit ${head.slice(0, 7)} yet to ${verb === 'accept' ? 'accept' : 'waive a must-have of'}; wait for the review to finish, then ${verb === 'accept' ? 'accept it' : 'waive it'}.`,
  changedSince: (who: string, head: string, verb: Verb) => {
    const short = head.slice(0, 7)
    return `${who} the pull request changed after your comment: the verdict on its head commit ${short} was given after it, so it is not ${verb === 'accept' ? 'accepted' : 'waived'}. Read the report on ${short}, then ${verb === 'accept' ? 'accept it' : 'waive it'} again.`
  },
  checkRunsUnread: (who: string, problem: string) =>
    `${who} I could not read which check runs to accept (${problem}): nothing was accepted. Accept it again in a moment.`,
  notOurCheckRun: (who: string, head: string, baseRef: string) =>
    `${who} the verdict on ${head.slice(0, 7)} was not posted on the check run that this pull request's base branch ${code(baseRef)} requires (the pull request was retargeted, or the base's rubrics changed, since its review): nothing was accepted. Comment \`/council rerun\` to have it reviewed under ${code(baseRef)}, then accept it.`,
  acceptanceUnwritten: (who: string, problem: string) =>
    `${who} I could not record the acceptance: ${problem}.`,
  accepted: acceptedReply,
  niceToHave: (who: string, criterion: string) =>
    `${who} ${code(criterion)} is a nice-to-have: it never fails the check, so there is nothing to waive. Nothing was waived.`,
  unknownCriterion: unknownCriterionReply,
  idTooLong: (who: string, most: number) =>
    `${who} a criterion id longer than ${most} characters cannot be waived; nothing was waived. Accept the whole check instead: \`/council accept <reason>\`.`,
  notWaivable: (who: string, criterion: string, head: string) =>
    `${who} ${code(criterion)} did not fail or split on the head commit ${head.slice(0, 7)}: there is nothing to waive, and nothing was waived.`,
  tooManyWaivers: (who: string, head: string, most: number) =>
    `${who} ${head.slice(0, 7)} already has ${most} waivers, the most one commit can have; nothing more was waived. Accept the whole check instead: \`/council accept <reason>\`.`,
  waiverUnwritten: (who: string, problem: string) =>
    `${who} I could not record the waiver: ${problem}.`,
  waiverNotStarted: (who: string, problem: string) =>
    `${who} the waiver is recorded, but I could not start the review again: ${problem}`,
  waived: (who: string, criterion: string, head: string) =>
    `${who} waived ${code(criterion)} for ${head.slice(0, 7)}: the review runs again with it WAIVED, and the gates and every other must-have still bind.`
} as const

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
