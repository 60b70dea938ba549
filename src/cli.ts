import { parseArgs } from 'node:util'
import type { CliIo } from './cli/io.js'
import { validateCommand } from './cli/validate.js'
import { VERSION } from './version.js'

const USAGE = `Usage: rubric-council <command> [options]

Commands:
  validate [FILE...]   Check rubric files (default .github/rubric.md); exit 0 if all are valid, 1 if not

Options:
  -h, --help           Show this help
  -v, --version        Show the version

The rubric format is described in docs/rubric.md.`

/** The CLI's composition root: parses arguments and hands over to a command. Returns the exit code. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' }
      }
    })
  } catch (error) {
    io.stderr(`rubric-council: ${error instanceof Error ? error.message : String(error)}`)
    io.stderr(USAGE)
    return 2
  }
  const [command, ...rest] = parsed.positionals
  if (parsed.values.version) {
    io.stdout(VERSION)
    return 0
  }
  if (parsed.values.help || command === undefined || command === 'help') {
    ;(command === undefined && !parsed.values.help ? io.stderr : io.stdout)(USAGE)
    return command === undefined && !parsed.values.help ? 2 : 0
  }
  switch (command) {
    case 'validate':
      return validateCommand(rest, io)
    default:
      io.stderr(`rubric-council: unknown command "${command}"`)
      io.stderr(USAGE)
      return 2
  }
}
