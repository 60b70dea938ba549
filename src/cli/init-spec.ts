import { DOCS_URL, type CommandSpec } from './args.js'

/** `rubric-council init`: its options, help and exit codes. */
export const INIT_SPEC: CommandSpec = {
  name: 'init',
  summary: 'Write a starter rubric and the workflows that run it',
  usage: 'init [options]',
  description: [
    'Writes a starter .github/rubric.md (an existing one is kept) and',
    '.github/workflows/rubric-council.yml: a gates job without secrets, then the council job;',
    'and the workflow of the pull request bot.'
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
    {
      name: 'calibrate',
      type: 'boolean',
      help: [
        'Write only .github/workflows/rubric-council-calibrate.yml: rubric-council calibrate on',
        'workflow_dispatch, its reports uploaded as an artifact (default: off)'
      ]
    },
    {
      name: 'rubrics',
      type: 'boolean',
      help: [
        'Also write .github/rubrics/example.md: a rubric scoped by paths, with its own check run',
        '"rubric-council / example", beside .github/rubric.md (default: off). Kept if it exists.',
        'Where .github/workflows/rubric-council.yml exists, writes the rubric alone and keeps the',
        'workflows as they are (they run it too), unless --force'
      ]
    },
    {
      name: 'force',
      type: 'boolean',
      help: [
        'Overwrite workflows that exist, to switch layouts (default: off). An existing rubric',
        'is always kept'
      ]
    }
  ],
  positionals: false,
  example: 'rubric-council init --forks',
  exitCodes: [
    ['0', 'the files were written'],
    ['1', 'a workflow exists (pass --force to overwrite it)'],
    ['2', 'a usage error, or --target with a rubric that has gates']
  ],
  docs: `${DOCS_URL}/getting-started.md`
}
