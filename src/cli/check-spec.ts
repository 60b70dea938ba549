import { DOCS_URL, type CommandSpec, type OptionSpec } from './args.js'

/** `--models`, as `check`, `loop` and `calibrate` take it. */
export const MODELS_OPTION: OptionSpec = {
  name: 'models',
  type: 'string',
  value: 'LIST',
  help: [
    'Judges as provider:model, comma-separated (default: the rubric’s, else one per',
    'provider whose API key is set)'
  ]
}

/** `--base`, as `check` and `loop` take it. */
export const BASE_OPTION: OptionSpec = {
  name: 'base',
  type: 'string',
  value: 'REF',
  help: [
    'Diff from the merge base of REF and HEAD (default: the remote’s default branch',
    'origin/HEAD, else origin/main, main, origin/master, master)'
  ]
}

/** `--rubric-source`, as `check`, `loop` and `mcp` take it. */
export const RUBRIC_SOURCE_OPTION: OptionSpec = {
  name: 'rubric-source',
  type: 'string',
  value: 'WHERE',
  help: [
    'base: the rubric as the merge base with --base has it, which the required check grades',
    'by; head: the working tree’s, its gates included (default: base)'
  ]
}

/** `rubric-council check`: its options, help and exit codes. */
export const CHECK_SPEC: CommandSpec = {
  name: 'check',
  summary: 'Evaluate this repository’s changes against its rubric',
  usage: 'check [options]',
  description: [
    'Runs the rubric’s gates in this directory and asks the judges about the diff from the merge',
    'base of --base and HEAD (working-tree edits included); prints the verdict. The rubric is the',
    'base’s, as the required check reads it; a working tree’s that differs is said.'
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
      help: [
        'Write the full Markdown report to FILE; "-" prints it instead of the summary',
        '(default: a new file in the temporary directory, named on the last line)'
      ]
    },
    MODELS_OPTION,
    BASE_OPTION,
    RUBRIC_SOURCE_OPTION,
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
    ['2', 'a usage error or unmet precondition (nothing ran), or a report not written'],
    ['2', 'no change from the base: no gate ran and no judge was asked'],
    ['130', 'stopped by Ctrl-C (143: by SIGTERM): the running gates were ended; no verdict']
  ],
  docs: `${DOCS_URL}/rubric.md`
}
