import { closest } from '../rubric/similar.js'
import { failed, ok, type Result } from '../util/result.js'

/** Where the docs live: absolute, so a link still works after `npm link` or from a global install. */
export const DOCS_URL = 'https://github.com/rubric-council/rubric-council/blob/main/docs'

/** Usage errors (unknown command or option, a missing value, an unmet precondition) exit 2. */
export const USAGE_ERROR = 2

export interface OptionSpec {
  readonly name: string
  readonly type: 'string' | 'boolean'
  readonly short?: string
  /** The placeholder of a string option's value, as the help shows it: `FILE`, `REF`. */
  readonly value?: string
  /** A string option whose value may be left out: alone (`--record`), it is `true`. */
  readonly optionalValue?: boolean
  /** The help lines, the default included; the first is shown beside the option. */
  readonly help: readonly string[]
}

export interface CommandSpec {
  readonly name: string
  /** One line in the list of commands. */
  readonly summary: string
  /** The usage line after `rubric-council`. */
  readonly usage: string
  /** What the command does: one or two lines. */
  readonly description: readonly string[]
  readonly options: readonly OptionSpec[]
  /** Whether the command takes arguments (`validate FILE...`). */
  readonly positionals: boolean
  readonly example: string
  readonly exitCodes: readonly (readonly [code: string, meaning: string])[]
  readonly docs: string
}

const HELP_OPTION: OptionSpec = {
  name: 'help',
  type: 'boolean',
  short: 'h',
  help: ['Show this help']
}

interface CommandArgs {
  readonly values: Readonly<Record<string, string | boolean>>
  readonly positionals: readonly string[]
  readonly help: boolean
}

/** The arguments, or the mistake in them, said to the user. */
export type ParsedArgs = Result<CommandArgs>

/**
 * A command's arguments against its own options: `--name value`, `--name=value`, `-h`, and `--`
 * before arguments that start with a dash. `--help` anywhere wins over every mistake, so a user
 * who asks for help gets it. `others` names the commands an option belongs to instead.
 */
export function parseCommandArgs(
  spec: CommandSpec,
  args: readonly string[],
  others: readonly CommandSpec[] = []
): ParsedArgs {
  const options = [...spec.options, HELP_OPTION]
  const before = args.indexOf('--')
  const flags = before === -1 ? args : args.slice(0, before)
  if (flags.some(a => a === '--help' || a === '-h')) {
    return ok({ values: {}, positionals: [], help: true })
  }
  const values: Record<string, string | boolean> = {}
  const positionals: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ''
    if (arg === '--') {
      positionals.push(...args.slice(i + 1))
      break
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg)
      continue
    }
    const long = arg.startsWith('--')
    const [key, inline] = long ? splitInline(arg.slice(2)) : [arg.slice(1), undefined]
    const option = options.find(o => (long ? o.name === key : o.short === key))
    if (option === undefined) return failed(unknownOption(spec, arg, key, others))
    if (option.type === 'boolean') {
      if (inline !== undefined) {
        return failed(`option "--${option.name}" of ${spec.name} takes no value`)
      }
      values[option.name] = true
      continue
    }
    const next = args[i + 1]
    const value = inline ?? (next !== undefined && !isOption(next) ? next : undefined)
    if (value === undefined && option.optionalValue === true) {
      values[option.name] = true
      continue
    }
    if (value === undefined || value === '') {
      return failed(
        `option "--${option.name}" of ${spec.name} needs a value: --${option.name} ${option.value ?? 'VALUE'}`
      )
    }
    if (inline === undefined) i++
    values[option.name] = value
  }
  if (positionals.length > 0 && !spec.positionals) {
    return failed(
      `${spec.name} takes no arguments (got "${positionals.join(' ')}")${spec.name === 'check' ? '; use --rubric FILE' : ''}`
    )
  }
  return ok({ values, positionals, help: false })
}

function splitInline(text: string): [string, string | undefined] {
  const eq = text.indexOf('=')
  return eq === -1 ? [text, undefined] : [text.slice(0, eq), text.slice(eq + 1)]
}

/** `--json --markdown x`: `--markdown` is the next option, not the file. `-` is a value. */
function isOption(arg: string): boolean {
  return arg.startsWith('-') && arg !== '-'
}

function unknownOption(
  spec: CommandSpec,
  arg: string,
  key: string,
  others: readonly CommandSpec[]
): string {
  const owner = others.find(c => c.options.some(o => o.name === key))
  if (arg.startsWith('--') && owner !== undefined) {
    return `--${key} belongs to the ${owner.name} command`
  }
  const names = [...spec.options, HELP_OPTION].map(o => `--${o.name}`)
  const suggestion = arg.startsWith('--') ? closest(`--${key}`, names) : undefined
  return `unknown option "${arg.startsWith('--') ? `--${key}` : arg}" for ${spec.name}${suggestion ? `; did you mean "${suggestion}"?` : ''}`
}

/** Two columns, the second aligned; continuation lines under it. */
function columns(rows: readonly (readonly [string, readonly string[]])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length)) + 3
  return rows.flatMap(([left, lines]) =>
    lines.map((line, i) => `  ${(i === 0 ? left : '').padEnd(width)}${line}`.trimEnd())
  )
}

function optionLabel(option: OptionSpec): string {
  const long = `--${option.name}${option.value ? ` ${option.value}` : ''}`
  return option.short ? `-${option.short}, ${long}` : long
}

/** `rubric-council <command> --help`. */
export function commandHelp(spec: CommandSpec): string {
  return [
    `Usage: rubric-council ${spec.usage}`,
    '',
    ...spec.description,
    '',
    'Options:',
    ...columns([...spec.options, HELP_OPTION].map(o => [optionLabel(o), o.help])),
    '',
    'Example:',
    `  ${spec.example}`,
    '',
    'Exit codes:',
    ...columns(spec.exitCodes.map(([code, meaning]) => [code, [meaning]])),
    '',
    `Docs: ${spec.docs}`
  ].join('\n')
}

/** `rubric-council --help`. */
export function mainHelp(commands: readonly CommandSpec[]): string {
  return [
    'Usage: rubric-council <command> [options]',
    '',
    'Grades the changes in this repository against a rubric: gates, then a council of LLM judges.',
    '',
    'Commands:',
    ...columns(commands.map(c => [c.name, [c.summary]])),
    '',
    'Options:',
    ...columns([
      ['-h, --help', ['Show this help']],
      ['-v, --version', ['Show the version']]
    ]),
    '',
    'Run "rubric-council <command> --help" for its options, an example and its exit codes.',
    `Docs: ${DOCS_URL}/getting-started.md`
  ].join('\n')
}

/** The command a mistyped one most likely meant. */
export function unknownCommand(command: string, commands: readonly CommandSpec[]): string {
  const suggestion = closest(
    command,
    commands.map(c => c.name)
  )
  return `unknown command "${command}"${suggestion ? `; did you mean "${suggestion}"?` : ''}`
}
