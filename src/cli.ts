import { terminalText, type CliIo } from './cli/io.js'
import {
  commandHelp,
  mainHelp,
  parseCommandArgs,
  unknownCommand,
  USAGE_ERROR,
  type CommandSpec
} from './cli/args.js'
import { CALIBRATE_VALUES, calibrateCommand } from './cli/calibrate.js'
import { CALIBRATE_SPEC } from './cli/calibrate-spec.js'
import { checkCommand } from './cli/check.js'
import { checkRubrics } from './cli/check-rubrics.js'
import { CHECK_SPEC } from './cli/check-spec.js'
import { INIT_SPEC } from './cli/init-spec.js'
import { VALIDATE_SPEC } from './cli/validate-spec.js'
import { initCommand } from './cli/init.js'
import { loopCommand } from './cli/loop.js'
import { LOOP_SPEC, MCP_SPEC, RUBRIC_SPEC, SESSIONS_SPEC } from './cli/loop-spec.js'
import { rubricCommand, sessionsCommand } from './cli/sessions.js'
import { validateCommand } from './cli/validate.js'
import { mcpCommand } from './cli/mcp.js'
import { RUBRIC_SOURCES } from './local/place.js'
import { VERSION } from './version.js'

const COMMANDS: readonly CommandSpec[] = [
  CHECK_SPEC,
  VALIDATE_SPEC,
  INIT_SPEC,
  CALIBRATE_SPEC,
  LOOP_SPEC,
  SESSIONS_SPEC,
  RUBRIC_SPEC,
  MCP_SPEC
]

/** The CLI's composition root: parses arguments and hands over to a command. Returns the exit code. */
export async function main(argv: readonly string[], given: CliIo): Promise<number> {
  // What the reports print is shown, never obeyed by the terminal (`terminalText`).
  const io: CliIo = {
    ...given,
    stdout: line => {
      given.stdout(terminalText(line))
    }
  }
  const usageError = (message: string, help: string): number => {
    io.stderr(`rubric-council: ${message} (${help})`)
    return USAGE_ERROR
  }
  const [first, ...args] = argv
  if (first === '--version' || first === '-v') {
    io.stdout(VERSION)
    return 0
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    const topic = COMMANDS.find(c => c.name === args[0])
    io.stdout(topic ? commandHelp(topic) : mainHelp(COMMANDS))
    return 0
  }
  if (first === undefined) {
    io.stderr(mainHelp(COMMANDS))
    return USAGE_ERROR
  }
  const spec = COMMANDS.find(c => c.name === first)
  if (spec === undefined) {
    return first.startsWith('-')
      ? usageError(
          `unknown option "${first}"; options follow the command`,
          'see rubric-council --help'
        )
      : usageError(unknownCommand(first, COMMANDS), 'see rubric-council --help')
  }
  const read = parseCommandArgs(
    spec,
    args,
    COMMANDS.filter(c => c !== spec)
  )
  if (!read.ok) return usageError(read.problem, `see rubric-council ${spec.name} --help`)
  const parsed = read.value
  if (parsed.help) {
    io.stdout(commandHelp(spec))
    return 0
  }
  const value = (name: string): string | undefined => {
    const v = parsed.values[name]
    return typeof v === 'string' ? v : undefined
  }
  const rubricSource = value('rubric-source')
  if (rubricSource !== undefined && !(RUBRIC_SOURCES as readonly string[]).includes(rubricSource)) {
    return usageError(
      `--rubric-source "${rubricSource}": expected ${RUBRIC_SOURCES.join(' or ')}`,
      `see rubric-council ${spec.name} --help`
    )
  }
  const source = rubricSource === undefined ? {} : { rubricSource: rubricSource as 'base' | 'head' }
  switch (spec) {
    case CHECK_SPEC: {
      const [rubric, checker, json, markdown, models, base] = [
        'rubric',
        'checker',
        'json',
        'markdown',
        'models',
        'base'
      ].map(value)
      const options = {
        ...(rubric !== undefined && { rubric }),
        ...(checker !== undefined && { checker }),
        ...(json !== undefined && { json }),
        ...(markdown !== undefined && { markdown }),
        ...(models !== undefined && { models }),
        ...(base !== undefined && { base }),
        ...source,
        dryRun: parsed.values['dry-run'] === true
      }
      // Several rubrics, and none named: each that applies (docs/rubric.md#several-rubrics).
      return (await checkRubrics(options, io)) ?? checkCommand(options, io)
    }
    case CALIBRATE_SPEC: {
      const values = Object.fromEntries(
        CALIBRATE_VALUES.flatMap(name => {
          const v = value(name)
          return v === undefined ? [] : [[name, v] as const]
        })
      )
      return calibrateCommand(
        { ...values, gates: parsed.values.gates === true, force: parsed.values.force === true },
        io
      )
    }
    case LOOP_SPEC: {
      const [doer, rubric, checker, maxIterations, models, base, json] = [
        'doer',
        'rubric',
        'checker',
        'max-iterations',
        'models',
        'base',
        'json'
      ].map(value)
      return loopCommand(
        {
          ...(doer !== undefined && { doer }),
          ...(rubric !== undefined && { rubric }),
          ...(checker !== undefined && { checker }),
          ...(maxIterations !== undefined && { maxIterations }),
          ...(models !== undefined && { models }),
          ...(base !== undefined && { base }),
          ...source,
          ...(json !== undefined && { json })
        },
        io
      )
    }
    case SESSIONS_SPEC:
      return sessionsCommand(io)
    case RUBRIC_SPEC:
      return rubricCommand(parsed.positionals, io)
    case MCP_SPEC: {
      const base = value('base')
      return mcpCommand(io, { ...(base !== undefined && { base }), ...source })
    }
    case INIT_SPEC:
      return initCommand(
        {
          force: parsed.values.force === true,
          forks: parsed.values.forks === true,
          target: parsed.values.target === true,
          calibrate: parsed.values.calibrate === true,
          rubrics: parsed.values.rubrics === true
        },
        io
      )
    default:
      return validateCommand(parsed.positionals, io)
  }
}
