import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

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
  // No package-manager cache: setup-node would run the package manager in the pull request's
  // checkout to find it (pnpm loads the checkout's .pnpmfile.cjs, Yarn 1 hands over to the
  // yarn-path its .yarnrc names), before the gates action, and could rewrite it. setup-node turns
  // one on by itself for a package.json that names npm, so it is turned off by name.
  const setupNode = (): string =>
    `      - uses: actions/setup-node@v7
        with:
          ${version}
          package-manager-cache: false # a cache runs the package manager in the PR's checkout
`
  const commands = (...lines: string[]): string => lines.map(l => `${COMMAND}${l}\n`).join('')
  if (has('pnpm-lock.yaml')) {
    const pinned = typeof packageJson(cwd).packageManager === 'string'
    const pnpm = pinned
      ? '      - uses: pnpm/action-setup@v6 # the version in package.json\'s "packageManager"\n'
      : `      - uses: pnpm/action-setup@v6
        with:
          version: 10 # or name it in package.json's "packageManager", and drop this
`
    return {
      steps: `${pnpm}${setupNode()}`,
      commands: commands('pnpm install --frozen-lockfile')
    }
  }
  if (has('yarn.lock')) {
    // Yarn 2 and later (a .yarnrc.yml) come through corepack; Yarn 1 is on the runner.
    return has('.yarnrc.yml')
      ? {
          steps: setupNode(),
          commands: commands(
            '# Yarn 2+, through corepack, at the version package.json names',
            'corepack enable',
            'yarn install --immutable'
          )
        }
      : { steps: setupNode(), commands: commands('yarn install --frozen-lockfile') }
  }
  if (has('package-lock.json') || has('npm-shrinkwrap.json'))
    return { steps: setupNode(), commands: commands('npm ci') }
  return {
    steps: setupNode(),
    commands: commands('# no package-lock.json, which npm ci needs', 'npm install')
  }
}

function pythonSetup(cwd: string): { steps: string; commands: string } {
  const has = (file: string): boolean => existsSync(join(cwd, file))
  const version = has('.python-version')
    ? 'python-version-file: .python-version'
    : "python-version: '3.x'"
  const requirements = has('requirements.txt')
  // No `cache: pip`, as no package-manager cache for Node: nothing runs in the checkout before
  // the gates action.
  return {
    steps: `      - uses: actions/setup-python@v7
        with:
          ${version}
`,
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
    steps: `      #   - uses: actions/setup-go@v7
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
    steps: `      #   - uses: actions/setup-java@v6
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
    known?.steps ?? '      #   - uses: actions/setup-go@v7 (or setup-java, ruby/setup-ruby, ...)'
  return {
    kind: 'other',
    steps: `      # TODO: set up the toolchain your gates need, here; e.g.\n${steps}\n`,
    commands: `${COMMAND}# TODO: the commands that install what your gates need, one a line; e.g.
${known?.commands ?? `${COMMAND}# make deps`}
`,
    placeholder: true
  }
}
