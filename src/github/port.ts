import { gatesArtifact, GATES_FILE, MAX_RECORD_BYTES } from '../gates/record.js'
import type { RecordingRun } from '../gates/recorded.js'
import { ok, type Result } from '../util/result.js'
import {
  checkRunsNamed,
  startCheckRun,
  writeCheckRun,
  type CheckConclusion,
  type CheckRunPlace,
  type CheckRunText,
  type CheckRunWritten,
  type CompletedCheckRun,
  type ListedCheckRun
} from './check-run.js'
import { createGitHub, statusOf, type GitHub } from './client.js'
import {
  findComments,
  upsertComment,
  whoAmI,
  type CommentWritten,
  type IssueComment,
  type Repo
} from './comment.js'
import { fileAt, fileInRepository, filesIn } from './contents.js'
import { readBaseFiles, type BaseFiles, type BaseWhere } from './base-files.js'
import type { ReadUpstream } from '../rubric/read-extends.js'
import {
  fullName,
  rerunWorkflowRun,
  runJobs,
  workflowRunsAt,
  type WorkflowRunListed
} from './actions-runs.js'
import { downloadArtifactFile, findArtifact } from './artifacts.js'
import { pullRequestOf, type PullRequest } from './pull-request.js'
import { writablePermissions } from './write-access.js'

/**
 * Everything the action asks of GitHub, for one repository. The action's flow is written against
 * this port; `octokitPort` is the one implementation, tested against the GitHub stand-in.
 */
export interface GitHubPort {
  readonly repo: Repo
  /**
   * `GET /pulls/{n}`: the pull request as it is now; undefined when GitHub's answer is not one.
   * Throws when it cannot be read.
   */
  readonly pullRequest: (number: number) => Promise<PullRequest | undefined>
  /** A file's text at a ref (a branch or a commit); undefined when it does not exist there. */
  readonly fileAt: (path: string, ref: string) => Promise<string | undefined>
  /** The files right in a folder at a ref, sorted; none when it does not exist there. */
  readonly filesAt: (folder: string, ref: string) => Promise<string[]>
  /**
   * The pull request's head now and the base's rubric files, in one request where GitHub can
   * answer so (`readBaseFiles`), else through `pullRequest`, `fileAt` and `filesAt`.
   */
  readonly baseFiles: (where: BaseWhere) => Promise<BaseFiles>
  /** A rubric another repository's file names in `extends`, read with this token. */
  readonly upstreamFile: ReadUpstream
  /** Our comments on an issue or pull request carrying `marker`, oldest first. */
  readonly comments: (issue: number, marker: string) => Promise<IssueComment[]>
  readonly upsertComment: (
    issue: number,
    body: string,
    existing: readonly IssueComment[]
  ) => Promise<Result<CommentWritten>>
  /** A check run `in_progress`: the check is pending while the run works. Its id. */
  readonly startCheckRun: (where: CheckRunPlace, text: CheckRunText) => Promise<Result<number>>
  /**
   * A completed check run as given, annotations and all: completes `id` (from `startCheckRun`),
   * or creates one.
   */
  readonly checkRun: (
    run: CompletedCheckRun & { readonly id?: number }
  ) => Promise<Result<CheckRunWritten>>
  /** A completed check run with text only (an acceptance, a run that failed). */
  readonly completeCheckRun: (
    where: CheckRunPlace & { readonly id?: number },
    conclusion: CheckConclusion,
    text: CheckRunText
  ) => Promise<Result<CheckRunWritten>>
  /** The check runs of these names on a commit, by any app: every page, every run. */
  readonly checkRunsNamed: (headSha: string, names: readonly string[]) => Promise<ListedCheckRun[]>
  /** One issue comment by id; undefined when it no longer exists. */
  readonly issueComment: (id: number) => Promise<CommentByUser | undefined>
  /** A user's permission on the repository, as GitHub sums it up (maintain is write). */
  readonly permission: (login: string) => Promise<'admin' | 'write' | 'read' | 'none'>
  /** The open pull requests whose base is `branch` (any base without it), every page of them. */
  readonly openPullRequests: (branch?: string) => Promise<OpenPullRequest[]>
  /** The last `count` closed pull requests, the most recently updated first. */
  readonly closedPullRequests: (count: number) => Promise<ClosedPullRequest[]>
  /** The runs of a workflow file on a commit, newest first. */
  readonly workflowRunsAt: (file: string, headSha: string) => Promise<WorkflowRunListed[]>
  /** A run's every job again, as its next attempt, in the run's own context. */
  readonly rerunWorkflowRun: (runId: number) => Promise<void>
  /** A reaction on an issue comment: the bot took the command. */
  readonly react: (commentId: number, content: 'eyes') => Promise<void>
  /** A new comment on an issue or pull request (a reply to a command). */
  readonly reply: (issue: number, body: string) => Promise<void>
  /**
   * A workflow run (attempt) whose job `jobName` ran the gates sub-action: its recorded results
   * (the artifact) and that job's conclusion, each read once.
   */
  readonly recordingRun: (runId: number, attempt: number, jobName: string) => RecordingRun
  /**
   * The permissions the token may write (checks, statuses, contents, pull-requests, actions),
   * probed without writing anything; those GitHub did not confirm either way are named as such.
   */
  readonly writablePermissions: (headSha: string) => Promise<string[]>
}

/** An open pull request as the list of them gives it. */
export interface OpenPullRequest {
  readonly number: number
  readonly headSha: string
  /** Where its head is (`owner/repo`, '' when GitHub does not say) and its branch there. */
  readonly headRepository: string
  readonly headRef: string
  /** Its base branch, and the repository's default one: the check run's name (`checkRunName`). */
  readonly baseRef: string
  readonly defaultBranch: string
}

/** A closed pull request as the list of them gives it. */
export interface ClosedPullRequest {
  readonly number: number
  readonly title: string
  readonly baseSha: string
  readonly headSha: string
  /** The commit that merged it (a merge, squash or rebase); undefined when closed unmerged. */
  readonly mergeCommit?: string
}

/** A comment with who wrote it, and on which issue or pull request. */
export interface CommentByUser {
  readonly body: string
  readonly login: string
  readonly type: string
  /** The number of the issue or pull request it is on (from its `issue_url`); 0 if not said. */
  readonly issue: number
}

/**
 * The action's GitHub: the repository of GITHUB_REPOSITORY at GITHUB_API_URL (GitHub Enterprise
 * Server too), through `token`; none without a token (a local dry run).
 */
export function actionGitHub(
  env: NodeJS.ProcessEnv,
  token: string,
  warn: (message: string) => void
): GitHubPort | undefined {
  if (token === '') return undefined
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/')
  const baseUrl = env.GITHUB_API_URL ?? 'https://api.github.com'
  return octokitPort({ owner, repo }, { token, baseUrl, warn })
}

/** The client, made on first use. */
type Api = () => GitHub

/**
 * The port over Octokit. The client is made on first use, so that whatever runs before the first
 * request (git computing the diff) is not held up by it.
 */
export function octokitPort(
  repo: Repo,
  client: {
    readonly token: string
    readonly baseUrl: string
    readonly warn: (m: string) => void
    /**
     * The login our comments were written by, when it is not the token's own (the CLI reads
     * with a person's token what the action wrote as `github-actions[bot]`).
     */
    readonly author?: string
  }
): GitHubPort {
  let github: GitHub | undefined
  const api: Api = () => (github ??= createGitHub(client.token, client.baseUrl, client.warn))
  const identity = tokenIdentity(api, client.author)
  const port: Omit<GitHubPort, 'baseFiles'> = {
    repo,
    ...contentsReads(api, repo),
    ...commentsPart(api, repo, identity.me),
    ...checkRunsPart(api, repo, identity.learn),
    ...pullRequestsPart(api, repo),
    ...actionsPart(api, repo),
    issueComment: id => issueCommentById(api(), repo, id),
    permission: login => permissionOf(api(), repo, login),
    writablePermissions: headSha => writablePermissions(api(), repo, headSha)
  }
  return { ...port, baseFiles: where => readBaseFiles(api(), repo, where, port) }
}

/**
 * Who the token is, read once a run: from the first check run it starts (an app's token writes
 * as `<slug>[bot]`, which `learn` is told), else through /user (`whoAmI`). A failed read is tried
 * again next time.
 */
function tokenIdentity(
  api: Api,
  author: string | undefined
): {
  readonly me: () => Promise<string>
  readonly learn: (login: string) => void
} {
  let identity: Promise<string> | undefined =
    author === undefined ? undefined : Promise.resolve(author)
  return {
    me: () =>
      (identity ??= whoAmI(api()).catch((error: unknown) => {
        identity = undefined
        throw error
      })),
    learn: login => {
      identity ??= Promise.resolve(login)
    }
  }
}

function contentsReads(
  api: Api,
  repo: Repo
): Pick<GitHubPort, 'fileAt' | 'filesAt' | 'upstreamFile'> {
  return {
    fileAt: (path, ref) => fileAt(api(), { ...repo, path, ref }),
    filesAt: (folder, ref) => filesIn(api(), { ...repo, path: folder, ref }),
    upstreamFile: file => fileInRepository(api(), file)
  }
}

function commentsPart(
  api: Api,
  repo: Repo,
  me: () => Promise<string>
): Pick<GitHubPort, 'comments' | 'upsertComment' | 'react' | 'reply'> {
  return {
    comments: (issue, marker) => findComments(api(), { ...repo, issue, marker }, me),
    upsertComment: (issue, body, existing) =>
      upsertComment(api(), { ...repo, issue }, body, existing),
    react: async (commentId, content) => {
      await api().rest.reactions.createForIssueComment({ ...repo, comment_id: commentId, content })
    },
    reply: async (issue, body) => {
      await api().rest.issues.createComment({ ...repo, issue_number: issue, body })
    }
  }
}

function checkRunsPart(
  api: Api,
  repo: Repo,
  learn: (login: string) => void
): Pick<GitHubPort, 'startCheckRun' | 'checkRun' | 'completeCheckRun' | 'checkRunsNamed'> {
  return {
    startCheckRun: async (where, text) => {
      const started = await startCheckRun(api(), { ...repo, ...where }, text)
      if (!started.ok) return started
      if (started.value.appSlug !== '') learn(`${started.value.appSlug}[bot]`)
      return ok(started.value.id)
    },
    checkRun: run =>
      writeCheckRun(api(), { ...repo, ...(run.id !== undefined && { id: run.id }) }, run),
    completeCheckRun: (where, conclusion, text) =>
      writeCheckRun(
        api(),
        { ...repo, ...(where.id !== undefined && { id: where.id }) },
        { ...where, conclusion, ...text }
      ),
    checkRunsNamed: (headSha, names) => checkRunsNamed(api(), { ...repo, ref: headSha, names })
  }
}

function pullRequestsPart(
  api: Api,
  repo: Repo
): Pick<GitHubPort, 'pullRequest' | 'openPullRequests' | 'closedPullRequests'> {
  return {
    pullRequest: async number =>
      pullRequestOf((await api().rest.pulls.get({ ...repo, pull_number: number })).data),
    openPullRequests: async branch =>
      (
        await api().paginate(api().rest.pulls.list, {
          ...repo,
          state: 'open',
          ...(branch !== undefined && { base: branch }),
          per_page: 100
        })
      ).map(pr => ({
        number: pr.number,
        headSha: pr.head.sha,
        headRepository: fullName(pr.head.repo),
        headRef: pr.head.ref,
        baseRef: pr.base.ref,
        defaultBranch: pr.base.repo.default_branch
      })),
    closedPullRequests: async count => {
      let listed = 0
      const pulls = await api().paginate(
        api().rest.pulls.list,
        {
          ...repo,
          state: 'closed',
          sort: 'updated',
          direction: 'desc',
          per_page: Math.min(count, 100)
        },
        (response, done) => {
          listed += response.data.length
          if (listed >= count) done()
          return response.data
        }
      )
      return pulls.slice(0, count).map(pr => ({
        number: pr.number,
        title: pr.title,
        baseSha: pr.base.sha,
        headSha: pr.head.sha,
        ...(pr.merged_at !== null &&
          pr.merge_commit_sha !== null && { mergeCommit: pr.merge_commit_sha })
      }))
    }
  }
}

function actionsPart(
  api: Api,
  repo: Repo
): Pick<GitHubPort, 'workflowRunsAt' | 'rerunWorkflowRun' | 'recordingRun'> {
  return {
    workflowRunsAt: (file, headSha) => workflowRunsAt(api(), { ...repo, workflow: file, headSha }),
    rerunWorkflowRun: runId => rerunWorkflowRun(api(), { ...repo, runId }),
    recordingRun: (runId, attempt, jobName) =>
      recordingRunOf(api, repo, { runId, attempt, jobName })
  }
}

async function issueCommentById(
  github: GitHub,
  repo: Repo,
  id: number
): Promise<CommentByUser | undefined> {
  try {
    const { data } = await github.rest.issues.getComment({ ...repo, comment_id: id })
    return {
      body: data.body ?? '',
      login: data.user?.login ?? '',
      type: data.user?.type ?? '',
      issue: Number(/\/issues\/(\d+)$/.exec(data.issue_url)?.[1] ?? '0')
    }
  } catch (error) {
    if (statusOf(error) === 404) return undefined
    throw error
  }
}

async function permissionOf(
  github: GitHub,
  repo: Repo,
  login: string
): Promise<'admin' | 'write' | 'read' | 'none'> {
  try {
    const { data } = await github.rest.repos.getCollaboratorPermissionLevel({
      ...repo,
      username: login
    })
    const level = data.permission
    return level === 'admin' || level === 'write' || level === 'read' ? level : 'none'
  } catch (error) {
    if (statusOf(error) === 404) return 'none'
    throw error
  }
}

/** A run's recorded gate results and its gates job's conclusion, each read at most once. */
function recordingRunOf(
  api: Api,
  repo: Repo,
  of: { readonly runId: number; readonly attempt: number; readonly jobName: string }
): RecordingRun {
  const { runId, attempt, jobName } = of
  const where = { ...repo, runId }
  let record: Promise<string | undefined> | undefined
  let conclusion: Promise<string | null | undefined> | undefined
  return {
    description: `the job "${jobName}" of run ${runId}`,
    recordText: () =>
      (record ??= findArtifact(api(), { ...where, name: gatesArtifact(attempt) }).then(
        async found =>
          found === undefined
            ? undefined
            : (
                await downloadArtifactFile(api(), {
                  ...repo,
                  artifactId: found.id,
                  file: GATES_FILE,
                  maxBytes: MAX_RECORD_BYTES
                })
              ).toString('utf8')
      )),
    jobConclusion: () =>
      (conclusion ??= runJobs(api(), { ...where, attempt }).then(jobs => {
        const job = jobs.find(j => j.name === jobName)
        return job === undefined ? undefined : job.conclusion
      }))
  }
}
