import { readFile } from 'node:fs/promises'
import { isRecord } from '../util/is-record.js'

/** What the evaluation needs from a pull request. */
export interface PullRequestContext {
  readonly number: number
  readonly title: string
  readonly body: string
  readonly baseSha: string
  /** The base branch's name: its rubric is read at its current tip, not at `baseSha`. */
  readonly baseRef: string
  readonly headSha: string
}

/** The run, as far as the action is concerned. */
export type RunContext =
  | {
      readonly kind: 'pull_request'
      readonly event: string
      readonly owner: string
      readonly repo: string
      readonly pr: PullRequestContext
      /** pull_request_target runs with the base's secrets: the PR's own rubric is never used. */
      readonly baseRubricOnly: boolean
    }
  /** A pull request event with nothing to review (e.g. closed): end quietly, saying so. */
  | { readonly kind: 'skip'; readonly message: string }
  /** Not a pull request at all: a misconfigured workflow, which must not pass silently. */
  | { readonly kind: 'unsupported'; readonly message: string }

/** A run that reviews a pull request. */
export type PullRequestRun = Extract<RunContext, { kind: 'pull_request' }>

export const REVIEWED_ACTIONS = ['opened', 'synchronize', 'reopened', 'ready_for_review'] as const

export interface ContextSources {
  readonly eventName: string | undefined
  readonly eventPath: string | undefined
  /** `owner/repo` */
  readonly repository: string | undefined
  /** The `pull-request` input, for workflow_dispatch. */
  readonly pullRequestInput: string
  /** Reads a pull request through the API (workflow_dispatch carries only its number). */
  readonly getPullRequest: (owner: string, repo: string, number: number) => Promise<unknown>
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
    if (!(REVIEWED_ACTIONS as readonly string[]).includes(action)) {
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
    return {
      kind: 'pull_request',
      event,
      owner,
      repo,
      pr,
      baseRubricOnly: event === 'pull_request_target'
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
    const pr = pullRequestOf(await sources.getPullRequest(owner, repo, number))
    if (!pr) return { kind: 'unsupported', message: `pull request #${number} could not be read` }
    return { kind: 'pull_request', event, owner, repo, pr, baseRubricOnly: false }
  }

  return {
    kind: 'unsupported',
    message: `this action reviews pull requests; the "${event || 'unknown'}" event has none. Run it on pull_request, pull_request_target, or workflow_dispatch with a pull-request number`
  }
}

async function readPayload(path: string | undefined): Promise<unknown> {
  if (path === undefined || path === '') return undefined
  try {
    return JSON.parse(await readFile(path, 'utf8'))
  } catch {
    return undefined
  }
}

/** Fields are read defensively: the payload is data, not a contract. */
function pullRequestOf(pr: unknown): PullRequestContext | undefined {
  if (!isRecord(pr)) return undefined
  const base = isRecord(pr.base) ? pr.base.sha : undefined
  const baseRef = isRecord(pr.base) && typeof pr.base.ref === 'string' ? pr.base.ref : ''
  const head = isRecord(pr.head) ? pr.head.sha : undefined
  if (typeof base !== 'string' || typeof head !== 'string' || typeof pr.number !== 'number')
    return undefined
  return {
    number: pr.number,
    title: typeof pr.title === 'string' ? pr.title : '',
    body: typeof pr.body === 'string' ? pr.body : '',
    baseSha: base,
    baseRef,
    headSha: head
  }
}
