import { execFileSync } from 'node:child_process'
import type { Evaluation } from '../../src/engine/evaluation.js'
import type { CheckRunOutcome } from '../../src/github/check-run.js'
import {
  describeFailure,
  type CommentOutcome,
  type IssueComment
} from '../../src/github/comment.js'
import type { GitHubPort } from '../../src/github/port.js'
import { outcomeOf, type FailOn } from '../../src/verdict/outcome.js'
import { OWNER, REPO } from './action-run.js'

/** A check run as GitHub keeps it, with the evaluation it was made from. */
export interface MemoryCheckRun {
  readonly head_sha: string
  readonly name: string
  readonly conclusion: string
  readonly details_url?: string
  readonly evaluation: Evaluation
}

/** A failed request as Octokit throws it. */
const httpError = (status: number): Error & { status: number } =>
  Object.assign(new Error(`HTTP ${status}`), { status })

/**
 * GitHub at the port: the repository's pull requests, files, comments and check runs in memory,
 * for running the action's flow in process. It keeps what GitHub keeps and refuses what GitHub
 * refuses to a read-only token (403 on every write, as `describeFailure` words it). Octokit's side
 * of the port (`octokitPort`) is tested against the HTTP stand-in, which checks every request
 * against GitHub's OpenAPI description.
 */
export class MemoryGitHub implements GitHubPort {
  readonly repo = { owner: OWNER, repo: REPO }
  private readonly store = new Map<number, IssueComment[]>()
  readonly checkRuns: MemoryCheckRun[] = []
  /** Every write the action made, in order: `POST comment #1`, `PATCH comment 7`, `POST check`. */
  readonly writes: string[] = []
  private readonly files = new Map<string, string>()
  private readonly branches = new Map<string, string>()
  private readonly pulls = new Map<number, unknown>()
  private nextId = 1

  constructor(
    private readonly access: {
      readonly write: boolean
      /** Reading the comments fails with this status (e.g. 502). */
      readonly commentsFail?: number
    } = { write: true }
  ) {}

  setFile(ref: string, path: string, content: string | Buffer): void {
    this.files.set(`${ref}:${path}`, content.toString())
  }
  setBranch(name: string, sha: string): void {
    this.branches.set(name, sha)
  }
  setPullRequest(number: number, pr: unknown): void {
    this.pulls.set(number, pr)
  }
  /** Comments on `issue`, oldest first. */
  commentsOn(issue: number): readonly IssueComment[] {
    return this.store.get(issue) ?? []
  }

  pullRequest = (number: number): Promise<unknown> => {
    const pr = this.pulls.get(number)
    return pr === undefined ? Promise.reject(httpError(404)) : Promise.resolve(pr)
  }

  fileAt = (path: string, ref: string): Promise<string | undefined> =>
    Promise.resolve(this.files.get(`${this.branches.get(ref) ?? ref}:${path}`))

  comments = (issue: number, marker: string): Promise<IssueComment[]> =>
    this.access.commentsFail !== undefined
      ? Promise.reject(httpError(this.access.commentsFail))
      : Promise.resolve(this.commentsOn(issue).filter(c => c.body.split('\n', 1)[0] === marker))

  upsertComment = (
    issue: number,
    body: string,
    existing: readonly IssueComment[]
  ): Promise<CommentOutcome> => {
    if (!this.access.write) {
      return Promise.resolve({
        action: 'failed',
        reason: describeFailure(httpError(403), 'comment on the pull request')
      })
    }
    const all = this.store.get(issue) ?? []
    const [ours, ...duplicates] = existing
    let outcome: CommentOutcome
    if (!ours) {
      const comment = { id: this.nextId++, body, html_url: this.url(issue) }
      all.push(comment)
      this.writes.push(`POST comment #${issue}`)
      outcome = { action: 'created', url: comment.html_url }
    } else if (ours.body === body) {
      outcome = { action: 'unchanged', url: ours.html_url }
    } else {
      const index = all.findIndex(c => c.id === ours.id)
      all[index] = { ...ours, body }
      this.writes.push(`PATCH comment ${ours.id}`)
      outcome = { action: 'updated', url: ours.html_url }
    }
    for (const duplicate of duplicates) {
      all.splice(
        all.findIndex(c => c.id === duplicate.id),
        1
      )
      this.writes.push(`DELETE comment ${duplicate.id}`)
    }
    this.store.set(issue, all)
    return Promise.resolve(outcome)
  }

  checkRun = (
    where: { readonly headSha: string; readonly name: string; readonly detailsUrl?: string },
    evaluation: Evaluation,
    failOn: FailOn
  ): Promise<CheckRunOutcome> => {
    if (!this.access.write) {
      return Promise.resolve({
        action: 'failed',
        reason: describeFailure(httpError(403), 'create the check run')
      })
    }
    this.checkRuns.push({
      head_sha: where.headSha,
      name: where.name,
      conclusion: outcomeOf(evaluation.verdict, failOn).conclusion,
      ...(where.detailsUrl !== undefined && { details_url: where.detailsUrl }),
      evaluation
    })
    this.writes.push('POST check')
    return Promise.resolve({ action: 'created', url: `${this.url(0)}/checks` })
  }

  recordingRun = (): never => {
    throw new Error('MemoryGitHub keeps no workflow runs; the split layout is tested end to end')
  }

  private url(issue: number): string {
    return `https://github.com/${OWNER}/${REPO}/pull/${issue}#issuecomment-${this.nextId}`
  }
}

/** The files of `sha` in the git repository at `dir`, served as GitHub's contents API would. */
export function serveCommit(github: MemoryGitHub, dir: string, sha: string): void {
  const paths = execFileSync('git', ['ls-tree', '-r', '--name-only', sha], { cwd: dir })
    .toString()
    .split('\n')
    .filter(Boolean)
  for (const path of paths)
    github.setFile(sha, path, execFileSync('git', ['show', `${sha}:${path}`], { cwd: dir }))
}
