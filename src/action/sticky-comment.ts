import type { HistoryEntry } from '../engine/history.js'
import type { IssueComment } from '../github/comment.js'
import type { PullRequestRun } from '../github/event.js'
import type { GitHubPort } from '../github/port.js'
import {
  commentMarker,
  mergeHistories,
  mergeStates,
  readState,
  replaceState,
  type CommentState
} from '../publish/memory.js'
import type { ActionIO } from './io.js'

/**
 * The sticky comment written safely when reviews of one pull request overlap (nothing makes them
 * wait for each other: a push during a review starts another). Before writing, the comment is
 * read again: what another review wrote meanwhile is merged in, both runs stay in the history, and
 * the report shown is the current head's (a review of an older head only adds its entry). After
 * writing, our comments are listed again: two runs that each found none both created one; the
 * oldest is kept with everything both remember, the others deleted.
 */
export async function stickyComment(
  github: GitHubPort,
  run: PullRequestRun,
  checkName: string,
  memory: {
    /** The history this run ends with: the earlier runs it read, then its own. */
    readonly history: readonly HistoryEntry[]
    /** The comment as planned (src/publish/plan.ts) for a state: the one place it is rendered. */
    readonly render: (state: CommentState) => string
    /** The state as this run read it when it started. */
    readonly read: CommentState
    /** What this run keeps besides the history (the sealed judgement, an acceptance). */
    readonly kept: Omit<CommentState, 'history'>
    /** Our comments as this run found them when it started. */
    readonly existing: readonly IssueComment[]
  },
  io: ActionIO
): Promise<string | undefined> {
  const number = run.pr.number
  const marker = commentMarker(checkName)
  const [current, fresh] = await Promise.all([
    headNow(github, run.pr.number),
    ourCommentsNow(github, number, marker, memory.existing)
  ])
  const isCurrent = current === undefined || current === run.pr.headSha
  const head = current ?? run.pr.headSha
  const ours: CommentState = { ...memory.kept, history: memory.history }
  const [first] = fresh
  const state = first
    ? mergeStates({ read: memory.read, fresh: readState(first.body), ours }, head, isCurrent)
    : ours
  let body: string
  if (isCurrent || first === undefined) {
    body = memory.render(state)
  } else {
    // A newer push is being reviewed; its report must not be overwritten by this older one.
    io.notice(
      `Rubric Council: this run reviewed ${run.pr.headSha.slice(0, 7)}, but the pull request is now at ${head.slice(0, 7)}: its verdict is added to the history, the report is left as it is`
    )
    body = replaceState(first.body, state)
  }
  const written = await github.upsertComment(number, body, fresh)
  if (!written.ok) {
    io.warning(`Rubric Council: ${written.problem}`)
    return undefined
  }
  // Only a run that created a comment can have raced another that created one too.
  if (written.value.action === 'created') {
    await removeDuplicates(github, run, { marker, written: body }, io)
  }
  return written.value.url
}

/**
 * Our comments as they are now: the one this run found, read again by id (one request, however
 * many comments the pull request has), or, when it is gone, all of them listed. When this run
 * found none, none: a comment another run created meanwhile is found once this run's is written
 * (`removeDuplicates`), and the two are made one.
 */
async function ourCommentsNow(
  github: GitHubPort,
  number: number,
  marker: string,
  existing: readonly IssueComment[]
): Promise<readonly IssueComment[]> {
  const [first, ...rest] = existing
  if (first === undefined) return []
  try {
    const now = await github.issueComment(first.id)
    if (now) return [{ ...first, body: now.body }, ...rest]
    return await github.comments(number, marker)
  } catch {
    return existing
  }
}

/**
 * Our comments listed again after writing; when there are several, the oldest (GitHub's ids only
 * grow) is kept with the union of their histories and the report of the head the pull request is
 * at now, and the others are deleted.
 */
async function removeDuplicates(
  github: GitHubPort,
  run: PullRequestRun,
  where: {
    readonly marker: string
    /** What this run wrote. */
    readonly written: string
  },
  io: ActionIO
): Promise<void> {
  const number = run.pr.number
  let after: IssueComment[]
  try {
    after = await github.comments(number, where.marker)
  } catch {
    return
  }
  if (after.length < 2) return
  const head = (await headNow(github, run.pr.number)) ?? run.pr.headSha
  const sorted = [...after].sort((a, b) => a.id - b.id)
  const states = sorted.map(c => readState(c.body))
  const current = sorted.filter((_, i) => states[i]?.history.at(-1)?.commit === head)
  const shown =
    current.find(c => c.body === where.written) ??
    current[0] ??
    sorted.find(c => c.body === where.written) ??
    sorted[0]
  if (shown === undefined) return
  const history = states.reduce<CommentState['history']>(
    (union, s) => mergeHistories(union, s.history, head),
    []
  )
  const outcome = await github.upsertComment(
    number,
    replaceState(shown.body, { ...readState(shown.body), history }),
    sorted
  )
  if (!outcome.ok) io.warning(`Rubric Council: ${outcome.problem}`)
  else io.info(`Rubric Council: kept one comment of ${sorted.length} written at once`)
}

/** The pull request's head now; undefined when it cannot be read (then nothing is withheld). */
async function headNow(github: GitHubPort, number: number): Promise<string | undefined> {
  try {
    return (await github.pullRequest(number))?.headSha
  } catch {
    return undefined
  }
}
