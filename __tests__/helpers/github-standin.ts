/**
 * A local HTTP server that plays the GitHub REST API for the endpoints Rubric Council calls, so the
 * real Octokit (`@actions/github`'s `getOctokit`, `paginate`, the retry and throttling plugins) runs
 * in tests with no network.
 *
 * Every request is recorded and checked against GitHub's own OpenAPI description
 * (`@octokit/openapi`, api.github.com): a route or method GitHub does not have, a path parameter of
 * the wrong type, a missing required query parameter or a body the operation's schema rejects lands
 * in `violations`, so a test can assert that the action only sends what the real API accepts. The
 * rules GitHub enforces beyond its description (comment length, check-run conclusions, token
 * permissions) are enforced here too, with GitHub's status codes and error bodies.
 *
 * Like GitHub, the stand-in answers a body its schema rejects with a 422 ("Invalid request."), a
 * request with no or an unknown token with a 401, and a route it does not know with a 404.
 *
 * Tokens hold per-permission levels as a workflow's `permissions:` gives them (`TokenAccess`), and
 * each route asks for the level GitHub's docs name for it (`ROUTE_PERMISSIONS`).
 *
 * Workflow runs, their jobs and artifacts are played too. An artifact's download answers 302 with
 * a short-lived signed URL on the stand-in's "blob storage" (`BLOB_PATH`, outside the API and its
 * description, as GitHub's is on another host), which records whether credentials came along.
 */
import { entriesAt, graphqlReply, type GraphQLView } from './github-graphql.js'
import { createHash, createHmac, randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import { Ajv } from 'ajv'
import type { ErrorObject, ValidateFunction } from 'ajv'
import { listenOnLoopback } from './listen.js'

export interface Actor {
  login: string
  type: 'User' | 'Bot'
}

export interface Comment {
  id: number
  body: string
  user: Actor
  created_at: string
  updated_at: string
  html_url: string
  node_id: string
}

export interface Annotation {
  path: string
  start_line: number
  end_line: number
  start_column?: number
  end_column?: number
  annotation_level: 'notice' | 'warning' | 'failure'
  message: string
  title?: string
  raw_details?: string
}

export interface CheckRun {
  id: number
  name: string
  head_sha: string
  status: string
  conclusion: string | null
  details_url?: string
  external_id?: string
  started_at: string
  completed_at: string | null
  /** `title` and `summary` are '' until set; annotations accumulate across updates, as on GitHub. */
  output: { title: string; summary: string; text?: string; annotations: Annotation[] }
  /** The run's status and conclusion after each create or update GitHub accepted, in order. */
  history: CheckRunState[]
}

export interface CheckRunState {
  readonly status: string
  readonly conclusion: string | null
}

/** A reaction on an issue comment, as `reactions(commentId)` lists them. */
export interface Reaction {
  readonly id: number
  readonly content: ReactionContent
  readonly user: Actor
  readonly created_at: string
}

/** GitHub's reaction types (the `content` enum of the reactions API). */
export type ReactionContent =
  '+1' | '-1' | 'laugh' | 'confused' | 'heart' | 'hooray' | 'rocket' | 'eyes'

/** A workflow file, as `setWorkflow` registers it. */
export interface WorkflowOptions {
  /** Its `on: workflow_dispatch:` trigger and the inputs declared there; none without it. */
  readonly dispatch?: {
    readonly inputs: Readonly<
      Record<string, { readonly required?: boolean; readonly default?: string }>
    >
  }
}

/** A `workflow_dispatch` GitHub accepted: the workflow's file name, the ref and inputs as sent. */
export interface Dispatch {
  readonly workflow: string
  readonly ref: string
  readonly inputs: Readonly<Record<string, unknown>>
}

/** The repository permissions a workflow's `permissions:` key can set, by their names there. */
export type Permission =
  'actions' | 'checks' | 'contents' | 'issues' | 'pull-requests' | 'statuses' | 'metadata'
export type PermissionLevel = 'read' | 'write' | 'none'
/** A collaborator's role on the repository (the base roles; custom roles are not played). */
export type CollaboratorRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read'

export interface RecordedRequest {
  readonly method: string
  /**
   * As requested. Pages after the first use GitHub's `/repositories/{id}/…` form, because that is
   * what GitHub's `Link` headers (and so the stand-in's) point at.
   */
  readonly path: string
  readonly query: Readonly<Record<string, string>>
  /** The parsed JSON body; the raw text when it is not JSON; undefined when there is none. */
  readonly body: unknown
  /** The status the stand-in answered with. */
  readonly status: number
  /** From `Authorization: token X` or `Authorization: Bearer X`. */
  readonly token: string | undefined
  /** The Authorization header as it arrived, whatever its scheme; undefined without one. */
  readonly authorization: string | undefined
}

export interface TokenAccess {
  readonly login: string
  readonly type: 'User' | 'Bot'
  /**
   * Without `permissions`: every permission at 'write' with it, at 'read' without it (so every
   * POST/PATCH/PUT/DELETE gets GitHub's 403). Ignored when `permissions` is given.
   */
  readonly write?: boolean
  /**
   * Without `permissions`: the token's `actions` permission. With 'none' every `/actions/` route
   * gets GitHub's 403 ("Resource not accessible by integration"), as GITHUB_TOKEN does when the
   * workflow's `permissions:` leave `actions: read` out. By default as `write` says.
   */
  readonly actions?: 'read' | 'none'
  /**
   * The token's permissions as a workflow's `permissions:` key sets them. As there, a permission
   * left out is 'none', except `metadata`, which is 'read' (GITHUB_TOKEN always has it).
   * https://docs.github.com/actions/reference/workflows-and-actions/workflow-syntax#permissions
   */
  readonly permissions?: Readonly<Partial<Record<Permission, PermissionLevel>>>
  /** Private repositories besides the stand-in's own it can read (`owner/name`); none by default. */
  readonly repositories?: readonly string[]
}

/** A workflow run, as a test sets it up: the rest of GitHub's object is made up around it. */
export interface WorkflowRunSpec {
  readonly id: number
  readonly head_sha: string
  /** 'pull_request' by default. */
  readonly event?: string
  /** 'completed' by default. */
  readonly status?: string
  /** 'success' by default when completed, else null. */
  readonly conclusion?: string | null
  /** The workflow's name; 'CI' by default. */
  readonly name?: string
  /** 'feature' by default. */
  readonly head_branch?: string
  /** `owner/name` the head commit comes from (a fork's); the stand-in's repository by default. */
  readonly head_repository?: string
  /** Pull request numbers GitHub associates with the run; none by default. */
  readonly pull_requests?: readonly number[]
  /** 1 by default. */
  readonly run_attempt?: number
  /**
   * The workflow file (in `.github/workflows/`) it is a run of, as `setWorkflow` names it;
   * `ci.yml` by default. The list of a workflow's runs lists only its own.
   */
  readonly workflow?: string
  /**
   * The ref its jobs run on (`GITHUB_REF`): not part of GitHub's JSON, but what a re-run keeps.
   * By default `refs/pull/<n>/merge` for a pull request event with a listed pull request, else
   * `refs/heads/<head_branch>`.
   */
  readonly ref?: string
  /** When it was first created (ISO 8601): an hour ago by default. Re-runs keep it. */
  readonly created_at?: string
}

/**
 * A workflow run GitHub started, or started again: what its jobs run with. A dispatch starts a
 * new run; a re-run (`POST …/actions/runs/{run_id}/rerun`) a new attempt of the same run, with
 * the run's own event, commit and ref.
 */
export interface RunStart {
  readonly runId: number
  readonly attempt: number
  readonly workflow: string
  readonly how: 'dispatch' | 'rerun'
  readonly event: string
  readonly head_sha: string
  readonly ref: string
}

export interface JobSpec {
  readonly name: string
  /** 'completed' by default. */
  readonly status?: 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending'
  /** 'success' by default when completed, else null. */
  readonly conclusion?:
    | 'success'
    | 'failure'
    | 'neutral'
    | 'cancelled'
    | 'skipped'
    | 'timed_out'
    | 'action_required'
    | null
}

export interface ArtifactOptions {
  /** Past retention: listed with `expired: true`, and its download answers 410. */
  readonly expired?: boolean
  /** By default each artifact is a second newer than the one added before it. */
  readonly createdAt?: string
  /** The blob is sent without Content-Length (chunked), so only reading it tells its size. */
  readonly chunked?: boolean
}

export interface StoredArtifact {
  readonly id: number
  readonly runId: number
  readonly name: string
  readonly zip: Buffer
  readonly expired: boolean
  readonly createdAt: string
  readonly chunked: boolean
}

export interface RuntimeEnv {
  readonly ACTIONS_RUNTIME_TOKEN: string
  readonly ACTIONS_RESULTS_URL: string
}

/** Where the stand-in's blob storage serves artifact zips; not part of GitHub's API. */
export const BLOB_PATH = '/_blob/'

export interface FailReply {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>>
  /** A string is sent as it is; anything else as JSON; without it, GitHub's body for the status. */
  readonly body?: unknown
}

export interface GitHubStandIn {
  /** http://127.0.0.1:PORT, for `GITHUB_API_URL` / `getOctokit(token, { baseUrl })`. */
  readonly url: string
  readonly owner: string
  readonly repo: string
  /** The id GitHub's `/repositories/{id}/…` pagination links name the repository by. */
  readonly repositoryId: number
  readonly requests: readonly RecordedRequest[]
  /** Requests GitHub's OpenAPI description rejects, one line each, naming the request and why. */
  readonly violations: readonly string[]
  /** By issue or pull request number, in creation order. */
  readonly comments: Map<number, Comment[]>
  readonly checkRuns: CheckRun[]
  /** Every `workflow_dispatch` GitHub accepted, in order. */
  readonly dispatches: readonly Dispatch[]
  /** Every run GitHub started (dispatched) or started again (re-run), in order. */
  readonly runStarts: readonly RunStart[]
  addToken(token: string, access: TokenAccess): void
  /** A comment already on the issue (no request is made or recorded). */
  addComment(issue: number, body: string, author: Actor): Comment
  /** The repository's content at `ref` (a sha, or a branch name such as the default, `main`). */
  setFile(ref: string, path: string, content: string | Buffer): void
  /** A branch whose tip is `sha`: the contents API reads the branch as that commit's files. */
  setBranch(name: string, sha: string): void
  /**
   * Another repository (`owner/name`) on the same GitHub, whose files the contents API serves. A
   * token reads a public one; a private one only when its `repositories` name it (else 404, as
   * GitHub answers for what the token cannot see).
   */
  addRepository(fullName: string, options?: { readonly private?: boolean }): OtherRepository
  /**
   * The JSON `GET /pulls/{n}` returns, e.g. a webhook payload's `pull_request`. `GET /pulls` lists
   * it too, filtered by its `state` ('open' when absent), `base.ref` and `head.label`.
   */
  setPullRequest(number: number, pr: unknown): void
  /**
   * A workflow file under `.github/workflows/` (`rubric-council.yml`), with its `workflow_dispatch`
   * trigger and inputs if it has one. Returns the numeric id GitHub gave it (`workflow_id` may be
   * either). Set again to change it.
   */
  setWorkflow(file: string, options?: WorkflowOptions): number
  /**
   * A user's role on the repository; 'none' makes the login a GitHub user who is no collaborator.
   * The repository's owner is admin unless set otherwise.
   */
  setPermission(login: string, role: CollaboratorRole | 'none'): void
  /** The reactions on an issue comment, oldest first. */
  reactions(commentId: number): readonly Reaction[]
  /** What `GET /pulls/{n}/files` lists (GitHub's diff-entry objects). */
  setPullRequestFiles(number: number, files: readonly unknown[]): void
  /** A workflow run `GET /actions/runs/{id}` answers with (set again to change it). */
  setWorkflowRun(run: WorkflowRunSpec): void
  /** The run as the stand-in holds it now (after re-runs: its latest attempt). */
  workflowRun(id: number): WorkflowRunSpec | undefined
  /** The jobs of a run's attempt (1 by default); `filter=latest` lists the highest attempt's. */
  setRunJobs(runId: number, jobs: readonly JobSpec[], attempt?: number): void
  /** An artifact the run uploaded, its zip as given; returns it with the id GitHub gave it. */
  addArtifact(runId: number, name: string, zip: Buffer, options?: ArtifactOptions): StoredArtifact
  /**
   * What the runner gives a job's actions to upload artifacts with: `ACTIONS_RUNTIME_TOKEN` (a JWT
   * whose `scp` claim is `Actions.Results:<run backend id>:<job backend id>`, signed by the
   * stand-in) and `ACTIONS_RESULTS_URL` (the results service: this stand-in). An artifact the job
   * uploads through them (`@actions/artifact`) appears on run `runId` as `addArtifact` makes it.
   */
  runtimeFor(runId: number, job: string): RuntimeEnv
  /**
   * The next `count` requests get this reply, before any other check (they are recorded too);
   * with `only`, the next `count` requests that match it, whatever arrives in between.
   */
  failNext(count: number, reply: FailReply, only?: RequestMatch): void
  close(): Promise<void>
}

/** A method and a pattern for the request's path (without the query). */
export interface RequestMatch {
  readonly method: string
  readonly path: RegExp
}

/** A repository besides the stand-in's own: only its contents are served. */
export interface OtherRepository {
  /** Its content at `ref` (a commit, or a tag's name). */
  setFile(ref: string, path: string, content: string): void
  /** A branch whose tip is `sha` (read by its name, never as `refs/tags/<name>`). */
  setBranch(name: string, sha: string): void
}

export interface GitHubStandInOptions {
  readonly owner?: string
  readonly repo?: string
  /** The ref `GET /contents/{path}` reads without `?ref=`. */
  readonly defaultBranch?: string
  /** A private repository: a user who is no collaborator has no access to it. Public by default. */
  readonly private?: boolean
}

/** GitHub's limit on an issue or pull request comment, counted in Unicode code points. */
export const COMMENT_BODY_LIMIT = 65_536
/**
 * GitHub's limit on a check run's `output.summary` and `output.text`, in bytes of UTF-8: the docs say
 * "Maximum length: 65535 characters", but GitHub answers a longer one, emoji or not, with "summary
 * exceeds a maximum bytesize of 65535" (github/docs#35252, dorny/test-reporter#57).
 */
export const CHECK_RUN_TEXT_LIMIT = 65_535
/** The Checks API takes at most 50 annotations per request. */
export const ANNOTATIONS_PER_REQUEST = 50
/**
 * At most this many inputs per `workflow_dispatch` request: the description's `maxProperties` on
 * `inputs` ("The maximum number of properties is 25", @octokit/openapi 23;
 * https://docs.github.com/rest/actions/workflows#create-a-workflow-dispatch-event).
 */
export const DISPATCH_INPUTS_LIMIT = 25

export async function startGitHubStandIn(
  options: GitHubStandInOptions = {}
): Promise<GitHubStandIn> {
  // Loaded (once per process) before listening, so the first request is not slowed by it.
  const description = await loadDescription()
  const server = createServer()
  const listening = await listenOnLoopback(server)
  const url = listening.url

  const state: State = {
    description,
    origin: url,
    owner: options.owner ?? 'octo-org',
    repo: options.repo ?? 'octo-repo',
    repositoryId: 700_000_001,
    defaultBranch: options.defaultBranch ?? 'main',
    private: options.private === true,
    requests: [],
    violations: [],
    comments: new Map(),
    checkRuns: [],
    tokens: new Map(),
    userIds: new Map(),
    files: new Map(),
    branches: new Map(),
    others: new Map(),
    pulls: new Map(),
    pullFiles: new Map(),
    runs: new Map(),
    jobs: new Map(),
    artifacts: [],
    blobs: new Map(),
    runtimeKey: randomBytes(32),
    runtimeJobs: new Map(),
    pending: new Map(),
    uploads: new Map(),
    workflows: new Map(),
    dispatches: [],
    runStarts: [],
    roles: new Map(),
    reactions: new Map(),
    failures: [],
    used: new Map(),
    resetAt: Math.floor(Date.now() / 1000) + 3600,
    // Runs start an hour ago; their artifacts are made a minute later, a second apart.
    epoch: Date.now() - 3600_000,
    clock: Date.now() - 3540_000,
    nextId: {
      comment: 2_000_000_001,
      checkRun: 30_000_000_001,
      user: 100_001,
      job: 40_000_000_001,
      artifact: 3_000_000_001,
      workflow: 161_336,
      reaction: 200_000_001,
      run: 6_000_000_001
    }
  }

  userId(state, state.owner)

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(state, req, res).catch((error: unknown) => {
      // A bug in the stand-in itself: answer rather than leave the client waiting.
      if (!res.headersSent && !res.destroyed) {
        sendJson(res, 500, {}, { message: `GitHub stand-in failed: ${messageOf(error)}` })
      }
    })
  })

  return {
    url,
    owner: state.owner,
    repo: state.repo,
    repositoryId: state.repositoryId,
    requests: state.requests,
    violations: state.violations,
    comments: state.comments,
    checkRuns: state.checkRuns,
    dispatches: state.dispatches,
    runStarts: state.runStarts,
    addToken: (token, access) => {
      state.tokens.set(token, { ...access })
      userId(state, access.login)
    },
    addComment: (issue, body, author) => newComment(state, issue, body, author),
    setFile: (ref, path, content) => {
      const tree = state.files.get(refName(ref)) ?? new Map<string, Buffer>()
      tree.set(cleanPath(path), typeof content === 'string' ? Buffer.from(content) : content)
      state.files.set(refName(ref), tree)
    },
    setBranch: (name, sha) => {
      state.branches.set(refName(name), refName(sha))
    },
    addRepository: (fullName, repositoryOptions = {}) => {
      const [owner = '', repo = ''] = fullName.split('/')
      const other: Other = {
        owner,
        repo,
        private: repositoryOptions.private === true,
        files: new Map(),
        branches: new Map()
      }
      state.others.set(fullName.toLowerCase(), other)
      return {
        setFile: (ref, path, content) => {
          const tree = other.files.get(ref) ?? new Map<string, Buffer>()
          tree.set(cleanPath(path), Buffer.from(content))
          other.files.set(ref, tree)
        },
        setBranch: (name, sha) => {
          other.branches.set(name, sha)
        }
      }
    },
    setPullRequest: (number, pr) => {
      state.pulls.set(number, pr)
    },
    setWorkflow: (file, workflowOptions = {}) => {
      const name = file.slice(file.lastIndexOf('/') + 1)
      const id = state.workflows.get(name)?.id ?? state.nextId.workflow++
      state.workflows.set(name, { id, file: name, ...workflowOptions })
      return id
    },
    setPermission: (login, role) => {
      userId(state, login)
      state.roles.set(login.toLowerCase(), role)
    },
    reactions: commentId => [...(state.reactions.get(commentId) ?? [])],
    setPullRequestFiles: (number, files) => {
      state.pullFiles.set(number, [...files])
    },
    setWorkflowRun: run => {
      if (run.workflow !== undefined && !state.workflows.has(run.workflow)) {
        state.workflows.set(run.workflow, { id: state.nextId.workflow++, file: run.workflow })
      }
      state.runs.set(run.id, { ...run })
    },
    workflowRun: id => {
      const run = state.runs.get(id)
      return run === undefined ? undefined : { ...run }
    },
    setRunJobs: (runId, jobs, attempt = 1) => {
      const attempts = state.jobs.get(runId) ?? new Map<number, StoredJob[]>()
      attempts.set(
        attempt,
        jobs.map(job => {
          const status = job.status ?? 'completed'
          return {
            id: state.nextId.job++,
            name: job.name,
            status,
            conclusion: conclusionOf(status, job.conclusion),
            attempt
          }
        })
      )
      state.jobs.set(runId, attempts)
    },
    addArtifact: (runId, name, zip, options = {}) =>
      storeArtifact(state, runId, name, zip, options),
    runtimeFor: (runId, job) => runtimeFor(state, runId, job),
    failNext: (count, reply, only) => {
      for (let i = 0; i < count; i++) state.failures.push({ reply, ...(only && { only }) })
    },
    close: listening.close
  }
}

/**
 * Problems with a response against the operation's response schema in GitHub's description: how
 * tests check that the stand-in's own answers have the shape real GitHub answers have.
 */
export async function responseProblems(
  method: string,
  path: string,
  status: number,
  body: unknown
): Promise<string[]> {
  const description = await loadDescription()
  const found = findOperation(description, method.toUpperCase(), path)
  if (found.operation === undefined) return found.problems
  const response = record(found.operation.responses[String(status)])
  const schema = record(record(response?.content)?.['application/json'])?.schema
  if (schema === undefined) return [`GitHub documents no JSON body for ${String(status)}`]
  const problem = schemaProblem(schema, body, 'response')
  return problem === undefined ? [] : [problem]
}

// ---------------------------------------------------------------------------------------------
// State and request handling

type Json = Readonly<Record<string, unknown>>

interface State {
  readonly description: Description
  readonly origin: string
  readonly owner: string
  readonly repo: string
  readonly repositoryId: number
  readonly defaultBranch: string
  readonly private: boolean
  readonly requests: RecordedRequest[]
  readonly violations: string[]
  readonly comments: Map<number, Comment[]>
  readonly checkRuns: CheckRun[]
  readonly tokens: Map<string, TokenAccess>
  /** Logins to numeric ids, handed out on first sight. */
  readonly userIds: Map<string, number>
  /** ref → path → content */
  readonly files: Map<string, Map<string, Buffer>>
  /** Branch name → the commit at its tip. */
  readonly branches: Map<string, string>
  /** Other repositories by `owner/name`, lower-cased: their files are served read-only. */
  readonly others: Map<string, Other>
  readonly pulls: Map<number, unknown>
  readonly pullFiles: Map<number, readonly unknown[]>
  readonly runs: Map<number, WorkflowRunSpec>
  /** Run id → attempt → its jobs. */
  readonly jobs: Map<number, Map<number, StoredJob[]>>
  readonly artifacts: StoredArtifact[]
  /** A signed blob URL's signature → the artifact it grants and when that ends (ms). */
  readonly blobs: Map<string, { readonly artifactId: number; readonly until: number }>
  /** The key the stand-in signs runtime tokens with. */
  readonly runtimeKey: Buffer
  /** Job backend id (a runtime token's scope) → the run and job it was given to. */
  readonly runtimeJobs: Map<string, { readonly runId: number; readonly job: string }>
  /** Artifacts created through the results service and not finalized yet, by `runId/name`. */
  readonly pending: Map<string, PendingArtifact>
  /** A signed upload URL's signature → the pending artifact it may write. */
  readonly uploads: Map<string, { readonly key: string; readonly until: number }>
  /** By file name. */
  readonly workflows: Map<string, StoredWorkflow>
  readonly dispatches: Dispatch[]
  readonly runStarts: RunStart[]
  /** Lower-cased login → role set with `setPermission`. */
  readonly roles: Map<string, CollaboratorRole | 'none'>
  /** Comment id → its reactions. */
  readonly reactions: Map<number, Reaction[]>
  readonly failures: { readonly reply: FailReply; readonly only?: RequestMatch }[]
  /** Requests per token, for the `x-ratelimit-*` headers. */
  readonly used: Map<string, number>
  readonly resetAt: number
  /** When every workflow run started (ms). */
  readonly epoch: number
  /** When the last artifact was made (ms). */
  clock: number
  readonly nextId: {
    comment: number
    checkRun: number
    user: number
    job: number
    artifact: number
    workflow: number
    reaction: number
    run: number
  }
}

interface StoredWorkflow extends WorkflowOptions {
  readonly id: number
  readonly file: string
}

interface StoredJob {
  readonly id: number
  readonly name: string
  readonly status: string
  readonly conclusion: string | null
  readonly attempt: number
}

/** A request that reached an operation the stand-in implements. */
interface Call {
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  readonly body: unknown
  readonly access: TokenAccess
  readonly accept: string
  /** The path the pagination links are built on (the `/repositories/{id}` form, as GitHub's). */
  readonly linkPath: string
}

interface Reply {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>>
  /** Sent as JSON; no body at all when undefined. */
  readonly body?: unknown
  /** Sent as it is (a raw media type, or a failNext string body). */
  readonly raw?: string | Buffer
}

type Handler = (state: State, call: Call) => Reply

const HANDLERS: Readonly<Record<string, Handler>> = {
  'GET /user': getAuthenticatedUser,
  'GET /repos/{owner}/{repo}/issues/{issue_number}/comments': listComments,
  'POST /repos/{owner}/{repo}/issues/{issue_number}/comments': createComment,
  'GET /repos/{owner}/{repo}/issues/comments/{comment_id}': getComment,
  'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}': updateComment,
  'DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}': deleteComment,
  'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions': createReaction,
  'GET /repos/{owner}/{repo}/collaborators/{username}/permission': getCollaboratorPermission,
  'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches': dispatchWorkflow,
  'POST /repos/{owner}/{repo}/check-runs': createCheckRun,
  'GET /repos/{owner}/{repo}/check-runs/{check_run_id}': getCheckRun,
  'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}': updateCheckRun,
  'GET /repos/{owner}/{repo}/commits/{ref}/check-runs': listCheckRunsForRef,
  'GET /repos/{owner}/{repo}/contents/{path}': getContent,
  'GET /repos/{owner}/{repo}/pulls': listPullRequests,
  'GET /repos/{owner}/{repo}/pulls/{pull_number}': getPullRequest,
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/files': listPullRequestFiles,
  'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs': listWorkflowRuns,
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}': getWorkflowRun,
  'POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun': rerunWorkflowRun,
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs': listRunJobs,
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs': listAttemptJobs,
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts': listRunArtifacts,
  'GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}': getArtifact,
  'GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}': downloadArtifact
}

async function handle(state: State, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase()
  const url = new URL(req.url ?? '/', state.origin)
  const bytes = await readBody(req)
  const text = bytes.toString('utf8')
  const authorization = req.headers.authorization
  const token = /^(?:token|bearer)\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1]
  const parsed = parseJson(text)
  /** Every request is recorded with the status it was answered with. */
  const record = (reply: Reply): Reply => {
    state.requests.push({
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: parsed.value,
      status: reply.status,
      token,
      authorization
    })
    return reply
  }
  const sendJson = (reply: Reply): void => {
    send(
      res,
      reply.status,
      { 'content-type': 'application/json', ...reply.headers },
      reply.raw ?? JSON.stringify(reply.body ?? {})
    )
  }

  if (url.pathname.startsWith(TWIRP_PATH)) {
    // The results service: its own host on GitHub, its own tokens (the job's runtime token).
    sendJson(
      record(
        takeFailure(state, method, url) ??
          resultsService(state, method, url, req.headers['content-type'] ?? '', token, parsed)
      )
    )
    return
  }

  if (url.pathname.startsWith(BLOB_PATH)) {
    // Blob storage: not the API, so neither its description nor its tokens apply.
    const reply =
      takeFailure(state, method, url) ??
      (method === 'PUT' ? uploadBlob(state, url, bytes) : serveBlob(state, url))
    sendBlob(res, method, record(reply))
    return
  }

  if (url.pathname === '/graphql' && method === 'POST') {
    const access = token === undefined ? undefined : state.tokens.get(token)
    sendJson(
      record(
        takeFailure(state, method, url) ?? (await graphqlReply(graphqlView(state, access), parsed))
      )
    )
    return
  }

  // GitHub's pagination links name the repository by id; it serves them as the named route.
  const routedPath = canonicalPath(state, url.pathname)
  const checked =
    routedPath === undefined
      ? undefined
      : checkRequest(state.description, method, routedPath, url, parsed)
  for (const problem of checked?.problems ?? []) {
    state.violations.push(`${method} ${url.pathname}${url.search}: ${problem}`)
  }

  const incoming: Incoming = {
    method,
    url,
    routedPath,
    token,
    body: parsed.value,
    json: parsed.json,
    accept: req.headers.accept ?? ''
  }
  const reply = record(takeFailure(state, method, url) ?? respond(state, incoming, checked))
  answer(state, res, method, token, reply)
}

/** What GraphQL reads of the state, for a token it knows; undefined for none. */
function graphqlView(state: State, access: TokenAccess | undefined): GraphQLView | undefined {
  if (access === undefined) return undefined
  return {
    owner: state.owner,
    repo: state.repo,
    commitOf: rev => {
      const named = refName(rev)
      return state.branches.get(named) ?? named
    },
    filesAt: commit => state.files.get(commit),
    pull: number => state.pulls.get(number) as { head?: { sha?: string } } | undefined,
    canRead: permission => holds(access, permission, 'read')
  }
}

interface Incoming {
  readonly method: string
  readonly url: URL
  /** The path as GitHub routes it; undefined for a repository id the stand-in does not know. */
  readonly routedPath: string | undefined
  readonly token: string | undefined
  readonly body: unknown
  /** False when the body could not be parsed: GitHub answers 400 "Problems parsing JSON". */
  readonly json: boolean
  readonly accept: string
}

/** GitHub's order: credentials, route, repository, permission, then the request itself. */
function respond(state: State, incoming: Incoming, checked: Checked | undefined): Reply {
  const access = incoming.token === undefined ? undefined : state.tokens.get(incoming.token)
  if (access === undefined) return errorReply(401, 'Bad credentials', DOCS)
  const operation = checked?.operation
  if (checked === undefined || operation === undefined) return errorReply(404, 'Not Found', DOCS)
  const { params } = checked
  const other =
    params.owner === undefined || params.repo === undefined
      ? undefined
      : state.others.get(`${params.owner}/${params.repo}`.toLowerCase())
  if (other !== undefined) return otherRepositoryReply(state, other, incoming, checked, access)
  const inRepo = params.owner === undefined || sameName(params.owner, state.owner)
  if (!inRepo || (params.repo !== undefined && !sameName(params.repo, state.repo))) {
    return errorReply(404, 'Not Found', operation.docs)
  }
  const need = needOf(state, operation, params)
  // GitHub names the permissions a route accepts to fine-grained actors (GITHUB_TOKEN is one).
  const accepted =
    need === undefined ? {} : { 'x-accepted-github-permissions': acceptedHeader(need) }
  if (!permitted(access, operation, need)) {
    return withHeaders(forbidden(access, operation.docs), accepted)
  }
  if (!incoming.json) return errorReply(400, 'Problems parsing JSON', operation.docs)
  if (checked.rejection !== undefined) {
    return errorReply(422, `Invalid request.\n\n${checked.rejection}`, operation.docs)
  }
  const handler = HANDLERS[`${operation.method} ${operation.template}`]
  if (handler === undefined) {
    // A route GitHub has but the stand-in does not play: GitHub's 404, with a note for whoever
    // reads the failing test.
    return {
      status: 404,
      body: {
        ...errorBody(404, 'Not Found', operation.docs),
        stand_in: `${operation.method} ${operation.template} is not implemented by the GitHub stand-in`
      }
    }
  }
  const repoPath = `/repos/${state.owner}/${state.repo}`
  const routed = incoming.routedPath ?? incoming.url.pathname
  const call: Call = {
    params,
    query: incoming.url.searchParams,
    body: incoming.body,
    access,
    accept: incoming.accept,
    linkPath: routed.startsWith(`${repoPath}/`)
      ? `/repositories/${String(state.repositoryId)}${routed.slice(repoPath.length)}`
      : routed
  }
  return withHeaders(handler(state, call), accepted)
}

interface Other {
  readonly owner: string
  readonly repo: string
  readonly private: boolean
  /** ref → path → content */
  readonly files: Map<string, Map<string, Buffer>>
  readonly branches: Map<string, string>
}

/**
 * Another repository: its contents, read-only. A private one the token does not name is GitHub's
 * 404 (it does not say the repository exists); a token without `contents: read` gets the 403.
 */
function otherRepositoryReply(
  state: State,
  other: Other,
  incoming: Incoming,
  checked: Checked,
  access: TokenAccess
): Reply {
  const operation = checked.operation
  if (operation === undefined) return errorReply(404, 'Not Found', DOCS)
  const fullName = `${other.owner}/${other.repo}`.toLowerCase()
  const visible =
    !other.private || (access.repositories ?? []).some(r => r.toLowerCase() === fullName)
  if (!visible) return errorReply(404, 'Not Found', operation.docs)
  if (`${operation.method} ${operation.template}` !== 'GET /repos/{owner}/{repo}/contents/{path}') {
    return errorReply(404, 'Not Found', operation.docs)
  }
  if (other.private && !holds(access, 'contents', 'read')) {
    return forbidden(access, operation.docs)
  }
  const ref = incoming.url.searchParams.get('ref') ?? ''
  // A tag is read as `refs/tags/<name>`: a branch of that name is not one.
  const tag = /^refs\/tags\/(.+)$/.exec(ref)?.[1]
  if (tag !== undefined && other.branches.has(tag)) {
    return errorReply(404, `No commit found for the ref ${ref}`, DOCS_CONTENTS)
  }
  const view: State = {
    ...state,
    owner: other.owner,
    repo: other.repo,
    files: other.files,
    branches: other.branches
  }
  return getContent(view, {
    params: checked.params,
    query: incoming.url.searchParams,
    body: incoming.body,
    access,
    accept: incoming.accept,
    linkPath: incoming.url.pathname
  })
}

function withHeaders(reply: Reply, headers: Readonly<Record<string, string>>): Reply {
  return { ...reply, headers: { ...headers, ...reply.headers } }
}

/** The reply `failNext` set up for this request, if one is due. */
function takeFailure(state: State, method: string, url: URL): Reply | undefined {
  const due = state.failures.findIndex(
    f => f.only === undefined || (f.only.method === method && f.only.path.test(url.pathname))
  )
  const failure = due === -1 ? undefined : state.failures.splice(due, 1)[0]?.reply
  return failure === undefined ? undefined : failureReply(failure)
}

function failureReply(failure: FailReply): Reply {
  const headers = failure.headers ?? {}
  if (typeof failure.body === 'string') {
    return { status: failure.status, headers, raw: failure.body }
  }
  return { status: failure.status, headers, body: failure.body ?? errorBody(failure.status) }
}

function answer(
  state: State,
  res: ServerResponse,
  method: string,
  token: string | undefined,
  reply: Reply
): void {
  const used = (state.used.get(token ?? '') ?? 0) + 1
  state.used.set(token ?? '', used)
  const headers: Record<string, string> = {
    'x-github-api-version-selected': '2022-11-28',
    'x-github-media-type': 'github.v3; format=json',
    'x-github-request-id': randomBytes(8).toString('hex').toUpperCase(),
    'x-ratelimit-limit': '5000',
    'x-ratelimit-remaining': String(Math.max(0, 5000 - used)),
    'x-ratelimit-reset': String(state.resetAt),
    'x-ratelimit-used': String(used),
    'x-ratelimit-resource': 'core'
  }
  const text = reply.raw ?? (reply.body === undefined ? '' : JSON.stringify(reply.body))
  // A 204 has no body and so no type; a raw reply names its own type in `reply.headers`.
  if (text !== '') headers['content-type'] = 'application/json; charset=utf-8'
  Object.assign(headers, reply.headers)
  send(res, reply.status, headers, method === 'HEAD' ? '' : text)
}

function canonicalPath(state: State, pathname: string): string | undefined {
  const alias = /^\/repositories\/(\d+)(\/.*)?$/.exec(pathname)
  if (alias === null) return pathname
  // Only ids the stand-in handed out: GitHub would know any other, the stand-in does not.
  if (Number(alias[1]) !== state.repositoryId) return undefined
  return `/repos/${state.owner}/${state.repo}${alias[2] ?? ''}`
}

// ---------------------------------------------------------------------------------------------
// Users and tokens

function getAuthenticatedUser(state: State, call: Call): Reply {
  // An installation token (GITHUB_TOKEN) is not a user: GitHub refuses it here.
  if (call.access.type === 'Bot') return forbidden(call.access, DOCS_USER)
  const created = '2020-01-01T00:00:00Z'
  return {
    status: 200,
    body: {
      ...userJson(state, call.access),
      name: null,
      company: null,
      blog: '',
      location: null,
      email: null,
      hireable: null,
      bio: null,
      twitter_username: null,
      public_repos: 0,
      public_gists: 0,
      followers: 0,
      following: 0,
      created_at: created,
      updated_at: created
    }
  }
}

function userId(state: State, login: string): number {
  const key = login.toLowerCase()
  let id = state.userIds.get(key)
  if (id === undefined) {
    id = state.nextId.user++
    state.userIds.set(key, id)
  }
  return id
}

function userJson(state: State, actor: Actor): Json {
  const id = userId(state, actor.login)
  const api = `${state.origin}/users/${encodeURIComponent(actor.login)}`
  const bot = actor.type === 'Bot'
  return {
    login: actor.login,
    id,
    node_id: `${bot ? 'BOT_kgDO' : 'U_kgDO'}${idTag(id)}`,
    avatar_url: `https://avatars.githubusercontent.com/${bot ? 'in' : 'u'}/${String(id)}?v=4`,
    gravatar_id: '',
    url: api,
    html_url: bot
      ? `https://github.com/apps/${actor.login.replace(/\[bot\]$/, '')}`
      : `https://github.com/${actor.login}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: actor.type,
    user_view_type: 'public',
    site_admin: false
  }
}

/** The app behind GITHUB_TOKEN: what check runs and bot comments name as their author. */
function actionsApp(state: State): Json {
  return {
    id: 15368,
    slug: 'github-actions',
    node_id: 'MDM6QXBwMTUzNjg=',
    owner: { ...userJson(state, { login: 'github', type: 'User' }), type: 'Organization' },
    name: 'GitHub Actions',
    description: 'Automate your workflow from idea to production',
    external_url: 'https://help.github.com/en/actions',
    html_url: 'https://github.com/apps/github-actions',
    created_at: '2018-07-30T09:30:17Z',
    updated_at: '2019-12-10T19:04:12Z',
    permissions: { checks: 'write', contents: 'read', issues: 'write', metadata: 'read' },
    events: []
  }
}

function forbidden(access: TokenAccess, docs: string): Reply {
  // A fine-grained personal access token gets its own wording; an app's token (GITHUB_TOKEN) this.
  const who = access.type === 'Bot' ? 'integration' : 'personal access token'
  return errorReply(403, `Resource not accessible by ${who}`, docs)
}

// ---------------------------------------------------------------------------------------------
// Permissions

/** Any one of these (permission, level) pairs lets a request through. */
type Need = readonly (readonly [Permission, 'read' | 'write'])[]

/**
 * The permission each route asks of a fine-grained token (GITHUB_TOKEN is one), as its docs page's
 * "Fine-grained access tokens" section lists it; the page is each operation's `docs` URL, and all of
 * them are summed up in
 * https://docs.github.com/rest/authentication/permissions-required-for-fine-grained-personal-access-tokens.
 * Issue comments take "at least one of" Issues or Pull requests; the Pull requests permission
 * reaches only comments on pull requests (a pull request is an issue; a plain issue is not a pull
 * request), so on a plain issue only Issues counts.
 */
const ROUTE_PERMISSIONS: Readonly<
  Record<string, Need | ((state: State, params: Readonly<Record<string, string>>) => Need)>
> = {
  'GET /repos/{owner}/{repo}/issues/{issue_number}/comments': (state, params) =>
    onIssue(state, Number(params.issue_number), 'read'),
  'POST /repos/{owner}/{repo}/issues/{issue_number}/comments': (state, params) =>
    onIssue(state, Number(params.issue_number), 'write'),
  'GET /repos/{owner}/{repo}/issues/comments/{comment_id}': (state, params) =>
    onComment(state, Number(params.comment_id), 'read'),
  'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}': (state, params) =>
    onComment(state, Number(params.comment_id), 'write'),
  'DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}': (state, params) =>
    onComment(state, Number(params.comment_id), 'write'),
  // https://docs.github.com/rest/reactions/reactions#create-reaction-for-an-issue-comment
  'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions': (state, params) =>
    onComment(state, Number(params.comment_id), 'write'),
  'POST /repos/{owner}/{repo}/check-runs': [['checks', 'write']],
  // https://docs.github.com/rest/commits/statuses#create-a-commit-status
  'POST /repos/{owner}/{repo}/statuses/{sha}': [['statuses', 'write']],
  // https://docs.github.com/rest/git/refs#create-a-reference
  'POST /repos/{owner}/{repo}/git/refs': [['contents', 'write']],
  // https://docs.github.com/rest/pulls/pulls#create-a-pull-request
  'POST /repos/{owner}/{repo}/pulls': [['pull-requests', 'write']],
  'GET /repos/{owner}/{repo}/check-runs/{check_run_id}': [['checks', 'read']],
  'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}': [['checks', 'write']],
  // https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference
  'GET /repos/{owner}/{repo}/commits/{ref}/check-runs': [['checks', 'read']],
  'GET /repos/{owner}/{repo}/contents/{path}': [['contents', 'read']],
  'GET /repos/{owner}/{repo}/pulls': [['pull-requests', 'read']],
  'GET /repos/{owner}/{repo}/pulls/{pull_number}': [['pull-requests', 'read']],
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/files': [['pull-requests', 'read']],
  // https://docs.github.com/rest/actions/workflow-runs#list-workflow-runs-for-a-workflow
  'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs': [['actions', 'read']],
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}': [['actions', 'read']],
  // https://docs.github.com/rest/actions/workflow-runs#re-run-a-workflow
  'POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun': [['actions', 'write']],
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs': [['actions', 'read']],
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs': [
    ['actions', 'read']
  ],
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts': [['actions', 'read']],
  'GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}': [['actions', 'read']],
  'GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}': [
    ['actions', 'read']
  ],
  // https://docs.github.com/rest/actions/workflows#create-a-workflow-dispatch-event
  'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches': [['actions', 'write']],
  // https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user
  'GET /repos/{owner}/{repo}/collaborators/{username}/permission': [['metadata', 'read']]
}

function onIssue(state: State, issue: number, level: 'read' | 'write'): Need {
  return isPullRequest(state, issue)
    ? [
        ['issues', level],
        ['pull-requests', level]
      ]
    : [['issues', level]]
}

/** For a comment the stand-in does not have, either permission: the 404 tells the rest. */
function onComment(state: State, id: number, level: 'read' | 'write'): Need {
  const found = findComment(state, id)
  return found === undefined
    ? [
        ['issues', level],
        ['pull-requests', level]
      ]
    : onIssue(state, found.issue, level)
}

function isPullRequest(state: State, issue: number): boolean {
  return state.pulls.has(issue) || state.pullFiles.has(issue)
}

/** The level a token holds: its `permissions` map, or what the older `write`/`actions` say. */
function levelOf(access: TokenAccess, permission: Permission): PermissionLevel {
  if (access.permissions !== undefined) {
    return access.permissions[permission] ?? (permission === 'metadata' ? 'read' : 'none')
  }
  if (permission === 'actions' && access.actions === 'none') return 'none'
  return access.write === true ? 'write' : 'read'
}

function holds(access: TokenAccess, permission: Permission, level: 'read' | 'write'): boolean {
  const held = levelOf(access, permission)
  return held === 'write' || (held === 'read' && level === 'read')
}

function needOf(
  state: State,
  operation: Operation,
  params: Readonly<Record<string, string>>
): Need | undefined {
  const listed = ROUTE_PERMISSIONS[`${operation.method} ${operation.template}`]
  return typeof listed === 'function' ? listed(state, params) : listed
}

/**
 * The `x-accepted-github-permissions` header: each set that would do, separated by semicolons,
 * permissions by their API names (`pull_requests`), e.g. `issues=write; pull_requests=write`.
 * https://github.blog/changelog/2023-08-10-x-accepted-github-permissions-header-for-fine-grained-permission-actors
 */
function acceptedHeader(need: Need): string {
  return need.map(([permission, level]) => `${permission.replace('-', '_')}=${level}`).join('; ')
}

function permitted(access: TokenAccess, operation: Operation, need: Need | undefined): boolean {
  if (need !== undefined)
    return need.some(([permission, level]) => holds(access, permission, level))
  // Routes the stand-in does not play (they end in its 404): the Actions API wants `actions`, any
  // other write some permission at write.
  const level = isWrite(operation.method) ? 'write' : 'read'
  if (operation.template.startsWith('/repos/{owner}/{repo}/actions/')) {
    return holds(access, 'actions', level)
  }
  return level === 'read' || holdsAnyWrite(access)
}

function holdsAnyWrite(access: TokenAccess): boolean {
  const all: readonly Permission[] = [
    'actions',
    'checks',
    'contents',
    'issues',
    'pull-requests',
    'statuses',
    'metadata'
  ]
  return all.some(permission => levelOf(access, permission) === 'write')
}

// ---------------------------------------------------------------------------------------------
// Issue comments

const DOCS_COMMENTS = 'https://docs.github.com/rest/issues/comments'

function newComment(state: State, issue: number, body: string, author: Actor): Comment {
  userId(state, author.login)
  const id = state.nextId.comment++
  const now = timestamp()
  const kind = state.pulls.has(issue) || state.pullFiles.has(issue) ? 'pull' : 'issues'
  const comment: Comment = {
    id,
    body,
    user: { login: author.login, type: author.type },
    created_at: now,
    updated_at: now,
    html_url: `https://github.com/${state.owner}/${state.repo}/${kind}/${String(issue)}#issuecomment-${String(id)}`,
    node_id: `IC_kwDO${idTag(id)}`
  }
  const list = state.comments.get(issue) ?? []
  list.push(comment)
  state.comments.set(issue, list)
  return comment
}

function commentJson(state: State, issue: number, comment: Comment): Json {
  const api = `${state.origin}/repos/${state.owner}/${state.repo}`
  const url = `${api}/issues/comments/${String(comment.id)}`
  return {
    url,
    html_url: comment.html_url,
    issue_url: `${api}/issues/${String(issue)}`,
    id: comment.id,
    node_id: comment.node_id,
    user: userJson(state, comment.user),
    created_at: comment.created_at,
    updated_at: comment.updated_at,
    author_association: authorAssociation(state, comment.user),
    body: comment.body,
    reactions: reactionRollup(state, comment.id, `${url}/reactions`),
    performed_via_github_app: comment.user.type === 'Bot' ? actionsApp(state) : null
  }
}

/**
 * The repository's owner is OWNER; a user given a role with `setPermission`, or holding a token
 * that writes, COLLABORATOR; anyone else NONE.
 */
function authorAssociation(state: State, user: Actor): string {
  if (user.type === 'Bot') return 'NONE'
  if (sameName(user.login, state.owner)) return 'OWNER'
  const role = state.roles.get(user.login.toLowerCase())
  if (role !== undefined) return role === 'none' ? 'NONE' : 'COLLABORATOR'
  for (const access of state.tokens.values()) {
    if (holdsAnyWrite(access) && sameName(access.login, user.login)) return 'COLLABORATOR'
  }
  return 'NONE'
}

function findComment(
  state: State,
  id: number
): { readonly issue: number; readonly list: Comment[]; readonly comment: Comment } | undefined {
  for (const [issue, list] of state.comments) {
    const comment = list.find(c => c.id === id)
    if (comment !== undefined) return { issue, list, comment }
  }
  return undefined
}

function listComments(state: State, call: Call): Reply {
  // The stand-in has no issues of its own: every number is an issue, with the comments added.
  const issue = Number(call.params.issue_number)
  const since = call.query.get('since')
  const all = state.comments.get(issue) ?? []
  const listed =
    since === null ? all : all.filter(c => Date.parse(c.updated_at) >= Date.parse(since))
  return paginated(state, call, listed, 100, c => commentJson(state, issue, c))
}

function getComment(state: State, call: Call): Reply {
  const found = findComment(state, Number(call.params.comment_id))
  if (found === undefined) return errorReply(404, 'Not Found', DOCS_COMMENTS)
  return { status: 200, body: commentJson(state, found.issue, found.comment) }
}

function createComment(state: State, call: Call): Reply {
  const body = str(record(call.body)?.body) ?? ''
  const problem = commentBodyProblem(body)
  if (problem !== undefined) return problem
  const issue = Number(call.params.issue_number)
  const comment = newComment(state, issue, body, call.access)
  const json = commentJson(state, issue, comment)
  return { status: 201, headers: { location: String(json.url) }, body: json }
}

function updateComment(state: State, call: Call): Reply {
  const found = findComment(state, Number(call.params.comment_id))
  if (found === undefined) return errorReply(404, 'Not Found', DOCS_COMMENTS)
  const refused = othersComment(call.access, found.comment)
  if (refused !== undefined) return refused
  const body = str(record(call.body)?.body) ?? ''
  const problem = commentBodyProblem(body)
  if (problem !== undefined) return problem
  found.comment.body = body
  found.comment.updated_at = timestamp()
  return { status: 200, body: commentJson(state, found.issue, found.comment) }
}

function deleteComment(state: State, call: Call): Reply {
  const found = findComment(state, Number(call.params.comment_id))
  if (found === undefined) return errorReply(404, 'Not Found', DOCS_COMMENTS)
  const refused = othersComment(call.access, found.comment)
  if (refused !== undefined) return refused
  found.list.splice(found.list.indexOf(found.comment), 1)
  return { status: 204 }
}

// ---------------------------------------------------------------------------------------------
// Reactions

const DOCS_REACTIONS =
  'https://docs.github.com/rest/reactions/reactions#create-reaction-for-an-issue-comment'
const REACTION_CONTENTS: readonly ReactionContent[] = [
  '+1',
  '-1',
  'laugh',
  'confused',
  'heart',
  'hooray',
  'rocket',
  'eyes'
]

/**
 * 201 with a new reaction; 200 with the one already there when the same user reacted with the same
 * content ("A response with an HTTP `200` status means that you already added the reaction type to
 * this issue comment."). A `content` outside the enum never gets here: the description's check
 * answers it with a 422.
 */
function createReaction(state: State, call: Call): Reply {
  const id = Number(call.params.comment_id)
  if (findComment(state, id) === undefined) return errorReply(404, 'Not Found', DOCS_REACTIONS)
  const content = REACTION_CONTENTS.find(c => c === record(call.body)?.content)
  if (content === undefined) return errorReply(422, 'Validation Failed', DOCS_REACTIONS)
  const list = state.reactions.get(id) ?? []
  const existing = list.find(
    r => r.content === content && sameName(r.user.login, call.access.login)
  )
  if (existing !== undefined) return { status: 200, body: reactionJson(state, existing) }
  const reaction: Reaction = {
    id: state.nextId.reaction++,
    content,
    user: { login: call.access.login, type: call.access.type },
    created_at: timestamp()
  }
  list.push(reaction)
  state.reactions.set(id, list)
  return { status: 201, body: reactionJson(state, reaction) }
}

function reactionJson(state: State, reaction: Reaction): Json {
  return {
    id: reaction.id,
    node_id: `REA_lADO${idTag(reaction.id)}`,
    user: userJson(state, reaction.user),
    content: reaction.content,
    created_at: reaction.created_at
  }
}

/** The `reactions` summary a comment carries, counted from the reactions on it. */
function reactionRollup(state: State, commentId: number, url: string): Json {
  const list = state.reactions.get(commentId) ?? []
  const counts = Object.fromEntries(
    REACTION_CONTENTS.map(content => [content, list.filter(r => r.content === content).length])
  )
  return { url, total_count: list.length, ...counts }
}

/**
 * An app's token may only edit or delete the app's own comments. A user with write access may
 * (repository maintainers moderate others' comments), so only bots are refused.
 */
function othersComment(access: TokenAccess, comment: Comment): Reply | undefined {
  if (access.type !== 'Bot' || sameName(access.login, comment.user.login)) return undefined
  return forbidden(access, DOCS_COMMENTS)
}

/**
 * GitHub measures the body with Ruby's `String#length`, i.e. in Unicode code points: an emoji
 * outside the BMP counts once (JavaScript's `length` would count it twice).
 */
function commentBodyProblem(body: string): Reply | undefined {
  if (body.trim() === '') {
    return validationFailed(DOCS_COMMENTS, [
      { resource: 'IssueComment', code: 'missing_field', field: 'body' }
    ])
  }
  if (codePoints(body) <= COMMENT_BODY_LIMIT) return undefined
  return validationFailed(DOCS_COMMENTS, [
    {
      resource: 'IssueComment',
      code: 'custom',
      field: 'body',
      message: `body is too long (maximum is ${String(COMMENT_BODY_LIMIT)} characters)`
    }
  ])
}

// ---------------------------------------------------------------------------------------------
// Check runs

const DOCS_CHECK_RUNS = 'https://docs.github.com/rest/checks/runs'
const ANNOTATION_LEVELS: readonly string[] = ['notice', 'warning', 'failure']

/**
 * Only an app writes check runs: "OAuth apps and personal access tokens (classic) cannot use this
 * endpoint" (the description of checks/update, https://docs.github.com/rest/checks/runs), and
 * GitHub answers them 403 "You must authenticate via a GitHub App." (as quoted in
 * https://github.com/SvanBoxel/organization-workflows/issues/27). A user's token here is one.
 */
function notAnApp(access: TokenAccess): Reply | undefined {
  if (access.type === 'Bot') return undefined
  return errorReply(403, 'You must authenticate via a GitHub App.', DOCS_CHECK_RUNS)
}

function createCheckRun(state: State, call: Call): Reply {
  const refused = notAnApp(call.access)
  if (refused !== undefined) return refused
  const body = record(call.body) ?? {}
  const problem = checkRunProblem(body, undefined)
  if (problem !== undefined) return problem
  const now = timestamp()
  const run: CheckRun = {
    id: state.nextId.checkRun++,
    name: str(body.name) ?? '',
    head_sha: str(body.head_sha) ?? '',
    status: 'queued',
    conclusion: null,
    started_at: str(body.started_at) ?? now,
    completed_at: null,
    output: { title: '', summary: '', annotations: [] },
    history: []
  }
  applyCheckRun(run, body)
  run.history.push({ status: run.status, conclusion: run.conclusion })
  state.checkRuns.push(run)
  return { status: 201, body: checkRunJson(state, run) }
}

function getCheckRun(state: State, call: Call): Reply {
  const run = state.checkRuns.find(r => r.id === Number(call.params.check_run_id))
  if (run === undefined) return errorReply(404, 'Not Found', DOCS_CHECK_RUNS)
  return { status: 200, body: checkRunJson(state, run) }
}

function updateCheckRun(state: State, call: Call): Reply {
  const refused = notAnApp(call.access)
  if (refused !== undefined) return refused
  const run = state.checkRuns.find(r => r.id === Number(call.params.check_run_id))
  if (run === undefined) return errorReply(404, 'Not Found', DOCS_CHECK_RUNS)
  const body = record(call.body) ?? {}
  const problem = checkRunProblem(body, run)
  if (problem !== undefined) return problem
  applyCheckRun(run, completedLock(run, body))
  run.history.push({ status: run.status, conclusion: run.conclusion })
  return { status: 200, body: checkRunJson(state, run) }
}

/**
 * `GET /commits/{ref}/check-runs`: every check run on the commit (`ref` a sha or a branch), those
 * written through the API and those GitHub made for the jobs of workflow runs on the commit (a
 * job is a check run of its name, by the GitHub Actions app, with the job's id: every job of every
 * attempt). `check_name`, `status` and `app_id` filter; `filter=latest` (the default) keeps the
 * most recent run of each name, `all` every one. A page is `{ total_count, check_runs }`.
 */
function listCheckRunsForRef(state: State, call: Call): Reply {
  const named = refName(call.params.ref ?? '')
  const sha = state.branches.get(named) ?? named
  const jobs = [...state.runs.values()]
    .filter(run => run.head_sha === sha)
    .flatMap(run =>
      [...(state.jobs.get(run.id)?.values() ?? [])].flat().map(job => jobCheckRun(state, run, job))
    )
  const name = call.query.get('check_name')
  const status = call.query.get('status')
  const appId = call.query.get('app_id')
  let runs = [...state.checkRuns.filter(r => r.head_sha === sha), ...jobs]
    .filter(r => name === null || r.name === name)
    .filter(r => status === null || r.status === status)
    .filter(() => appId === null || Number(appId) === actionsApp(state).id)
    .sort((a, b) => b.id - a.id)
  if ((call.query.get('filter') ?? 'latest') === 'latest') {
    runs = runs.filter((r, i) => runs.findIndex(other => other.name === r.name) === i)
  }
  return paginated(state, call, runs, 100, run => checkRunJson(state, run), 'check_runs')
}

/** The check run GitHub keeps for a workflow job: the job's id and name, on the run's commit. */
function jobCheckRun(state: State, run: WorkflowRunSpec, job: StoredJob): CheckRun {
  const completed = job.status === 'completed'
  return {
    id: job.id,
    name: job.name,
    head_sha: run.head_sha,
    status: job.status,
    conclusion: job.conclusion,
    details_url: `https://github.com/${state.owner}/${state.repo}/actions/runs/${String(run.id)}/job/${String(job.id)}`,
    started_at: timestampOf(state.epoch + 10_000),
    completed_at: completed ? timestampOf(state.epoch + 50_000) : null,
    output: { title: '', summary: '', annotations: [] },
    history: []
  }
}

/**
 * A completed check run keeps its status and conclusion: GitHub answers the update (200) but
 * leaves them as they are, so a run cannot go back to in_progress (or queued) and its conclusion
 * stays. "Once a check run transitions from the in_progress state to completed state, it's not
 * possible to modify its status nor its conclusion further"
 * (https://github.com/orgs/community/discussions/24761, quoted in
 * https://github.com/taskcluster/taskcluster/issues/5085); "moving a completed status checkrun to
 * in_progress isn't working … although API call succeeded"
 * (https://github.com/tektoncd/pipelines-as-code/issues/998). The rest of the update (output,
 * name, details_url) applies. GitHub's own way back is "Rerequest a check run".
 */
function completedLock(run: CheckRun, body: Json): Json {
  if (run.status !== 'completed') return body
  const rest: Record<string, unknown> = { ...body }
  delete rest.status
  delete rest.conclusion
  delete rest.completed_at
  return rest
}

/** A create or update body the checks let through: what it sets, and the annotations it adds. */
function applyCheckRun(run: CheckRun, body: Json): void {
  run.name = str(body.name) ?? run.name
  run.started_at = str(body.started_at) ?? run.started_at
  const conclusion = str(body.conclusion)
  const status = str(body.status)
  if (conclusion !== undefined) {
    // "Providing `conclusion` will automatically set the `status` parameter to `completed`."
    run.conclusion = conclusion
    run.status = 'completed'
    run.completed_at = str(body.completed_at) ?? timestamp()
  } else if (status !== undefined) {
    run.status = status
    if (status !== 'completed') {
      run.conclusion = null
      run.completed_at = null
    }
  }
  const detailsUrl = str(body.details_url)
  if (detailsUrl !== undefined) run.details_url = detailsUrl
  const externalId = str(body.external_id)
  if (externalId !== undefined) run.external_id = externalId
  const output = record(body.output)
  if (output === undefined) return
  run.output.title = str(output.title) ?? run.output.title
  run.output.summary = str(output.summary) ?? run.output.summary
  const text = str(output.text)
  if (text !== undefined) run.output.text = text
  const annotations = Array.isArray(output.annotations) ? output.annotations : []
  for (const annotation of annotations) {
    const parsed = annotationOf(annotation)
    if (parsed !== undefined) run.output.annotations.push(parsed)
  }
}

/**
 * GitHub's own rules for a check-run body. The schema states some of them too (`maxItems: 50`,
 * `maxLength: 65535`), and a body breaking those is refused (and recorded) before it gets here;
 * the rest only the service knows. `conclusion`: "Required if you provide `completed_at` or a
 * `status` of `completed`" (https://docs.github.com/rest/checks/runs#create-a-check-run and
 * #update-a-check-run); GitHub words the refusal as it words a missing parameter.
 */
function checkRunProblem(body: Json, existing: CheckRun | undefined): Reply | undefined {
  const output = record(body.output)
  const annotations = Array.isArray(output?.annotations) ? output.annotations : []
  if (annotations.length > ANNOTATIONS_PER_REQUEST) {
    const most = String(ANNOTATIONS_PER_REQUEST)
    return checkRunInvalid('annotations', 'invalid', `at most ${most} annotations per request`)
  }
  for (const field of ['summary', 'text'] as const) {
    const value = str(output?.[field])
    if (value !== undefined && Buffer.byteLength(value, 'utf8') > CHECK_RUN_TEXT_LIMIT) {
      const limit = String(CHECK_RUN_TEXT_LIMIT)
      return checkRunInvalid(field, 'custom', `${field} exceeds a maximum bytesize of ${limit}`)
    }
  }
  const conclusion = str(body.conclusion)
  if (
    conclusion === undefined &&
    (body.status === 'completed' || body.completed_at !== undefined)
  ) {
    return errorReply(422, `Invalid request.\n\n"conclusion" wasn't supplied.`, DOCS_CHECK_RUNS)
  }
  if (conclusion === 'stale') {
    return checkRunInvalid('conclusion', 'invalid', 'only GitHub can set a conclusion of stale')
  }
  const detailsUrl = str(body.details_url) ?? existing?.details_url
  if (conclusion === 'action_required' && detailsUrl === undefined) {
    return checkRunInvalid(
      'details_url',
      'missing_field',
      'details_url is required when the conclusion is action_required'
    )
  }
  return undefined
}

function checkRunInvalid(field: string, code: string, message: string): Reply {
  return validationFailed(DOCS_CHECK_RUNS, [{ resource: 'CheckRun', code, field, message }])
}

/** The body already passed the schema, so only the shape's optional parts need care here. */
function annotationOf(value: unknown): Annotation | undefined {
  const a = record(value)
  const level = str(a?.annotation_level)
  const path = str(a?.path)
  const message = str(a?.message)
  const start = int(a?.start_line)
  const end = int(a?.end_line)
  if (a === undefined || path === undefined || message === undefined) return undefined
  if (start === undefined || end === undefined || level === undefined) return undefined
  if (!isAnnotationLevel(level)) return undefined
  const annotation: Annotation = {
    path,
    start_line: start,
    end_line: end,
    annotation_level: level,
    message
  }
  const startColumn = int(a.start_column)
  if (startColumn !== undefined) annotation.start_column = startColumn
  const endColumn = int(a.end_column)
  if (endColumn !== undefined) annotation.end_column = endColumn
  const title = str(a.title)
  if (title !== undefined) annotation.title = title
  const details = str(a.raw_details)
  if (details !== undefined) annotation.raw_details = details
  return annotation
}

function isAnnotationLevel(level: string): level is Annotation['annotation_level'] {
  return ANNOTATION_LEVELS.includes(level)
}

function checkRunJson(state: State, run: CheckRun): Json {
  const api = `${state.origin}/repos/${state.owner}/${state.repo}`
  const url = `${api}/check-runs/${String(run.id)}`
  const app = actionsApp(state)
  return {
    id: run.id,
    name: run.name,
    node_id: `CR_kwDO${idTag(run.id)}`,
    head_sha: run.head_sha,
    external_id: run.external_id ?? '',
    url,
    html_url: `https://github.com/${state.owner}/${state.repo}/runs/${String(run.id)}`,
    // Without one, GitHub shows the app's homepage.
    details_url: run.details_url ?? app.external_url,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.started_at,
    completed_at: run.completed_at,
    output: {
      title: run.output.title === '' ? null : run.output.title,
      summary: run.output.summary === '' ? null : run.output.summary,
      text: run.output.text ?? null,
      annotations_count: run.output.annotations.length,
      annotations_url: `${url}/annotations`
    },
    // One suite per commit, as GitHub groups an app's runs.
    check_suite: { id: parseInt(sha1(`suite ${run.head_sha}`).slice(0, 10), 16) },
    app,
    pull_requests: []
  }
}

// ---------------------------------------------------------------------------------------------
// Repository contents

const DOCS_CONTENTS = 'https://docs.github.com/rest/repos/contents#get-repository-content'
/** Above this GitHub still describes the file but sends no content (`encoding: "none"`). */
const CONTENT_LIMIT = 1024 * 1024

function getContent(state: State, call: Call): Reply {
  const named = refName(call.query.get('ref') ?? state.defaultBranch)
  const ref = state.branches.get(named) ?? named
  const path = cleanPath(call.params.path ?? '')
  const tree = state.files.get(ref)
  const file = tree?.get(path)
  if (file !== undefined) {
    // `mediaType: { format: 'raw' }`: the bytes themselves.
    if (/application\/vnd\.github(\.v3)?\.raw/.test(call.accept)) {
      return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, raw: file }
    }
    return { status: 200, body: contentJson(state, ref, path, file, true) }
  }
  const prefix = `${path}/`
  const children = entriesAt(tree ?? [], path)
  if (children.size === 0) return errorReply(404, 'Not Found', DOCS_CONTENTS)
  const entries = [...children.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, content]) => contentJson(state, ref, `${prefix}${name}`, content, false))
  return { status: 200, body: entries }
}

/**
 * A file, or a directory when `content` is undefined. Only a file asked for by its own path
 * carries its content: a directory listing describes its files without it.
 */
function contentJson(
  state: State,
  ref: string,
  path: string,
  content: Buffer | undefined,
  withContent: boolean
): Json {
  const api = `${state.origin}/repos/${state.owner}/${state.repo}`
  const sha =
    content === undefined ? sha1(`tree ${ref}:${path}`) : sha1(blobHeader(content), content)
  const url = `${api}/contents/${path.split('/').map(encodeURIComponent).join('/')}?ref=${encodeURIComponent(ref)}`
  const gitUrl = `${api}/git/${content === undefined ? 'trees' : 'blobs'}/${sha}`
  const htmlUrl = `https://github.com/${state.owner}/${state.repo}/${content === undefined ? 'tree' : 'blob'}/${ref}/${path}`
  const entry: Record<string, unknown> = {
    type: content === undefined ? 'dir' : 'file',
    size: content?.length ?? 0,
    name: path.slice(path.lastIndexOf('/') + 1),
    path,
    sha,
    url,
    git_url: gitUrl,
    html_url: htmlUrl,
    download_url:
      content === undefined
        ? null
        : `https://raw.githubusercontent.com/${state.owner}/${state.repo}/${ref}/${path}`,
    _links: { self: url, git: gitUrl, html: htmlUrl }
  }
  if (content !== undefined && withContent) {
    const large = content.length > CONTENT_LIMIT
    entry.content = large ? '' : base64Lines(content)
    entry.encoding = large ? 'none' : 'base64'
  }
  return entry
}

/** Base64 as Ruby's `Base64.encode64` writes it, which GitHub uses: a newline after every 60. */
function base64Lines(content: Buffer): string {
  const encoded = content.toString('base64')
  if (encoded === '') return ''
  return encoded.replace(/.{1,60}/g, '$&\n')
}

function blobHeader(content: Buffer): string {
  return `blob ${String(content.length)}\0`
}

function sha1(...parts: readonly (string | Buffer)[]): string {
  const hash = createHash('sha1')
  for (const part of parts) hash.update(part)
  return hash.digest('hex')
}

/** `refs/heads/main` and `main` name the same branch. */
function refName(ref: string): string {
  return ref.replace(/^refs\/(heads|tags)\//, '')
}

function cleanPath(path: string): string {
  return path.replace(/^\/+|\/+$/g, '')
}

// ---------------------------------------------------------------------------------------------
// Pull requests

const DOCS_PULLS = 'https://docs.github.com/rest/pulls/pulls'
/** GitHub lists at most this many files of a pull request. */
const PULL_FILES_LIMIT = 3000

function getPullRequest(state: State, call: Call): Reply {
  const pr = state.pulls.get(Number(call.params.pull_number))
  if (pr === undefined) return errorReply(404, 'Not Found', `${DOCS_PULLS}#get-a-pull-request`)
  if (/\.(diff|patch)\b/.test(call.accept)) {
    // Honest about the gap rather than answering JSON to a client that asked for a diff.
    return errorReply(
      415,
      'GitHub stand-in: the diff and patch media types are not supported',
      DOCS
    )
  }
  return { status: 200, body: pr }
}

/**
 * https://docs.github.com/rest/pulls/pulls#list-pull-requests: `state` open (default), closed or
 * all; `base` a base branch's name; `head` as `user:ref-name` (a bare branch name is read as a
 * branch of the repository's owner); sorted by `created` (default, newest first) or `updated`
 * (oldest first), `direction` turning either round; 30 a page by default, at most 100.
 */
function listPullRequests(state: State, call: Call): Reply {
  const wanted = call.query.get('state') ?? 'open'
  const base = call.query.get('base')
  const headQuery = call.query.get('head')
  const head =
    headQuery === null || headQuery.includes(':') ? headQuery : `${state.owner}:${headQuery}`
  const sort = call.query.get('sort') ?? 'created'
  if (sort !== 'created' && sort !== 'updated') {
    return errorReply(501, `GitHub stand-in: sort=${sort} is not supported`, DOCS)
  }
  const direction = call.query.get('direction') ?? (sort === 'created' ? 'desc' : 'asc')
  const listed = [...state.pulls.entries()]
    .map(([number, pr]) => ({ number, pr: record(pr) ?? {} }))
    .filter(({ pr }) => wanted === 'all' || (str(pr.state) ?? 'open') === wanted)
    .filter(({ pr }) => base === null || str(record(pr.base)?.ref) === base)
    .filter(({ pr }) => head === null || sameName(headLabel(pr), head))
    .sort((a, b) => {
      const at = (pr: Json) => Date.parse(str(pr[`${sort}_at`]) ?? '') || 0
      return at(a.pr) - at(b.pr) || a.number - b.number
    })
  if (direction === 'desc') listed.reverse()
  return paginated(state, call, listed, 100, ({ pr }) => pr)
}

/** `owner:branch` of a pull request's head: its `label`, else made from its user and ref. */
function headLabel(pr: Json): string {
  const head = record(pr.head)
  const label = str(head?.label)
  if (label !== undefined) return label
  return `${str(record(head?.user)?.login) ?? ''}:${str(head?.ref) ?? ''}`
}

function listPullRequestFiles(state: State, call: Call): Reply {
  const number = Number(call.params.pull_number)
  const files = state.pullFiles.get(number)
  if (files === undefined) {
    if (!state.pulls.has(number)) return errorReply(404, 'Not Found', DOCS_PULLS)
    return paginated(state, call, [], 100, file => file)
  }
  return paginated(state, call, files.slice(0, PULL_FILES_LIMIT), 100, file => file)
}

// ---------------------------------------------------------------------------------------------
// Workflow dispatch

const DOCS_DISPATCH =
  'https://docs.github.com/rest/actions/workflows#create-a-workflow-dispatch-event'

/**
 * GitHub's answers to `POST …/actions/workflows/{workflow_id}/dispatches`, checked in this order:
 * - a workflow it does not know (by numeric id or file name): 404 Not Found;
 * - a workflow with no `workflow_dispatch` trigger: 422 "Workflow does not have
 *   'workflow_dispatch' trigger";
 * - a `ref` that names no branch: 422 "No ref found for: <ref as sent>";
 * - inputs the workflow does not declare: 422 "Unexpected inputs provided: [\"a\", \"b\"]";
 * - a required input left out (and with no default): 422 "Required input '<name>' not provided";
 * - more than 25 inputs: refused by the description's `maxProperties` before it gets here.
 * The messages are GitHub's as its users quote them (e.g.
 * https://github.com/peter-evans/slash-command-dispatch/pull/115,
 * https://github.com/backstage/backstage/issues/20023, https://github.com/convictional/trigger-workflow-and-wait/pull/4);
 * which one GitHub gives first when a request breaks several rules is not documented.
 * Accepted: 204 and no body, or 200 with the run's ids when `return_run_details` is true.
 */
function dispatchWorkflow(state: State, call: Call): Reply {
  const id = call.params.workflow_id ?? ''
  const workflow = [...state.workflows.values()].find(w =>
    /^\d+$/.test(id) ? w.id === Number(id) : w.file === id
  )
  if (workflow === undefined) return errorReply(404, 'Not Found', DOCS_DISPATCH)
  const declared = workflow.dispatch?.inputs
  if (declared === undefined) {
    return errorReply(422, "Workflow does not have 'workflow_dispatch' trigger", DOCS_DISPATCH)
  }
  const body = record(call.body) ?? {}
  const ref = str(body.ref) ?? ''
  const branch = branchOf(ref)
  const tip = branch === undefined ? undefined : state.branches.get(branch)
  if (tip === undefined) return errorReply(422, `No ref found for: ${ref}`, DOCS_DISPATCH)
  const inputs = record(body.inputs) ?? {}
  const unexpected = Object.keys(inputs).filter(name => !Object.hasOwn(declared, name))
  if (unexpected.length > 0) {
    const names = unexpected.map(name => JSON.stringify(name)).join(', ')
    return errorReply(422, `Unexpected inputs provided: [${names}]`, DOCS_DISPATCH)
  }
  const missing = Object.entries(declared).find(
    ([name, input]) =>
      input.required === true && input.default === undefined && !Object.hasOwn(inputs, name)
  )
  if (missing !== undefined) {
    return errorReply(422, `Required input '${missing[0]}' not provided`, DOCS_DISPATCH)
  }
  state.dispatches.push({ workflow: workflow.file, ref, inputs: { ...inputs } })
  // The run GitHub starts for it: on the branch, at its tip, whatever the inputs name.
  const runId = state.nextId.run++
  const run: WorkflowRunSpec = {
    id: runId,
    head_sha: tip,
    event: 'workflow_dispatch',
    status: 'queued',
    head_branch: branch ?? ref,
    workflow: workflow.file,
    ref: `refs/heads/${branch ?? ref}`,
    created_at: timestamp()
  }
  state.runs.set(runId, run)
  state.runStarts.push(runStart(run, 'dispatch'))
  if (body.return_run_details !== true) return { status: 204 }
  return {
    status: 200,
    body: {
      workflow_run_id: runId,
      run_url: `${state.origin}/repos/${state.owner}/${state.repo}/actions/runs/${String(runId)}`,
      html_url: `https://github.com/${state.owner}/${state.repo}/actions/runs/${String(runId)}`
    }
  }
}

/** The branch a dispatch's `ref` names (`main` or `refs/heads/main`); undefined for a tag or other. */
function branchOf(ref: string): string | undefined {
  if (ref.startsWith('refs/heads/')) return ref.slice('refs/heads/'.length)
  return ref.startsWith('refs/') || ref === '' ? undefined : ref
}

// ---------------------------------------------------------------------------------------------
// Collaborators

const DOCS_PERMISSION =
  'https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user'

/**
 * "The `permission` attribute provides the legacy base roles of `admin`, `write`, `read`, and
 * `none`, where the `maintain` role is mapped to `write` and the `triage` role is mapped to
 * `read`" (DOCS_PERMISSION). `role_name` is the role itself.
 */
const BASE_PERMISSION: Readonly<Record<CollaboratorRole, 'admin' | 'write' | 'read'>> = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read'
}
const ROLE_ORDER: readonly CollaboratorRole[] = ['read', 'triage', 'write', 'maintain', 'admin']

/**
 * A collaborator's role and base permission. A GitHub user who is no collaborator still gets a 200:
 * on a public repository with `read` (anyone may read it; the endpoint answers every user with
 * `read` there, see https://github.com/aws-ia/cloudformation-github-resource-providers/pull/14), on a
 * private one with `none`. A login GitHub does not know: 404. The stand-in knows the logins it has
 * seen: the owner, tokens' users, comment authors, `setPermission`.
 */
function getCollaboratorPermission(state: State, call: Call): Reply {
  const login = call.params.username ?? ''
  const key = login.toLowerCase()
  if (!state.userIds.has(key)) return errorReply(404, 'Not Found', DOCS_PERMISSION)
  const set = state.roles.get(key)
  const role: CollaboratorRole | 'none' = set ?? (sameName(login, state.owner) ? 'admin' : 'none')
  const effective: CollaboratorRole | 'none' = role === 'none' && !state.private ? 'read' : role
  const permission = effective === 'none' ? 'none' : BASE_PERMISSION[effective]
  const rank = effective === 'none' ? -1 : ROLE_ORDER.indexOf(effective)
  const bot = login.endsWith('[bot]')
  return {
    status: 200,
    body: {
      permission,
      role_name: effective,
      user: {
        ...userJson(state, { login, type: bot ? 'Bot' : 'User' }),
        permissions: {
          admin: rank >= 4,
          maintain: rank >= 3,
          push: rank >= 2,
          triage: rank >= 1,
          pull: rank >= 0
        },
        role_name: effective
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Workflow runs, jobs and artifacts

const DOCS_RUNS = 'https://docs.github.com/rest/actions/workflow-runs#get-a-workflow-run'
const DOCS_JOBS = 'https://docs.github.com/rest/actions/workflow-jobs'
const DOCS_ARTIFACTS = 'https://docs.github.com/rest/actions/artifacts'
/** GitHub's signed download URLs expire after a minute. */
const BLOB_LIFETIME_MS = 60_000

const DOCS_LIST_RUNS =
  'https://docs.github.com/rest/actions/workflow-runs#list-workflow-runs-for-a-workflow'
const DOCS_RERUN = 'https://docs.github.com/rest/actions/workflow-runs#re-run-a-workflow'
/** The workflow of a run set up without one (and its id, as GitHub's example run has it). */
const DEFAULT_WORKFLOW = { id: 161_335, file: 'ci.yml' } as const
/**
 * "You can re-run a workflow run … up to 30 days after its initial run", and "a workflow run can
 * be re-run a maximum of 50 times"
 * (https://docs.github.com/actions/how-tos/manage-workflow-runs/re-run-workflows-and-jobs).
 */
const RERUN_DAYS = 30
const MAX_RERUNS = 50

function workflowOfRun(state: State, run: WorkflowRunSpec): { id: number; file: string } {
  const file = run.workflow ?? DEFAULT_WORKFLOW.file
  return state.workflows.get(file) ?? DEFAULT_WORKFLOW
}

/** The ref the run's jobs see (GITHUB_REF), as `WorkflowRunSpec.ref` describes the default. */
function refOfRun(run: WorkflowRunSpec): string {
  if (run.ref !== undefined) return run.ref
  const event = run.event ?? 'pull_request'
  const pr = run.pull_requests?.[0]
  return (event === 'pull_request' || event === 'pull_request_target') && pr !== undefined
    ? `refs/pull/${String(pr)}/merge`
    : `refs/heads/${run.head_branch ?? 'feature'}`
}

function createdOfRun(state: State, run: WorkflowRunSpec): string {
  return run.created_at ?? timestampOf(state.epoch)
}

function runStart(run: WorkflowRunSpec, how: RunStart['how']): RunStart {
  return {
    runId: run.id,
    attempt: run.run_attempt ?? 1,
    workflow: run.workflow ?? DEFAULT_WORKFLOW.file,
    how,
    event: run.event ?? 'pull_request',
    head_sha: run.head_sha,
    ref: refOfRun(run)
  }
}

/**
 * A workflow's runs, newest first, by its numeric id or file name (404 for one GitHub does not
 * know), filtered as the query says: `event`, `head_sha`, `branch` (the head branch), `status`
 * (a status or a conclusion); `exclude_pull_requests` empties each run's `pull_requests`.
 */
function listWorkflowRuns(state: State, call: Call): Reply {
  const id = call.params.workflow_id ?? ''
  const workflow = [...state.workflows.values(), DEFAULT_WORKFLOW].find(w =>
    /^\d+$/.test(id) ? w.id === Number(id) : w.file === id
  )
  if (workflow === undefined) return errorReply(404, 'Not Found', DOCS_LIST_RUNS)
  const query = call.query
  const wanted = (name: string, value: string | null | undefined): boolean => {
    const asked = query.get(name)
    return asked === null || asked === value
  }
  const runs = [...state.runs.values()]
    .filter(run => (run.workflow ?? DEFAULT_WORKFLOW.file) === workflow.file)
    .filter(
      run =>
        wanted('event', run.event ?? 'pull_request') &&
        wanted('head_sha', run.head_sha) &&
        wanted('branch', run.head_branch ?? 'feature') &&
        (wanted('status', run.status ?? 'completed') ||
          wanted('status', conclusionOf(run.status ?? 'completed', run.conclusion)))
    )
    .sort(
      (a, b) =>
        Date.parse(createdOfRun(state, b)) - Date.parse(createdOfRun(state, a)) || b.id - a.id
    )
  const exclude = query.get('exclude_pull_requests') === 'true'
  return paginated(
    state,
    call,
    runs,
    100,
    run => workflowRunJson(state, exclude ? { ...run, pull_requests: [] } : run),
    'workflow_runs'
  )
}

/**
 * `POST …/actions/runs/{run_id}/rerun`: every job of the run again, as its next attempt, with the
 * run's own event, commit and ref ("The workflow will also use the same GITHUB_SHA … and
 * GITHUB_REF … of the original event", the re-run docs above). GitHub refuses, in this order:
 * - a run it does not know: 404 Not Found;
 * - a run not yet completed: 403 "This workflow is already running" (quoted in
 *   https://github.com/metabase/metabase/pull/70916; https://github.com/cli/cli/issues/9221 shows
 *   the 403 for a run still in progress);
 * - a run first created more than 30 days ago: 403 "Unable to retry this workflow run because it
 *   was created over a month ago" (https://github.com/cli/cli/issues/9989);
 * - a run re-run 50 times already: 403 "This workflow run cannot be retried" (the message
 *   metabase/metabase#70916 quotes for runs GitHub will not retry).
 * Accepted: 201 and an empty object.
 */
function rerunWorkflowRun(state: State, call: Call): Reply {
  const run = state.runs.get(Number(call.params.run_id))
  if (run === undefined) return errorReply(404, 'Not Found', DOCS_RERUN)
  if ((run.status ?? 'completed') !== 'completed') {
    return errorReply(403, 'This workflow is already running', DOCS_RERUN)
  }
  if (Date.now() - Date.parse(createdOfRun(state, run)) > RERUN_DAYS * 86_400_000) {
    return errorReply(
      403,
      'Unable to retry this workflow run because it was created over a month ago',
      DOCS_RERUN
    )
  }
  const attempt = run.run_attempt ?? 1
  if (attempt > MAX_RERUNS) {
    return errorReply(403, 'This workflow run cannot be retried', DOCS_RERUN)
  }
  const again: WorkflowRunSpec = {
    ...run,
    run_attempt: attempt + 1,
    status: 'queued',
    conclusion: null,
    created_at: createdOfRun(state, run),
    ref: refOfRun(run)
  }
  state.runs.set(run.id, again)
  state.runStarts.push(runStart(again, 'rerun'))
  return { status: 201, body: {} }
}

function getWorkflowRun(state: State, call: Call): Reply {
  const run = state.runs.get(Number(call.params.run_id))
  if (run === undefined) return errorReply(404, 'Not Found', DOCS_RUNS)
  return { status: 200, body: workflowRunJson(state, run) }
}

function listRunJobs(state: State, call: Call): Reply {
  const runId = Number(call.params.run_id)
  const attempts = state.jobs.get(runId)
  if (attempts === undefined && !state.runs.has(runId)) {
    return errorReply(404, 'Not Found', `${DOCS_JOBS}#list-jobs-for-a-workflow-run`)
  }
  const numbers = [...(attempts?.keys() ?? [])].sort((a, b) => a - b)
  // `latest` (the default): the highest attempt's jobs; `all`: every attempt's, oldest first.
  const chosen = call.query.get('filter') === 'all' ? numbers : numbers.slice(-1)
  const jobs = chosen.flatMap(n => attempts?.get(n) ?? [])
  return paginated(state, call, jobs, 100, job => jobJson(state, runId, job), 'jobs')
}

function listAttemptJobs(state: State, call: Call): Reply {
  const runId = Number(call.params.run_id)
  const jobs = state.jobs.get(runId)?.get(Number(call.params.attempt_number))
  if (jobs === undefined) {
    return errorReply(404, 'Not Found', `${DOCS_JOBS}#list-jobs-for-a-workflow-run-attempt`)
  }
  return paginated(state, call, jobs, 100, job => jobJson(state, runId, job), 'jobs')
}

function listRunArtifacts(state: State, call: Call): Reply {
  const runId = Number(call.params.run_id)
  const name = call.query.get('name')
  const ascending = call.query.get('direction') === 'asc'
  const listed = state.artifacts
    .filter(a => a.runId === runId && (name === null || a.name === name))
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id - b.id)
  if (!ascending) listed.reverse()
  return paginated(state, call, listed, 100, a => artifactJson(state, a), 'artifacts')
}

function getArtifact(state: State, call: Call): Reply {
  const artifact = state.artifacts.find(a => a.id === Number(call.params.artifact_id))
  if (artifact === undefined) return errorReply(404, 'Not Found', DOCS_ARTIFACTS)
  return { status: 200, body: artifactJson(state, artifact) }
}

/**
 * GitHub's answer: 302 to a signed URL on its blob storage, valid for a minute, or 410 once the
 * artifact has expired. Only `zip` is a format ("The :archive_format must be zip").
 */
function downloadArtifact(state: State, call: Call): Reply {
  const artifact = state.artifacts.find(a => a.id === Number(call.params.artifact_id))
  if (artifact === undefined || call.params.archive_format !== 'zip') {
    return errorReply(404, 'Not Found', `${DOCS_ARTIFACTS}#download-an-artifact`)
  }
  if (artifact.expired) {
    return errorReply(410, 'Artifact has expired', `${DOCS_ARTIFACTS}#download-an-artifact`)
  }
  const signature = randomBytes(16).toString('hex')
  state.blobs.set(signature, { artifactId: artifact.id, until: Date.now() + BLOB_LIFETIME_MS })
  const query = new URLSearchParams({
    se: timestampOf(Date.now() + BLOB_LIFETIME_MS),
    sp: 'r',
    sig: signature
  })
  const location = `${state.origin}${BLOB_PATH}actions-results/${String(artifact.id)}/${encodeURIComponent(artifact.name)}.zip?${query.toString()}`
  return { status: 302, headers: { location } }
}

/** The signed URL's bytes; any other is refused, as blob storage refuses a bad signature. */
function serveBlob(state: State, url: URL): Reply {
  const grant = state.blobs.get(url.searchParams.get('sig') ?? '')
  const artifact =
    grant === undefined || grant.until < Date.now()
      ? undefined
      : state.artifacts.find(a => a.id === grant.artifactId)
  if (artifact === undefined || !url.pathname.includes(`/${String(artifact.id)}/`)) {
    return {
      status: 403,
      headers: { 'content-type': 'application/xml' },
      raw: '<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code><Message>Server failed to authenticate the request.</Message></Error>'
    }
  }
  return {
    status: 200,
    headers: {
      'content-type': 'application/zip',
      ...(artifact.chunked ? {} : { 'content-length': String(artifact.zip.length) })
    },
    raw: artifact.zip
  }
}

// ---------------------------------------------------------------------------------------------
// The results service: artifact uploads as @actions/artifact makes them

/**
 * The results service's Twirp API (`ACTIONS_RESULTS_URL`), which `@actions/artifact` (and
 * actions/upload-artifact@v4+) uploads through: `CreateArtifact` answers a signed URL on blob
 * storage, the client uploads the zip there (Azure's Put Block and Put Block List), then
 * `FinalizeArtifact` with its size and sha256 makes it an artifact of the run. What the client
 * sends: node_modules/@actions/artifact/lib/internal/upload/upload-artifact.js.
 *
 * Twirp's error body is `{ code, msg }` with the HTTP status its spec gives each code
 * (github.com/twitchtv/twirp/blob/main/docs/spec_v7.md, "Error Codes"); the client shows
 * `Failed request: (<status>) <status text>: <msg>`. Statuses 429 and 5xx are avoided: the client
 * retries them, five times, seconds apart.
 */
export const TWIRP_PATH = '/twirp/github.actions.results.api.v1.ArtifactService/'

interface PendingArtifact {
  readonly runId: number
  readonly name: string
  /** Put Block's blocks, by block id, until Put Block List commits them. */
  readonly blocks: Map<string, Buffer>
  /** The blob as Put Block List committed it; undefined until then. */
  committed?: Buffer
}

/** GitHub's signed upload URLs are valid for a while; a finished upload does not outlive it. */
const UPLOAD_LIFETIME_MS = 10 * 60_000

function storeArtifact(
  state: State,
  runId: number,
  name: string,
  zip: Buffer,
  options: ArtifactOptions = {}
): StoredArtifact {
  state.clock += 1000
  const artifact: StoredArtifact = {
    id: state.nextId.artifact++,
    runId,
    name,
    zip,
    expired: options.expired === true,
    createdAt: options.createdAt ?? timestampOf(state.clock),
    chunked: options.chunked === true
  }
  state.artifacts.push(artifact)
  return artifact
}

/** A backend id, shaped as the service's (a UUID), stable for what it names. */
function backendId(seed: string): string {
  const hex = sha1(seed)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

function runtimeFor(state: State, runId: number, job: string): RuntimeEnv {
  const jobBackendId = backendId(`job ${String(runId)} ${job} ${randomBytes(4).toString('hex')}`)
  state.runtimeJobs.set(jobBackendId, { runId, job })
  const now = Math.floor(Date.now() / 1000)
  const header = Buffer.from(JSON.stringify({ typ: 'JWT', alg: 'HS256' })).toString('base64url')
  const payload = Buffer.from(
    JSON.stringify({
      // The shape the client reads (lib/internal/shared/util.js, getBackendIdsFromToken).
      scp: `Actions.GenericRead:${backendId(`run ${String(runId)}`)} Actions.Results:${backendId(`run ${String(runId)}`)}:${jobBackendId}`,
      iat: now,
      exp: now + 6 * 3600
    })
  ).toString('base64url')
  const signature = createHmac('sha256', state.runtimeKey)
    .update(`${header}.${payload}`)
    .digest('base64url')
  return {
    ACTIONS_RUNTIME_TOKEN: `${header}.${payload}.${signature}`,
    ACTIONS_RESULTS_URL: `${state.origin}/`
  }
}

/** The run and job a runtime token was given to; undefined when the stand-in did not sign it. */
function runtimeScope(
  state: State,
  token: string | undefined
):
  | { readonly runBackendId: string; readonly jobBackendId: string; readonly runId: number }
  | undefined {
  const [header, payload, signature] = (token ?? '').split('.')
  if (header === undefined || payload === undefined || signature === undefined) return undefined
  const expected = createHmac('sha256', state.runtimeKey)
    .update(`${header}.${payload}`)
    .digest('base64url')
  if (signature !== expected) return undefined
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
    scp?: string
    exp?: number
  }
  if ((claims.exp ?? 0) * 1000 < Date.now()) return undefined
  const scope = (claims.scp ?? '').split(' ').find(s => s.startsWith('Actions.Results:'))
  const [, runBackendId = '', jobBackendId = ''] = (scope ?? '').split(':')
  const job = state.runtimeJobs.get(jobBackendId)
  if (job === undefined) return undefined
  return { runBackendId, jobBackendId, runId: job.runId }
}

function twirpError(status: number, code: string, msg: string): Reply {
  return { status, body: { code, msg } }
}

function resultsService(
  state: State,
  method: string,
  url: URL,
  contentType: string,
  token: string | undefined,
  parsed: { readonly value: unknown; readonly json: boolean }
): Reply {
  const rpc = url.pathname.slice(TWIRP_PATH.length)
  // Twirp: only POST routes to a method; anything else is `bad_route` (404).
  if (method !== 'POST' || (rpc !== 'CreateArtifact' && rpc !== 'FinalizeArtifact')) {
    return twirpError(404, 'bad_route', `no handler for path "${url.pathname}"`)
  }
  // Twirp's JSON requests are `application/json`; other types are `bad_route` too.
  if (!contentType.startsWith('application/json')) {
    return twirpError(404, 'bad_route', `unexpected Content-Type: "${contentType}"`)
  }
  // The service trusts only the runtime token it signed for a job, and only for that job's run.
  const scope = runtimeScope(state, token)
  if (scope === undefined) return twirpError(401, 'unauthenticated', 'invalid token')
  // protojson: a body that is not the request message is `malformed` (400).
  if (!parsed.json || !isRecord(parsed.value)) {
    return twirpError(400, 'malformed', 'the json request could not be decoded')
  }
  const body = parsed.value
  // The ids the client sends come from the token's scope (getBackendIdsFromToken): a request for
  // another run or job than the token's is refused.
  if (
    body.workflow_run_backend_id !== scope.runBackendId ||
    body.workflow_job_run_backend_id !== scope.jobBackendId
  ) {
    return twirpError(403, 'permission_denied', 'the token does not grant this workflow run or job')
  }
  const name = typeof body.name === 'string' ? body.name : ''
  if (name === '') return twirpError(400, 'invalid_argument', 'name is required')
  const key = `${String(scope.runId)}/${name}`
  return rpc === 'CreateArtifact'
    ? createArtifact(state, scope.runId, name, key)
    : finalizeArtifact(state, body, key)
}

function createArtifact(state: State, runId: number, name: string, key: string): Reply {
  // Names are unique in a run, and a created artifact holds its name even before it is finalized:
  // GitHub's message (actions/upload-artifact#634, and every v4 user who reused a name).
  const taken =
    state.pending.has(key) || state.artifacts.some(a => a.runId === runId && a.name === name)
  if (taken) {
    return twirpError(
      409,
      'already_exists',
      'an artifact with this name already exists on the workflow run'
    )
  }
  state.pending.set(key, { runId, name, blocks: new Map() })
  const signature = randomBytes(16).toString('hex')
  state.uploads.set(signature, { key, until: Date.now() + UPLOAD_LIFETIME_MS })
  const query = new URLSearchParams({
    sv: '2023-11-03',
    se: timestampOf(Date.now() + UPLOAD_LIFETIME_MS),
    sr: 'b',
    sp: 'cw',
    sig: signature
  })
  const blob = `${state.origin}${BLOB_PATH}actions-results/${randomBytes(8).toString('hex')}/${encodeURIComponent(name)}.zip?${query.toString()}`
  return { status: 200, body: { ok: true, signed_upload_url: blob } }
}

function finalizeArtifact(
  state: State,
  body: Readonly<Record<string, unknown>>,
  key: string
): Reply {
  const pending = state.pending.get(key)
  if (pending?.committed === undefined) {
    // Finalizing an artifact that was never created, or whose upload never finished.
    return twirpError(404, 'not_found', 'artifact not found or its upload is not complete')
  }
  // protojson writes an int64 as a string.
  const size = typeof body.size === 'string' ? body.size : JSON.stringify(body.size)
  if (size !== String(pending.committed.length)) {
    return twirpError(
      400,
      'invalid_argument',
      `size ${size} does not match the uploaded blob's ${String(pending.committed.length)} bytes`
    )
  }
  const hash = `sha256:${createHash('sha256').update(pending.committed).digest('hex')}`
  if (body.hash !== undefined && body.hash !== hash) {
    return twirpError(
      400,
      'invalid_argument',
      `hash ${JSON.stringify(body.hash)} does not match the uploaded blob`
    )
  }
  state.pending.delete(key)
  const artifact = storeArtifact(state, pending.runId, pending.name, pending.committed)
  return { status: 200, body: { ok: true, artifact_id: String(artifact.id) } }
}

/** Azure's error body for blob storage. */
function azureError(status: number, code: string, message: string): Reply {
  return {
    status,
    headers: { 'content-type': 'application/xml', 'x-ms-error-code': code },
    raw: `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`
  }
}

/**
 * Azure blob storage's Put Block (`?comp=block&blockid=`) and Put Block List (`?comp=blocklist`)
 * on a signed upload URL: what `BlockBlobClient.uploadStream` sends. A bad or expired signature is
 * refused (403 AuthenticationFailed); a block list that names a block never put is 400
 * InvalidBlockList (learn.microsoft.com/rest/api/storageservices/put-block-list).
 */
function uploadBlob(state: State, url: URL, bytes: Buffer): Reply {
  const grant = state.uploads.get(url.searchParams.get('sig') ?? '')
  const pending =
    grant === undefined || grant.until < Date.now() ? undefined : state.pending.get(grant.key)
  if (pending === undefined) {
    return azureError(403, 'AuthenticationFailed', 'Server failed to authenticate the request.')
  }
  const created = {
    status: 201,
    headers: {
      etag: `"0x${randomBytes(8).toString('hex').toUpperCase()}"`,
      'last-modified': new Date().toUTCString(),
      'x-ms-request-id': randomBytes(16).toString('hex'),
      'x-ms-request-server-encrypted': 'true'
    }
  }
  const comp = url.searchParams.get('comp')
  if (comp === 'block') {
    const id = url.searchParams.get('blockid') ?? ''
    if (id === '') return azureError(400, 'InvalidQueryParameterValue', 'blockid is required.')
    pending.blocks.set(id, bytes)
    return created
  }
  if (comp === 'blocklist') {
    const ids = [
      ...bytes.toString('utf8').matchAll(/<(Latest|Uncommitted|Committed)>([^<]*)<\/\1>/g)
    ].map(m => m[2] ?? '')
    const parts = ids.map(id => pending.blocks.get(id))
    if (parts.some(p => p === undefined)) {
      return azureError(400, 'InvalidBlockList', 'The specified block list is invalid.')
    }
    pending.committed = Buffer.concat(parts.filter(p => p !== undefined))
    pending.blocks.clear()
    return created
  }
  return azureError(
    400,
    'InvalidQueryParameterValue',
    `comp=${comp ?? ''} is not played by the stand-in.`
  )
}

/** Blob storage's answer: its own headers, none of the API's; chunked when no length is given. */
function sendBlob(res: ServerResponse, method: string, reply: Reply): void {
  if (res.destroyed || res.writableEnded) return
  const body = reply.raw ?? (reply.body === undefined ? '' : JSON.stringify(reply.body))
  res.writeHead(reply.status, { 'x-ms-version': '2023-11-03', ...reply.headers })
  if (method === 'HEAD') {
    res.end()
    return
  }
  // Without Content-Length Node sends the body chunked: written in pieces, so it is.
  const bytes = Buffer.from(body)
  const piece = 64 * 1024
  for (let at = 0; at < bytes.length; at += piece) res.write(bytes.subarray(at, at + piece))
  res.end()
}

function workflowRunJson(state: State, run: WorkflowRunSpec): Json {
  const api = `${state.origin}/repos/${state.owner}/${state.repo}`
  const id = String(run.id)
  const url = `${api}/actions/runs/${id}`
  const status = run.status ?? 'completed'
  const attempt = run.run_attempt ?? 1
  const workflow = workflowOfRun(state, run)
  const workflowId = workflow.id
  const created = createdOfRun(state, run)
  const full = `${state.owner}/${state.repo}`
  const headRepository = run.head_repository ?? full
  const sha = run.head_sha
  return {
    id: run.id,
    name: run.name ?? 'CI',
    node_id: `WFR_kwLO${idTag(run.id)}`,
    head_branch: run.head_branch ?? 'feature',
    head_sha: sha,
    path: `.github/workflows/${workflow.file}`,
    display_title: 'A pull request',
    run_number: 562,
    event: run.event ?? 'pull_request',
    status,
    conclusion: conclusionOf(status, run.conclusion),
    workflow_id: workflowId,
    check_suite_id: parseInt(sha1(`suite ${sha}`).slice(0, 10), 16),
    check_suite_node_id: `CS_kwDO${idTag(run.id)}`,
    url,
    html_url: `https://github.com/${full}/actions/runs/${id}`,
    pull_requests: (run.pull_requests ?? []).map(number => ({
      id: 1_000_000 + number,
      number,
      url: `${api}/pulls/${String(number)}`,
      head: {
        ref: run.head_branch ?? 'feature',
        sha,
        repo: {
          id: repositoryIdOf(state, headRepository),
          url: repoApi(state, headRepository),
          name: nameOf(headRepository)
        }
      },
      base: {
        ref: state.defaultBranch,
        sha: sha1(`base ${sha}`),
        repo: { id: state.repositoryId, url: api, name: state.repo }
      }
    })),
    created_at: created,
    updated_at: created,
    actor: userJson(state, { login: 'octocat', type: 'User' }),
    triggering_actor: userJson(state, { login: 'octocat', type: 'User' }),
    run_attempt: attempt,
    referenced_workflows: [],
    run_started_at: created,
    jobs_url: `${url}/jobs`,
    logs_url: `${url}/logs`,
    check_suite_url: `${api}/check-suites/${String(parseInt(sha1(`suite ${sha}`).slice(0, 10), 16))}`,
    artifacts_url: `${url}/artifacts`,
    cancel_url: `${url}/cancel`,
    rerun_url: `${url}/rerun`,
    previous_attempt_url: attempt > 1 ? `${url}/attempts/${String(attempt - 1)}` : null,
    workflow_url: `${api}/actions/workflows/${String(workflowId)}`,
    head_commit: {
      id: sha,
      tree_id: sha1(`tree ${sha}`),
      message: 'A change',
      timestamp: created,
      author: { name: 'Octo Cat', email: 'octocat@example.com' },
      committer: { name: 'GitHub', email: 'noreply@github.com' }
    },
    repository: minimalRepositoryJson(state, full),
    head_repository: minimalRepositoryJson(state, headRepository),
    head_repository_id: repositoryIdOf(state, headRepository)
  }
}

/** A run's or job's conclusion: as given, else success once completed and null before. */
function conclusionOf(status: string, given: string | null | undefined): string | null {
  return given !== undefined ? given : status === 'completed' ? 'success' : null
}

/** The stand-in's own repository by its id; any other (a fork) by a number made from its name. */
function repositoryIdOf(state: State, fullName: string): number {
  return sameName(fullName, `${state.owner}/${state.repo}`)
    ? state.repositoryId
    : 800_000_000 + (parseInt(sha1(fullName.toLowerCase()).slice(0, 6), 16) % 100_000_000)
}

function nameOf(fullName: string): string {
  return fullName.slice(fullName.indexOf('/') + 1)
}

function repoApi(state: State, fullName: string): string {
  return `${state.origin}/repos/${fullName}`
}

/** GitHub's "Minimal Repository", as workflow runs carry their repositories. */
function minimalRepositoryJson(state: State, fullName: string): Json {
  const api = repoApi(state, fullName)
  const owner = fullName.slice(0, fullName.indexOf('/'))
  const id = repositoryIdOf(state, fullName)
  const fork = id !== state.repositoryId
  return {
    id,
    node_id: `R_kgDO${idTag(id)}`,
    name: nameOf(fullName),
    full_name: fullName,
    private: false,
    owner: userJson(state, { login: owner, type: 'User' }),
    html_url: `https://github.com/${fullName}`,
    description: null,
    fork,
    url: api,
    forks_url: `${api}/forks`,
    keys_url: `${api}/keys{/key_id}`,
    collaborators_url: `${api}/collaborators{/collaborator}`,
    teams_url: `${api}/teams`,
    hooks_url: `${api}/hooks`,
    issue_events_url: `${api}/issues/events{/number}`,
    events_url: `${api}/events`,
    assignees_url: `${api}/assignees{/user}`,
    branches_url: `${api}/branches{/branch}`,
    tags_url: `${api}/tags`,
    blobs_url: `${api}/git/blobs{/sha}`,
    git_tags_url: `${api}/git/tags{/sha}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    trees_url: `${api}/git/trees{/sha}`,
    statuses_url: `${api}/statuses/{sha}`,
    languages_url: `${api}/languages`,
    stargazers_url: `${api}/stargazers`,
    contributors_url: `${api}/contributors`,
    subscribers_url: `${api}/subscribers`,
    subscription_url: `${api}/subscription`,
    commits_url: `${api}/commits{/sha}`,
    git_commits_url: `${api}/git/commits{/sha}`,
    comments_url: `${api}/comments{/number}`,
    issue_comment_url: `${api}/issues/comments{/number}`,
    contents_url: `${api}/contents/{+path}`,
    compare_url: `${api}/compare/{base}...{head}`,
    merges_url: `${api}/merges`,
    archive_url: `${api}/{archive_format}{/ref}`,
    downloads_url: `${api}/downloads`,
    issues_url: `${api}/issues{/number}`,
    pulls_url: `${api}/pulls{/number}`,
    milestones_url: `${api}/milestones{/number}`,
    notifications_url: `${api}/notifications{?since,all,participating}`,
    labels_url: `${api}/labels{/name}`,
    releases_url: `${api}/releases{/id}`,
    deployments_url: `${api}/deployments`
  }
}

function jobJson(state: State, runId: number, job: StoredJob): Json {
  const api = `${state.origin}/repos/${state.owner}/${state.repo}`
  const run = state.runs.get(runId)
  const sha = run?.head_sha ?? sha1(`run ${String(runId)}`)
  const started = timestampOf(state.epoch + 10_000)
  const completed = job.status === 'completed'
  return {
    id: job.id,
    run_id: runId,
    workflow_name: run?.name ?? 'CI',
    head_branch: run?.head_branch ?? 'feature',
    run_url: `${api}/actions/runs/${String(runId)}`,
    run_attempt: job.attempt,
    node_id: `CR_kwDO${idTag(job.id)}`,
    head_sha: sha,
    url: `${api}/actions/jobs/${String(job.id)}`,
    html_url: `https://github.com/${state.owner}/${state.repo}/actions/runs/${String(runId)}/job/${String(job.id)}`,
    status: job.status,
    conclusion: job.conclusion,
    created_at: started,
    started_at: started,
    completed_at: completed ? timestampOf(state.epoch + 50_000) : null,
    name: job.name,
    steps: [],
    // A job is a check run on the head commit: the same id.
    check_run_url: `${api}/check-runs/${String(job.id)}`,
    labels: ['ubuntu-latest'],
    runner_id: completed ? 1 : null,
    runner_name: completed ? 'GitHub Actions 1' : null,
    runner_group_id: completed ? 2 : null,
    runner_group_name: completed ? 'GitHub Actions' : null
  }
}

function artifactJson(state: State, artifact: StoredArtifact): Json {
  const api = `${state.origin}/repos/${state.owner}/${state.repo}`
  const url = `${api}/actions/artifacts/${String(artifact.id)}`
  const run = state.runs.get(artifact.runId)
  const head = run?.head_repository ?? `${state.owner}/${state.repo}`
  const expires = Date.parse(artifact.createdAt) + (artifact.expired ? 1000 : 90 * 86_400_000)
  return {
    id: artifact.id,
    node_id: `MDg6QXJ0aWZhY3Q${idTag(artifact.id)}`,
    name: artifact.name,
    size_in_bytes: artifact.zip.length,
    url,
    archive_download_url: `${url}/zip`,
    expired: artifact.expired,
    created_at: artifact.createdAt,
    updated_at: artifact.createdAt,
    expires_at: timestampOf(expires),
    digest: `sha256:${createHash('sha256').update(artifact.zip).digest('hex')}`,
    workflow_run: {
      id: artifact.runId,
      repository_id: state.repositoryId,
      head_repository_id: repositoryIdOf(state, head),
      head_branch: run?.head_branch ?? 'feature',
      head_sha: run?.head_sha ?? sha1(`run ${String(artifact.runId)}`)
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Pagination, as GitHub does it

/**
 * `per_page` (default 30, at most `max`) and `page` (from 1). The `Link` header lists prev, next,
 * last and first in GitHub's order, on GitHub's `/repositories/{id}/…` form of the path, keeping
 * the request's other query parameters.
 */
function paginated<T>(
  state: State,
  call: Call,
  items: readonly T[],
  max: number,
  json: (item: T) => unknown,
  /** The Actions API's lists are an object: `total_count` and the page under this key. */
  key?: string
): Reply {
  const perPage = Math.min(max, positive(call.query.get('per_page')) ?? 30)
  const page = positive(call.query.get('page')) ?? 1
  const last = Math.max(1, Math.ceil(items.length / perPage))
  const links: string[] = []
  const link = (target: number, rel: string): void => {
    const query = new URLSearchParams(call.query)
    query.set('page', String(target))
    links.push(`<${state.origin}${call.linkPath}?${query.toString()}>; rel="${rel}"`)
  }
  if (page > 1) link(Math.min(page - 1, last), 'prev')
  if (page < last) {
    link(page + 1, 'next')
    link(last, 'last')
  }
  if (page > 1) link(1, 'first')
  const listed = items.slice((page - 1) * perPage, page * perPage).map(json)
  return {
    status: 200,
    headers: links.length === 0 ? {} : { link: links.join(', ') },
    body: key === undefined ? listed : { total_count: items.length, [key]: listed }
  }
}

// ---------------------------------------------------------------------------------------------
// GitHub's OpenAPI description

const DOCS = 'https://docs.github.com/rest'
const DOCS_USER = 'https://docs.github.com/rest/users/users#get-the-authenticated-user'

interface Parameter {
  readonly name: string
  readonly in: 'path' | 'query'
  readonly required: boolean
  readonly schema: unknown
}

interface Operation {
  /** e.g. `checks/create` */
  readonly id: string
  /** Upper case. */
  readonly method: string
  readonly template: string
  readonly docs: string
  readonly parameters: readonly Parameter[]
  readonly requestBody: { readonly required: boolean; readonly schema: unknown } | undefined
  readonly responses: Json
}

/** A literal path segment, or one holding parameters (`{issue_number}`, `{base}...{head}`). */
type Segment =
  | { readonly literal: string }
  | {
      readonly pattern: RegExp
      readonly names: readonly string[]
      /** `x-multi-segment`: the value may contain slashes (`{path}`, `{ref}`, `{branch}`). */
      readonly multi: boolean
    }

interface Route {
  readonly template: string
  readonly segments: readonly Segment[]
  readonly operations: ReadonlyMap<string, Operation>
}

interface Description {
  readonly routes: readonly Route[]
}

interface Checked {
  /** Undefined when GitHub has no such operation: it answers 404. */
  readonly operation: Operation | undefined
  readonly params: Readonly<Record<string, string>>
  /** For `violations`. */
  readonly problems: readonly string[]
  /** GitHub's 422 text for a body or query the description rejects. */
  readonly rejection: string | undefined
}

// The description is 70 MB of JSON: parsed once per process, on the first stand-in's start.
let loaded: Promise<Description> | undefined

function loadDescription(): Promise<Description> {
  loaded ??= (async () => {
    const file = createRequire(import.meta.url).resolve(
      '@octokit/openapi/generated/api.github.com.deref.json'
    )
    return descriptionOf(JSON.parse(await readFile(file, 'utf8')) as unknown)
  })()
  return loaded
}

function descriptionOf(spec: unknown): Description {
  const paths = record(record(spec)?.paths) ?? {}
  const routes = Object.entries(paths).map(([template, item]): Route => {
    const operations = new Map<string, Operation>()
    const multi = new Set<string>()
    for (const [method, raw] of Object.entries(record(item) ?? {})) {
      const op = record(raw)
      if (op === undefined) continue
      const operation = operationOf(template, method.toUpperCase(), op)
      operations.set(operation.method, operation)
      for (const parameter of Array.isArray(op.parameters) ? op.parameters : []) {
        const p = record(parameter)
        if (p?.['x-multi-segment'] === true && typeof p.name === 'string') multi.add(p.name)
      }
    }
    return { template, segments: segmentsOf(template, multi), operations }
  })
  return { routes }
}

function operationOf(template: string, method: string, op: Json): Operation {
  const parameters = (Array.isArray(op.parameters) ? op.parameters : []).flatMap(
    (raw): Parameter[] => {
      const p = record(raw)
      if (typeof p?.name !== 'string' || (p.in !== 'path' && p.in !== 'query')) return []
      return [{ name: p.name, in: p.in, required: p.required === true, schema: p.schema }]
    }
  )
  const body = record(op.requestBody)
  const schema = record(record(body?.content)?.['application/json'])?.schema
  return {
    id: str(op.operationId) ?? `${method} ${template}`,
    method,
    template,
    docs: str(record(op.externalDocs)?.url) ?? DOCS,
    parameters,
    requestBody: schema === undefined ? undefined : { required: body?.required === true, schema },
    responses: record(op.responses) ?? {}
  }
}

function segmentsOf(template: string, multi: ReadonlySet<string>): Segment[] {
  return template
    .split('/')
    .slice(1)
    .map((part): Segment => {
      if (!part.includes('{')) return { literal: part }
      const names: string[] = []
      const source = part
        .split(/(\{[^}]+\})/)
        .map(piece => {
          const name = /^\{([^}]+)\}$/.exec(piece)?.[1]
          if (name === undefined) return piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
          names.push(name)
          return '(.+?)'
        })
        .join('')
      return { pattern: new RegExp(`^${source}$`), names, multi: names.some(n => multi.has(n)) }
    })
}

/** Literal segments beat parameters, and single-segment parameters beat multi-segment ones. */
function rankOf(route: Route): number[] {
  return route.segments.map(s => ('literal' in s ? 0 : s.multi ? 2 : 1))
}

function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0)
    if (diff !== 0) return diff
  }
  // Only a multi-segment parameter lets two lengths match one path: the longer route is the more
  // specific (`commits/{ref}/check-runs`, not a `{ref}` of "<sha>/check-runs").
  return b.length - a.length
}

function matchRoute(route: Route, parts: readonly string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {}
  const walk = (s: number, p: number): boolean => {
    const segment = route.segments[s]
    if (segment === undefined) return p === parts.length
    if ('literal' in segment) return parts[p] === segment.literal && walk(s + 1, p + 1)
    const most = segment.multi ? parts.length - p : 1
    for (let take = 1; take <= most && p + take <= parts.length; take++) {
      const match = segment.pattern.exec(parts.slice(p, p + take).join('/'))
      if (match === null) continue
      segment.names.forEach((name, i) => (params[name] = match[i + 1] ?? ''))
      if (walk(s + 1, p + take)) return true
    }
    return false
  }
  return walk(0, 0) ? params : undefined
}

function findOperation(
  description: Description,
  method: string,
  pathname: string
): { operation?: Operation; params: Record<string, string>; problems: string[] } {
  let parts: string[]
  try {
    parts = pathname.split('/').slice(1).map(decodeURIComponent)
  } catch {
    return { params: {}, problems: ['the path is not valid percent-encoding'] }
  }
  const matches = description.routes
    .map(route => ({ route, params: matchRoute(route, parts) }))
    .filter((m): m is { route: Route; params: Record<string, string> } => m.params !== undefined)
    .sort((a, b) => compareRanks(rankOf(a.route), rankOf(b.route)))
  // GitHub serves HEAD wherever it serves GET.
  const wanted = method === 'HEAD' ? 'GET' : method
  const hit = matches.find(m => m.route.operations.has(wanted))
  const operation = hit?.route.operations.get(wanted)
  if (hit === undefined || operation === undefined) {
    const best = matches[0]
    if (best === undefined) return { params: {}, problems: ['GitHub has no such route'] }
    const has = [...best.route.operations.keys()].join(', ')
    return {
      params: best.params,
      problems: [`GitHub has no ${wanted} operation on ${best.route.template} (only ${has})`]
    }
  }
  const problems: string[] = []
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'path') continue
    const value = hit.params[parameter.name] ?? ''
    const problem = schemaProblem(parameter.schema, coerce(parameter.schema, value), parameter.name)
    if (problem !== undefined) {
      problems.push(`path parameter ${problem} (got ${JSON.stringify(value)}) in ${operation.id}`)
    }
  }
  // A path GitHub would not route (e.g. a non-numeric issue number) is a 404 there.
  return problems.length === 0
    ? { operation, params: hit.params, problems }
    : { params: hit.params, problems }
}

function checkRequest(
  description: Description,
  method: string,
  pathname: string,
  url: URL,
  body: { readonly value: unknown; readonly json: boolean }
): Checked {
  const found = findOperation(description, method, pathname)
  const { operation } = found
  if (operation === undefined) {
    return { operation, params: found.params, problems: found.problems, rejection: undefined }
  }
  const problems: string[] = []
  const rejections: string[] = []
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'query') continue
    const values = url.searchParams.getAll(parameter.name)
    if (values.length === 0) {
      if (parameter.required) {
        problems.push(`${operation.id}: missing required query parameter ${parameter.name}`)
        rejections.push(`"${parameter.name}" wasn't supplied.`)
      }
      continue
    }
    const errors = schemaErrors(parameter.schema, coerce(parameter.schema, values.join(',')))
    if (errors.length > 0) {
      problems.push(`${operation.id}: query parameter ${describeErrors(errors, parameter.name)}`)
      rejections.push(...githubErrorLines(errors, parameter.name))
    }
  }
  const requestBody = operation.requestBody
  if (!body.json) {
    problems.push(`${operation.id}: the body is not JSON`)
  } else if (requestBody !== undefined && (body.value !== undefined || requestBody.required)) {
    // GitHub reads a missing body as one with no parameters.
    const errors = schemaErrors(requestBody.schema, body.value ?? {})
    if (errors.length > 0) {
      problems.push(`${operation.id}: body rejected: ${describeErrors(errors, 'body')}`)
      rejections.push(...githubErrorLines(errors, ''))
    }
  }
  return {
    operation,
    params: found.params,
    problems,
    rejection: rejections.length === 0 ? undefined : [...new Set(rejections)].join('\n')
  }
}

/** Query and path values arrive as text; the schema says what they should parse to. */
function coerce(schema: unknown, value: string): unknown {
  const type = record(schema)?.type
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value)) {
    return Number(value)
  }
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true'
  if (type === 'array') return value.split(',')
  return value
}

// ---------------------------------------------------------------------------------------------
// JSON Schema validation (OpenAPI 3.0 schemas, through Ajv)

let ajv: Ajv | undefined
// Keyed by the description's own schema objects, which live as long as the cached description:
// each schema is compiled once per process.
const validators = new WeakMap<object, ValidateFunction>()
const knownFormats = new Set<string>(['date-time'])

/** RFC 3339, which is what GitHub parses its ISO 8601 timestamps as. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/

function validatorFor(schema: Json): ValidateFunction {
  let validate = validators.get(schema)
  if (validate !== undefined) return validate
  // `strict: false`: OpenAPI adds keywords (`example`, `x-github`, `discriminator`) JSON Schema
  // does not know. `allErrors`: report every problem in one violation.
  ajv ??= new Ajv({ strict: false, allErrors: true, formats: { 'date-time': DATE_TIME } })
  const formats = new Set<string>()
  const converted = jsonSchemaOf(schema, formats)
  for (const format of formats) {
    if (knownFormats.has(format)) continue
    // `uri`, `email`, `int64`…: GitHub checks these loosely or not at all; so does the stand-in.
    ajv.addFormat(format, true)
    knownFormats.add(format)
  }
  if (!isRecord(converted)) throw new Error('GitHub stand-in: a schema that is not an object')
  validate = ajv.compile(converted)
  validators.set(schema, validate)
  return validate
}

function schemaErrors(schema: unknown, value: unknown): readonly ErrorObject[] {
  const s = record(schema)
  if (s === undefined) return []
  const validate = validatorFor(s)
  return validate(value) ? [] : (validate.errors ?? [])
}

/** The problems with `value`, as one line, or undefined when the schema accepts it. */
function schemaProblem(schema: unknown, value: unknown, root: string): string | undefined {
  const errors = schemaErrors(schema, value)
  return errors.length === 0 ? undefined : describeErrors(errors, root)
}

function describeErrors(errors: readonly ErrorObject[], root: string): string {
  const lines = errors.map(error => `${root}${error.instancePath} ${reasonOf(error)}`)
  return [...new Set(lines)].join('; ')
}

/** GitHub's wording for schema failures (`"path" wasn't supplied.`), one line each. */
function githubErrorLines(errors: readonly ErrorObject[], root: string): string[] {
  return errors.map(error => {
    const missing: unknown = error.params.missingProperty
    if (error.keyword === 'required' && typeof missing === 'string') {
      return `"${missing}" wasn't supplied.`
    }
    const at = `${root}${error.instancePath}`.replace(/^\//, '')
    return `For '${at === '' ? 'the body' : at}': ${reasonOf(error)}.`
  })
}

/** Ajv's message, with the allowed values spelled out for an enum. */
function reasonOf(error: ErrorObject): string {
  const allowed: unknown = error.params.allowedValues
  if (error.keyword === 'enum' && Array.isArray(allowed)) {
    const values: readonly unknown[] = allowed
    return `must be one of ${values.map(v => JSON.stringify(v)).join(', ')}`
  }
  return error.message ?? 'is invalid'
}

const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions'])
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf'])
const SCHEMA_VALUES = new Set(['items', 'additionalProperties', 'not'])
/**
 * OpenAPI-only keywords, dropped so Ajv neither misreads them (JSON Schema wants `examples` to be
 * an array) nor has to know them. `nullable` is turned into JSON Schema below.
 */
const DROPPED = new Set(['nullable', 'example', 'examples', 'discriminator', 'xml'])

/**
 * OpenAPI 3.0's `nullable: true` as JSON Schema: a `null` type (or a `null` branch when the schema
 * has no `type` of its own, which Ajv's built-in `nullable` support refuses to compile). Walks
 * only schema positions, so a property that happens to be named `nullable` is left alone.
 */
function jsonSchemaOf(schema: unknown, formats: Set<string>): unknown {
  const s = record(schema)
  if (s === undefined) return schema
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(s)) {
    if (DROPPED.has(key)) continue
    const map = SCHEMA_MAPS.has(key) ? record(value) : undefined
    if (map !== undefined) {
      out[key] = Object.fromEntries(
        Object.entries(map).map(([name, sub]) => [name, jsonSchemaOf(sub, formats)])
      )
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map(sub => jsonSchemaOf(sub, formats))
    } else if (SCHEMA_VALUES.has(key)) {
      out[key] = Array.isArray(value)
        ? value.map(sub => jsonSchemaOf(sub, formats))
        : jsonSchemaOf(value, formats)
    } else {
      if (key === 'format' && typeof value === 'string') formats.add(value)
      out[key] = value
    }
  }
  if (s.nullable !== true) return out
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null']
    const values: unknown = out.enum
    if (Array.isArray(values)) {
      const listed: readonly unknown[] = values
      if (!listed.includes(null)) out.enum = [...listed, null]
    }
    return out
  }
  return { anyOf: [out, { type: 'null' }] }
}

// ---------------------------------------------------------------------------------------------
// Errors, in GitHub's body shape

const STOCK_MESSAGES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Bad credentials',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  410: 'Gone',
  422: 'Validation Failed',
  429: 'Too Many Requests',
  500: 'Server Error',
  502: 'Server Error',
  503: 'Service Unavailable',
  504: "We couldn't respond to your request in time. Sorry about that. Please try resubmitting your request and contact us if the problem persists."
}

function errorBody(status: number, message?: string, docs = DOCS): Json {
  return {
    message: message ?? STOCK_MESSAGES[status] ?? 'Error',
    documentation_url: docs,
    status: String(status)
  }
}

function errorReply(status: number, message: string, docs: string): Reply {
  return { status, body: errorBody(status, message, docs) }
}

function validationFailed(docs: string, errors: readonly Json[]): Reply {
  return {
    status: 422,
    body: { message: 'Validation Failed', errors, documentation_url: docs, status: '422' }
  }
}

// ---------------------------------------------------------------------------------------------
// Small pieces

function isWrite(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD'
}

/** GitHub's owner and repository names are case-insensitive. */
function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}

function parseJson(text: string): { readonly value: unknown; readonly json: boolean } {
  // Octokit sends an empty body on a PATCH or PUT without parameters.
  if (text.trim() === '') return { value: undefined, json: true }
  try {
    return { value: JSON.parse(text) as unknown, json: true }
  } catch {
    return { value: text, json: false }
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

function sendJson(
  res: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string>>,
  body: unknown
): void {
  send(
    res,
    status,
    { 'content-type': 'application/json; charset=utf-8', ...headers },
    JSON.stringify(body)
  )
}

function send(
  res: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string>>,
  body: string | Buffer
): void {
  if (res.destroyed || res.writableEnded) return
  res.writeHead(status, headers)
  res.end(body)
}

/** Unicode code points, as Ruby's `String#length` counts: a surrogate pair is one. */
function codePoints(text: string): number {
  return text.length - (text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0)
}

/** GitHub's timestamps have whole seconds. */
function timestamp(): string {
  return timestampOf(Date.now())
}

function timestampOf(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** The id-derived tail of a node id: stable for a given id, the shape GitHub's have. */
function idTag(id: number): string {
  return Buffer.from(String(id)).toString('base64url')
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function record(value: unknown): Json | undefined {
  return isRecord(value) ? value : undefined
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

function int(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined
}

/** A positive whole number from a query value; undefined for anything else (GitHub's default). */
function positive(value: string | null): number | undefined {
  const number = Number(value ?? undefined)
  return Number.isInteger(number) && number > 0 ? number : undefined
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
