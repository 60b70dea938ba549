import type { Acceptance } from '../engine/evaluation.js'
import type { GitHubPort } from '../github/port.js'
import type { CommentState, StoredAcceptance, StoredWaiver } from '../publish/memory.js'
import type { Waiver } from '../verdict/types.js'
import { commandReason, permitsCommands } from '../bot/commands.js'
import type { ActionIO } from './io.js'

// What the comment's memory asks of a review, each request checked through the API before it
// counts: the state can be edited by anyone with write access.

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
 * The acceptance the comment records for this head commit, once the `/council accept` comment it
 * names has been read again through the API: on this pull request, by the user the state names,
 * who still has write permission. Anything else (another commit, an edited or deleted command, a
 * waiver's command, a command on another pull request, a lost permission) counts as none.
 */
export async function verifiedAcceptance(
  github: GitHubPort | undefined,
  stored: StoredAcceptance | undefined,
  of: { readonly head: string; readonly number: number },
  io: Pick<ActionIO, 'warning'>
): Promise<Acceptance | undefined> {
  const { head } = of
  if (!github || stored?.commit !== head) return undefined
  try {
    const comment = await github.issueComment(stored.commentId)
    const reason = commandReason(comment, { by: stored.by }, of.number)
    if (reason !== undefined && (await mayCommand(github, stored.by))) {
      return { by: stored.by, reason, commit: head }
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
  io: Pick<ActionIO, 'warning'>
): Promise<Waiver[]> {
  if (!github) return []
  const verified: Waiver[] = []
  for (const waiver of stored) {
    try {
      const comment = await github.issueComment(waiver.commentId)
      const reason = commandReason(comment, waiver, number)
      if (reason !== undefined && (await mayCommand(github, waiver.by))) {
        verified.push({ criterion: waiver.criterion, by: waiver.by, reason })
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

/** Whether `login` may give the bot commands (`permitsCommands`), as GitHub says now. */
export async function mayCommand(github: GitHubPort, login: string): Promise<boolean> {
  return permitsCommands(await github.permission(login))
}
