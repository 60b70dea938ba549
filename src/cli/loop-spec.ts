import { DOCS_URL, type CommandSpec } from './args.js'
import { BASE_OPTION, MODELS_OPTION, RUBRIC_SOURCE_OPTION } from './check-spec.js'

/** The iterations `loop` runs without an ACCEPT before it gives up. */
export const DEFAULT_MAX_ITERATIONS = 3
/** More is a runaway agent, not a loop. */
export const MAX_ITERATIONS_LIMIT = 50

/** `rubric-council loop`: its options, help and exit codes. */
export const LOOP_SPEC: CommandSpec = {
  name: 'loop',
  summary: 'Run a doer command, then the check, until the rubric passes',
  usage: 'loop --doer COMMAND [options]',
  description: [
    'Each iteration runs --doer through bash in this directory, then the check as `check` runs it',
    '(the rubric read again from disk, the judges told of the iterations before). ACCEPT ends the',
    'loop, TERMINATE stops it, RETRY hands the feedback to the next iteration. The session is kept in',
    '.rubric-council/sessions/<id>/.'
  ],
  options: [
    {
      name: 'doer',
      type: 'string',
      value: 'COMMAND',
      help: [
        'The command that does the work, e.g. a coding agent; it gets RUBRIC_COUNCIL_ITERATION,',
        'RUBRIC_COUNCIL_SESSION and, from the second iteration, RUBRIC_COUNCIL_FEEDBACK (required)'
      ]
    },
    {
      name: 'rubric',
      type: 'string',
      value: 'FILE',
      help: ['The rubric, read again each iteration (default: .github/rubric.md)']
    },
    {
      name: 'checker',
      type: 'string',
      value: 'TEXT',
      help: [
        'Rubric sugar instead of a file, written to the session’s rubric.md, which the loop then',
        'reads (default: none)'
      ]
    },
    {
      name: 'max-iterations',
      type: 'string',
      value: 'N',
      help: [`Give up after N iterations without ACCEPT (default: ${DEFAULT_MAX_ITERATIONS})`]
    },
    MODELS_OPTION,
    BASE_OPTION,
    RUBRIC_SOURCE_OPTION,
    {
      name: 'json',
      type: 'string',
      value: 'FILE',
      help: ['Also write the JSON report of the last check to FILE (default: none)']
    }
  ],
  positionals: false,
  example: 'rubric-council loop --doer ./fix.sh --checker "npm test" --max-iterations 3',
  exitCodes: [
    ['0', 'ACCEPT: the rubric passed'],
    ['1', 'TERMINATE, or no ACCEPT within --max-iterations'],
    ['2', 'a usage error or unmet precondition, or a report not written'],
    [
      '130',
      'interrupted by Ctrl-C (143: by SIGTERM): the doer or gates were ended; state.json keeps the finished iterations'
    ]
  ],
  docs: `${DOCS_URL}/agent-loop.md`
}

/** `rubric-council sessions`. */
export const SESSIONS_SPEC: CommandSpec = {
  name: 'sessions',
  summary: 'List the loop’s sessions in this directory, with their last verdict',
  usage: 'sessions',
  description: [
    'Lists .rubric-council/sessions/, oldest first: how each ended and its last check.'
  ],
  options: [],
  positionals: false,
  example: 'rubric-council sessions',
  exitCodes: [['0', 'listed (none is not an error)']],
  docs: `${DOCS_URL}/agent-loop.md#sessions`
}

/** `rubric-council rubric <session-id>`. */
export const RUBRIC_SPEC: CommandSpec = {
  name: 'rubric',
  summary: 'Open the rubric a loop session reads in $EDITOR',
  usage: 'rubric SESSION',
  description: [
    'Opens the rubric of a session in $VISUAL or $EDITOR (else vi); the next iteration reads it as',
    'saved.'
  ],
  options: [],
  positionals: true,
  example: 'rubric-council rubric 20250101-120000-1a2b3c',
  exitCodes: [
    ['0', 'the editor exited 0'],
    ['1', 'the editor failed'],
    ['2', 'no such session']
  ],
  docs: `${DOCS_URL}/agent-loop.md#sessions`
}

/** `rubric-council mcp`. */
export const MCP_SPEC: CommandSpec = {
  name: 'mcp',
  summary: 'Serve the tools check and validate to a coding agent (MCP, over stdio)',
  usage: 'mcp',
  description: [
    'A Model Context Protocol server on stdin and stdout, in this directory: the agent calls',
    '`check` for the verdict the required check gives, and `validate` for a rubric’s problems.'
  ],
  options: [BASE_OPTION, RUBRIC_SOURCE_OPTION],
  positionals: false,
  example: 'claude mcp add rubric-council -- npx rubric-council mcp',
  exitCodes: [['0', 'the client closed the connection']],
  docs: `${DOCS_URL}/agent-loop.md#mcp`
}
