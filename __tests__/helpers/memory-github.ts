import { execFileSync } from 'node:child_process'
import type { Evaluation } from '../../src/engine/evaluation.js'
import type {
  CheckRunOutcome,
  CheckRunPlace,
  CheckRunStart,
  CheckRunText
} from '../../src/github/check-run.js'
import {
  describeFailure,
  type CommentOutcome,
  type IssueComment
} from '../../src/github/comment.js'
import type { WorkflowRunListed } from '../../src/github/actions-runs.js'
import type { CommentByUser, GitHubPort } from '../../src/github/port.js'
import { outcomeOf, type Conclusion, type FailOn } from '../../src/verdict/outcome.js'
import { OWNER, REPO } from './action-run.js'

/** A check run as GitHub keeps it, with the evaluation it was made from. */
export interface MemoryCheckRun {
  readonly id: number
  readonly head_sha: string
  readonly name: string
  status: 'in_progress' | 'completed'
  conclusion?: string
  readonly details_url?: string
  title: string
  summary: string
  evaluation?: Evaluation
}

/** A workflow run as GitHub keeps it, as far as the bot asks about it. */
export interface MemoryRun {
  readonly id: number
  /** Its workflow's file name. */
  readonly workflow: string
  readonly headSha: string
  readonly event: string
  status: string
  attempt: number
  readonly createdAt: string
  readonly pullRequests: readonly number[]
}

/** A comment as GitHub keeps it: with its author, and editable. */
interface StoredComment {
  readonly id: number
  body: string
  readonly html_url: string
  readonly login: string
  readonly type: string
}

const BOT = { login: 'github-actions[bot]', type: 'Bot' }

/** A failed request as Octokit throws it. */
const httpError = (status: number, message = `HTTP ${status}`): Error & { status: number } =>
  Object.assign(new Error(message), { status })

/**
 * GitHub at the port: the repository's pull requests, files, comments and check runs in memory,
 * for running the action's flow in process. It keeps what GitHub keeps and refuses what GitHub
 * refuses to a read-only token (403 on every write, as `describeFailure` words it). Octokit's side
 * of the port (`octokitPort`) is tested against the HTTP stand-in, which checks every request
 * against GitHub's OpenAPI description.
 */
export class MemoryGitHub implements GitHubPort {
  readonly repo = { owner: OWNER, repo: REPO }
  private readonly store = new Map<number, StoredComment[]>()
  /** Workflow runs, as `addRun` set them up; a re-run raises `attempt`. */
  readonly runs: MemoryRun[] = []
  /** The runs re-run, by id, in order. */
  readonly reruns: number[] = []
  /** Reactions by comment id. */
  readonly reactions = new Map<number, string[]>()
  private readonly permissions = new Map<string, 'admin' | 'write' | 'read' | 'none'>()
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
  /** A run of `workflow` on the pull request `number` at `headSha`, finished an hour ago. */
  addRun(
    workflow: string,
    number: number,
    headSha: string,
    options: Partial<Pick<MemoryRun, 'event' | 'status' | 'createdAt'>> = {}
  ): MemoryRun {
    const run: MemoryRun = {
      id: 9_000 + this.runs.length,
      workflow,
      headSha,
      event: options.event ?? 'pull_request',
      status: options.status ?? 'completed',
      attempt: 1,
      createdAt: options.createdAt ?? new Date(Date.now() - 3600_000).toISOString(),
      pullRequests: [number]
    }
    this.runs.push(run)
    return run
  }
  setPermission(login: string, permission: 'admin' | 'write' | 'read' | 'none'): void {
    this.permissions.set(login, permission)
  }
  /** A comment someone wrote; returns its id. */
  addComment(issue: number, body: string, user: { login: string; type: string }): number {
    const id = this.nextId++
    const all = this.store.get(issue) ?? []
    all.push({ id, body, html_url: this.url(issue, id), ...user })
    this.store.set(issue, all)
    return id
  }
  /** Comments on `issue`, oldest first. */
  commentsOn(issue: number): readonly IssueComment[] {
    return this.store.get(issue) ?? []
  }

  /** What GitHub's write probes answer: every permission with a writing token, none without. */
  writablePermissions = (): Promise<string[]> =>
    Promise.resolve(
      this.access.write ? ['checks', 'statuses', 'contents', 'pull-requests', 'actions'] : []
    )

  pullRequest = (number: number): Promise<unknown> => {
    const pr = this.pulls.get(number)
    return pr === undefined ? Promise.reject(httpError(404)) : Promise.resolve(pr)
  }

  fileAt = (path: string, ref: string): Promise<string | undefined> =>
    Promise.resolve(this.files.get(`${this.branches.get(ref) ?? ref}:${path}`))

  comments = (issue: number, marker: string): Promise<IssueComment[]> =>
    this.access.commentsFail !== undefined
      ? Promise.reject(httpError(this.access.commentsFail))
      : Promise.resolve(
          this.commentsOn(issue)
            .filter(c => c.body.split('\n', 1)[0] === marker)
            .map(({ id, body, html_url }) => ({ id, body, html_url }))
        )

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
      const id = this.nextId++
      const comment = { id, body, html_url: this.url(issue, id), ...BOT }
      all.push(comment)
      this.writes.push(`POST comment #${issue}`)
      outcome = { action: 'created', url: comment.html_url }
    } else if (ours.body === body) {
      outcome = { action: 'unchanged', url: ours.html_url }
    } else {
      const stored = all.find(c => c.id === ours.id)
      if (stored === undefined) return Promise.reject(httpError(404))
      stored.body = body
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

  startCheckRun = (where: CheckRunPlace, text: CheckRunText): Promise<CheckRunStart> => {
    if (!this.access.write) {
      return Promise.resolve({
        action: 'failed',
        reason: describeFailure(httpError(403), 'create the check run')
      })
    }
    const id = this.nextId++
    this.checkRuns.push({
      id,
      head_sha: where.headSha,
      name: where.name,
      status: 'in_progress',
      ...(where.detailsUrl !== undefined && { details_url: where.detailsUrl }),
      ...text
    })
    this.writes.push('POST check in_progress')
    return Promise.resolve({ action: 'started', id })
  }

  checkRun = (
    where: CheckRunPlace & { readonly id?: number },
    evaluation: Evaluation,
    failOn: FailOn
  ): Promise<CheckRunOutcome> =>
    this.completeCheckRun(
      where,
      outcomeOf(evaluation.verdict, failOn, evaluation.acceptance !== undefined).conclusion,
      { title: evaluation.verdict.verdict, summary: '' },
      evaluation
    )

  completeCheckRun = (
    where: CheckRunPlace & { readonly id?: number },
    conclusion: Conclusion,
    text: CheckRunText,
    evaluation?: Evaluation
  ): Promise<CheckRunOutcome> => {
    const verb = where.id === undefined ? 'create' : 'complete'
    if (!this.access.write) {
      return Promise.resolve({
        action: 'failed',
        reason: describeFailure(httpError(403), `${verb} the check run`)
      })
    }
    const existing = this.checkRuns.find(c => c.id === where.id)
    if (where.id !== undefined && existing === undefined) {
      return Promise.reject(httpError(404))
    }
    const run: MemoryCheckRun = existing ?? {
      id: this.nextId++,
      head_sha: where.headSha,
      name: where.name,
      status: 'completed',
      ...(where.detailsUrl !== undefined && { details_url: where.detailsUrl }),
      ...text
    }
    Object.assign(run, {
      status: 'completed',
      conclusion,
      ...text,
      ...(evaluation && { evaluation })
    })
    if (!existing) this.checkRuns.push(run)
    this.writes.push(existing ? 'PATCH check completed' : 'POST check')
    return Promise.resolve({
      action: existing ? 'completed' : 'created',
      url: `${this.url(0, 0)}/checks`
    })
  }

  issueComment = (id: number): Promise<CommentByUser | undefined> => {
    const found = [...this.store.values()].flat().find(c => c.id === id)
    return Promise.resolve(found && { body: found.body, login: found.login, type: found.type })
  }

  permission = (login: string): Promise<'admin' | 'write' | 'read' | 'none'> =>
    Promise.resolve(this.permissions.get(login) ?? 'none')

  openPullRequests = (branch: string): Promise<{ number: number; headSha: string }[]> =>
    Promise.resolve(
      [...this.pulls.entries()].flatMap(([number, pr]) => {
        const { base, head, state } = pr as {
          base?: { ref?: string }
          head?: { sha?: string }
          state?: string
        }
        return base?.ref === branch && (state ?? 'open') === 'open'
          ? [{ number, headSha: head?.sha ?? '' }]
          : []
      })
    )

  workflowRunsAt = (workflow: string, headSha: string): Promise<WorkflowRunListed[]> =>
    Promise.resolve(
      this.runs
        .filter(r => r.workflow === workflow && r.headSha === headSha)
        .reverse()
        .map(r => ({
          id: r.id,
          event: r.event,
          status: r.status,
          createdAt: r.createdAt,
          htmlUrl: `https://github.com/${OWNER}/${REPO}/actions/runs/${r.id}`,
          pullRequests: r.pullRequests
        }))
    )

  /** As GitHub: 403 without write access or for a run not finished, 404 for one it does not know. */
  rerunWorkflowRun = (runId: number): Promise<void> => {
    const run = this.runs.find(r => r.id === runId)
    if (!this.access.write) {
      return Promise.reject(httpError(403, 'Resource not accessible by integration'))
    }
    if (run === undefined) return Promise.reject(httpError(404))
    if (run.status !== 'completed') {
      return Promise.reject(httpError(403, 'This workflow is already running'))
    }
    run.attempt++
    run.status = 'queued'
    this.reruns.push(runId)
    return Promise.resolve()
  }

  react = (commentId: number, content: 'eyes'): Promise<void> => {
    this.reactions.set(commentId, [...(this.reactions.get(commentId) ?? []), content])
    return Promise.resolve()
  }

  reply = (issue: number, body: string): Promise<void> => {
    this.addComment(issue, body, BOT)
    this.writes.push(`POST reply #${issue}`)
    return Promise.resolve()
  }

  recordingRun = (): never => {
    throw new Error('MemoryGitHub keeps no workflow runs; the split layout is tested end to end')
  }

  private url(issue: number, id: number): string {
    return `https://github.com/${OWNER}/${REPO}/pull/${issue}#issuecomment-${id}`
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
