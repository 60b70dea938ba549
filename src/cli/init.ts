import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { CliIo } from './io.js'

export const RUBRIC_FILE = '.github/rubric.md'
export const WORKFLOW_FILE = '.github/workflows/rubric-council.yml'

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

export function starterRubric(testCommand: string | undefined): string {
  const gates = testCommand
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

export const STARTER_WORKFLOW = `name: Rubric Council

on:
  pull_request:
    # No path filters: a required check that does not run stays pending forever.
    types: [opened, synchronize, reopened, ready_for_review]

permissions:
  contents: read # the diff, and the rubric on the base branch
  pull-requests: write # the sticky comment
  checks: write # the check run

# A new push cancels the review of the commit it replaces.
concurrency:
  group: rubric-council-\${{ github.event.pull_request.number }}
  cancel-in-progress: true

jobs:
  rubric-council:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v5
        with:
          fetch-depth: 0 # the history to diff from the merge base, fetched now, with the token
          persist-credentials: false # the gates run the PR's code: no token left in .git/config
      - uses: rubric-council/rubric-council@v0
        env:
          # One judge per provider whose key is set; a gates-only rubric needs none.
          OPENAI_API_KEY: \${{ secrets.OPENAI_API_KEY }}
          ANTHROPIC_API_KEY: \${{ secrets.ANTHROPIC_API_KEY }}
`

/**
 * `rubric-council init`: a starter rubric and workflow. Refuses to overwrite either without
 * `--force`, and writes nothing unless it can write both.
 */
export async function initCommand(
  options: { readonly force: boolean },
  io: CliIo
): Promise<number> {
  const files = [
    { path: RUBRIC_FILE, text: starterRubric(detectTestCommand(io.cwd)) },
    { path: WORKFLOW_FILE, text: STARTER_WORKFLOW }
  ]
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
  io.stdout(
    [
      '',
      'Next:',
      `  1. Edit ${RUBRIC_FILE}: the gates and criteria your pull requests must meet.`,
      '  2. Add an OPENAI_API_KEY or ANTHROPIC_API_KEY secret to the repository (Settings → Secrets).',
      `  3. Commit both files; pull requests opened afterwards get the check. Make "rubric-council" a`,
      '     required status check in the branch protection rules.',
      `  Check the rubric any time: rubric-council validate ${RUBRIC_FILE}`
    ].join('\n')
  )
  return 0
}
