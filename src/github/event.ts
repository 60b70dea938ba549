import { readFile } from 'node:fs/promises'
import { isRecord } from '../util/is-record.js'
import { actorOf, pullRequestOf, type Actor, type PullRequest } from './pull-request.js'

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

  if (event === 'pull_request' || event === 'pull_request_target') {
    const action = isRecord(payload) && typeof payload.action === 'string' ? payload.action : ''
    if (![...REVIEWED_ACTIONS, ...LABEL_ACTIONS].some(a => a === action)) {
      return {
        kind: 'skip',
        message: `nothing to review for ${event}.${action || '(no action)'}; the check runs on ${REVIEWED_ACTIONS.join(', ')}`
      }
    }
    const pr = pullRequestOf(isRecord(payload) ? payload.pull_request : undefined)
    if (!pr)
      return {
        kind: 'unsupported',
        message: `the ${event} event payload has no readable pull_request`
      }
    const label =
      isRecord(payload) && isRecord(payload.label) && typeof payload.label.name === 'string'
        ? payload.label.name
        : undefined
    return {
      kind: 'pull_request',
      event,
      owner,
      repo,
      pr,
      baseRubricOnly: event === 'pull_request_target',
      action,
      ...(label !== undefined && { label }),
      ...senderOf(payload)
    }
  }

  if (event === 'workflow_dispatch') {
    const inputs = isRecord(payload) && isRecord(payload.inputs) ? payload.inputs : {}
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
      event,
      owner,
      repo,
      pr,
      baseRubricOnly: false,
      action: '',
      ...senderOf(payload)
    }
  }

  if (event === 'workflow_run') return workflowRunContext(sources, payload, owner, repo)

  return {
    kind: 'unsupported',
    message: `this action reviews pull requests; the "${event || 'unknown'}" event has none. Run it on pull_request, pull_request_target, workflow_dispatch with a pull-request number, or workflow_run after the gates workflow; on push, issue_comment and schedule it is the PR bot (docs/pr-bot.md)`
  }
}

/**
 * workflow_run: the council half of the fork layout, after the gates workflow ran on the pull
 * request. The payload lists the pull request only when it is not from a fork; otherwise the
 * number the gates recorded is used, and either way it counts only if the pull request's head
 * (from the API) is the commit the triggering run ran on.
 */
async function workflowRunContext(
  sources: ContextSources,
  payload: unknown,
  owner: string,
  repo: string
): Promise<RunContext> {
  const run = isRecord(payload) && isRecord(payload.workflow_run) ? payload.workflow_run : undefined
  const action = isRecord(payload) && typeof payload.action === 'string' ? payload.action : ''
  if (run === undefined) {
    return { kind: 'unsupported', message: 'the workflow_run event payload has no workflow_run' }
  }
  if (action !== 'completed') {
    return {
      kind: 'skip',
      message: `nothing to review for workflow_run.${action || '(no action)'}; the check runs on completed`
    }
  }
  if (run.conclusion === 'cancelled' || run.conclusion === 'skipped') {
    return {
      kind: 'skip',
      message: `the triggering run was ${run.conclusion}: nothing to review`
    }
  }
  const runId = run.id
  const headSha = run.head_sha
  const attempt = typeof run.run_attempt === 'number' ? run.run_attempt : 1
  if (typeof runId !== 'number' || typeof headSha !== 'string') {
    return { kind: 'unsupported', message: 'the workflow_run payload has no run id or head commit' }
  }
  const listed = Array.isArray(run.pull_requests)
    ? run.pull_requests.find(isRecord)?.number
    : undefined
  const number =
    typeof listed === 'number' ? listed : await sources.recordedPullRequest(runId, attempt)
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
    trigger: { runId, attempt, ...(typeof run.path === 'string' && { path: run.path }) },
    action: 'completed',
    ...senderOf(payload)
  }
}

function senderOf(payload: unknown): { readonly sender?: Actor } {
  const sender = isRecord(payload) ? actorOf(payload.sender) : undefined
  return sender === undefined ? {} : { sender }
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
