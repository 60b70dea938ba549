import type {
  IssueCommentEvent,
  PullRequestEvent,
  PushEvent,
  WorkflowDispatchEvent,
  WorkflowRunEvent
} from '@octokit/webhooks-types'
import { z } from 'zod'
import { failed, ok, type Result } from '../util/result.js'
import type { Actor } from './pull-request.js'

/**
 * The event payloads the action and the bot act on, each read once into its type where the
 * runner's file is read. A schema names only the fields used; the compiler checks that it reads
 * every payload @octokit/webhooks-types describes for its event (`reading`), and
 * __tests__/github/payload.test.ts that it reads the real ones of @octokit/webhooks-examples.
 */

/**
 * `schema`, once the compiler has checked that every payload `Event` of @octokit/webhooks-types
 * parses with it: a field it requires is one GitHub always sends, of the type it sends.
 */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- given, never inferred: what the schema is checked against
function reading<Event>() {
  return <S extends z.ZodType>(schema: S & ([Event] extends [z.input<S>] ? unknown : never)): S =>
    schema
}

/** Who caused the event; a sender the payload does not name readably is none. */
const Sender = z
  .object({ login: z.string(), type: z.string().optional() })
  .transform((user): Actor => ({ login: user.login, bot: user.type === 'Bot' }))
  .optional()
  .catch(undefined)

const IssueComment = reading<IssueCommentEvent>()(
  z.object({
    action: z.string(),
    issue: z.object({
      number: z.int().positive(),
      /** Present only when the issue is a pull request. */
      pull_request: z.looseObject({}).optional()
    }),
    comment: z.object({
      id: z.int().positive(),
      body: z.string(),
      /** When it was written: a command binds to the verdict given before it. */
      created_at: z.string(),
      user: z.object({ login: z.string(), type: z.string() })
    })
  })
)

const Push = reading<PushEvent>()(
  z.object({
    ref: z.string(),
    before: z.string(),
    after: z.string(),
    repository: z.object({ default_branch: z.string() })
  })
)

/**
 * GitHub sends no webhook for `schedule`: the runner writes `schedule` (the cron that fired) and
 * the workflow's path. Nothing in it is needed to heal, so an unreadable one is an empty one.
 */
const Schedule = z.object({ schedule: z.string().optional() }).catch({})

const PullRequestActivity = reading<PullRequestEvent>()(
  z.object({
    action: z.string(),
    /** Read by `pullRequestOf`, as the API's pull request is. */
    pull_request: z.unknown(),
    /** On `labeled` and `unlabeled`. */
    label: z.object({ name: z.string() }).optional(),
    sender: Sender
  })
)

const WorkflowDispatch = reading<WorkflowDispatchEvent>()(
  z.object({
    /** The workflow's inputs, as the person who started it gave them. */
    inputs: z.record(z.string(), z.unknown()).nullish(),
    sender: Sender
  })
)

const WorkflowRun = reading<WorkflowRunEvent>()(
  z.object({
    action: z.string(),
    workflow_run: z.object({
      id: z.int().positive(),
      head_sha: z.string(),
      /** GitHub Enterprise Server before 3.5 does not say: the first. */
      run_attempt: z.int().positive().default(1),
      conclusion: z.string().nullish(),
      /** The pull requests of the base repository whose head it ran on; none from a fork. */
      pull_requests: z.array(z.object({ number: z.int().positive() })),
      /** Its workflow's file (`.github/workflows/gates.yml`). */
      path: z.string().optional()
    }),
    sender: Sender
  })
)

/** Each event's schema, by the event's name. */
const PAYLOADS = {
  issue_comment: IssueComment,
  push: Push,
  schedule: Schedule,
  pull_request: PullRequestActivity,
  pull_request_target: PullRequestActivity,
  workflow_dispatch: WorkflowDispatch,
  workflow_run: WorkflowRun
} as const

export type EventName = keyof typeof PAYLOADS
/** The payload of `E`, as its schema reads it. */
export type Payload<E extends EventName> = z.output<(typeof PAYLOADS)[E]>

/**
 * The payload of an `event` (JSON the runner wrote, see `readPayload`) in its type, or what makes
 * it unreadable, naming the field and what it holds.
 */
export function parsePayload<E extends EventName>(event: E, payload: unknown): Result<Payload<E>> {
  const parsed = PAYLOADS[event].safeParse(payload)
  if (parsed.success) return ok(parsed.data as Payload<E>)
  const [issue] = parsed.error.issues
  const path = issue?.path ?? []
  const found = path.reduce<unknown>(
    (value, key) =>
      typeof value === 'object' && value !== null
        ? (value as Record<PropertyKey, unknown>)[key]
        : undefined,
    payload
  )
  const held = found === undefined ? 'nothing' : JSON.stringify(found)
  return failed(
    `the ${event} event payload cannot be read: ${path.length === 0 ? 'the payload' : path.map(String).join('.')} holds ${held.length > 80 ? `${held.slice(0, 80)}…` : held} (${issue?.message ?? 'not an object'})`
  )
}
