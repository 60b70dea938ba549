import { readFile } from 'node:fs/promises'
import { parsePayload, type EventName, type Payload } from './payload.js'
import { pullRequestOf, type Actor, type PullRequest } from './pull-request.js'

/** What the evaluation needs from a pull request. */
export type PullRequestContext = Omit<PullRequest, 'state'>

/** The run, as far as the action is concerned. */
export type RunContext =
  | {
      readonly kind: 'pull_request'
      readonly event: string
      readonly owner: string
      readonly repo: string
      readonly pr: PullRequestContext
      /**
       * pull_request_target and workflow_run run with the base's secrets: the PR's own rubric is
       * never used.
       */
      readonly baseRubricOnly: boolean
      /**
       * On workflow_run: the run that triggered this one, whose recorded gate results count, and
       * its workflow's file (`.github/workflows/gates.yml`), whose triggers are the pull request's.
       */
      readonly trigger?: {
        readonly runId: number
        readonly attempt: number
        readonly path?: string
      }
      /** The event's action (`opened`, `labeled`, …); '' where the event has none. */
      readonly action: string
      /** On `labeled` and `unlabeled`: the label's name. */
      readonly label?: string
      /** Who caused the event (the payload's `sender`), when it says. */
      readonly sender?: Actor
    }
  /** A pull request event with nothing to review (e.g. closed): end quietly, saying so. */
  | { readonly kind: 'skip'; readonly message: string }
  /** Not a pull request at all: a misconfigured workflow, which must not pass silently. */
  | { readonly kind: 'unsupported'; readonly message: string }

/** A run that reviews a pull request. */
export type PullRequestRun = Extract<RunContext, { kind: 'pull_request' }>

export const REVIEWED_ACTIONS = ['opened', 'synchronize', 'reopened', 'ready_for_review'] as const
/**
 * Reviewed only when the label is the `skip-label` input's: putting it on skips the check,
 * taking it off runs it for real (the action decides, knowing its inputs).
 */
export const LABEL_ACTIONS = ['labeled', 'unlabeled'] as const

export interface ContextSources {
  readonly eventName: string | undefined
  readonly eventPath: string | undefined
  /** `owner/repo` */
  readonly repository: string | undefined
  /** The `pull-request` input, for workflow_dispatch. */
  readonly pullRequestInput: string
  /**
   * Reads a pull request through the API (workflow_dispatch carries only its number); undefined
   * when GitHub's answer is not one.
   */
  readonly getPullRequest: (
    owner: string,
    repo: string,
    number: number
  ) => Promise<PullRequest | undefined>
  /**
   * On workflow_run from a fork, the run's payload names no pull request: the number the gates
   * sub-action recorded in the triggering run, checked here against the API's head commit.
   */
  readonly recordedPullRequest: (runId: number, attempt: number) => Promise<number | undefined>
}

export async function readRunContext(sources: ContextSources): Promise<RunContext> {
  const event = sources.eventName ?? ''
  const payload = await readPayload(sources.eventPath)
  const [owner = '', repo = ''] = (sources.repository ?? '').split('/')
  if (owner === '' || repo === '') {
    return {
      kind: 'unsupported',
      message: 'GITHUB_REPOSITORY is not set; run this action in a GitHub Actions workflow'
    }
  }
  const where = { sources, owner, repo }
  if (event === 'pull_request' || event === 'pull_request_target') {
    return read(event, payload, p => pullRequestContext(where, event, p))
  }
  if (event === 'workflow_dispatch') {
    return read(event, payload, p => dispatchContext(where, p))
  }
  if (event === 'workflow_run') return read(event, payload, p => workflowRunContext(where, p))
  return {
    kind: 'unsupported',
    message: `this action reviews pull requests; the "${event || 'unknown'}" event has none. Run it on pull_request, pull_request_target, workflow_dispatch with a pull-request number, or workflow_run after the gates workflow; on push, issue_comment and schedule it is the PR bot (docs/pr-bot.md)`
  }
}

/** What every event's context is read with: the sources, and the repository. */
interface Where {
  readonly sources: ContextSources
  readonly owner: string
  readonly repo: string
}

/** The context `then` makes of `event`'s payload once read into its type; unsupported if it cannot be. */
async function read<E extends EventName>(
  event: E,
  payload: unknown,
  then: (payload: Payload<E>) => RunContext | Promise<RunContext>
): Promise<RunContext> {
  const parsed = parsePayload(event, payload)
  return parsed.ok ? then(parsed.value) : { kind: 'unsupported', message: parsed.problem }
}

function pullRequestContext(
  where: Where,
  event: 'pull_request' | 'pull_request_target',
  payload: Payload<'pull_request'>
): RunContext {
  const { action, label, sender } = payload
  if (![...REVIEWED_ACTIONS, ...LABEL_ACTIONS].some(a => a === action)) {
    return {
      kind: 'skip',
      message: `nothing to review for ${event}.${action || '(no action)'}; the check runs on ${REVIEWED_ACTIONS.join(', ')}`
    }
  }
  const pr = pullRequestOf(payload.pull_request)
  if (!pr) {
    return {
      kind: 'unsupported',
      message: `the ${event} event payload has no readable pull_request`
    }
  }
  return {
    kind: 'pull_request',
    event,
    owner: where.owner,
    repo: where.repo,
    pr,
    baseRubricOnly: event === 'pull_request_target',
    action,
    ...(label !== undefined && { label: label.name }),
    ...(sender !== undefined && { sender })
  }
}

/** workflow_dispatch: the pull request whose number the `pull-request` input gives, read through the API. */
async function dispatchContext(
  where: Where,
  payload: Payload<'workflow_dispatch'>
): Promise<RunContext> {
  const { sources, owner, repo } = where
  const inputs = payload.inputs ?? {}
  const raw = [
    sources.pullRequestInput,
    inputs['pull-request'],
    inputs.pull_request,
    inputs['pr-number']
  ]
    .map(v => (typeof v === 'string' || typeof v === 'number' ? String(v).trim() : ''))
    .find(v => v !== '')
  const number = Number(raw)
  if (raw === undefined || !Number.isInteger(number) || number <= 0) {
    return {
      kind: 'unsupported',
      message: `workflow_dispatch needs the pull request's number: set the action's pull-request input (got ${JSON.stringify(raw ?? '')})`
    }
  }
  const pr = await sources.getPullRequest(owner, repo, number)
  if (!pr) return { kind: 'unsupported', message: `pull request #${number} could not be read` }
  return {
    kind: 'pull_request',
    event: 'workflow_dispatch',
    owner,
    repo,
    pr,
    baseRubricOnly: false,
    action: '',
    ...(payload.sender !== undefined && { sender: payload.sender })
  }
}

/**
 * workflow_run: the council half of the fork layout, after the gates workflow ran on the pull
 * request. The payload lists the pull request only when it is not from a fork; otherwise the
 * number the gates recorded is used, and either way it counts only if the pull request's head
 * (from the API) is the commit the triggering run ran on.
 */
async function workflowRunContext(
  where: Where,
  payload: Payload<'workflow_run'>
): Promise<RunContext> {
  const { sources, owner, repo } = where
  const { action, workflow_run: run } = payload
  if (action !== 'completed') {
    return {
      kind: 'skip',
      message: `nothing to review for workflow_run.${action || '(no action)'}; the check runs on completed`
    }
  }
  if (run.conclusion === 'cancelled' || run.conclusion === 'skipped') {
    return { kind: 'skip', message: `the triggering run was ${run.conclusion}: nothing to review` }
  }
  const { id: runId, head_sha: headSha, run_attempt: attempt } = run
  const number = run.pull_requests[0]?.number ?? (await sources.recordedPullRequest(runId, attempt))
  if (number === undefined) {
    return {
      kind: 'unsupported',
      message: `the triggering run ${runId} names no pull request, and recorded no gate results that do: run the council workflow on workflow_run of the gates workflow, which runs on pull_request`
    }
  }
  const pr = await sources.getPullRequest(owner, repo, number)
  if (!pr) return { kind: 'unsupported', message: `pull request #${number} could not be read` }
  if (pr.headSha !== headSha) {
    return {
      kind: 'skip',
      message: `pull request #${number} is now at ${pr.headSha.slice(0, 7)}, not at ${headSha.slice(0, 7)} where the triggering run ran: the run for the newer commit reviews it`
    }
  }
  return {
    kind: 'pull_request',
    event: 'workflow_run',
    owner,
    repo,
    pr,
    baseRubricOnly: true,
    trigger: { runId, attempt, ...(run.path !== undefined && { path: run.path }) },
    action: 'completed',
    ...(payload.sender !== undefined && { sender: payload.sender })
  }
}

/** The event's payload as the runner wrote it; undefined when there is none or it is unreadable. */
export async function readPayload(path: string | undefined): Promise<unknown> {
  if (path === undefined || path === '') return undefined
  try {
    return JSON.parse(await readFile(path, 'utf8'))
  } catch {
    return undefined
  }
}
