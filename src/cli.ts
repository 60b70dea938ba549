import { parseArgs } from 'node:util'
import type { CliIo } from './cli/io.js'
import { checkCommand } from './cli/check.js'
import { initCommand } from './cli/init.js'
import { validateCommand } from './cli/validate.js'
import { VERSION } from './version.js'

const USAGE = `Usage: rubric-council <command> [options]

Commands:
    check                Evaluate this directory against its rubric; exit 0 PASS, 1 FAIL, 2 UNCLEAR
  validate [FILE...]   Check rubric files (default .github/rubric.md); exit 0 if all are valid, 1 if not
  init                 Write a starter .github/rubric.md and .github/workflows/rubric-council.yml:
                       a gates job without secrets, then the council job


Options of check:
  --rubric FILE        The rubric (default .github/rubric.md)
  --checker TEXT       Rubric sugar instead of a file: "agent: <text>" lines and commands
  --json FILE          Also write the JSON report to FILE
  --markdown FILE      Also write the Markdown report to FILE ("-" prints it instead)
  --models LIST        Judges as provider:model, comma-separated (default: the rubric's, else
                       one per provider whose API key is set)
    --base REF           Diff from the merge base of REF and HEAD (default: the upstream, else main)
  --dry-run            Print the pull request comment the action would post

Options of init:
  --forks              Two workflows instead: the gates on pull_request (rubric-council-gates.yml),
                       the council on workflow_run, for pull requests from forks
  --force              Overwrite files that exist


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
        version: { type: 'boolean', short: 'v' },
        rubric: { type: 'string' },
        checker: { type: 'string' },
        json: { type: 'string' },
        markdown: { type: 'string' },
        models: { type: 'string' },
        base: { type: 'string' },
        'dry-run': { type: 'boolean' },
        force: { type: 'boolean' },
        forks: { type: 'boolean' }
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
  const { rubric, checker, json, markdown, models, base, force, forks } = parsed.values
  const dryRun = parsed.values['dry-run']
  const checkOnly = Object.entries({
    rubric,
    checker,
    json,
    markdown,
    models,
    base,
    'dry-run': dryRun
  }).find(([, v]) => v !== undefined)
  if (checkOnly && command !== 'check') {
    io.stderr(`rubric-council: --${checkOnly[0]} belongs to the check command`)
    return 2
  }
  const initOnly = Object.entries({ force, forks }).find(([, v]) => v !== undefined)
  if (initOnly && command !== 'init') {
    io.stderr(`rubric-council: --${initOnly[0]} belongs to the init command`)
    return 2
  }
  switch (command) {
    case 'check':
      if (rest.length > 0) {
        io.stderr(
          `rubric-council: check takes no arguments (got "${rest.join(' ')}"); use --rubric FILE`
        )
        return 2
      }
      return checkCommand(
        {
          ...(rubric !== undefined && { rubric }),
          ...(checker !== undefined && { checker }),
          ...(json !== undefined && { json }),
          ...(markdown !== undefined && { markdown }),
          ...(models !== undefined && { models }),
          ...(base !== undefined && { base }),
          dryRun: dryRun === true
        },
        io
      )
    case 'init':
      return initCommand({ force: force === true, forks: forks === true }, io)
    case 'validate':
      return validateCommand(rest, io)
    default:
      io.stderr(`rubric-council: unknown command "${command}"`)
      io.stderr(USAGE)
      return 2
  }
}
