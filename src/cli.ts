import type { CliIo } from './cli/io.js'
import {
  commandHelp,
  DOCS_URL,
  mainHelp,
  parseCommandArgs,
  unknownCommand,
  USAGE_ERROR,
  type CommandSpec
} from './cli/args.js'
import { checkCommand } from './cli/check.js'
import { initCommand } from './cli/init.js'
import { validateCommand } from './cli/validate.js'
import { VERSION } from './version.js'

const CHECK: CommandSpec = {
  name: 'check',
  summary: 'Evaluate this repository’s changes against its rubric',
  usage: 'check [options]',
  description: [
    'Runs the rubric’s gates in this directory and asks the judges about the diff from the merge',
    'base of --base and HEAD (working-tree edits included); prints the verdict.'
  ],
  options: [
    {
      name: 'rubric',
      type: 'string',
      value: 'FILE',
      help: ['The rubric (default: .github/rubric.md)']
    },
    {
      name: 'checker',
      type: 'string',
      value: 'TEXT',
      help: [
        'Rubric sugar instead of a file: "agent: <text>" lines and commands',
        '(default: none)'
      ]
    },
    {
      name: 'json',
      type: 'string',
      value: 'FILE',
      help: ['Also write the JSON report to FILE (default: none)']
    },
    {
      name: 'markdown',
      type: 'string',
      value: 'FILE',
      help: ['Also write the Markdown report to FILE; "-" prints it instead (default: none)']
    },
    {
      name: 'models',
      type: 'string',
      value: 'LIST',
      help: [
        'Judges as provider:model, comma-separated (default: the rubric’s, else one per',
        'provider whose API key is set)'
      ]
    },
    {
      name: 'base',
      type: 'string',
      value: 'REF',
      help: [
        'Diff from the merge base of REF and HEAD (default: the upstream, else',
        'origin/main, main, origin/master, master)'
      ]
    },
    {
      name: 'dry-run',
      type: 'boolean',
      help: ['Print the pull request comment the action would post (default: off)']
    }
  ],
  positionals: false,
  example: 'rubric-council check --base main --json report.json',
  exitCodes: [
    ['0', 'PASS'],
    ['1', 'FAIL'],
    ['2', 'UNCLEAR'],
    ['2', 'a usage error or unmet precondition (nothing ran), or a report not written']
  ],
  docs: `${DOCS_URL}/rubric.md`
}

const VALIDATE: CommandSpec = {
  name: 'validate',
  summary: 'Check rubric files for mistakes, with file:line:column',
  usage: 'validate [options] [FILE...]',
  description: [
    'Checks each rubric file (default: .github/rubric.md) and prints its problems as',
    'file:line:column: error: message [rule].'
  ],
  options: [],
  positionals: true,
  example: 'rubric-council validate .github/rubric.md examples/*',
  exitCodes: [
    ['0', 'every file is a valid rubric'],
    ['1', 'a file is invalid or missing, or only folders were named'],
    ['2', 'a usage error']
  ],
  docs: `${DOCS_URL}/rubric.md`
}

const INIT: CommandSpec = {
  name: 'init',
  summary: 'Write a starter rubric and the workflows that run it',
  usage: 'init [options]',
  description: [
    'Writes a starter .github/rubric.md and .github/workflows/rubric-council.yml: a gates job',
    'without secrets, then the council job; and the workflow of the pull request bot.'
  ],
  options: [
    {
      name: 'forks',
      type: 'boolean',
      help: [
        'Two workflows instead: the gates on pull_request, the council on workflow_run, for',
        'pull requests from forks (default: off)'
      ]
    },
    {
      name: 'target',
      type: 'boolean',
      help: [
        'One workflow on pull_request_target instead, for a rubric without gates: the base branch',
        'checked out, no code of the pull request run, forks included (default: off). Keeps an',
        'existing rubric, and refuses one that has gates'
      ]
    },
    { name: 'force', type: 'boolean', help: ['Overwrite files that exist (default: off)'] }
  ],
  positionals: false,
  example: 'rubric-council init --forks',
  exitCodes: [
    ['0', 'the files were written'],
    ['1', 'a file exists (pass --force to overwrite it)'],
    ['2', 'a usage error, or --target with a rubric that has gates']
  ],
  docs: `${DOCS_URL}/getting-started.md`
}

const COMMANDS: readonly CommandSpec[] = [CHECK, VALIDATE, INIT]

/** The CLI's composition root: parses arguments and hands over to a command. Returns the exit code. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
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
  switch (spec) {
    case CHECK: {
      const [rubric, checker, json, markdown, models, base] = [
        'rubric',
        'checker',
        'json',
        'markdown',
        'models',
        'base'
      ].map(value)
      return checkCommand(
        {
          ...(rubric !== undefined && { rubric }),
          ...(checker !== undefined && { checker }),
          ...(json !== undefined && { json }),
          ...(markdown !== undefined && { markdown }),
          ...(models !== undefined && { models }),
          ...(base !== undefined && { base }),
          dryRun: parsed.values['dry-run'] === true
        },
        io
      )
    }
    case INIT:
      return initCommand(
        {
          force: parsed.values.force === true,
          forks: parsed.values.forks === true,
          target: parsed.values.target === true
        },
        io
      )
    default:
      return validateCommand(parsed.positionals, io)
  }
}
