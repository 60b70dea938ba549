import { existsSync, readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { parseRubric } from '../rubric/parse.js'
import { USAGE_ERROR } from './args.js'
import type { CliIo } from './io.js'

export const RUBRIC_FILE = '.github/rubric.md'
/** The split layout's one workflow; in the fork layout, the council's workflow. */
export const WORKFLOW_FILE = '.github/workflows/rubric-council.yml'
/** The fork layout's gates workflow, and the name the council's `workflow_run` listens for. */
export const GATES_WORKFLOW_FILE = '.github/workflows/rubric-council-gates.yml'
export const GATES_WORKFLOW_NAME = 'Rubric Council gates'
/** The PR bot's workflow: reviews again on a rubric change, and runs `/council` commands. */
export const BOT_WORKFLOW_FILE = '.github/workflows/rubric-council-bot.yml'
export const BOT_WORKFLOW_NAME = 'Rubric Council bot'

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
# The rubric pull requests are graded against. Format: docs/rubric.md of Rubric Council.
thresholds: { pass: 0.8, fail: 0.6, confidence: 0.7 }
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
 * What the gates job needs before its gates: `steps`, the toolchain's set-up actions (YAML indented
 * for a job's `steps:`, or commented lines), and `commands`, the install commands the gates
 * sub-action runs itself (its `setup` input, lines indented for a block scalar). The commands run
 * the pull request's code (install scripts), so they are no `run:` step before the sub-action,
 * which could rewrite it (docs/security.md). `placeholder` is true when there is only a comment to
 * fill in.
 */
export interface ProjectSetup {
  readonly kind: 'node' | 'python' | 'other'
  readonly steps: string
  readonly commands: string
  readonly placeholder: boolean
}

/** Reads package.json, or nothing when it is missing or not JSON. */
function packageJson(cwd: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8'))
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/** The indentation of a line of the `setup: |` block in the gates step. */
const COMMAND = '            '

function nodeSetup(cwd: string): { steps: string; commands: string } {
  const has = (file: string): boolean => existsSync(join(cwd, file))
  const versionFile = ['.nvmrc', '.node-version'].find(has)
  const version = versionFile ? `node-version-file: ${versionFile}` : 'node-version: lts/*'
  const setupNode = (cache: string | undefined): string =>
    `      - uses: actions/setup-node@v5
        with:
          ${version}
${cache ? `          cache: ${cache}\n` : ''}`
  const commands = (...lines: string[]): string => lines.map(l => `${COMMAND}${l}\n`).join('')
  if (has('pnpm-lock.yaml')) {
    const pinned = typeof packageJson(cwd).packageManager === 'string'
    const pnpm = pinned
      ? '      - uses: pnpm/action-setup@v4 # the version in package.json\'s "packageManager"\n'
      : `      - uses: pnpm/action-setup@v4
        with:
          version: 10 # or name it in package.json's "packageManager", and drop this
`
    return {
      steps: `${pnpm}${setupNode('pnpm')}`,
      commands: commands('pnpm install --frozen-lockfile')
    }
  }
  if (has('yarn.lock')) {
    // Yarn 2 and later (a .yarnrc.yml) come through corepack; Yarn 1 is on the runner.
    return has('.yarnrc.yml')
      ? {
          steps: setupNode(undefined),
          commands: commands(
            '# Yarn 2+, through corepack, at the version package.json names',
            'corepack enable',
            'yarn install --immutable'
          )
        }
      : { steps: setupNode('yarn'), commands: commands('yarn install --frozen-lockfile') }
  }
  if (has('package-lock.json') || has('npm-shrinkwrap.json'))
    return { steps: setupNode('npm'), commands: commands('npm ci') }
  return {
    steps: setupNode(undefined),
    commands: commands('# no package-lock.json, which npm ci needs', 'npm install')
  }
}

function pythonSetup(cwd: string): { steps: string; commands: string } {
  const has = (file: string): boolean => existsSync(join(cwd, file))
  const version = has('.python-version')
    ? 'python-version-file: .python-version'
    : "python-version: '3.x'"
  const requirements = has('requirements.txt')
  return {
    steps: `      - uses: actions/setup-python@v5
        with:
          ${version}
${requirements ? '          cache: pip\n' : ''}`,
    commands: `${COMMAND}python -m pip install ${requirements ? '-r requirements.txt' : '-e .'}
${COMMAND}# and the tools your gates call when the dependencies lack them: python -m pip install pytest
`
  }
}

/** What to put in the placeholder, for the toolchains whose setup is not written out. */
const PLACEHOLDERS: readonly {
  readonly files: readonly string[]
  readonly steps: string
  readonly commands: string
}[] = [
  {
    files: ['go.mod'],
    steps: `      #   - uses: actions/setup-go@v5
      #     with:
      #       go-version-file: go.mod`,
    commands: `${COMMAND}# go mod download`
  },
  {
    files: ['Cargo.toml'],
    steps: `      #   (cargo is on ubuntu-latest; a rust-toolchain.toml pins the version)`,
    commands: `${COMMAND}# cargo fetch --locked`
  },
  {
    files: ['pom.xml', 'build.gradle', 'build.gradle.kts'],
    steps: `      #   - uses: actions/setup-java@v4
      #     with:
      #       distribution: temurin
      #       java-version: '21'`,
    commands: `${COMMAND}# mvn -q dependency:go-offline`
  },
  {
    files: ['Gemfile'],
    // Not bundler-cache: true, which runs bundle install (the Gemfile is code) in that step.
    steps: `      #   - uses: ruby/setup-ruby@v1`,
    commands: `${COMMAND}# bundle install`
  }
]

/** The gates job's set-up for the project in `cwd`: Node, Python, or a commented placeholder. */
export function detectSetup(cwd: string): ProjectSetup {
  const has = (file: string): boolean => existsSync(join(cwd, file))
  if (has('package.json'))
    return {
      kind: 'node',
      ...nodeSetup(cwd),
      placeholder: false
    }
  if (has('pyproject.toml') || has('setup.py') || has('requirements.txt'))
    return {
      kind: 'python',
      ...pythonSetup(cwd),
      placeholder: false
    }
  const known = PLACEHOLDERS.find(p => p.files.some(has))
  const steps =
    known?.steps ?? '      #   - uses: actions/setup-go@v5 (or setup-java, ruby/setup-ruby, ...)'
  return {
    kind: 'other',
    steps: `      # TODO: set up the toolchain your gates need, here; e.g.\n${steps}\n`,
    commands: `${COMMAND}# TODO: the commands that install what your gates need, one a line; e.g.
${known?.commands ?? `${COMMAND}# make deps`}
`,
    placeholder: true
  }
}

const ON_PULL_REQUEST = `on:
  pull_request:
    # No path filters: a required check that does not run stays pending forever.
    # The bot (rubric-council-bot.yml) reviews a pull request again by re-running its latest run
    # of this workflow, which keeps this event's ref, cache scope and read-only token. No
    # workflow_dispatch: a dispatched run would run the PR's code on the default branch's.
    types: [opened, synchronize, reopened, ready_for_review]

# Nothing by default: each job asks for what it needs.
permissions: {}
`

function gatesJob(setup: ProjectSetup): string {
  return `  gates:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    # No secrets and a read-only token: the gates run the PR's code, which may read this whole job.
    permissions:
      contents: read
    # Only actions before the gates step, and no step after it: the PR's code runs inside it, after
    # its own code is loaded, so it cannot rewrite it, nor a later step that would upload the results.
    steps:
      - uses: actions/checkout@v5
        with:
          persist-credentials: false # no token in .git/config for the PR's code to find
${setup.placeholder ? '' : '      # The toolchain the gates need.\n'}${setup.steps}      - uses: rubric-council/rubric-council/gates@v0
        with:
          # Run by the gates action like gates (they run the PR's install scripts), before them.
          setup: |
${setup.commands}        # It uploads the results itself, as the artifact rubric-council-gates-<attempt>.
`
}

function councilJob(split: boolean): string {
  const needs = split
    ? `    needs: gates
    # Failed gates are a verdict to post, not a reason to skip the council; a new push cancels it.
    if: \${{ !cancelled() }}
`
    : ''
  return `  council:
${needs}    runs-on: ubuntu-latest
    timeout-minutes: 30
    permissions:
      contents: read # the diff, and the rubric on the base branch
      pull-requests: write # the sticky comment
      checks: write # the check run
      actions: read # the gates job's conclusion and artifact, to check the recorded results
    # Only \`uses:\` steps: this job holds the keys and a write token, so it runs no code of the PR.
    steps:
      - uses: actions/checkout@v5
        with:
          fetch-depth: 0 # the history to diff from the merge base: read as data, never run
          persist-credentials: false
      - uses: rubric-council/rubric-council@v0
        with:
          gates: recorded # the gates job's results; this job runs no gate
        env:
          # One judge per provider whose key is set; a gates-only rubric needs none.
          OPENAI_API_KEY: \${{ secrets.OPENAI_API_KEY }}
          ANTHROPIC_API_KEY: \${{ secrets.ANTHROPIC_API_KEY }}
`
}

/** The split layout: one workflow, the gates in a job without secrets, the council in another. */
export function splitWorkflow(setup: ProjectSetup): string {
  return `# Two jobs: \`gates\` runs the PR's code holding no secret; \`council\` holds them and runs none of it.
name: Rubric Council

${ON_PULL_REQUEST}
# A new push cancels the review of the same pull request.
concurrency:
  group: rubric-council-\${{ github.event.pull_request.number }}
  cancel-in-progress: true

jobs:
${gatesJob(setup)}
${councilJob(true)}`
}

/**
 * The fork layout: the gates in a workflow on `pull_request` (a fork's pull request gets no secret
 * there), the council in one on `workflow_run`, which runs from the default branch with the secrets.
 */
export function forksWorkflows(setup: ProjectSetup): { gates: string; council: string } {
  return {
    gates: `# Fork layout, 1 of 2: the gates run the PR's code here, with no secret and a read-only token.
# rubric-council.yml, on workflow_run, reads their results and posts the verdict.
name: ${GATES_WORKFLOW_NAME}
# Names the pull request in the run's title, which the council workflow groups its runs by.
run-name: ${GATES_WORKFLOW_NAME}, pull request \${{ github.event.pull_request.number }}

${ON_PULL_REQUEST}
# A new push cancels the gates of the same pull request.
concurrency:
  group: rubric-council-gates-\${{ github.event.pull_request.number }}
  cancel-in-progress: true

jobs:
${gatesJob(setup)}`,
    council: `# Fork layout, 2 of 2: the council, with the keys, after rubric-council-gates.yml.
# workflow_run runs this file as it is on the default branch: a pull request cannot edit it.
name: Rubric Council

on:
  workflow_run:
    # Whatever the gates' conclusion: failed gates are a verdict to post.
    # A re-run of the gates (the bot's, on /council rerun or a rubric change) completes again too.
    workflows: [${GATES_WORKFLOW_NAME}]
    types: [completed]

# Nothing by default: the job asks for what it needs.
permissions: {}

# A newer run of the gates for the same pull request cancels the review of the older one. The
# gates run's title names the pull request: a fork's branch name may be any other's too.
concurrency:
  group: rubric-council-\${{ github.event.workflow_run.display_title }}
  cancel-in-progress: true

jobs:
${councilJob(false)}`
  }
}

/**
 * The PR bot: on a push that changes the rubric, and on `/council` comments on pull requests, the
 * action re-runs a pull request's latest run of `reviewWorkflow` (the split layout's workflow, or
 * the fork layout's gates).
 */
export function botWorkflow(reviewWorkflow: string): string {
  return `# The PR bot: reviews open pull requests again when the rubric changes, and runs /council
# commands from pull request comments. It runs no code of the PR and asks no judge.
name: ${BOT_WORKFLOW_NAME}

on:
  # The rubric changed: every open pull request based on the pushed branch is reviewed again.
  push:
    paths: [${RUBRIC_FILE}]
  # Commands: /council rerun, /council accept <reason>; the action checks the commenter may write.
  issue_comment:
    types: [created]

# Nothing by default: the job asks for what it needs.
permissions: {}

# No concurrency group: a command must not cancel another.

jobs:
  bot:
    # Pushes, and comments on pull requests that start with /council; nothing else starts the job.
    if: github.event_name == 'push' || (github.event.issue.pull_request && startsWith(github.event.comment.body, '/council'))
    runs-on: ubuntu-latest
    timeout-minutes: 10
    permissions:
      contents: read # the rubric, read through the API
      pull-requests: write # the open pull requests, and the 👀 reaction and reply to a command
      checks: write # the pending check of each pull request it reviews again, and /council accept
      actions: write # re-running a pull request's own review run
    # No checkout and no key: only the action, which reads through the API and asks no judge.
    steps:
      - uses: rubric-council/rubric-council@v0
        with:
          # The workflow that runs on pull_request: its latest run for the PR is re-run, in the PR's scope.
          review-workflow: ${reviewWorkflow}
`
}

/**
 * The one-workflow layout for a rubric without gates: one job on `pull_request_target`, which runs
 * the workflow as the base branch has it, with the secrets, for pull requests from forks too. It
 * checks out the base branch only (a repository for git to fetch the pull request's commits into,
 * as data) and runs no code of the pull request.
 */
export function targetWorkflow(): string {
  return `# One job, for a rubric without gates: it holds the keys and a write token, and runs no code of
# the PR. Only the base branch is checked out; the action reads the PR's commits as git objects.
name: Rubric Council

on:
  # The workflow as the base branch has it, with the secrets, for pull requests from forks too.
  pull_request_target:
    # No path filters: a required check that does not run stays pending forever.
    types: [opened, synchronize, reopened, ready_for_review]

# Nothing by default: the job asks for what it needs.
permissions: {}

# A new push cancels the review of the same pull request.
concurrency:
  group: rubric-council-\${{ github.event.pull_request.number }}
  cancel-in-progress: true

jobs:
  council:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    permissions:
      contents: read # the PR's commits, fetched as data, and the rubric on the base branch
      pull-requests: write # the sticky comment
      checks: write # the check run
    # Only \`uses:\` steps: this job holds the keys and a write token, so it runs no code of the PR.
    steps:
      # The base branch, this event's default: never give it a ref: of the pull request here.
      - uses: actions/checkout@v5
        with:
          persist-credentials: false
      # A rubric with gates is refused here (UNCLEAR invalid_input): they would need the PR's code.
      - uses: rubric-council/rubric-council@v0
        env:
          # One judge per provider whose key is set.
          OPENAI_API_KEY: \${{ secrets.OPENAI_API_KEY }}
          ANTHROPIC_API_KEY: \${{ secrets.ANTHROPIC_API_KEY }}
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
  const gates = parsed.ok ? parsed.rubric.gates : []
  const first = gates[0]
  if (first === undefined) return undefined
  const count = `${gates.length} gate${gates.length === 1 ? '' : 's'}`
  return `--target is for a rubric without gates, and ${RUBRIC_FILE}:${first.line} has ${count} ("${first.command}"${gates.length > 1 ? ', …' : ''}), which would need the pull request's code to run: use init (or init --forks) for gates, or remove them`
}

/** The files `init` writes into `cwd`, in the order it writes them. */
export function initFiles(
  cwd: string,
  options: { readonly forks: boolean; readonly target?: boolean }
): { readonly files: { path: string; text: string }[]; readonly setup: ProjectSetup } {
  const setup = detectSetup(cwd)
  if (options.target === true) {
    // An existing rubric is the one the workflow is for (targetRubricProblem checks it): kept.
    const starter = existsSync(join(cwd, RUBRIC_FILE))
      ? []
      : [{ path: RUBRIC_FILE, text: starterRubric(undefined, { gates: false }) }]
    return { files: [...starter, { path: WORKFLOW_FILE, text: targetWorkflow() }], setup }
  }
  const rubric = { path: RUBRIC_FILE, text: starterRubric(detectTestCommand(cwd)) }
  if (!options.forks)
    return {
      files: [
        rubric,
        { path: WORKFLOW_FILE, text: splitWorkflow(setup) },
        { path: BOT_WORKFLOW_FILE, text: botWorkflow(basename(WORKFLOW_FILE)) }
      ],
      setup
    }
  const { gates, council } = forksWorkflows(setup)
  return {
    files: [
      rubric,
      { path: GATES_WORKFLOW_FILE, text: gates },
      { path: WORKFLOW_FILE, text: council },
      { path: BOT_WORKFLOW_FILE, text: botWorkflow(basename(GATES_WORKFLOW_FILE)) }
    ],
    setup
  }
}

/**
 * `rubric-council init`: a starter rubric and the split-layout workflow, or with `--forks` the
 * two workflows of the fork layout, and the bot's workflow. Refuses to overwrite any of them
 * without `--force`, and writes nothing unless it can write them all.
 */
export async function initCommand(
  options: { readonly force: boolean; readonly forks: boolean; readonly target?: boolean },
  io: CliIo
): Promise<number> {
  if (options.target === true) {
    const problem = options.forks
      ? '--target and --forks are two layouts: choose one'
      : targetRubricProblem(io.cwd)
    if (problem !== undefined) {
      io.stderr(`rubric-council: ${problem} (see rubric-council init --help)`)
      return USAGE_ERROR
    }
  }
  const { files, setup } = initFiles(io.cwd, options)
  const existing = files.filter(f => existsSync(join(io.cwd, f.path)))
  if (existing.length > 0 && !options.force) {
    for (const f of existing)
      io.stderr(`rubric-council: ${f.path} exists; not overwriting it (use --force)`)
    return 1
  }
  for (const f of files) {
    const full = join(io.cwd, f.path)
    await mkdir(dirname(full), { recursive: true })
    await writeFile(full, f.text)
    io.stdout(`wrote ${f.path}`)
  }
  if (options.target === true) {
    io.stdout(targetAdvice(files.some(f => f.path === RUBRIC_FILE)).join('\n'))
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
        '     a required status check in the branch protection rules.'
      ]
  const bot = [
    `  4. ${BOT_WORKFLOW_FILE}, the bot, reviews open pull requests again when the`,
    '     rubric changes, and runs "/council rerun" and "/council accept <reason>" from pull request',
    '     comments by people with write access; GitHub runs it for comments only from the default branch.'
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
    `  Check the rubric any time: rubric-council validate ${RUBRIC_FILE}`
  ]
}
