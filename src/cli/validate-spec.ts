import { DOCS_URL, type CommandSpec } from './args.js'

/** `rubric-council validate`: its options, help and exit codes. */
export const VALIDATE_SPEC: CommandSpec = {
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
