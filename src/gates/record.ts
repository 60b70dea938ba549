import { z } from 'zod'
import { isRecord } from '../util/is-record.js'
import type { GateResult } from './types.js'
import { failed, ok, type Result } from '../util/result.js'

/** @2 added `setup`: the commands the sub-action ran before the gates (its `setup` input). */
const GATES_SCHEMA = 'rubric-council/gates@2'

/** The file the gates sub-action's results travel in. */
export const GATES_FILE = 'rubric-council-gates.json'

/**
 * The artifact of the results of one attempt of a run. An artifact's name can be used once in a
 * run, attempts included (a re-run's upload of the same name is refused with 409 Conflict), and
 * the bot re-verifies a pull request by re-running its review run: each attempt records its own.
 */
export function gatesArtifact(attempt: number): string {
  return `rubric-council-gates-${String(attempt)}`
}

/** The most a results file may weigh: a rubric's gates with their excerpts take far less. */
export const MAX_RECORD_BYTES = 4 * 1024 * 1024

/**
 * What the gates sub-action records: which pull request, commit and rubric the gates ran for, and
 * their results. It is written by a job that ran the pull request's code, so the reader treats it
 * as a claim: checked against the review's own pull request, commit and rubric, and against the
 * job's conclusion as GitHub recorded it (src/gates/recorded.ts).
 */
export interface GatesRecord {
  readonly repository: string
  readonly pullRequest: number
  readonly headSha: string
  /** The hash of the rubric whose gates ran; null when it was unusable. */
  readonly rubricHash: string | null
  /**
   * The setup commands (the sub-action's `setup` input: `npm ci`, …), run like gates before them;
   * each `command` as written in the input.
   */
  readonly setup: readonly GateResult[]
  readonly gates: readonly GateResult[]
  /**
   * With several rubrics (docs/rubric.md#several-rubrics), the gates of each other one that
   * applies, by its hash; `rubricHash` and `gates` are the first's.
   */
  readonly others?: readonly {
    readonly rubricHash: string
    readonly gates: readonly GateResult[]
  }[]
}

const Text = z.string().max(MAX_RECORD_BYTES)
const Gate = z.strictObject({
  command: Text,
  status: z.enum(['pass', 'fail', 'error', 'timeout']),
  exit_code: z.int().nullable(),
  duration_ms: z.number().nonnegative(),
  detail: Text.optional(),
  output: z.strictObject({
    head: Text,
    tail: Text,
    elided_bytes: z.int().nonnegative(),
    total_bytes: z.int().nonnegative()
  })
})
const Record = z.strictObject({
  schema: z.literal(GATES_SCHEMA),
  repository: z.string().max(200),
  pull_request: z.int().positive(),
  head_sha: z.string().regex(/^[0-9a-f]{40,64}$/),
  rubric_hash: z
    .string()
    .regex(/^[0-9a-f]{12}$/)
    .nullable(),
  setup: z.array(Gate).max(100),
  gates: z.array(Gate).max(1000),
  other_rubrics: z
    .array(
      z.strictObject({
        rubric_hash: z.string().regex(/^[0-9a-f]{12}$/),
        gates: z.array(Gate).max(1000)
      })
    )
    .max(100)
    .optional()
})

/** The results file's text (snake_case JSON, like the report). */
export function writeRecord(record: GatesRecord): string {
  const json: z.input<typeof Record> = {
    schema: GATES_SCHEMA,
    repository: record.repository,
    pull_request: record.pullRequest,
    head_sha: record.headSha,
    rubric_hash: record.rubricHash,
    setup: record.setup.map(gateJson),
    gates: record.gates.map(gateJson),
    ...(record.others !== undefined &&
      record.others.length > 0 && {
        other_rubrics: record.others.map(o => ({
          rubric_hash: o.rubricHash,
          gates: o.gates.map(gateJson)
        }))
      })
  }
  return `${JSON.stringify(json, null, 2)}\n`
}

function gateJson(g: GateResult): z.input<typeof Gate> {
  return {
    command: g.command,
    status: g.status,
    exit_code: g.exitCode,
    duration_ms: Math.round(g.durationMs),
    ...(g.detail !== undefined && { detail: g.detail }),
    output: {
      head: g.output.head,
      tail: g.output.tail,
      elided_bytes: g.output.elidedBytes,
      total_bytes: g.output.totalBytes
    }
  }
}

function gateResult(g: z.output<typeof Gate>): GateResult {
  return {
    command: g.command,
    status: g.status,
    exitCode: g.exit_code,
    durationMs: g.duration_ms,
    ...(g.detail !== undefined && { detail: g.detail }),
    output: {
      head: g.output.head,
      tail: g.output.tail,
      elidedBytes: g.output.elided_bytes,
      totalBytes: g.output.total_bytes
    }
  }
}

/** A results file read back, or what is wrong with it, in words for the report. */
export function readRecord(text: string): Result<GatesRecord> {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return failed('the results file is not JSON')
  }
  const schema = isRecord(json) ? json.schema : undefined
  if (
    typeof schema === 'string' &&
    schema !== GATES_SCHEMA &&
    schema.startsWith('rubric-council/gates@')
  ) {
    return failed(
      `the results file is a ${schema} record, but this action reads ${GATES_SCHEMA}: use the same version of the action and of its gates sub-action`
    )
  }
  const parsed = Record.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    return failed(
      `the results file is not a ${GATES_SCHEMA} record (${issue ? `${issue.path.join('.') || 'the file'}: ${issue.message}` : 'invalid'})`
    )
  }
  const r = parsed.data
  return ok({
    repository: r.repository,
    pullRequest: r.pull_request,
    headSha: r.head_sha,
    rubricHash: r.rubric_hash,
    setup: r.setup.map(gateResult),
    gates: r.gates.map(gateResult),
    ...(r.other_rubrics && {
      others: r.other_rubrics.map(o => ({
        rubricHash: o.rubric_hash,
        gates: o.gates.map(gateResult)
      }))
    })
  })
}
