import { DOCS_URL, type CommandSpec } from './args.js'
import { MODELS_OPTION } from './check-spec.js'

/** `rubric-council calibrate`: its options, help and exit codes. */
export const CALIBRATE_SPEC: CommandSpec = {
  name: 'calibrate',
  summary: 'Measure how far the council’s verdicts can be trusted, on known pull requests',
  usage: 'calibrate [options]',
  description: [
    'Judges each case of the calibration set (commits of this repository with the verdict they',
    'should get) --repeat times with the rubric’s council, and reports precision, recall and flip',
    'per criterion, and whether it can block. Gates are not run unless --gates is given.'
  ],
  options: [
    {
      name: 'set',
      type: 'string',
      value: 'FILE',
      help: ['The calibration set (default: .github/rubric-calibration.yml)']
    },
    {
      name: 'rubric',
      type: 'string',
      value: 'FILE',
      help: ['The rubric, read from the working tree (default: .github/rubric.md)']
    },
    {
      name: 'repeat',
      type: 'string',
      value: 'N',
      help: ['Judge each case N times, to measure flip (default: 3)']
    },
    MODELS_OPTION,
    {
      name: 'json',
      type: 'string',
      value: 'FILE',
      help: ['Write the JSON report to FILE (default: none)']
    },
    {
      name: 'markdown',
      type: 'string',
      value: 'FILE',
      help: [
        'Write the Markdown report to FILE; "-" prints it instead of the summary (default: none)'
      ]
    },
    {
      name: 'html',
      type: 'string',
      value: 'FILE',
      help: ['Write a self-contained HTML report to FILE (default: none)']
    },
    {
      name: 'gates',
      type: 'boolean',
      help: [
        'Also run the rubric’s gates, in a temporary checkout of each case’s head: its code',
        'runs on this machine (default: off; calibration measures the judges)'
      ]
    },
    {
      name: 'evidence-order',
      type: 'string',
      value: 'ORDER',
      help: [
        'The order of the files shown to the judges, as the action’s evidence-order input sets it:',
        'diff (the default) or least-recently-changed (a case’s commits are its pushes). Calibrate',
        'the same set under each to see what the order does to the verdicts'
      ]
    },
    {
      name: 'min-precision',
      type: 'string',
      value: 'SHARE',
      help: ['Precision of FAIL a criterion needs to block (default: 0.9)']
    },
    {
      name: 'max-flip',
      type: 'string',
      value: 'SHARE',
      help: ['Flip a criterion may have to block (default: 0.1)']
    },
    {
      name: 'min-labelled',
      type: 'string',
      value: 'N',
      help: ['Cases labelled PASS, and labelled FAIL, a criterion needs to block (default: 5)']
    },
    {
      name: 'record',
      type: 'string',
      value: '[FILE]',
      optionalValue: true,
      help: [
        'Also write the calibration record, per criterion, to FILE inside the repository',
        '(default: beside the rubric, .github/rubric-calibration.json, or',
        '.github/rubrics/<name>.calibration.json); not after an interruption'
      ]
    },
    {
      name: 'propose',
      type: 'string',
      value: 'N',
      help: [
        'Instead of calibrating, write a starting set to --set from the last N merged pull',
        'requests of this history (reverted ones expect FAIL) and, with GITHUB_TOKEN or GH_TOKEN,',
        'the waivers, acceptances and reverted merges of the last N closed pull requests of',
        'GITHUB_REPOSITORY (else the origin remote’s); every case unconfirmed: calibrate counts',
        'one only once a person sets its confirmed: true. Runs no judge'
      ]
    },
    {
      name: 'check-name',
      type: 'string',
      value: 'NAME',
      help: [
        'With --propose, the check-name the workflow gives the action, whose comment on each',
        'pull request holds its ledger (default: rubric-council)'
      ]
    },
    {
      name: 'comment-author',
      type: 'string',
      value: 'LOGIN',
      help: [
        'With --propose, the account the action comments as: the workflow token’s',
        'github-actions[bot] (the default), or a GitHub App’s <app-slug>[bot] when the workflow',
        'passes the app’s token as github-token'
      ]
    },
    {
      name: 'force',
      type: 'boolean',
      help: ['With --propose, overwrite a set that exists (default: off)']
    }
  ],
  positionals: false,
  example: 'rubric-council calibrate --repeat 3 --html calibration.html',
  exitCodes: [
    [
      '0',
      'the calibration ran (or --propose wrote the set, also when GitHub could not be read: stderr says why)'
    ],
    ['1', '--propose found nothing to propose, or the set exists (pass --force)'],
    [
      '2',
      'a usage error, an invalid set or rubric, a ref that does not resolve, or a report or the record not written'
    ],
    [
      '130',
      'interrupted by Ctrl-C (143: by SIGTERM): the gates were ended; the reports hold the runs that completed'
    ]
  ],
  docs: `${DOCS_URL}/calibration.md`
}
