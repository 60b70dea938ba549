import { BOT_WORKFLOW_FILE, GATES_WORKFLOW_FILE, RUBRIC_FILE, WORKFLOW_FILE } from './workflows.js'
import { EXAMPLE_RUBRIC_FILE } from './rubrics.js'
import { ACTION_REPOSITORY, type PinSource } from './pin.js'
import { shellWord } from '../util/shell-word.js'

// What `rubric-council init` says after it wrote a layout's files: what to do next. `command` is
// the CLI as the user runs it (src/cli/invocation.ts), so each command named can be copied.

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

/** How many files a layout writes, in words. */
const COUNTS = ['three', 'four', 'five'] as const

/**
 * What to do after `init` or `init --forks`; `placeholder`: the gates job's set-up is to fill in;
 * `rubrics`: the example rubric among several was written too.
 */
export function layoutAdvice(options: {
  readonly forks: boolean
  readonly placeholder: boolean
  readonly rubrics: boolean
  readonly command: string
}): string[] {
  const { forks, placeholder, command } = options
  const gatesFile = forks ? GATES_WORKFLOW_FILE : WORKFLOW_FILE
  const files = COUNTS[(forks ? 1 : 0) + (options.rubrics ? 1 : 0)]
  const commit = forks
    ? [
        `  3. Commit the ${files} files to the default branch: workflow_run runs the council workflow only`,
        '     from there. Pull requests opened afterwards get the check; make "rubric-council" a',
        '     required status check in the branch protection rules.'
      ]
    : [
        `  3. Commit the ${files} files; pull requests opened afterwards get the check. Make "rubric-council"`,
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
  return [
    '',
    'Next:',
    `  1. Edit ${RUBRIC_FILE}: the gates and criteria your pull requests must meet.`,
    placeholder
      ? `     Then fill in the toolchain and the setup commands of the gates job in ${gatesFile}.`
      : `     Then check the toolchain and the setup commands of the gates job in ${gatesFile}.`,
    '  2. Add an OPENAI_API_KEY or ANTHROPIC_API_KEY secret to the repository (Settings → Secrets).',
    '     Only the council job reads it; the gates job, which runs the PR’s code, gets none.',
    ...commit,
    ...bot,
    `  Check the rubric any time: ${command} validate ${RUBRIC_FILE}`
  ]
}

/** What to do after `init --target`. */
export function targetAdvice(wroteRubric: boolean, command: string): string[] {
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
    `  Check the rubric any time: ${command} validate ${RUBRIC_FILE}`
  ]
}

/** What to do after `init --calibrate`. */
export function calibrateAdvice(command: string): string[] {
  return [
    '',
    'Next:',
    `  1. Write the calibration set, .github/rubric-calibration.yml: ${command} calibrate --propose 20`,
    '     proposes one from this history; review each case (docs/calibration.md).',
    '  2. Commit both; run it from Actions → Rubric Council calibration → Run workflow. The reports',
    '     are the run’s artifact, rubric-council-calibration, and the Markdown one its summary.'
  ]
}

/**
 * What to do about the example rubric among several (`init --rubrics`): the next steps when the
 * workflows were there already (`afterLayout` false), else the steps that follow a layout's.
 */
export function rubricsAdvice(command: string, afterLayout: boolean): string[] {
  return [
    '',
    afterLayout ? 'Then, for the rubrics in .github/rubrics/:' : 'Next:',
    `  1. Rename ${EXAMPLE_RUBRIC_FILE} after the part of the repository it is about, and set its paths`,
    '     and criteria. Every *.md and *.yml file in .github/rubrics/ is a rubric with its own check',
    '     run, "rubric-council / <name>"; .github/rubric.md, if kept, judges every pull request.',
    '  2. A changed file that no rubric judging the pull request matches counts against coverage:',
    "     keep .github/rubric.md as the catch-all, or list such files in a rubric's exclude.",
    `  3. Check them all: ${command} validate (it also names paths that match no file).`,
    '  4. Once merged, make each "rubric-council / <name>" a required status check: one that does',
    '     not apply concludes success, so it never waits.'
  ]
}

/**
 * What `init` says of the commit its workflows pin the action to (pin.ts pinSource): the release
 * it is; or that it is none, with the latest release the checkout knows and how to pin that. One
 * line says what the pin is, the next what to do about it.
 */
export function pinSentence(source: PinSource, commit: string): string {
  const pinned = `The workflows pin the action to ${commit}`
  const again = 'then run this init again with --force (it keeps the rubric)'
  const root = shellWord(source.kind === 'package' ? '' : source.root)
  switch (source.kind) {
    case 'release':
      return source.newer === undefined
        ? `${pinned}, the release ${source.tag}.`
        : `${pinned}, the release ${source.tag}.\n${source.newer.tag} is newer: to pin it, check ` +
            `it out (git -C ${root} checkout ${shellWord(source.newer.checkout)}), ${again}.`
    case 'checkout':
      return (
        `${pinned}, the HEAD of ${source.root}, which is no release: GitHub has it only if it ` +
        'was pushed there.\n' +
        (source.latest === undefined
          ? 'This checkout has no release tag (vX.Y.Z): to pin a release, get the tags ' +
            `(git -C ${root} fetch --tags), check out the newest, ${again}.`
          : `To pin the latest release here, ${source.latest.tag}, check it out ` +
            `(git -C ${root} checkout ${shellWord(source.latest.checkout)}), ${again}.`)
      )
    case 'package':
      return (
        `${pinned}, the commit this package, version ${source.version}, was packed from.\n` +
        `The release v${source.version} is the commit that git ls-remote ` +
        `https://github.com/${ACTION_REPOSITORY} 'refs/tags/v${source.version}^{}' prints: it ` +
        'holds only the files a job runs, the smaller download, and its parent is the commit the ' +
        'release was built from. If that parent is this one, the uses: lines should name the ' +
        'release commit instead; if not, this package is no release.'
      )
  }
}
