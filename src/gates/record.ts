import { z } from 'zod'
import type { GateResult } from './types.js'

export const GATES_SCHEMA = 'rubric-council/gates@1'

/** The artifact the gates sub-action's results travel in, and the file inside it. */
export const GATES_ARTIFACT = 'rubric-council-gates'
export const GATES_FILE = 'rubric-council-gates.json'

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
  readonly gates: readonly GateResult[]
}

const Text = z.string().max(MAX_RECORD_BYTES)
const Gate = z.object({
  command: Text,
  status: z.enum(['pass', 'fail', 'error', 'timeout']),
  exit_code: z.int().nullable(),
  duration_ms: z.number().nonnegative(),
  detail: Text.optional(),
  output: z.object({
    head: Text,
    tail: Text,
    elided_bytes: z.int().nonnegative(),
    total_bytes: z.int().nonnegative()
  })
})
const Record = z.object({
  schema: z.literal(GATES_SCHEMA),
  repository: z.string().max(200),
  pull_request: z.int().positive(),
  head_sha: z.string().regex(/^[0-9a-f]{40,64}$/),
  rubric_hash: z
    .string()
    .regex(/^[0-9a-f]{12}$/)
    .nullable(),
  gates: z.array(Gate).max(1000)
})

/** The results file's text (snake_case JSON, like the report). */
export function writeRecord(record: GatesRecord): string {
  const json: z.input<typeof Record> = {
    schema: GATES_SCHEMA,
    repository: record.repository,
    pull_request: record.pullRequest,
    head_sha: record.headSha,
    rubric_hash: record.rubricHash,
    gates: record.gates.map(g => ({
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
    }))
  }
  return `${JSON.stringify(json, null, 2)}\n`
}

/** A results file read back, or what is wrong with it, in words for the report. */
export function readRecord(
  text: string
):
  | { readonly ok: true; readonly record: GatesRecord }
  | { readonly ok: false; readonly problem: string } {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { ok: false, problem: 'the results file is not JSON' }
  }
  const parsed = Record.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    return {
      ok: false,
      problem: `the results file is not a ${GATES_SCHEMA} record (${issue ? `${issue.path.join('.') || 'the file'}: ${issue.message}` : 'invalid'})`
    }
  }
  const r = parsed.data
  return {
    ok: true,
    record: {
      repository: r.repository,
      pullRequest: r.pull_request,
      headSha: r.head_sha,
      rubricHash: r.rubric_hash,
      gates: r.gates.map(g => ({
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
      }))
    }
  }
}
