import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { RUBRIC_SCHEMA_URL } from '../rubric/json-schema.js'
import { parseRubric } from '../rubric/parse.js'
import { RUBRIC_FILE } from './workflows.js'

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
 * Anthropic's: a council of two members, one per key (council/members.ts), which can split 1–1 on a
 * must-have. The reserve casts the deciding extra vote then; with no third vendor's key, it is a
 * second model of one of the two vendors, another than its member. A reserve whose key is not set
 * is skipped (the split stays UNCLEAR).
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
# A must-have blocks only once measured: while the calibration record beside this rubric
# (.github/rubric-calibration.json, from rubric-council calibrate --record) says its FAILs are
# right often enough. Until then its FAIL is advisory: shown on the check, never failing it.
# Gates always block. Delete this line to let every must-have block unmeasured
# (docs/calibration.md of Rubric Council).
calibration: required
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
