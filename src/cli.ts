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

/** What a command is given, once its arguments are read against its options. */
interface CommandInput {
  /** A string option's value; undefined when not given. */
  readonly value: (name: string) => string | undefined
  readonly flag: (name: string) => boolean
  readonly positionals: readonly string[]
  /** `--rubric-source`, when given. */
  readonly source: { readonly rubricSource?: 'base' | 'head' }
}

/** The given values of string options, by the names the command's options take. */
function present<K extends string>(
  values: Readonly<Record<K, string | undefined>>
): Partial<Record<K, string>> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<
    Record<K, string>
  >
}

/** The commands, in the order the help lists them, and what runs each. */
const COMMANDS: readonly {
  readonly spec: CommandSpec
  readonly run: (input: CommandInput, io: CliIo) => Promise<number>
}[] = [
  {
    spec: CHECK_SPEC,
    run: async ({ value, flag, source }, io) => {
      const options = {
        ...present({
          rubric: value('rubric'),
          checker: value('checker'),
          json: value('json'),
          markdown: value('markdown'),
          models: value('models'),
          base: value('base')
        }),
        ...source,
        dryRun: flag('dry-run')
      }
      // Several rubrics, and none named: each that applies (docs/rubric.md#several-rubrics).
      return (await checkRubrics(options, io)) ?? checkCommand(options, io)
    }
  },
  { spec: VALIDATE_SPEC, run: ({ positionals }, io) => validateCommand(positionals, io) },
  {
    spec: INIT_SPEC,
    run: ({ flag }, io) =>
      initCommand(
        {
          force: flag('force'),
          forks: flag('forks'),
          target: flag('target'),
          calibrate: flag('calibrate'),
          rubrics: flag('rubrics')
        },
        io
      )
  },
  {
    spec: CALIBRATE_SPEC,
    run: ({ value, flag }, io) => {
      const values = present(
        Object.fromEntries(CALIBRATE_VALUES.map(name => [name, value(name)] as const))
      )
      // `--record` alone: the record goes beside the rubric.
      const record = value('record') ?? (flag('record') ? true : undefined)
      return calibrateCommand(
        {
          ...values,
          ...(record !== undefined && { record }),
          gates: flag('gates'),
          force: flag('force')
        },
        io
      )
    }
  },
  {
    spec: LOOP_SPEC,
    run: ({ value, source }, io) =>
      loopCommand(
        {
          ...present({
            doer: value('doer'),
            rubric: value('rubric'),
            checker: value('checker'),
            maxIterations: value('max-iterations'),
            models: value('models'),
            base: value('base'),
            json: value('json')
          }),
          ...source
        },
        io
      )
  },
  { spec: SESSIONS_SPEC, run: (_, io) => sessionsCommand(io) },
  { spec: RUBRIC_SPEC, run: ({ positionals }, io) => rubricCommand(positionals, io) },
  {
    spec: MCP_SPEC,
    run: ({ value, source }, io) =>
      mcpCommand(io, { ...present({ base: value('base') }), ...source })
  }
]

const SPECS = COMMANDS.map(c => c.spec)

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
    const topic = SPECS.find(c => c.name === args[0])
    io.stdout(topic ? commandHelp(topic) : mainHelp(SPECS))
    return 0
  }
  if (first === undefined) {
    io.stderr(mainHelp(SPECS))
    return USAGE_ERROR
  }
  const command = COMMANDS.find(c => c.spec.name === first)
  if (command === undefined) {
    return first.startsWith('-')
      ? usageError(
          `unknown option "${first}"; options follow the command`,
          'see rubric-council --help'
        )
      : usageError(unknownCommand(first, SPECS), 'see rubric-council --help')
  }
  const { spec } = command
  const read = parseCommandArgs(
    spec,
    args,
    SPECS.filter(c => c !== spec)
  )
  if (!read.ok) return usageError(read.problem, `see rubric-council ${spec.name} --help`)
  const { values, positionals, help } = read.value
  if (help) {
    io.stdout(commandHelp(spec))
    return 0
  }
  const value = (name: string): string | undefined => {
    const v = values[name]
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
  return command.run({ value, flag: name => values[name] === true, positionals, source }, io)
}
