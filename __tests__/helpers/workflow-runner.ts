import { Evaluator, Lexer, Parser, data } from '@actions/expressions'
import { truthy } from '@actions/expressions/result'
import { execFile, execFileSync } from 'node:child_process'
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { parse as parseYaml } from 'yaml'
import {
  baseBranch,
  OWNER,
  pullRequestEvent,
  pullRequestJson,
  REPO,
  runAction,
  webhookExample,
  writeEvent,
  type ActionRun
} from './action-run.js'
import type { GitHubStandIn } from './github-standin.js'

/**
 * Plays GitHub Actions for this repository's own workflows: reads `.github/workflows/*.yml`, and
 * for an event a workflow listens to, runs a job's steps in order as the runner would. A
 * `uses: ./` step runs `dist/index.js` (with action.yml's defaults for the inputs the step does not
 * set), a `run:` step runs its script with `bash -e`, and `${{ }}` expressions and `if:`
 * conditions are evaluated by GitHub's own expression engine (@actions/expressions). Steps that
 * set up the machine (`actions/checkout`, `actions/setup-node`) are played by the fixture: the
 * workspace is already checked out as actions/checkout leaves it, and the Node running the tests
 * is Node 24.
 */

const ROOT = join(import.meta.dirname, '..', '..')

export interface WorkflowStep {
  readonly id?: string
  readonly name?: string
  readonly uses?: string
  readonly run?: string
  readonly with?: Record<string, unknown>
  readonly env?: Record<string, unknown>
  readonly if?: string | boolean
  readonly 'continue-on-error'?: boolean
  readonly 'working-directory'?: string
}

export interface WorkflowJob {
  readonly name?: string
  readonly if?: string | boolean
  readonly steps: readonly WorkflowStep[]
}

export interface Workflow {
  readonly file: string
  readonly events: readonly string[]
  readonly jobs: Readonly<Record<string, WorkflowJob>>
}

/** Every workflow of the repository, with the events it listens to. */
export function readWorkflows(dir = join(ROOT, '.github/workflows')): Workflow[] {
  return readdirSync(dir)
    .filter(name => /\.ya?ml$/.test(name))
    .sort()
    .map(name => {
      const raw = parseYaml(readFileSync(join(dir, name), 'utf8')) as {
        on: string | string[] | Record<string, unknown>
        jobs: Record<string, WorkflowJob>
      }
      const on = raw.on
      const events = typeof on === 'string' ? [on] : Array.isArray(on) ? on : Object.keys(on)
      return { file: `.github/workflows/${name}`, events, jobs: raw.jobs }
    })
}

/** A job that runs this repository's action (`uses: ./`). */
export function runsTheAction(job: WorkflowJob): boolean {
  return job.steps.some(step => step.uses === './')
}

type StepStatus = 'success' | 'failure' | 'skipped'

interface StepState {
  outputs: Record<string, string>
  outcome: StepStatus
  conclusion: StepStatus
}

interface Contexts {
  readonly github: Record<string, unknown>
  readonly secrets: Record<string, string>
  readonly steps: Record<string, StepState>
  readonly env: Record<string, string>
  /** What success() and failure() look at: whether an earlier step failed. */
  readonly jobFailed: boolean
}

const CONTEXT_NAMES = ['github', 'secrets', 'steps', 'env', 'vars', 'inputs', 'runner', 'job']
const STATUS_FUNCTIONS = ['success', 'failure', 'always', 'cancelled']

/** Evaluates one expression (what is inside `${{ }}`) as GitHub does. */
export function evaluate(expression: string, contexts: Contexts): data.ExpressionData {
  const { tokens } = new Lexer(expression).lex()
  const tree = new Parser(
    tokens,
    CONTEXT_NAMES,
    STATUS_FUNCTIONS.map(name => ({ name, minArgs: 0, maxArgs: 0 }))
  ).parse()
  const status = (value: boolean) => ({
    name: '',
    minArgs: 0,
    maxArgs: 0,
    call: () => new data.BooleanData(value)
  })
  const functions = new Map([
    ['success', status(!contexts.jobFailed)],
    ['failure', status(contexts.jobFailed)],
    ['always', status(true)],
    ['cancelled', status(false)]
  ])
  const { github, secrets, steps, env } = contexts
  const dictionary = JSON.parse(
    JSON.stringify({ github, secrets, steps, env }),
    data.reviver
  ) as data.Dictionary
  return new Evaluator(tree, dictionary, functions).evaluate()
}

/** Replaces every `${{ expression }}` in `text`. */
export function interpolate(text: string, contexts: Contexts): string {
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, expression: string) =>
    evaluate(expression, contexts).coerceString()
  )
}

/**
 * An `if:` as GitHub reads it: `${{ }}` is optional, and a condition without a status function
 * means `success() && (condition)`.
 */
export function condition(value: string | boolean | undefined, contexts: Contexts): boolean {
  if (value === undefined) return !contexts.jobFailed
  if (typeof value === 'boolean') return value && !contexts.jobFailed
  const bare = value.trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1')
  const withStatus = STATUS_FUNCTIONS.some(name => new RegExp(`\\b${name}\\(`).test(bare))
    ? bare
    : `success() && (${bare})`
  return truthy(evaluate(withStatus, contexts))
}

export interface StepResult {
  readonly step: string
  readonly status: StepStatus
  /** What the step printed, to explain a failure. */
  readonly log: string
}

/** A checkout of the repository for one event, with the API serving the same pull request. */
export interface Checkout {
  readonly workspace: string
  readonly eventPath: string
  readonly github: Record<string, unknown>
}

/** Whether GitHub runs `job` on `event` (its `if:`, which can only see the `github` context). */
export function jobRunsOn(job: WorkflowJob, event: string): boolean {
  return condition(job.if, {
    github: { event_name: event },
    secrets: {},
    steps: {},
    env: {},
    jobFailed: false
  })
}

/** Runs a job's steps for `event` in `checkout`, in order, as the runner does. */
export async function runJob(
  job: WorkflowJob,
  event: string,
  checkout: Checkout,
  stand: { readonly github: GitHubStandIn; readonly token: string }
): Promise<StepResult[]> {
  const secrets = { GITHUB_TOKEN: stand.token }
  const github = { ...checkout.github, event_name: event, token: stand.token }
  const steps: Record<string, StepState> = {}
  const results: StepResult[] = []
  let jobFailed = false
  const contexts = (): Contexts => ({ github, secrets, steps, env: {}, jobFailed })

  for (const [index, step] of job.steps.entries()) {
    const name = step.name ?? step.uses ?? step.run?.split('\n')[0] ?? `step ${index + 1}`
    if (!condition(step.if, contexts())) {
      results.push({ step: name, status: 'skipped', log: '' })
      if (step.id) steps[step.id] = { outputs: {}, outcome: 'skipped', conclusion: 'skipped' }
      continue
    }
    const env = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([key, value]) => [
        key,
        interpolate(String(value), contexts())
      ])
    )
    let ran: { ok: boolean; outputs: Record<string, string>; log: string }
    if (step.uses === './') {
      ran = await runThisAction(step, checkout, stand, env, contexts())
    } else if (step.run !== undefined) {
      ran = await runScript(step, checkout, env)
    } else if (step.uses && /^actions\/(checkout|setup-node)@/.test(step.uses)) {
      ran = { ok: true, outputs: {}, log: `${step.uses}: played by the fixture` }
    } else {
      throw new Error(`the workflow runner cannot play step "${name}" (${step.uses ?? '?'})`)
    }
    const outcome: StepStatus = ran.ok ? 'success' : 'failure'
    const conclusion: StepStatus = ran.ok || step['continue-on-error'] ? 'success' : 'failure'
    if (step.id) steps[step.id] = { outputs: ran.outputs, outcome, conclusion }
    if (conclusion === 'failure') jobFailed = true
    results.push({ step: name, status: outcome, log: ran.log })
  }
  return results
}

/** The action's inputs as the runner sets them: the step's `with:`, else action.yml's default. */
function actionInputs(step: WorkflowStep, contexts: Contexts): Record<string, string> {
  const action = parseYaml(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
    inputs: Record<string, { default?: string | number | boolean }>
  }
  const inputs: Record<string, string> = {}
  for (const [name, input] of Object.entries(action.inputs)) {
    if (input.default !== undefined) inputs[name] = interpolate(String(input.default), contexts)
  }
  for (const [name, value] of Object.entries(step.with ?? {})) {
    if (!(name in action.inputs)) throw new Error(`action.yml has no input "${name}"`)
    inputs[name] = interpolate(String(value), contexts)
  }
  return inputs
}

async function runThisAction(
  step: WorkflowStep,
  checkout: Checkout,
  stand: { readonly github: GitHubStandIn },
  env: Record<string, string>,
  contexts: Contexts
): Promise<{ ok: boolean; outputs: Record<string, string>; log: string }> {
  const run: ActionRun = await runAction({
    workspace: checkout.workspace,
    eventName: String(contexts.github.event_name),
    eventPath: checkout.eventPath,
    apiUrl: stand.github.url,
    inputs: actionInputs(step, contexts),
    env
  })
  return { ok: run.code === 0, outputs: run.outputs, log: run.stdout }
}

async function runScript(
  step: WorkflowStep,
  checkout: Checkout,
  env: Record<string, string>
): Promise<{ ok: boolean; outputs: Record<string, string>; log: string }> {
  if (step.run?.includes('${{'))
    throw new Error(
      `"${step.name ?? step.run}": pass expressions through env:, not into the script`
    )
  const dir = mkdtempSync(join(tmpdir(), 'rc-step-'))
  const script = join(dir, 'step.sh')
  writeFileSync(script, step.run ?? '')
  try {
    const { stdout, stderr } = await promisify(execFile)('bash', ['-e', script], {
      cwd: join(checkout.workspace, step['working-directory'] ?? '.'),
      env: { PATH: process.env.PATH ?? '', HOME: dir, GITHUB_ACTIONS: 'true', ...env }
    })
    return { ok: true, outputs: {}, log: stdout + stderr }
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number }
    return {
      ok: false,
      outputs: {},
      log: `exit ${String(failed.code)}\n${failed.stdout ?? ''}${failed.stderr ?? ''}`
    }
  }
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Octo Cat',
  GIT_AUTHOR_EMAIL: 'octo@example.com',
  GIT_COMMITTER_NAME: 'Octo Cat',
  GIT_COMMITTER_EMAIL: 'octo@example.com'
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: GIT_ENV }).trim()
}

/**
 * The remote: this repository's files as they are now (tracked and new, not ignored) on `main`,
 * and a pull request (#1) that adds one file, with GitHub's refs/pull/1/head and refs/pull/1/merge.
 * The API serves the same pull request and the base commit's files.
 */
/**
 * What the played pull request changes: a contributors file, or also one of this repository's
 * workflows (which makes the action UNCLEAR workflow_modified: the workflow came from the PR).
 */
export type PullRequestChange = 'contributors' | 'workflow'

function remoteWithPullRequest(
  github: GitHubStandIn,
  change: PullRequestChange
): {
  origin: string
  baseSha: string
  headSha: string
  mergeSha: string
} {
  const origin = mkdtempSync(join(tmpdir(), 'rc-origin-'))
  git(origin, 'init', '-q', '-b', 'main')
  const files = git(ROOT, 'ls-files', '--cached', '--others', '--exclude-standard', '-z')
    .split('\0')
    .filter(path => path !== '')
  for (const path of files) {
    try {
      mkdirSync(dirname(join(origin, path)), { recursive: true })
      copyFileSync(join(ROOT, path), join(origin, path))
    } catch (error) {
      // A tracked file deleted in the work tree is not part of the checkout.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  git(origin, 'add', '-A')
  git(origin, 'commit', '-q', '-m', 'base')
  const baseSha = git(origin, 'rev-parse', 'HEAD')
  for (const path of git(origin, 'ls-files', '-z').split('\0').filter(Boolean))
    github.setFile(baseSha, path, readFileSync(join(origin, path)))
  github.setBranch(baseBranch({ baseSha }), baseSha)

  git(origin, 'checkout', '-q', '-b', 'feature')
  writeFileSync(join(origin, 'CONTRIBUTORS'), 'Octo Cat\n')
  if (change === 'workflow') {
    const workflow = join(origin, '.github/workflows/ci.yml')
    writeFileSync(workflow, `${readFileSync(workflow, 'utf8')}# edited by the pull request\n`)
  }
  git(origin, 'add', '-A')
  git(origin, 'commit', '-q', '-m', 'Add a contributors file')
  const headSha = git(origin, 'rev-parse', 'HEAD')
  git(origin, 'checkout', '-q', '--detach', baseSha)
  git(origin, 'merge', '-q', '--no-ff', '-m', `Merge ${headSha} into ${baseSha}`, headSha)
  const mergeSha = git(origin, 'rev-parse', 'HEAD')
  git(origin, 'update-ref', 'refs/pull/1/head', headSha)
  git(origin, 'update-ref', 'refs/pull/1/merge', mergeSha)
  git(origin, 'checkout', '-q', 'main')
  github.setPullRequest(1, pullRequestJson({ baseSha, headSha }, 1))
  return { origin, baseSha, headSha, mergeSha }
}

/** What actions/checkout does by default: a shallow fetch of one commit, checked out detached. */
function shallowCheckout(origin: string, sha: string, ref: string): string {
  const workspace = mkdtempSync(join(tmpdir(), 'rc-workspace-'))
  git(workspace, 'init', '-q')
  git(workspace, 'remote', 'add', 'origin', `file://${origin}`)
  git(workspace, 'fetch', '-q', '--no-tags', '--depth=1', 'origin', `+${sha}:${ref}`)
  git(workspace, 'checkout', '-q', '--detach', ref)
  return workspace
}

/** The checkout and payload a job sees on `event`. */
export function checkoutFor(
  event: string,
  github: GitHubStandIn,
  pullRequest: PullRequestChange = 'contributors'
): Checkout {
  const remote = remoteWithPullRequest(github, pullRequest)
  const repository = { name: REPO, full_name: `${OWNER}/${REPO}` }
  switch (event) {
    case 'pull_request':
      return {
        workspace: shallowCheckout(remote.origin, remote.mergeSha, 'refs/remotes/pull/1/merge'),
        eventPath: pullRequestEvent(remote, { number: 1 }),
        github: { ref: 'refs/pull/1/merge', sha: remote.mergeSha }
      }
    case 'push': {
      const example = webhookExample('push')
      return {
        workspace: shallowCheckout(remote.origin, remote.baseSha, 'refs/remotes/origin/main'),
        eventPath: writeEvent({
          ...example,
          ref: 'refs/heads/main',
          after: remote.baseSha,
          repository: { ...example.repository, ...repository }
        }),
        github: { ref: 'refs/heads/main', sha: remote.baseSha }
      }
    }
    default:
      throw new Error(`the workflow runner has no checkout for "${event}" events; add one`)
  }
}
