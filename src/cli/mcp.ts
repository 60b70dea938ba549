import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'
import { CHECK_OUTPUT, checkOutput, setOutput } from '../publish/check-output.js'
import { DEFAULT_RUBRIC_PATH } from '../rubric/defaults.js'
import { maskSecrets, secretValues } from '../util/secrets.js'
import { VERSION } from '../version.js'
import { checkHere, type CheckRequest } from './check.js'
import { checkRubricSet } from './check-rubrics.js'
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
