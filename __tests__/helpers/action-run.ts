import { execFile, execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { promisify } from 'node:util'
import type { GitHubStandIn } from './github-standin.js'

/**
 * Runs the bundled action exactly as the runner does: `node dist/index.js` with the inputs as
 * INPUT_* variables (upper-cased, hyphens kept), GITHUB_EVENT_PATH holding a real webhook payload,
 * and the file commands GITHUB_OUTPUT and GITHUB_STEP_SUMMARY.
 */

const ROOT = join(import.meta.dirname, '..', '..')
export const OWNER = 'octo-org'
export const REPO = 'octo-repo'

export interface ActionRun {
  readonly code: number
  readonly stdout: string
  readonly outputs: Record<string, string>
  readonly summary: string
}

export interface RunOptions {
  readonly inputs?: Record<string, string>
  readonly workspace: string
  readonly eventName?: string
  readonly eventPath?: string
  /** GITHUB_API_URL; the GitHub stand-in's address. */
  readonly apiUrl?: string
  readonly env?: Record<string, string>
  /** The bundle to run: the action (default) or the gates sub-action (`gates/dist/index.js`). */
  readonly script?: string
}

/** A runner's temp folder, file commands and environment for one run, as the runner sets them. */
export interface PreparedRun {
  readonly runnerTemp: string
  readonly outputFile: string
  readonly summaryFile: string
  readonly env: Record<string, string>
}

export function prepareRunner(options: RunOptions): PreparedRun {
  const runnerTemp = mkdtempSync(join(tmpdir(), 'rc-runner-'))
  const outputFile = join(runnerTemp, 'output')
  const summaryFile = join(runnerTemp, 'summary')
  writeFileSync(outputFile, '')
  writeFileSync(summaryFile, '')
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: runnerTemp,
    GITHUB_ACTIONS: 'true',
    CI: 'true',
    GITHUB_WORKSPACE: options.workspace,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '4242',
    RUNNER_TEMP: runnerTemp,
    ...(options.eventName !== undefined && { GITHUB_EVENT_NAME: options.eventName }),
    ...(options.eventPath !== undefined && { GITHUB_EVENT_PATH: options.eventPath }),
    ...(options.apiUrl !== undefined && { GITHUB_API_URL: options.apiUrl }),
    ...options.env
  }
  for (const [name, value] of Object.entries(options.inputs ?? {}))
    env[`INPUT_${name.toUpperCase()}`] = value
  return { runnerTemp, outputFile, summaryFile, env }
}

export async function runAction(options: RunOptions): Promise<ActionRun> {
  const { outputFile, summaryFile, env } = prepareRunner(options)
  const { code, stdout } = await promisify(execFile)(
    process.execPath,
    [resolve(ROOT, options.script ?? 'dist/index.js')],
    {
      env,
      maxBuffer: 64 * 1024 * 1024
    }
  ).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: unknown) => error as { code: number; stdout: string }
  )
  return {
    code,
    stdout,
    outputs: readOutputs(readFileSync(outputFile, 'utf8')),
    summary: readFileSync(summaryFile, 'utf8')
  }
}

/** Reads the `name<<delimiter … delimiter` blocks @actions/core writes to GITHUB_OUTPUT. */
export function readOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {}
  const block = /^(.+?)<<(.+)\n([\s\S]*?)\n?\2$/gm
  for (const match of text.matchAll(block)) outputs[match[1] ?? ''] = match[3] ?? ''
  return outputs
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Octo Cat',
  GIT_AUTHOR_EMAIL: 'octo@example.com',
  GIT_COMMITTER_NAME: 'Octo Cat',
  GIT_COMMITTER_EMAIL: 'octo@example.com'
}

/** A repository with a base commit and a pull request's commits on top, checked out at the head. */
export class Repository {
  readonly dir: string
  readonly baseSha: string
  headSha: string

  constructor(base: Record<string, string>) {
    this.dir = mkdtempSync(join(tmpdir(), 'rc-repo-'))
    this.git('init', '-q', '-b', 'main')
    this.baseSha = this.commit(base, 'base')
    this.git('checkout', '-q', '-b', 'feature')
    this.headSha = this.baseSha
  }

  /** Writes the files (`null` deletes one) and commits them; returns the new head. */
  commit(files: Record<string, string | Buffer | null>, message: string): string {
    for (const [path, text] of Object.entries(files)) {
      const full = join(this.dir, path)
      if (text === null) {
        this.git('rm', '-q', path)
        continue
      }
      mkdirSync(dirname(full), { recursive: true })
      writeFileSync(full, text)
    }
    this.git('add', '-A')
    this.git('commit', '-q', '--allow-empty', '-m', message)
    this.headSha = this.git('rev-parse', 'HEAD')
    return this.headSha
  }

  git(...args: string[]): string {
    return execFileSync('git', args, {
      cwd: this.dir,
      encoding: 'utf8',
      env: { ...process.env, ...GIT_ENV }
    }).trim()
  }
}

/**
 * A pull request on the GitHub stand-in: `base` committed on the base branch (and served by the
 * API at that commit and as the branch's tip), `head` committed on top and checked out.
 */
export function openPullRequest(
  github: Pick<GitHubStandIn, 'setFile' | 'setBranch' | 'setPullRequest'>,
  number: number,
  base: Record<string, string>,
  head: Record<string, string | Buffer | null>
): Repository {
  const repo = new Repository(base)
  for (const [path, text] of Object.entries(base)) github.setFile(repo.baseSha, path, text)
  github.setBranch(baseBranch(repo), repo.baseSha)
  repo.commit(head, 'feature')
  github.setPullRequest(number, pullRequestJson(repo, number))
  return repo
}

/** The two commits a pull request is about. */
export type Commits = Pick<Repository, 'baseSha' | 'headSha'>

export interface WebhookExample {
  readonly action?: string
  readonly number?: number
  readonly pull_request?: Record<string, unknown>
  readonly repository?: Record<string, unknown>
  readonly [field: string]: unknown
}

/**
 * The first payload of `name` in @octokit/webhooks-examples with `action`, when given, and that
 * `matches`, when given.
 */
export function webhookExample(
  name: string,
  action?: string,
  matches: (example: WebhookExample) => boolean = () => true
): WebhookExample {
  const examples = JSON.parse(
    readFileSync(
      join(ROOT, 'node_modules/@octokit/webhooks-examples/api.github.com/index.json'),
      'utf8'
    )
  ) as { name: string; examples: WebhookExample[] }[]
  const example = examples
    .find(e => e.name === name)
    ?.examples.find(e => (action === undefined || e.action === action) && matches(e))
  if (!example)
    throw new Error(`no ${name}${action ? `.${action}` : ''} example in @octokit/webhooks-examples`)
  return example
}

/** Writes an event payload where the runner would: a file GITHUB_EVENT_PATH names. */
export function writeEvent(payload: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'rc-event-')), 'event.json')
  writeFileSync(path, JSON.stringify(payload))
  return path
}

/** A real payload from @octokit/webhooks-examples, pointed at this repository and these commits. */
export function pullRequestEvent(
  repo: Commits,
  options: {
    readonly action?: string
    readonly number?: number
    readonly title?: string
    readonly body?: string
    /** Fields of `pull_request` to set (`draft`, `user`, `labels`, …). */
    readonly pullRequest?: Record<string, unknown>
    /** Fields of the payload to set (`sender`, `label`, …). */
    readonly payload?: Record<string, unknown>
  } = {}
): string {
  const example = webhookExample('pull_request', options.action ?? 'opened')
  const number = options.number ?? 1
  return writeEvent({
    ...example,
    ...options.payload,
    number,
    pull_request: {
      ...pointedAt(example.pull_request ?? {}, repo, number),
      ...(options.title !== undefined && { title: options.title }),
      ...(options.body !== undefined && { body: options.body }),
      ...options.pullRequest
    },
    repository: { ...example.repository, name: REPO, full_name: `${OWNER}/${REPO}` }
  })
}

/** A commit id of zeros: a push's `before` for a new branch, its `after` for a deleted one. */
export const NO_COMMIT = '0'.repeat(40)

/**
 * A real `push` payload (a branch push) from @octokit/webhooks-examples, pointed at this
 * repository: `ref` such as `refs/heads/main`, the tips before and after it. `created` and
 * `deleted` follow from a `before` or `after` of zeros, and the head commit is `after`.
 */
export function pushEvent(options: {
  readonly ref: string
  readonly before: string
  readonly after: string
}): string {
  const example = webhookExample('push', undefined, e => String(e.ref).startsWith('refs/heads/'))
  const { ref, before, after } = options
  const deleted = after === NO_COMMIT
  const headCommit = { ...(example.head_commit as Record<string, unknown>), id: after }
  return writeEvent({
    ...example,
    ref,
    before,
    after,
    created: before === NO_COMMIT,
    deleted,
    forced: false,
    compare: `https://github.com/${OWNER}/${REPO}/compare/${before.slice(0, 12)}...${after.slice(0, 12)}`,
    commits: deleted ? [] : [headCommit],
    head_commit: deleted ? null : headCommit,
    // The pushed branch is the repository's default, as the pull requests' bases here are.
    repository: {
      ...pointedRepository(example.repository),
      default_branch: ref.replace(/^refs\/heads\//, '')
    }
  })
}

/**
 * A `schedule` payload. @octokit/webhooks-examples has none (GitHub sends no webhook for it): this
 * is the event GitHub Actions writes for a scheduled run, `github.event.schedule` being the cron
 * line that fired ("Events that trigger workflows" → schedule,
 * https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#schedule),
 * beside the workflow's path and the repository, as the push example gives it.
 */
export function scheduleEvent(cron: string, workflow: string): string {
  const example = webhookExample('push', undefined, e => String(e.ref).startsWith('refs/heads/'))
  return writeEvent({
    schedule: cron,
    workflow,
    repository: pointedRepository(example.repository),
    sender: example.sender
  })
}

/**
 * A real `issue_comment.created` payload from @octokit/webhooks-examples, pointed at this
 * repository: comment `commentId` by `user` on issue `number`. On a pull request (the default) the
 * `issue` carries a `pull_request` key, as GitHub sends it; on a plain issue it has none.
 */
export function issueCommentEvent(options: {
  readonly number: number
  readonly body: string
  readonly user: { readonly login: string; readonly type: 'User' | 'Bot' }
  readonly commentId: number
  readonly onPullRequest?: boolean
}): string {
  const example = webhookExample('issue_comment', 'created')
  const { number, body, user, commentId, onPullRequest = true } = options
  const api = `https://api.github.com/repos/${OWNER}/${REPO}`
  const html = `https://github.com/${OWNER}/${REPO}/${onPullRequest ? 'pull' : 'issues'}/${String(number)}`
  const issue: Record<string, unknown> = { ...(example.issue as Record<string, unknown>) }
  delete issue.pull_request
  const commenter = (actor: unknown): Record<string, unknown> => ({
    ...(actor as Record<string, unknown>),
    login: user.login,
    type: user.type
  })
  return writeEvent({
    ...example,
    issue: {
      ...issue,
      number,
      url: `${api}/issues/${String(number)}`,
      html_url: html,
      ...(onPullRequest && {
        pull_request: {
          url: `${api}/pulls/${String(number)}`,
          html_url: html,
          diff_url: `${html}.diff`,
          patch_url: `${html}.patch`,
          merged_at: null
        }
      })
    },
    comment: {
      ...(example.comment as Record<string, unknown>),
      id: commentId,
      body,
      url: `${api}/issues/comments/${String(commentId)}`,
      html_url: `${html}#issuecomment-${String(commentId)}`,
      issue_url: `${api}/issues/${String(number)}`,
      // Written now: the bot accepts only a verdict recorded before the command was written.
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
      user: commenter((example.comment as Record<string, unknown>).user)
    },
    repository: pointedRepository(example.repository),
    sender: commenter(example.sender)
  })
}

function pointedRepository(
  repository: Record<string, unknown> | undefined
): Record<string, unknown> {
  const owner = repository?.owner as Record<string, unknown> | undefined
  return {
    ...repository,
    name: REPO,
    full_name: `${OWNER}/${REPO}`,
    owner: {
      ...owner,
      login: OWNER,
      ...(owner !== undefined && 'name' in owner && { name: OWNER })
    }
  }
}

/** The GET /pulls/{n} answer for this repository: what the API says the PR looks like now. */
export function pullRequestJson(repo: Commits, number = 1): Record<string, unknown> {
  return pointedAt(webhookExample('pull_request', 'opened').pull_request ?? {}, repo, number)
}

/**
 * The base branch's name for a repository's pull requests: one per base commit, so that one
 * GitHub stand-in can serve many repositories (`github.setBranch(baseBranch(repo), repo.baseSha)`).
 */
export function baseBranch(repo: Pick<Commits, 'baseSha'>): string {
  return `main-${repo.baseSha.slice(0, 12)}`
}

function pointedAt(
  pr: Record<string, unknown>,
  repo: Commits,
  number: number
): Record<string, unknown> {
  const base = pr.base as Record<string, unknown>
  return {
    ...pr,
    number,
    title: 'Add the search feature',
    body: 'Adds search.',
    // Each repository's pull requests are into its default branch, as most are.
    base: {
      ...base,
      sha: repo.baseSha,
      ref: baseBranch(repo),
      repo: { ...(base.repo as Record<string, unknown>), default_branch: baseBranch(repo) }
    },
    head: { ...(pr.head as Record<string, unknown>), sha: repo.headSha }
  }
}
