import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { describe, expect, it } from 'vitest'
import { detectSetup } from '../src/init/setup.js'
import { botWorkflow, forksWorkflows, splitWorkflow } from '../src/init/workflows.js'
import { VERSION } from '../src/version.js'
import { actionlint } from './helpers/actionlint.js'

/**
 * What a well-kept action repository has beside its code: a security policy, a code of conduct,
 * contribution notes, issue forms, a pull request template, code owners, dependabot, CodeQL, a
 * release workflow and the licences of what the bundles contain. Each exists, says something, and is what GitHub reads.
 */

const ROOT = join(import.meta.dirname, '..')
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8')

/** Files that must exist, with words each must contain to be more than a placeholder. */
const FILES: Record<string, readonly string[]> = {
  'SECURITY.md': [
    'Report a vulnerability',
    'security/advisories/new',
    'Supported versions',
    'PASS'
  ],
  'CODE_OF_CONDUCT.md': ['Reporting', 'SECURITY.md', '@rubric-council/maintainers'],
  'CONTRIBUTING.md': [
    'Node 24',
    'npm run typecheck',
    'npm run lint',
    'npm test',
    'npm run bundle',
    'stand-in',
    'npm run release:prepare',
    'release.yml'
  ],
  '.github/ISSUE_TEMPLATE/bug_report.yml': ['SECURITY.md'],
  '.github/ISSUE_TEMPLATE/feature_request.yml': ['description'],
  '.github/ISSUE_TEMPLATE/config.yml': ['security/advisories/new'],
  '.github/pull_request_template.md': ['npm run bundle', 'CHANGELOG'],
  '.github/CODEOWNERS': ['* @'],
  '.github/dependabot.yml': ['npm', 'github-actions'],
  '.github/workflows/codeql.yml': ['github/codeql-action/analyze'],
  '.github/workflows/release.yml': ['npm run release', 'gh release create'],
  'dist/licenses.txt': ['@actions/core', 'zod', 'MIT'],
  'gates/dist/licenses.txt': ['@actions/core', 'yaml', 'MIT']
}

describe('the repository files', () => {
  it.each(Object.entries(FILES))('%s exists and says what it is for', (path, words) => {
    expect(existsSync(join(ROOT, path)), path).toBe(true)
    const text = read(path)
    expect(text.length, path).toBeGreaterThan(200)
    for (const word of words) expect(text, `${path} mentions ${word}`).toContain(word)
  })

  it('are tracked by git, so a clone has them', () => {
    const tracked = execFileSync('git', ['ls-files', ...Object.keys(FILES)], {
      cwd: ROOT,
      encoding: 'utf8'
    })
      .trim()
      .split('\n')
    expect(tracked.sort()).toEqual(Object.keys(FILES).sort())
  })

  it('the issue forms are forms GitHub accepts: a name, a description and required fields', () => {
    for (const name of ['bug_report.yml', 'feature_request.yml']) {
      const form = parse(read(`.github/ISSUE_TEMPLATE/${name}`)) as {
        name?: string
        description?: string
        body?: { type: string; id?: string; validations?: { required?: boolean } }[]
      }
      expect(form.name, name).toBeTruthy()
      expect(form.description, name).toBeTruthy()
      const fields = (form.body ?? []).filter(f => f.type !== 'markdown')
      expect(fields.length, name).toBeGreaterThan(1)
      expect(
        fields.every(f => f.id !== undefined),
        name
      ).toBe(true)
      expect(
        fields.some(f => f.validations?.required === true),
        name
      ).toBe(true)
    }
    const config = parse(read('.github/ISSUE_TEMPLATE/config.yml')) as {
      blank_issues_enabled: boolean
      contact_links: { name: string; url: string; about: string }[]
    }
    expect(config.contact_links.map(l => l.url)).toContain(
      'https://github.com/rubric-council/rubric-council/security/advisories/new'
    )
  })

  it('CI and .ci/run compare both bundles with their licences, new files included', () => {
    // --porcelain lists untracked files, so a licenses.txt the bundle adds but nobody committed fails.
    for (const file of ['.github/workflows/ci.yml', '.ci/run'])
      expect(read(file), file).toContain('git status --porcelain -- dist gates/dist)')
    expect(read('scripts/bundle.mjs')).toContain("'licenses.txt'")
  })

  it('CI and .ci/run fail when the archive a job downloads is over 3,000,000 bytes gzipped', () => {
    for (const file of ['.github/workflows/ci.yml', '.ci/run']) {
      expect(read(file), file).toContain('$(git archive HEAD | gzip | wc -c)')
      expect(read(file), file).toMatch(/-gt 3000000 \]/)
    }
    const bytes = execFileSync('bash', ['-c', 'git archive HEAD | gzip | wc -c'], {
      cwd: ROOT,
      encoding: 'utf8'
    })
    expect(Number(bytes)).toBeLessThanOrEqual(3_000_000)
  })

  it('dependabot updates npm and github-actions weekly, in groups', () => {
    const config = parse(read('.github/dependabot.yml')) as {
      version: number
      updates: {
        'package-ecosystem': string
        directory: string
        schedule: { interval: string }
        groups?: Record<string, unknown>
      }[]
    }
    expect(config.version).toBe(2)
    expect(config.updates.map(u => u['package-ecosystem']).sort()).toEqual([
      'github-actions',
      'npm'
    ])
    for (const update of config.updates) {
      expect(update.schedule.interval).toBe('weekly')
      expect(update.directory).toBe('/')
      expect(Object.keys(update.groups ?? {}).length).toBeGreaterThan(0)
    }
  })

  it('dependabot groups every package src/ imports as bundled, and leaves them out of development', () => {
    const npm = (
      parse(read('.github/dependabot.yml')) as {
        updates: {
          'package-ecosystem': string
          groups: Record<string, { patterns?: string[]; 'exclude-patterns'?: string[] }>
        }[]
      }
    ).updates.find(u => u['package-ecosystem'] === 'npm')
    const bundled = npm?.groups.bundled?.patterns ?? []
    expect(npm?.groups.development?.['exclude-patterns']).toEqual(bundled)
    const matches = (name: string): boolean =>
      bundled.some(p => (p.endsWith('/*') ? name.startsWith(p.slice(0, -1)) : name === p))
    const imported = new Set<string>()
    const sources = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    for (const file of sources.filter(f => f.endsWith('.ts'))) {
      for (const [, specifier = ''] of read(join('src', file)).matchAll(
        /^import (?!type )[^']*'([^'.][^']*)'/gm
      ))
        if (!specifier.startsWith('node:'))
          imported.add(/^(@[^/]+\/[^/]+|[^/]+)/.exec(specifier)?.[1] ?? specifier)
    }
    expect(imported.size).toBeGreaterThan(10)
    for (const name of imported)
      expect({ name, bundled: matches(name) }).toEqual({ name, bundled: true })
  })
})

interface Step {
  readonly uses?: string
  readonly run?: string
  readonly with?: Record<string, string | number | boolean>
  readonly env?: Record<string, string>
}
interface Job {
  readonly permissions?: Record<string, string> | string
  readonly steps: Step[]
}
interface Workflow {
  readonly on: Record<string, unknown>
  readonly permissions?: Record<string, string> | string
  readonly jobs: Record<string, Job>
}

const workflowFiles = readdirSync(join(ROOT, '.github/workflows')).filter(f => /\.ya?ml$/.test(f))
const workflow = (name: string): Workflow => parse(read(`.github/workflows/${name}`)) as Workflow

describe("the repository's workflows", () => {
  it.each(workflowFiles)('%s passes actionlint', async name => {
    expect(await actionlint(read(`.github/workflows/${name}`), name)).toEqual([])
  })

  it.each(workflowFiles)(
    '%s grants least permissions: contents read at most, unless a job says more',
    name => {
      const w = workflow(name)
      expect(w.permissions, name).toBeDefined()
      expect(w.permissions === 'write-all' || w.permissions === 'read-all').toBe(false)
      const top = typeof w.permissions === 'object' ? w.permissions : {}
      expect(Object.entries(top).filter(([, level]) => level === 'write')).toEqual([])
    }
  )

  it.each(workflowFiles)('%s uses only first-party actions, pinned to a major version', name => {
    const uses = Object.values(workflow(name).jobs).flatMap(j =>
      j.steps.flatMap(s => (s.uses === undefined ? [] : [s.uses]))
    )
    for (const u of uses)
      expect(u).toMatch(
        /^(\.\/|actions\/(checkout|setup-node)@v\d+$|github\/codeql-action\/\w+@v\d+$)/
      )
  })

  it('release.yml runs by hand with a version, may only write contents, and only from main', () => {
    const w = workflow('release.yml')
    expect(Object.keys(w.on)).toEqual(['workflow_dispatch'])
    expect(w.on).toMatchObject({
      workflow_dispatch: { inputs: { version: { required: true, type: 'string' } } }
    })
    expect(w.permissions).toEqual({})
    const jobs = Object.values(w.jobs)
    expect(jobs.map(j => j.permissions)).toEqual([{ contents: 'write' }])
    const text = read('.github/workflows/release.yml')
    expect(text).toContain("if: github.ref == 'refs/heads/main'")
    expect(text).toContain('fetch-depth: 0')
    expect(text).toContain('--notes-file "$RUNNER_TEMP/release-notes.md"')
  })

  it('codeql.yml analyses javascript-typescript with security-events write, contents and actions read', () => {
    const w = workflow('codeql.yml')
    const jobs = Object.values(w.jobs)
    expect(jobs.map(j => j.permissions)).toEqual([
      { 'security-events': 'write', contents: 'read', actions: 'read' }
    ])
    expect(read('.github/workflows/codeql.yml')).toContain('languages: javascript-typescript')
  })
})

describe('the repository reviews its own pull requests', () => {
  const w = workflow('rubric-council.yml')
  const text = read('.github/workflows/rubric-council.yml')
  const ACTION = '.rubric-council-action'
  const BASE = '${{ github.event.pull_request.base.sha }}'
  const jobOf = (id: string): Job => {
    const job = w.jobs[id]
    if (job === undefined) throw new Error(`rubric-council.yml has no job ${id}`)
    return job
  }
  /** The step that checks the base branch's action out, and the steps before the action runs. */
  const before = (job: Job, uses: string): Step[] => {
    const at = job.steps.findIndex(s => s.uses === uses)
    expect(at, uses).toBeGreaterThan(0)
    return job.steps.slice(0, at)
  }

  it('on every pull_request, in the split layout against .github/rubric.md', () => {
    expect(Object.keys(w.on)).toEqual(['pull_request'])
    expect(Object.keys(w.jobs)).toEqual(['gates', 'council'])
    expect(w.permissions).toEqual({})
    expect(existsSync(join(ROOT, '.github/rubric.md'))).toBe(true)
  })

  it('with the action as the base branch has it: the pull request cannot change its judge', () => {
    for (const [job, uses] of [
      ['gates', `./${ACTION}/gates`],
      ['council', `./${ACTION}`]
    ] as const) {
      const steps = before(jobOf(job), uses)
      const at = steps.findIndex(s => s.with?.path === ACTION)
      expect(steps[at], job).toMatchObject({
        uses: 'actions/checkout@v7',
        with: { ref: BASE, 'persist-credentials': false }
      })
      // Checked out after the pull request, so the pull request's files cannot stand in for it.
      expect(at).toBeGreaterThan(
        steps.findIndex(s => s.uses?.startsWith('actions/checkout@') === true && !s.with?.path)
      )
    }
    // Nothing of the pull request's own copy of the action runs: no `uses: ./` of the workspace.
    expect(text).not.toMatch(/uses: \.\/(gates)?\s*$/m)
  })

  it('the gates hold no secret; the council holds the keys and runs no code of the pull request', () => {
    const gates = jobOf('gates')
    const council = jobOf('council')
    expect(gates.permissions).toEqual({ contents: 'read' })
    expect(JSON.stringify(gates)).not.toContain('secrets.')
    expect(gates.steps.at(-1)).toMatchObject({
      uses: `./${ACTION}/gates`,
      with: { setup: 'npm ci\n' }
    })
    expect(council.steps.filter(s => s.run !== undefined)).toEqual([])
    expect(council.steps.at(-1)).toMatchObject({ uses: `./${ACTION}`, with: { gates: 'recorded' } })
    expect(council.permissions).toMatchObject({ 'pull-requests': 'write', checks: 'write' })
  })

  it('the base checkout is ignored by git, ESLint and Prettier, so the gates do not lint it', () => {
    expect(read('.gitignore').split('\n')).toContain(`/${ACTION}/`)
    expect(read('eslint.config.js')).toContain(`'${ACTION}/'`)
  })
})

describe('the version users pin', () => {
  const pkg = JSON.parse(read('package.json')) as { version: string }

  it('package.json and src/version.ts name the same version, a semantic one', () => {
    expect(VERSION).toBe(pkg.version)
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+$/)
  })

  it('the README, the docs and the examples pin a commit SHA (placeholders), as init does with its own', () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
    const pin = { commit: head, version: VERSION }
    const project = join(ROOT)
    const shown: [string, string][] = [
      ['README.md', read('README.md')],
      ...readdirSync(join(ROOT, 'docs'))
        .filter(f => f.endsWith('.md'))
        .map((f): [string, string] => [`docs/${f}`, read(`docs/${f}`)]),
      ...readdirSync(join(ROOT, 'examples/workflows')).map((f): [string, string] => [
        `examples/workflows/${f}`,
        read(`examples/workflows/${f}`)
      ])
    ]
    const written: [string, string][] = [
      ['init: split', splitWorkflow(detectSetup(project), pin)],
      ['init: forks gates', forksWorkflows(detectSetup(project), pin).gates],
      ['init: forks council', forksWorkflows(detectSetup(project), pin).council],
      ['init: bot', botWorkflow('rubric-council.yml', pin)]
    ]
    let count = 0
    const check = (texts: [string, string][], ref: string): void => {
      for (const [name, text] of texts) {
        for (const m of text.matchAll(
          /rubric-council\/rubric-council(\/gates)?@\S+( # v[\w.]+)?/g
        )) {
          count++
          expect(`${name}: ${m[0]}`).toBe(
            `${name}: rubric-council/rubric-council${m[1] ?? ''}@${ref}`
          )
        }
      }
    }
    // A tag would stop the job before the first release ("unable to find version").
    check(shown, '<commit-sha> # vX.Y.Z')
    check(written, `${head} # v${VERSION}`)
    // The main action and the gates sub-action, in the README and in what init writes.
    expect(count).toBeGreaterThan(10)
  })
})
