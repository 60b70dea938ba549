import { existsSync, readFileSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { RUBRIC_SCHEMA_URL } from '../rubric/json-schema.js'
import { parseRubric } from '../rubric/parse.js'
import { USAGE_ERROR } from './args.js'
import { choosePin, type ActionPin, type PinFacts } from './action-pin.js'
import { readPinFacts } from './action-pin-facts.js'
import type { CliIo } from './io.js'
import { detectSetup, type ProjectSetup } from './init-setup.js'
import {
  BOT_WORKFLOW_FILE,
  botWorkflow,
  CALIBRATE_WORKFLOW_FILE,
  calibrateWorkflow,
  forksWorkflows,
  GATES_WORKFLOW_FILE,
  RUBRIC_FILE,
  splitWorkflow,
  targetWorkflow,
  WORKFLOW_FILE
} from './init-workflows.js'

/** The project's own test command, guessed from the files a toolchain leaves. */
export function detectTestCommand(cwd: string): string | undefined {
  const has = (file: string): boolean => existsSync(join(cwd, file))
  if (has('package.json')) return 'npm test'
  if (has('Cargo.toml')) return 'cargo test'
  if (has('go.mod')) return 'go test ./...'
  if (has('pyproject.toml') || has('setup.py') || has('requirements.txt')) return 'pytest'
  if (has('pom.xml')) return 'mvn -q test'
  if (has('Gemfile')) return 'bundle exec rake test'
  return undefined
}

/**
 * The reserve of the starter rubric. The workflows `init` writes pass two keys, OpenAI's and
 * Anthropic's: a council of two members, one per key (council/members.ts), which can split 1–1
 * on a must-have. The reserve casts the deciding extra vote then; with no third vendor's key, it
 * is a second model of one of the two vendors, another than its member. A reserve whose key is
 * not set is skipped (the split stays UNCLEAR).
 */
export const STARTER_RESERVE = 'openai:gpt-5.4'

/**
 * The starter rubric: with the project's test command as its gate, if there is one. For the
 * `--target` layout (`gates: false`) it has none, and says why.
 */
export function starterRubric(
  testCommand: string | undefined,
  options: { readonly gates?: boolean } = {}
): string {
  const gates =
    options.gates === false
      ? '<!-- No gates: this rubric is graded on pull_request_target (rubric-council init --target), where no code of the pull request may run. For gates, use rubric-council init. -->\n\n'
      : testCommand
        ? `## Gates\n\n- \`${testCommand}\`\n\n`
        : '<!-- Add gates: commands that must succeed, e.g. - `make test` -->\n\n'
  return `---
# yaml-language-server: $schema=${RUBRIC_SCHEMA_URL}
# The rubric pull requests are graded against. Format: docs/rubric.md of Rubric Council.
thresholds: { pass: 0.8, fail: 0.6, confidence: 0.7 }
# The judges are one model per provider key the workflow passes. When they are not agreed on a
# must-have, the reserve casts an extra vote (docs/verdict.md of Rubric Council).
council:
  reserve: [${STARTER_RESERVE}]
---

# Pull request rubric

${gates}## Criteria

- correct: The change does what its description says, and handles errors and edge cases
- tested: New or changed behaviour is covered by tests that would fail without the change
- safe: No secrets, injection risks or unsafe defaults are introduced

## Nice to Have

- docs: User-facing changes are documented

## Notes

Describe here what the judges should know about this repository (not scored).
`
}

/**
 * Why the rubric at `RUBRIC_FILE` in `cwd` cannot be paired with the `--target` layout: it has
 * gates. None when there is no rubric yet (the starter has no gates) or it has none; a rubric that
 * does not parse is the action's (and \`rubric-council validate\`'s) to report.
 */
export function targetRubricProblem(cwd: string): string | undefined {
  let text: string
  try {
    text = readFileSync(join(cwd, RUBRIC_FILE), 'utf8')
  } catch {
    return undefined
  }
  const parsed = parseRubric({ text, path: RUBRIC_FILE })
  const gates = parsed.ok ? parsed.value.gates : []
  const first = gates[0]
  if (first === undefined) return undefined
  const count = `${gates.length} gate${gates.length === 1 ? '' : 's'}`
  return `--target is for a rubric without gates, and ${RUBRIC_FILE}:${first.line} has ${count} ("${first.command}"${gates.length > 1 ? ', …' : ''}), which would need the pull request's code to run: use init (or init --forks) for gates, or remove them`
}

/**
 * The files `init` writes into `cwd`, in the order it writes them: the starter rubric only when
 * there is no rubric (one that exists is never overwritten, `--force` or not), then the layout's
 * workflows.
 */
export function initFiles(
  cwd: string,
  options: { readonly forks: boolean; readonly target?: boolean },
  pin: ActionPin
): { readonly files: { path: string; text: string }[]; readonly setup: ProjectSetup } {
  const setup = detectSetup(cwd)
  // An existing rubric is the one the workflows are for: kept, whatever the layout or --force.
  const rubric = existsSync(join(cwd, RUBRIC_FILE))
    ? []
    : [
        {
          path: RUBRIC_FILE,
          text:
            options.target === true
              ? starterRubric(undefined, { gates: false })
              : starterRubric(detectTestCommand(cwd))
        }
      ]
  if (options.target === true) {
    return { files: [...rubric, { path: WORKFLOW_FILE, text: targetWorkflow(pin) }], setup }
  }
  if (!options.forks)
    return {
      files: [
        ...rubric,
        { path: WORKFLOW_FILE, text: splitWorkflow(setup, pin) },
        { path: BOT_WORKFLOW_FILE, text: botWorkflow(basename(WORKFLOW_FILE), pin) }
      ],
      setup
    }
  const { gates, council } = forksWorkflows(setup, pin)
  return {
    files: [
      ...rubric,
      { path: GATES_WORKFLOW_FILE, text: gates },
      { path: WORKFLOW_FILE, text: council },
      { path: BOT_WORKFLOW_FILE, text: botWorkflow(basename(GATES_WORKFLOW_FILE), pin) }
    ],
    setup
  }
}

/** What `.gitignore` ignores for the loop's sessions (docs/agent-loop.md). */
const SESSIONS_ROOT = '.rubric-council/'

/** `.gitignore`'s text with the sessions ignored; undefined when it already ignores them. */
export function withSessionsIgnored(text: string): string | undefined {
  const listed = text
    .split(/\r?\n/)
    .some(line =>
      ['.rubric-council', '.rubric-council/', '/.rubric-council', '/.rubric-council/'].includes(
        line.trim()
      )
    )
  if (listed) return undefined
  return `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${SESSIONS_ROOT}\n`
}

/** Every workflow some layout of `init` writes. */
const LAYOUT_WORKFLOWS = [WORKFLOW_FILE, GATES_WORKFLOW_FILE, BOT_WORKFLOW_FILE] as const

/**
 * `rubric-council init`: a starter rubric and the split-layout workflow, or with `--forks` the
 * two workflows of the fork layout, and the bot's workflow. Keeps a rubric that exists; refuses
 * to overwrite a workflow without `--force`, and writes nothing unless it can write them all.
 */
export async function initCommand(
  options: {
    readonly force: boolean
    readonly forks: boolean
    readonly target?: boolean
    readonly calibrate?: boolean
    readonly rubrics?: boolean
  },
  io: CliIo,
  pinFacts: () => PinFacts = readPinFacts
): Promise<number> {
  if (options.calibrate === true && (options.forks || options.target === true)) {
    io.stderr(
      'rubric-council: --calibrate writes only the calibration workflow: run it apart from --forks and --target (see rubric-council init --help)'
    )
    return USAGE_ERROR
  }
  if (options.rubrics === true) {
    if (options.forks || options.target === true || options.calibrate === true) {
      io.stderr(
        'rubric-council: --rubrics writes only the example rubric: run it apart from --forks, --target and --calibrate (see rubric-council init --help)'
      )
      return USAGE_ERROR
    }
    return writeExampleRubric(io)
  }
  if (options.target === true) {
    const problem = options.forks
      ? '--target and --forks are two layouts: choose one'
      : targetRubricProblem(io.cwd)
    if (problem !== undefined) {
      io.stderr(`rubric-council: ${problem} (see rubric-council init --help)`)
      return USAGE_ERROR
    }
  }
  // The workflows pin the action to this CLI's own commit: no tag may exist yet.
  const pin = choosePin(pinFacts())
  if (!pin.ok) {
    io.stderr(`rubric-council: ${pin.problem}`)
    return 1
  }
  if (options.calibrate === true) return writeCalibrateWorkflow(io, pin.value, options.force)
  const { files, setup } = initFiles(io.cwd, options, pin.value)
  const existing = files.filter(f => existsSync(join(io.cwd, f.path)))
  if (existing.length > 0 && !options.force) {
    for (const f of existing)
      io.stderr(`rubric-council: ${f.path} exists; not overwriting it (use --force)`)
    return 1
  }
  const keptRubric = !files.some(f => f.path === RUBRIC_FILE)
  if (keptRubric) io.stdout(`kept ${RUBRIC_FILE} as it is (init never overwrites a rubric)`)
  for (const f of files) {
    const full = join(io.cwd, f.path)
    await mkdir(dirname(full), { recursive: true })
    await writeFile(full, f.text)
    io.stdout(`wrote ${f.path}`)
  }
  const gitignore = join(io.cwd, '.gitignore')
  const ignored = withSessionsIgnored(
    existsSync(gitignore) ? await readFile(gitignore, 'utf8') : ''
  )
  if (ignored !== undefined) {
    await writeFile(gitignore, ignored)
    io.stdout(`added ${SESSIONS_ROOT} to .gitignore (the sessions of rubric-council loop)`)
  }
  // A workflow of another layout still runs on every pull request: say so, and delete nothing.
  for (const other of LAYOUT_WORKFLOWS) {
    if (!files.some(f => f.path === other) && existsSync(join(io.cwd, other))) {
      io.stdout(
        `${other} is not part of this layout and still runs: delete it (git rm ${other}) if init wrote it`
      )
    }
  }
  if (options.target === true) {
    io.stdout(targetAdvice(!keptRubric).join('\n'))
    return 0
  }
  const gatesFile = options.forks ? GATES_WORKFLOW_FILE : WORKFLOW_FILE
  const commit = options.forks
    ? [
        '  3. Commit the four files to the default branch: workflow_run runs the council workflow only',
        '     from there. Pull requests opened afterwards get the check; make "rubric-council" a',
        '     required status check in the branch protection rules.'
      ]
    : [
        '  3. Commit the three files; pull requests opened afterwards get the check. Make "rubric-council"',
        '     a required status check in the branch protection rules.',
        ...requireWorkflow(WORKFLOW_FILE)
      ]
  const bot = [
    `  4. ${BOT_WORKFLOW_FILE}, the bot, reviews open pull requests again when the`,
    '     rubric changes or a provider outage left them UNCLEAR (every half hour), and runs',
    '     "/council rerun", "/council accept <reason>" and "/council waive <criterion-id> <reason>"',
    '     from pull request comments by people with write access;',
    '     GitHub runs it for comments only from the default branch.'
  ]
  io.stdout(
    [
      '',
      'Next:',
      `  1. Edit ${RUBRIC_FILE}: the gates and criteria your pull requests must meet.`,
      setup.placeholder
        ? `     Then fill in the toolchain and the setup commands of the gates job in ${gatesFile}.`
        : `     Then check the toolchain and the setup commands of the gates job in ${gatesFile}.`,
      '  2. Add an OPENAI_API_KEY or ANTHROPIC_API_KEY secret to the repository (Settings → Secrets).',
      '     Only the council job reads it; the gates job, which runs the PR’s code, gets none.',
      ...commit,
      ...bot,
      `  Check the rubric any time: rubric-council validate ${RUBRIC_FILE}`
    ].join('\n')
  )
  return 0
}

/**
 * A job named like the check in a workflow a pull request adds posts a check run of the same name:
 * only a workflow required by a ruleset, which GitHub reads from the default branch, cannot be
 * imitated (docs/security.md#the-required-check-cannot-be-imitated).
 */
function requireWorkflow(file: string): string[] {
  return [
    '     A job of that name in a workflow a pull request adds could imitate the check: to rule it',
    '     out, require the workflow itself in a ruleset (Settings → Rules → Rulesets: "Require',
    `     workflows to pass before merging", ${file} on the default branch).`
  ]
}

/** What to do after `init --target`. */
function targetAdvice(wroteRubric: boolean): string[] {
  return [
    '',
    'Next:',
    wroteRubric
      ? `  1. Edit ${RUBRIC_FILE}: the criteria your pull requests must meet. Add no gates: this`
      : `  1. ${RUBRIC_FILE} is kept; the workflow grades by it. Add no gates to it: this`,
    '     workflow runs on pull_request_target, where no code of the pull request may run.',
    '  2. Add an OPENAI_API_KEY or ANTHROPIC_API_KEY secret to the repository (Settings → Secrets).',
    '  3. Commit to the default branch: pull_request_target runs the workflow and reads the rubric',
    '     from the base branch. Make "rubric-council" a required status check in the branch protection',
    '     rules. To review a pull request again, re-run its workflow run.',
    ...requireWorkflow(WORKFLOW_FILE),
    `  Check the rubric any time: rubric-council validate ${RUBRIC_FILE}`
  ]
}

/** `init --calibrate`: the calibration workflow alone, never over one that exists without --force. */
async function writeCalibrateWorkflow(io: CliIo, pin: ActionPin, force: boolean): Promise<number> {
  const full = join(io.cwd, CALIBRATE_WORKFLOW_FILE)
  if (existsSync(full) && !force) {
    io.stderr(`rubric-council: ${CALIBRATE_WORKFLOW_FILE} exists; not overwriting it (use --force)`)
    return 1
  }
  await mkdir(dirname(full), { recursive: true })
  await writeFile(full, calibrateWorkflow(pin))
  io.stdout(`wrote ${CALIBRATE_WORKFLOW_FILE}`)
  io.stdout(
    [
      '',
      'Next:',
      '  1. Write the calibration set, .github/rubric-calibration.yml: rubric-council calibrate --propose 20',
      '     proposes one from this history; review each case (docs/calibration.md).',
      '  2. Commit both; run it from Actions → Rubric Council calibration → Run workflow. The reports',
      '     are the run’s artifact, rubric-council-calibration, and the Markdown one its summary.'
    ].join('\n')
  )
  return 0
}

/** `init --rubrics`: where the example rubric among several goes. */
export const EXAMPLE_RUBRIC_FILE = '.github/rubrics/example.md'

/** The example rubric among several: scoped by `paths`, its check run named after it. */
export function exampleRubric(): string {
  return `---
# yaml-language-server: $schema=${RUBRIC_SCHEMA_URL}
# One rubric among several (docs/rubric.md#several-rubrics of Rubric Council). Its check run is
# "rubric-council / example" (the file's name, or \`name\`). It applies to a pull request that
# changes a file matching \`paths\` (the syntax of on.pull_request.paths: "*" stays within a
# folder, "**" crosses folders, a leading "!" takes files back out), and its judges see those
# files; otherwise its check run concludes success, "not applicable".
name: example
paths:
  - 'src/**'
  - '!src/**/*.generated.*'
---

# Example: the source

## Criteria

- tested: New or changed behaviour in src/ is covered by tests that would fail without the change
- compatible: Exported functions keep their signatures, or the change says why not

## Notes

What the judges should know about this part of the repository (not scored).
`
}

/** `init --rubrics`: the example rubric among several; an existing one is kept. */
async function writeExampleRubric(io: CliIo): Promise<number> {
  const full = join(io.cwd, EXAMPLE_RUBRIC_FILE)
  if (existsSync(full)) {
    io.stdout(`kept ${EXAMPLE_RUBRIC_FILE} as it is (init never overwrites a rubric)`)
  } else {
    await mkdir(dirname(full), { recursive: true })
    await writeFile(full, exampleRubric())
    io.stdout(`wrote ${EXAMPLE_RUBRIC_FILE}`)
  }
  io.stdout(
    [
      '',
      'Next:',
      `  1. Rename ${EXAMPLE_RUBRIC_FILE} after the part of the repository it is about, and set its paths`,
      '     and criteria. Every *.md and *.yml file in .github/rubrics/ is a rubric with its own check',
      '     run, "rubric-council / <name>"; .github/rubric.md, if kept, judges every pull request.',
      '  2. A changed file that no rubric judging the pull request matches counts against coverage:',
      "     keep .github/rubric.md as the catch-all, or list such files in a rubric's exclude.",
      '  3. Check them all: rubric-council validate (it also names paths that match no file).',
      '  4. Once merged, make each "rubric-council / <name>" a required status check: one that does',
      '     not apply concludes success, so it never waits.'
    ].join('\n')
  )
  return 0
}
