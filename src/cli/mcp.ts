import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'
import { toJsonReport } from '../report/json.js'
import { renderFeedback } from '../report/feedback.js'
import { DEFAULT_RUBRIC_PATH } from '../rubric/defaults.js'
import { maskSecrets, secretValues } from '../util/secrets.js'
import { VERSION } from '../version.js'
import { checkHere, type CheckRequest } from './check.js'
import { checkRubricSet } from './check-rubrics.js'
import type { Evaluation } from '../engine/evaluation.js'
import { combinedEntry, worstFirst, worstVerdict, type RubricOutcome } from '../publish/rubrics.js'
import { EXIT_CODE } from '../verdict/outcome.js'
import { isWithin, type CliIo } from './io.js'
import { validateCommand } from './validate.js'

// `rubric-council mcp`: the Model Context Protocol server (docs/agent-loop.md#mcp). stdout is the
// protocol's: everything the commands say goes to stderr, which clients show as the server's log.

const CHECK_INPUT = {
  rubric: z
    .string()
    .optional()
    .describe(
      `The rubric file, in this repository (default: ${DEFAULT_RUBRIC_PATH}, or with several rubrics in .github/rubrics/ each that the change touches)`
    ),
  checker: z
    .string()
    .optional()
    .describe('Rubric sugar instead of a file: "agent: <text>" lines and commands, one a line'),
  models: z
    .string()
    .optional()
    .describe('Judges as provider:model, comma-separated (default: the rubric’s)')
}

const CHECK_OUTPUT = {
  verdict: z.enum(['PASS', 'FAIL', 'UNCLEAR']),
  exit_code: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  recommendation: z.enum(['ACCEPT', 'RETRY', 'TERMINATE']),
  summary: z.string(),
  reasons: z.array(z.object({ code: z.string(), message: z.string() })),
  gates: z.array(
    z.object({
      rubric: z.string().optional().describe('With several rubrics, whose gate it is'),
      command: z.string(),
      status: z.enum(['pass', 'fail', 'error', 'timeout']),
      exit_code: z.number().nullable(),
      output: z.string()
    })
  ),
  criteria: z.array(
    z.object({
      rubric: z.string().optional(),
      id: z.string(),
      required: z.boolean(),
      status: z.string(),
      votes: z.array(
        z.object({ judge: z.string(), verdict: z.string().nullable(), reasoning: z.string() })
      )
    })
  ),
  findings: z.array(
    z.object({
      rubric: z.string().optional(),
      severity: z.string(),
      title: z.string(),
      path: z.string().nullable(),
      line: z.number().nullable(),
      evidence: z.string(),
      judge: z.string()
    })
  ),
  feedback: z.string().describe('What to fix, as Markdown: the same feedback `loop` gives a doer'),
  rubric_hash: z.string().nullable(),
  rubric_review: z
    .object({
      source: z.enum(['base', 'head']),
      note: z.string().nullable(),
      changes: z.array(z.object({ text: z.string(), weakens: z.boolean() })),
      weakened: z.boolean()
    })
    .nullable()
    .describe(
      "Which rubric graded: the base's (as the required check), or the working tree's; how the working tree's differs"
    ),
  rubrics: z
    .array(
      z.object({
        name: z.string(),
        check_run: z.string(),
        path: z.string(),
        verdict: z.enum(['PASS', 'FAIL', 'UNCLEAR', 'NOT_APPLICABLE'])
      })
    )
    .optional()
    .describe('With several rubrics (docs/rubric.md#several-rubrics): each one, as its check run')
}

type CheckOutput = z.infer<z.ZodObject<typeof CHECK_OUTPUT>>

/** One rubric's check as the tool gives it; `rubric` names it among several. */
function checkOutput(evaluation: Evaluation, rubric?: string): CheckOutput {
  const report = toJsonReport(evaluation, 'terminal')
  const of = rubric === undefined ? {} : { rubric }
  return {
    verdict: report.verdict,
    exit_code: report.exit_code,
    recommendation: report.recommendation,
    summary: report.summary,
    reasons: [...report.reasons],
    gates: report.gates.map(g => ({
      ...of,
      command: g.command,
      status: g.status,
      exit_code: g.exit_code,
      output: [g.output.head, g.output.tail].filter(Boolean).join('\n…\n')
    })),
    criteria: report.criteria.map(c => ({
      ...of,
      id: c.id,
      required: c.required,
      status: c.status,
      votes: c.votes.map(v => ({ judge: v.judge, verdict: v.verdict, reasoning: v.reasoning }))
    })),
    findings: report.findings.map(f => ({ ...of, ...f })),
    feedback: renderFeedback(evaluation),
    rubric_hash: report.rubric.hash,
    rubric_review:
      report.rubric_review === null
        ? null
        : {
            source: report.rubric_review.source,
            note: report.rubric_review.note,
            changes: [...report.rubric_review.changes],
            weakened: report.rubric_review.weakened
          }
  }
}

/** Several rubrics' checks as one: the worst verdict, and every rubric's gates, criteria, feedback. */
function setOutput(outcomes: readonly RubricOutcome[]): CheckOutput {
  const judged = worstFirst(outcomes).flatMap(o =>
    o.evaluation ? [{ o, out: checkOutput(o.evaluation, o.name) }] : []
  )
  const verdict = worstVerdict(outcomes)
  return {
    verdict,
    exit_code: EXIT_CODE[verdict],
    recommendation: judged[0]?.out.recommendation ?? 'ACCEPT',
    summary: combinedEntry(outcomes, 1, '', undefined, new Date()).summary,
    reasons: judged.flatMap(({ o, out }) =>
      out.reasons.map(r => ({ code: r.code, message: `${o.name}: ${r.message}` }))
    ),
    gates: judged.flatMap(j => j.out.gates),
    criteria: judged.flatMap(j => j.out.criteria),
    findings: judged.flatMap(j => j.out.findings),
    feedback: judged
      .filter(j => j.out.verdict !== 'PASS')
      .map(({ o, out }) => `## ${o.name} (${o.path})\n\n${out.feedback}`)
      .join('\n\n'),
    rubric_hash: combinedEntry(outcomes, 1, '', undefined, new Date()).rubricHash,
    // Each rubric's own is in its part of the feedback; the source is the same for all.
    rubric_review: judged.find(j => j.out.rubric_review !== null)?.out.rubric_review ?? null,
    rubrics: outcomes.map(o => ({
      name: o.name,
      check_run: o.checkName,
      path: o.path,
      verdict: o.evaluation?.verdict.verdict ?? 'NOT_APPLICABLE'
    }))
  }
}

const VALIDATE_INPUT = {
  rubric: z
    .string()
    .optional()
    .describe(
      `The rubric file, in this repository (default: ${DEFAULT_RUBRIC_PATH} and every rubric in .github/rubrics/)`
    )
}

const VALIDATE_OUTPUT = {
  valid: z.boolean(),
  messages: z.array(z.string()).describe('What validate said: the problems, each with file:line')
}

/** A tool's failure before anything ran: said to the agent, as the CLI says it. */
function toolError(lines: readonly string[]): {
  isError: true
  content: { type: 'text'; text: string }[]
} {
  return { isError: true, content: [{ type: 'text', text: lines.join('\n') }] }
}

/** A path the agent names must be in the repository: the server reads nothing outside it. */
function outsideProblem(io: CliIo, path: string | undefined): string | undefined {
  return path === undefined || isWithin(io.cwd, path)
    ? undefined
    : `rubric-council: "${path}" is outside this repository (${io.cwd}); the server reads rubrics only from within it`
}

/**
 * What the user who starts the server decides, never the agent that calls it: the base (which
 * rubric is the base's, and which diff the judges read) and whether the working tree's rubric
 * grades. An agent that could name them could grade its work by a rubric it wrote.
 */
export interface ServerSettings {
  readonly base?: string
  readonly rubricSource?: 'base' | 'head'
}

/** The server, its tools registered on `io` (whose stdout is never written to). */
export function rubricCouncilServer(io: CliIo, settings: ServerSettings = {}): McpServer {
  const quiet: CliIo = { ...io, stdout: io.stderr, live: false }
  const secrets = secretValues(io.env)
  // Every string masked, as `check` masks what it shows: gate output and judges' words may quote one.
  const masked = <T>(value: T): T =>
    JSON.parse(
      JSON.stringify(value, (_, v: unknown) =>
        typeof v === 'string' ? maskSecrets(v, secrets) : v
      )
    ) as T
  const server = new McpServer({ name: 'rubric-council', version: VERSION })
  server.registerTool(
    'check',
    {
      title: 'Check the change against the rubric',
      description:
        'Runs the rubric’s gates (commands, on this machine) and asks its judges about the diff ' +
        'from the base, as the required check does, with the rubric the base branch has (an edit ' +
        'of the rubric in the working tree does not change the verdict; rubric_review says how it ' +
        'differs). PASS means done; otherwise fix what the feedback says and check again.',
      inputSchema: CHECK_INPUT,
      outputSchema: CHECK_OUTPUT
    },
    async input => {
      const outside = outsideProblem(io, input.rubric)
      if (outside !== undefined) return toolError([outside])
      const { rubric, checker, models } = input
      const request: CheckRequest = {
        ...settings,
        ...(rubric !== undefined && { rubric }),
        ...(checker !== undefined && { checker }),
        ...(models !== undefined && { models })
      }
      // Several rubrics, and none named: each that the change touches, as the required checks.
      const several = await checkRubricSet(request, quiet)
      if (several?.ok === false) return toolError(several.problem)
      const checked = several === undefined ? await checkHere(request, quiet) : undefined
      if (checked?.ok === false) return toolError(checked.problem)
      const output = masked(
        checked === undefined ? setOutput(several?.value ?? []) : checkOutput(checked.value)
      )
      return {
        structuredContent: output,
        content: [
          {
            type: 'text',
            text: `${output.verdict} (exit ${output.exit_code}) · ${output.summary}\n\n${output.feedback}`
          }
        ]
      }
    }
  )
  server.registerTool(
    'validate',
    {
      title: 'Validate a rubric',
      description: 'Checks a rubric file for problems without running anything.',
      inputSchema: VALIDATE_INPUT,
      outputSchema: VALIDATE_OUTPUT
    },
    async input => {
      const outside = outsideProblem(io, input.rubric)
      if (outside !== undefined) return toolError([outside])
      const messages: string[] = []
      const said: CliIo = { ...quiet, stdout: l => messages.push(l), stderr: l => messages.push(l) }
      // No rubric named: the main one and every rubric in .github/rubrics/, as `validate` does.
      const code = await validateCommand(input.rubric === undefined ? [] : [input.rubric], said)
      const output = { valid: code === 0, messages }
      return {
        structuredContent: output,
        content: [{ type: 'text', text: messages.join('\n') }]
      }
    }
  )
  return server
}

/** `rubric-council mcp`: serves on stdin and stdout until the client closes stdin. */
export async function mcpCommand(io: CliIo, settings: ServerSettings = {}): Promise<number> {
  const server = rubricCouncilServer(io, settings)
  const closed = new Promise<void>(done => {
    process.stdin.once('end', done)
  })
  await server.connect(new StdioServerTransport())
  await closed
  await server.close()
  return 0
}
