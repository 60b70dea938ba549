import { ACTION_REPOSITORY, usesPinned, type ActionPin } from './pin.js'
import type { ProjectSetup } from './setup.js'

export const RUBRIC_FILE = '.github/rubric.md'
/** The split layout's one workflow; in the fork layout, the council's workflow. */
export const WORKFLOW_FILE = '.github/workflows/rubric-council.yml'
/** The fork layout's gates workflow, and the name the council's `workflow_run` listens for. */
export const GATES_WORKFLOW_FILE = '.github/workflows/rubric-council-gates.yml'
export const GATES_WORKFLOW_NAME = 'Rubric Council gates'
/** The PR bot's workflow: reviews again on a rubric change, and runs `/council` commands. */
export const BOT_WORKFLOW_FILE = '.github/workflows/rubric-council-bot.yml'
export const BOT_WORKFLOW_NAME = 'Rubric Council bot'

/**
 * Why the review workflows have no concurrency group, said in each: a superseded review is
 * stopped by the action instead (docs/security.md#the-required-check-cannot-be-imitated).
 */
const NO_CONCURRENCY_GROUP = `# No concurrency group: a group's name is shared by every workflow in the repository, including
# one a pull request adds, which could join this group to cancel other pull requests' reviews.
# The action lets the newest push win instead: a review whose commit is no longer the head stops
# before asking the judges, and never overwrites a newer result.
`

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

function gatesJob(setup: ProjectSetup, pin: ActionPin): string {
  return `  gates:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    # No secrets and a read-only token: the gates run the PR's code, which may read this whole job.
    permissions:
      contents: read
    # Only actions before the gates step, and no step after it: the PR's code runs inside it, after
    # its own code is loaded, so it cannot rewrite it, nor a later step that would upload the results.
    steps:
      - uses: actions/checkout@v7
        with:
          persist-credentials: false # no token in .git/config for the PR's code to find
${setup.placeholder ? '' : '      # The toolchain the gates need.\n'}${setup.steps}      - uses: ${usesPinned(pin, '/gates')}
        with:
          # Run by the gates action like gates (they run the PR's install scripts), before them.
          setup: |
${setup.commands}        # It uploads the results itself, as the artifact rubric-council-gates-<attempt>.
`
}

function councilJob(split: boolean, pin: ActionPin): string {
  const needs = split
    ? `    needs: gates
    # Failed gates are a verdict to post, not a reason to skip the council.
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
      - uses: actions/checkout@v7
        with:
          fetch-depth: 0 # the history to diff from the merge base: read as data, never run
          persist-credentials: false
      - uses: ${usesPinned(pin)}
        with:
          gates: recorded # the gates job's results; this job runs no gate
        env:
          # One judge per provider whose key is set; a gates-only rubric needs none.
          OPENAI_API_KEY: \${{ secrets.OPENAI_API_KEY }}
          ANTHROPIC_API_KEY: \${{ secrets.ANTHROPIC_API_KEY }}
`
}

/** The split layout: one workflow, the gates in a job without secrets, the council in another. */
export function splitWorkflow(setup: ProjectSetup, pin: ActionPin): string {
  return `# Two jobs: \`gates\` runs the PR's code holding no secret; \`council\` holds them and runs none of it.
name: Rubric Council

${ON_PULL_REQUEST}
${NO_CONCURRENCY_GROUP}
jobs:
${gatesJob(setup, pin)}
${councilJob(true, pin)}`
}

/**
 * The fork layout: the gates in a workflow on `pull_request` (a fork's pull request gets no secret
 * there), the council in one on `workflow_run`, which runs from the default branch with the secrets.
 */
export function forksWorkflows(
  setup: ProjectSetup,
  pin: ActionPin
): { gates: string; council: string } {
  return {
    gates: `# Fork layout, 1 of 2: the gates run the PR's code here, with no secret and a read-only token.
# rubric-council.yml, on workflow_run, reads their results and posts the verdict.
name: ${GATES_WORKFLOW_NAME}
# Names the pull request in the run's title, as the Actions tab lists it.
run-name: ${GATES_WORKFLOW_NAME}, pull request \${{ github.event.pull_request.number }}

${ON_PULL_REQUEST}
# No concurrency group: any workflow, one a pull request adds included, could join it to cancel
# other pull requests' gates.

jobs:
${gatesJob(setup, pin)}`,
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

${NO_CONCURRENCY_GROUP}
jobs:
${councilJob(false, pin)}`
  }
}

/**
 * The PR bot: on a push that changes the rubric, and on `/council` comments on pull requests, the
 * action re-runs a pull request's latest run of `reviewWorkflow` (the split layout's workflow, or
 * the fork layout's gates); on `schedule`, a job of its own, the only one with the provider keys,
 * re-runs those left UNCLEAR by a provider outage once the provider answers again
 * (docs/pr-bot.md#healing).
 */
export function botWorkflow(reviewWorkflow: string, pin: ActionPin): string {
  const action = `      - uses: ${usesPinned(pin)}`
  const review = `          # The workflow that runs on pull_request: its latest run for the PR is re-run, in the PR's scope.
          review-workflow: ${reviewWorkflow}`
  return `# The PR bot: reviews open pull requests again when the rubric changes or a provider outage left
# them UNCLEAR, and runs /council commands from pull request comments. It runs no code of the PR
# and asks no judge.
name: ${BOT_WORKFLOW_NAME}

on:
  # A rubric changed: every open pull request based on the pushed branch is reviewed again.
  push:
    paths: [${RUBRIC_FILE}, '.github/rubrics/**']
  # Commands: /council rerun, /council accept <reason>, /council waive <criterion-id> <reason>; the
  # action checks the commenter may write.
  issue_comment:
    types: [created]
  # Healing: a check left UNCLEAR by a rate limit, a provider error or a timeout is reviewed again
  # once the provider answers. Rate limits reset within the minute or the hour, so every half hour
  # heals most within one; off the hour, when GitHub delays scheduled runs the most.
  schedule:
    - cron: '17,47 * * * *'

# Nothing by default: each job asks for what it needs.
permissions: {}

# No concurrency group: a command must not cancel another, nor could a pull request's workflow.

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
${action}
        with:
${review}

  heal:
    # The schedule only: no comment or push starts this job, the one that holds the keys.
    if: github.event_name == 'schedule'
    runs-on: ubuntu-latest
    timeout-minutes: 10
    permissions:
      contents: read # the rubric's council.models, read through the API
      pull-requests: write # the open pull requests, and the count of re-runs in each one's comment
      checks: read # each pull request's latest check
      actions: write # re-running a pull request's own review run
    # No checkout: only the action. Each provider is asked one request (its model list) to see that
    # it answers again; no judge is asked here.
    steps:
${action}
        env:
          OPENAI_API_KEY: \${{ secrets.OPENAI_API_KEY }}
          ANTHROPIC_API_KEY: \${{ secrets.ANTHROPIC_API_KEY }}
        with:
${review}
`
}

/**
 * The one-workflow layout for a rubric without gates: one job on `pull_request_target`, which runs
 * the workflow as the base branch has it, with the secrets, for pull requests from forks too. It
 * checks out the base branch only (a repository for git to fetch the pull request's commits into,
 * as data) and runs no code of the pull request.
 */
export function targetWorkflow(pin: ActionPin): string {
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

${NO_CONCURRENCY_GROUP}
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
      - uses: actions/checkout@v7
        with:
          persist-credentials: false
      # A rubric with gates is refused here (UNCLEAR invalid_input): they would need the PR's code.
      - uses: ${usesPinned(pin)}
        env:
          # One judge per provider whose key is set.
          OPENAI_API_KEY: \${{ secrets.OPENAI_API_KEY }}
          ANTHROPIC_API_KEY: \${{ secrets.ANTHROPIC_API_KEY }}
`
}

/** `init --calibrate`: the workflow that runs `rubric-council calibrate` when someone asks for it. */
export const CALIBRATE_WORKFLOW_FILE = '.github/workflows/rubric-council-calibrate.yml'

/**
 * `rubric-council calibrate` on `workflow_dispatch`: the CLI from the action's own repository at
 * the pinned commit (its committed dist/ runs without an install), the set and the rubric as the
 * dispatched branch has them, and the reports uploaded as an artifact, an interrupted run's too.
 */
export function calibrateWorkflow(pin: ActionPin): string {
  return `# Measures the rubric's council on the calibration set (.github/rubric-calibration.yml) before
# it blocks merges: Actions → Rubric Council calibration → Run workflow. Reports: the run's artifact.
name: Rubric Council calibration

on:
  # Only by hand, by someone with write access: every case costs judge calls, --repeat times.
  workflow_dispatch:
    inputs:
      repeat:
        description: Judge each case this many times (flip needs at least 2)
        # A string: calibrate checks it is a whole number, and the script gets it as a variable.
        type: string
        default: '3'

# Nothing by default: the job asks for what it needs.
permissions: {}

jobs:
  calibrate:
    runs-on: ubuntu-latest
    timeout-minutes: 120
    permissions:
      contents: read # the history the cases name, the set and the rubric
    # No gates (no --gates): no code of any case runs here, only git reads its commits as data.
    steps:
      - uses: actions/checkout@v7
        with:
          fetch-depth: 0 # every commit the set names
          persist-credentials: false
      - name: The Rubric Council CLI, at the commit the action is pinned to
        uses: actions/checkout@v7
        with:
          repository: ${ACTION_REPOSITORY}
          ref: ${pin.commit} # v${pin.version}
          path: .rubric-council
          persist-credentials: false
      - name: Calibrate
        env:
          REPEAT: \${{ inputs.repeat }}
          REPORTS: \${{ runner.temp }}/calibration
          OPENAI_API_KEY: \${{ secrets.OPENAI_API_KEY }}
          ANTHROPIC_API_KEY: \${{ secrets.ANTHROPIC_API_KEY }}
        run: |
          mkdir -p "$REPORTS"
          node .rubric-council/bin/rubric-council.js calibrate --repeat "$REPEAT" \\
            --json "$REPORTS/calibration.json" --markdown "$REPORTS/calibration.md" \\
            --html "$REPORTS/calibration.html"
          cat "$REPORTS/calibration.md" >> "$GITHUB_STEP_SUMMARY"
      - uses: actions/upload-artifact@v7
        # A run stopped part-way still wrote what it measured.
        if: \${{ !cancelled() }}
        with:
          name: rubric-council-calibration
          path: \${{ runner.temp }}/calibration/
          if-no-files-found: error
`
}
