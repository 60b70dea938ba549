import { execFileSync } from 'node:child_process'
import type { BaseFiles, BaseWhere } from '../../src/github/base-files.js'
import type {
  CheckConclusion,
  CheckRunAnnotation,
  CheckRunPlace,
  CheckRunText,
  CheckRunWritten,
  CompletedCheckRun,
  ListedCheckRun
} from '../../src/github/check-run.js'
import type { CommentWritten, IssueComment } from '../../src/github/comment.js'
import type { WorkflowRunListed } from '../../src/github/actions-runs.js'
import type {
  ClosedPullRequest,
  CommentByUser,
  GitHubPort,
  OpenPullRequest
} from '../../src/github/port.js'
import type { PullRequest } from '../../src/github/pull-request.js'
import type { UnreadFile, UpstreamFile } from '../../src/rubric/read-extends.js'
import { failed, ok, type Result } from '../../src/util/result.js'
import { OWNER, REPO } from './action-run.js'

/** A check run as GitHub keeps it: what it was told, annotations of every batch together. */
export interface MemoryCheckRun {
  readonly id: number
  readonly head_sha: string
  readonly name: string
  status: 'in_progress' | 'completed'
  conclusion?: string
  readonly details_url?: string
  title: string
  summary: string
  annotations: CheckRunAnnotation[]
  /** The app that created it: ours unless `addCheckRun` said another. */
  readonly app: string
  /** The `external_id` it was written with; '' for none. */
  readonly externalId: string
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
  /** Where the commit it ran on came from: this repository's own branch by default. */
  readonly headRepository: string
  readonly headBranch: string
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
/** The app our check runs are written by. */
const OUR_APP = 'github-actions'

/** The fields of GitHub's pull request JSON a test sets and the port answers with. */
interface PullRequestJson {
  readonly title?: string
  readonly body?: string | null
  readonly state?: string
  readonly base?: {
    readonly ref?: string
    readonly sha?: string
    readonly repo?: { readonly default_branch?: string }
  }
  readonly head?: {
    readonly sha?: string
    readonly ref?: string
    readonly repo?: { readonly full_name?: string } | null
  }
  readonly draft?: boolean
  readonly user?: { readonly login?: string; readonly type?: string }
  readonly labels?: readonly { readonly name?: string }[]
}

/** A failed request as Octokit throws it. */
const httpError = (status: number, message = `HTTP ${status}`): Error & { status: number } =>
  Object.assign(new Error(message), { status })

/** What a read-only token's writes answer, unless the test says otherwise. */
export const REFUSED = 'refused: HTTP 403 (the test gave a read-only token)'

/**
 * GitHub at the port: the repository's pull requests, files, comments and check runs in memory,
 * for running the action's flow in process. It records what it is told and answers what the test
 * set: no rule of the product is kept here. Octokit's side of the port (`octokitPort`) is tested
 * against the HTTP stand-in, which checks every request against GitHub's OpenAPI description.
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
  private readonly pulls = new Map<number, PullRequestJson>()
  private nextId = 1

  constructor(
    private readonly access: {
      /** Without it, every write is refused with `refusal`. */
      readonly write: boolean
      /** Reading the comments fails with this status (e.g. 502). */
      readonly commentsFail?: number
      /** The problem a refused write answers; `REFUSED` by default. */
      readonly refusal?: string
      /** What `writablePermissions` answers; none by default. */
      readonly writable?: readonly string[]
    } = { write: true }
  ) {}

  private get refusal(): string {
    return this.access.refusal ?? REFUSED
  }

  setFile(ref: string, path: string, content: string | Buffer): void {
    this.files.set(`${ref}:${path}`, content.toString())
  }
  /** What a ref names: a branch's tip (`main` or `refs/heads/main`, as GitHub takes either), else itself. */
  private commitOf(ref: string): string {
    const name = ref.replace(/^refs\/heads\//, '')
    return this.branches.get(name) ?? name
  }

  setBranch(name: string, sha: string): void {
    this.branches.set(name, sha)
  }
  /** A pull request as GitHub's JSON has it (a webhook payload's `pull_request`). */
  setPullRequest(number: number, pr: unknown): void {
    this.pulls.set(number, pr as PullRequestJson)
  }
  /** The pull request as `pr` once it has been read `reads` more times: a push during a run. */
  setPullRequestAfter(number: number, reads: number, pr: unknown): void {
    this.pushes.set(number, { reads, pr: pr as PullRequestJson })
  }
  private readonly pushes = new Map<number, { reads: number; pr: PullRequestJson }>()
  /** A check run some app (a pull request's own workflow job, say) created on a commit. */
  addCheckRun(headSha: string, name: string, app: string): MemoryCheckRun {
    const run: MemoryCheckRun = {
      id: this.nextId++,
      head_sha: headSha,
      name,
      status: 'completed',
      conclusion: 'success',
      title: '',
      summary: '',
      annotations: [],
      app,
      externalId: ''
    }
    this.checkRuns.push(run)
    return run
  }
  /** A run of `workflow` on the pull request `number` at `headSha`, finished an hour ago. */
  addRun(
    workflow: string,
    number: number,
    headSha: string,
    options: Partial<
      Pick<
        MemoryRun,
        'event' | 'status' | 'createdAt' | 'pullRequests' | 'headRepository' | 'headBranch'
      >
    > = {}
  ): MemoryRun {
    const run: MemoryRun = {
      id: 9_000 + this.runs.length,
      workflow,
      headSha,
      event: options.event ?? 'pull_request',
      status: options.status ?? 'completed',
      attempt: 1,
      createdAt: options.createdAt ?? new Date(Date.now() - 3600_000).toISOString(),
      pullRequests: options.pullRequests ?? [number],
      headRepository: options.headRepository ?? `${OWNER}/${REPO}`,
      headBranch: options.headBranch ?? 'feature'
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

  writablePermissions = (): Promise<string[]> => Promise.resolve([...(this.access.writable ?? [])])

  /** The pull request the test set, in the port's field names. */
  pullRequest = (number: number): Promise<PullRequest | undefined> => {
    const push = this.pushes.get(number)
    if (push !== undefined && push.reads-- <= 0) {
      this.pulls.set(number, push.pr)
      this.pushes.delete(number)
    }
    const pr = this.pulls.get(number)
    if (pr === undefined) return Promise.reject(httpError(404))
    return Promise.resolve({
      number,
      title: pr.title ?? '',
      body: pr.body ?? '',
      baseSha: pr.base?.sha ?? '',
      baseRef: pr.base?.ref ?? '',
      defaultBranch: pr.base?.repo?.default_branch ?? '',
      headSha: pr.head?.sha ?? '',
      headRepository: pr.head?.repo?.full_name ?? '',
      headRef: pr.head?.ref ?? '',
      state: pr.state === 'closed' ? 'closed' : 'open',
      draft: pr.draft === true,
      ...(pr.user?.login !== undefined && {
        author: { login: pr.user.login, bot: pr.user.type === 'Bot' }
      }),
      labels: (pr.labels ?? []).flatMap(label => (label.name === undefined ? [] : [label.name]))
    })
  }

  fileAt = (path: string, ref: string): Promise<string | undefined> =>
    Promise.resolve(this.files.get(`${this.commitOf(ref)}:${path}`))

  filesAt = (folder: string, ref: string): Promise<string[]> => {
    const prefix = `${this.commitOf(ref)}:${folder}/`
    return Promise.resolve(
      [...this.files.keys()]
        .filter(key => key.startsWith(prefix) && !key.slice(prefix.length).includes('/'))
        .map(key => key.slice(key.indexOf(':') + 1))
        .sort()
    )
  }

  /** The three reads the port's one request stands for, at the base ref it is given. */
  baseFiles = async (where: BaseWhere): Promise<BaseFiles> => ({
    head: (await this.pullRequest(where.number).catch(() => undefined))?.headSha,
    fileAt: path => this.fileAt(path, where.ref),
    filesIn: folder => this.filesAt(folder, where.ref)
  })

  /** A file of another repository (`owner/repo`) at a ref as the port is asked for it. */
  setUpstreamFile(repository: string, ref: string, path: string, content: string): void {
    this.files.set(`${repository}@${ref}:${path}`, content)
  }

  /** Every read of another repository's file, as `owner/repo/path@ref`, in order. */
  readonly upstreamReads: string[] = []

  upstreamFile = (file: UpstreamFile): Promise<Result<string, UnreadFile>> => {
    this.upstreamReads.push(`${file.owner}/${file.repo}/${file.path}@${file.ref}`)
    const text = this.files.get(`${file.owner}/${file.repo}@${file.ref}:${file.path}`)
    return Promise.resolve(
      text === undefined ? failed({ status: 404, message: 'Not Found' }) : ok(text)
    )
  }

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
  ): Promise<Result<CommentWritten>> => {
    if (!this.access.write) return Promise.resolve(failed(this.refusal))
    const all = this.store.get(issue) ?? []
    const [ours, ...duplicates] = existing
    let outcome: CommentWritten
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
    return Promise.resolve(ok(outcome))
  }

  startCheckRun = (where: CheckRunPlace, text: CheckRunText): Promise<Result<number>> => {
    if (!this.access.write) return Promise.resolve(failed(this.refusal))
    const id = this.nextId++
    this.checkRuns.push({
      id,
      head_sha: where.headSha,
      name: where.name,
      status: 'in_progress',
      ...(where.detailsUrl !== undefined && { details_url: where.detailsUrl }),
      ...text,
      annotations: [],
      app: OUR_APP,
      externalId: where.externalId ?? ''
    })
    this.writes.push('POST check in_progress')
    return Promise.resolve(ok(id))
  }

  checkRun = (
    run: CompletedCheckRun & { readonly id?: number }
  ): Promise<Result<CheckRunWritten>> => {
    if (!this.access.write) return Promise.resolve(failed(this.refusal))
    const existing = this.checkRuns.find(c => c.id === run.id)
    if (run.id !== undefined && existing === undefined) return Promise.reject(httpError(404))
    const stored: MemoryCheckRun = existing ?? {
      id: this.nextId++,
      head_sha: run.headSha,
      name: run.name,
      status: 'completed',
      ...(run.detailsUrl !== undefined && { details_url: run.detailsUrl }),
      title: run.title,
      summary: run.summary,
      annotations: [],
      app: OUR_APP,
      externalId: run.externalId ?? ''
    }
    Object.assign(stored, {
      status: 'completed',
      conclusion: run.conclusion,
      title: run.title,
      summary: run.summary
    })
    stored.annotations.push(...(run.annotations ?? []).flat())
    if (!existing) this.checkRuns.push(stored)
    this.writes.push(existing ? 'PATCH check completed' : 'POST check')
    return Promise.resolve(
      ok({ action: existing ? 'completed' : 'created', url: `${this.url(0, 0)}/checks` })
    )
  }

  completeCheckRun = (
    where: CheckRunPlace & { readonly id?: number },
    conclusion: CheckConclusion,
    text: CheckRunText
  ): Promise<Result<CheckRunWritten>> => this.checkRun({ ...where, conclusion, ...text })

  checkRunsNamed = (headSha: string, names: readonly string[]): Promise<ListedCheckRun[]> =>
    Promise.resolve(
      this.checkRuns
        .filter(c => c.head_sha === headSha && names.includes(c.name))
        .map(c => ({
          id: c.id,
          name: c.name,
          appSlug: c.app,
          externalId: c.externalId,
          htmlUrl: `https://github.com/${OWNER}/${REPO}/runs/${c.id}`,
          status: c.status,
          conclusion: c.status === 'completed' ? (c.conclusion ?? null) : null,
          title: c.title
        }))
    )

  issueComment = (id: number): Promise<CommentByUser | undefined> => {
    const issue = [...this.store.entries()].find(([, list]) => list.some(c => c.id === id))
    const found = issue?.[1].find(c => c.id === id)
    return Promise.resolve(
      found && { body: found.body, login: found.login, type: found.type, issue: issue?.[0] ?? 0 }
    )
  }

  permission = (login: string): Promise<'admin' | 'write' | 'read' | 'none'> =>
    Promise.resolve(this.permissions.get(login) ?? 'none')

  /** The bot's flows list no closed pull request (`calibrate --propose` is tested on the stand-in). */
  closedPullRequests = (): Promise<ClosedPullRequest[]> =>
    Promise.reject(new Error('memory GitHub: closed pull requests are not played'))

  /** Every base's when `branch` is not given, as GitHub lists them without `base`. */
  openPullRequests = (branch?: string): Promise<OpenPullRequest[]> =>
    Promise.resolve(
      [...this.pulls.entries()].flatMap(([number, pr]) => {
        const { base, head, state } = pr
        return (branch === undefined || base?.ref === branch) && (state ?? 'open') === 'open'
          ? [
              {
                number,
                headSha: head?.sha ?? '',
                headRepository: head?.repo?.full_name ?? '',
                headRef: head?.ref ?? '',
                baseRef: base?.ref ?? '',
                defaultBranch: base?.repo?.default_branch ?? ''
              }
            ]
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
          pullRequests: r.pullRequests,
          headRepository: r.headRepository,
          headBranch: r.headBranch
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
