import { parse } from 'yaml'
import { jobRunsOn } from './workflow-runner.js'

/**
 * What the split layout promises, checked on a workflow's text (docs/security.md, "Where the gates
 * run"): the pull request's code runs only in a job that holds no secret and a read-only token, and
 * the job that holds the keys or a write token runs none of it. Returns the broken rules, one line
 * each; none when the workflow keeps them. For the fork layout, check each of its two files.
 *
 * The bot's workflow (on `issue_comment` and `push`) holds a write token and starts for anyone's
 * comment: its job runs only the action, checks out nothing, and reads no secret. Its healing job,
 * which only the schedule starts, holds the provider keys: it too runs only the action and checks
 * out nothing.
 *
 * On `pull_request_target` (the `--target` layout) a job runs with the base's secrets for anyone's
 * pull request: it checks out only the base (no `ref:`), and runs no gates (docs/security.md).
 */

interface Step {
  readonly uses?: unknown
  readonly run?: unknown
  readonly with?: Record<string, unknown>
}

interface Job {
  readonly if?: string | boolean
  readonly permissions?: unknown
  readonly secrets?: unknown
  readonly steps?: readonly Step[]
}

const GATES_ACTION = 'rubric-council/rubric-council/gates@'
const COUNCIL_ACTION = 'rubric-council/rubric-council@'

/**
 * A step that runs the project's code, or prepares to: a shell step, a local action (from the
 * checkout), a toolchain set-up (which reads the project's files and may install its hooks), or the
 * gates themselves.
 */
function runsProjectCode(step: Step): boolean {
  if (step.run !== undefined) return true
  const uses = typeof step.uses === 'string' ? step.uses : ''
  return (
    uses.startsWith('./') ||
    /^(actions\/setup-|pnpm\/action-setup@|ruby\/setup-ruby@|oven-sh\/setup-bun@)/.test(uses) ||
    uses.startsWith(GATES_ACTION)
  )
}

/**
 * An expression that reads the secrets context: `secrets.NAME`, `secrets['NAME']`,
 * `toJSON(secrets)`. GitHub sends a job only the secrets its expressions name, or all of them for
 * the last two.
 */
const mentionsSecrets = (value: unknown): boolean =>
  /\$\{\{[^}]*\bsecrets\b/i.test(JSON.stringify(value ?? null))

/** A job's permissions as scope → level, its own or the workflow's; undefined: the token's default. */
function permissionsOf(job: Job, workflow: Record<string, unknown>): unknown {
  return job.permissions ?? workflow.permissions
}

/** Why a job can read a secret or write with its token; none when it cannot. */
function privileges(job: Job, workflow: Record<string, unknown>): string[] {
  const why: string[] = []
  // `secrets: inherit` hands a reusable workflow every secret.
  if (mentionsSecrets(job) || job.secrets !== undefined) why.push('it reads secrets')
  const permissions = permissionsOf(job, workflow)
  if (permissions === undefined) why.push('its token has the default permissions')
  else if (typeof permissions === 'string') {
    if (permissions !== 'read-all') why.push(`its token is ${permissions}`)
  } else if (typeof permissions === 'object' && permissions !== null) {
    const scopes = permissions as Record<string, unknown>
    for (const [scope, level] of Object.entries(scopes))
      if (level === 'write') why.push(`${scope}: write`)
    if (scopes.actions === 'read') why.push('actions: read')
  }
  return why
}

function checkouts(job: Job): Step[] {
  return (job.steps ?? []).filter(
    s => typeof s.uses === 'string' && s.uses.startsWith('actions/checkout@')
  )
}

function stepName(step: Step): string {
  if (typeof step.uses === 'string') return `uses: ${step.uses}`
  return `run: ${String(step.run).split('\n')[0] ?? ''}`
}

/** The events a workflow listens to, whichever of the three forms `on:` takes. */
function eventsOf(workflow: Record<string, unknown>): string[] {
  const on = workflow.on
  if (typeof on === 'string') return [on]
  if (Array.isArray(on)) return on.map(String)
  return typeof on === 'object' && on !== null ? Object.keys(on) : []
}

/** Events on which any commenter, or any pusher, starts the workflow with the base's secrets. */
const BOT_EVENTS = ['issue_comment', 'push']

export function layoutViolations(text: string): string[] {
  const workflow = parse(text) as Record<string, unknown>
  const jobs = (workflow.jobs ?? {}) as Record<string, Job>
  const problems: string[] = []
  const botEvents = eventsOf(workflow).filter(e => BOT_EVENTS.includes(e))

  const permissions = workflow.permissions
  if (
    typeof permissions !== 'object' ||
    permissions === null ||
    Object.keys(permissions).length > 0
  )
    problems.push(`top-level permissions are ${JSON.stringify(permissions)}, not {}`)
  if (mentionsSecrets(Object.entries(workflow).filter(([key]) => key !== 'jobs')))
    problems.push('the workflow reads secrets outside its jobs')

  for (const [id, job] of Object.entries(jobs)) {
    const steps = job.steps ?? []
    const why = privileges(job, workflow)
    if (why.length > 0) {
      for (const step of steps.filter(runsProjectCode))
        problems.push(`job ${id} (${why.join(', ')}) runs code: ${stepName(step)}`)
    }
    const runsGates = steps.some(s => typeof s.uses === 'string' && s.uses.startsWith(GATES_ACTION))
    if (id === 'gates' || runsGates) {
      if (mentionsSecrets(job)) problems.push(`job ${id} runs the gates and reads secrets`)
      // The pull request's code runs only inside the gates action, after its code is loaded: a
      // step before it that runs that code (an install) could rewrite the action's files in the
      // runner's actions folder, and a step after it (an upload) could be rewritten.
      const at = steps.findIndex(s => typeof s.uses === 'string' && s.uses.startsWith(GATES_ACTION))
      for (const step of steps.slice(0, Math.max(at, 0))) {
        if (typeof step.uses !== 'string' || step.uses.startsWith('./'))
          problems.push(`job ${id} runs code before the gates action: ${stepName(step)}`)
        // A set-up action's package-manager cache runs the package manager in the checkout (setup-
        // node runs `pnpm store path`, which loads the pull request's .pnpmfile.cjs, or Yarn 1,
        // which hands over to its .yarnrc's yarn-path): the pull request's code, before the gates
        // action. setup-node turns one on by itself for a package.json that names npm.
        const inputs = step.with ?? {}
        if ('cache' in inputs)
          problems.push(
            `job ${id} caches a package manager before the gates action: ${stepName(step)}`
          )
        if (
          typeof step.uses === 'string' &&
          step.uses.startsWith('actions/setup-node@') &&
          inputs['package-manager-cache'] !== false
        )
          problems.push(
            `job ${id} leaves setup-node's package-manager cache on before the gates action: ${stepName(step)}`
          )
      }
      for (const step of at === -1 ? [] : steps.slice(at + 1))
        problems.push(`job ${id} has a step after the gates action: ${stepName(step)}`)
      const perms = permissionsOf(job, workflow)
      if (JSON.stringify(perms) !== JSON.stringify({ contents: 'read' }))
        problems.push(
          `job ${id} runs the gates with permissions ${JSON.stringify(perms)}, not { contents: read }`
        )
    }
    const runsCouncil = steps.some(
      s => typeof s.uses === 'string' && s.uses.startsWith(COUNCIL_ACTION)
    )
    // Started by the schedule alone (its `if:` says so): no commenter or pusher starts it.
    const runsOn = (event: string): boolean =>
      jobRunsOn({ steps: [], ...(job.if !== undefined && { if: job.if }) }, event)
    const scheduleOnly =
      runsOn('schedule') && eventsOf(workflow).every(e => e === 'schedule' || !runsOn(e))
    if (scheduleOnly && runsCouncil) {
      for (const step of steps.filter(s => s.uses === undefined))
        problems.push(`job ${id} (on schedule) has a step that is not uses: ${stepName(step)}`)
      for (const step of checkouts(job))
        problems.push(`job ${id} (on schedule) checks out code: ${stepName(step)}`)
      continue
    }
    const bot = botEvents.length > 0 && (id === 'bot' || runsCouncil)
    if (bot) {
      const on = botEvents.join(', ')
      for (const step of steps.filter(s => s.uses === undefined))
        problems.push(`job ${id} (on ${on}) has a step that is not uses: ${stepName(step)}`)
      for (const step of checkouts(job))
        problems.push(`job ${id} (on ${on}) checks out code: ${stepName(step)}`)
      if (mentionsSecrets(job) || job.secrets !== undefined)
        problems.push(`job ${id} (on ${on}) reads secrets`)
      continue
    }
    if (eventsOf(workflow).includes('pull_request_target')) {
      for (const step of checkouts(job).filter(s => s.with?.ref !== undefined))
        problems.push(
          `job ${id} (on pull_request_target) checks out ref: ${String(step.with?.ref)}, not the base`
        )
      if (runsGates) problems.push(`job ${id} (on pull_request_target) runs the gates`)
    }
    if (id === 'council' || runsCouncil) {
      for (const step of steps.filter(s => s.uses === undefined))
        problems.push(`job ${id} holds the keys and has a step that is not uses: ${stepName(step)}`)
    }
    if (id === 'gates' || runsGates || id === 'council' || runsCouncil) {
      if (checkouts(job).length === 0) problems.push(`job ${id} has no checkout`)
      for (const step of checkouts(job))
        if (step.with?.['persist-credentials'] !== false)
          problems.push(`job ${id} checks out without persist-credentials: false`)
    }
  }
  return problems
}
