import { isRecord } from '../util/is-record.js'

/** A pull request, as the action reads it from an event's payload or from the API. */
export interface PullRequest {
  readonly number: number
  readonly title: string
  readonly body: string
  readonly baseSha: string
  /** The base branch's name: its rubric is read at its current tip, not at `baseSha`. */
  readonly baseRef: string
  /** The repository's default branch ('' when the payload does not say). */
  readonly defaultBranch: string
  readonly headSha: string
  /** Where its head is: `owner/repo` ('' when GitHub does not say, as for a deleted fork). */
  readonly headRepository: string
  /** Its head branch's name. */
  readonly headRef: string
  /** 'open' unless GitHub says otherwise. */
  readonly state: 'open' | 'closed'
  /** A draft, which GitHub does not let anyone merge until it is marked ready for review. */
  readonly draft: boolean
  /** Who opened it; undefined when the payload does not say. */
  readonly author?: Actor
  /** The names of its labels. */
  readonly labels: readonly string[]
}

/** A GitHub account, as a payload names it: `bot` for a GitHub App's account (`type: "Bot"`). */
export interface Actor {
  readonly login: string
  readonly bot: boolean
}

/** An account from a payload's `user` or `sender`; undefined when it has no login. */
export function actorOf(user: unknown): Actor | undefined {
  if (!isRecord(user) || typeof user.login !== 'string') return undefined
  return { login: user.login, bot: user.type === 'Bot' }
}

/**
 * GitHub's pull request JSON (`GET /pulls/{n}`, or an event's `pull_request`) as a `PullRequest`;
 * undefined without a number, a base or a head commit. Fields are read defensively: the payload is
 * data, not a contract.
 */
export function pullRequestOf(pr: unknown): PullRequest | undefined {
  if (!isRecord(pr)) return undefined
  const base = isRecord(pr.base) ? pr.base.sha : undefined
  const baseRef = isRecord(pr.base) && typeof pr.base.ref === 'string' ? pr.base.ref : ''
  const repository = isRecord(pr.base) && isRecord(pr.base.repo) ? pr.base.repo : {}
  const defaultBranch =
    typeof repository.default_branch === 'string' ? repository.default_branch : ''
  const head = isRecord(pr.head) ? pr.head.sha : undefined
  const headRepo = isRecord(pr.head) && isRecord(pr.head.repo) ? pr.head.repo.full_name : ''
  const headRef = isRecord(pr.head) ? pr.head.ref : ''
  const author = actorOf(pr.user)
  if (typeof base !== 'string' || typeof head !== 'string' || typeof pr.number !== 'number')
    return undefined
  return {
    number: pr.number,
    title: typeof pr.title === 'string' ? pr.title : '',
    body: typeof pr.body === 'string' ? pr.body : '',
    baseSha: base,
    baseRef,
    defaultBranch,
    headSha: head,
    headRepository: typeof headRepo === 'string' ? headRepo : '',
    headRef: typeof headRef === 'string' ? headRef : '',
    state: pr.state === 'closed' ? 'closed' : 'open',
    draft: pr.draft === true,
    ...(author && { author }),
    labels: Array.isArray(pr.labels)
      ? pr.labels.flatMap(label =>
          isRecord(label) && typeof label.name === 'string' ? [label.name] : []
        )
      : []
  }
}
