import { execFileSync } from 'node:child_process'
import { mkdtemp, mkdir, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CliIo } from '../../src/cli/io.js'
import { main } from '../../src/cli.js'
import { startGitHubStandIn, type GitHubStandIn } from '../helpers/github-standin.js'
import { lines } from '../helpers/rubric.js'

const ORG_RUBRIC = lines(
  '---',
  'title: Organisation rules',
  '---',
  '## Gates',
  '- `echo org-gate-ran`',
  '## Criteria',
  '- secrets: No secret is committed'
)

const GATES = 'octo-org/open-policy/gates.yml@v1'

let github: GitHubStandIn
let dir: string

beforeAll(async () => {
  github = await startGitHubStandIn()
  github.addToken('ghs_job', { login: 'github-actions[bot]', type: 'Bot', write: false })
  github.addToken('ghs_app', {
    login: 'policy-app[bot]',
    type: 'Bot',
    permissions: { contents: 'read' },
    repositories: ['octo-org/policy']
  })
  const open = github.addRepository('octo-org/open-policy')
  open.setFile('v1', 'rubric.md', ORG_RUBRIC)
  open.setFile('v1', 'gates.yml', 'gates: ["echo org-gate-ran"]\n')
  open.setBranch('main', 'v1')
  github.addRepository('octo-org/policy', { private: true }).setFile('v2', 'rubric.md', ORG_RUBRIC)
  dir = await mkdtemp(join(tmpdir(), 'rc-extends-'))
  await mkdir(join(dir, '.github'))
})

afterAll(async () => {
  await github.close()
})

async function cli(
  argv: string[],
  rubric: string | undefined,
  env: Record<string, string> = {},
  cwd = dir
) {
  if (rubric !== undefined) await writeFile(join(dir, '.github/rubric.md'), rubric)
  const out: string[] = []
  const err: string[] = []
  const io: CliIo = {
    stdout: l => out.push(l),
    stderr: l => err.push(l),
    env: { GITHUB_API_URL: github.url, PATH: process.env.PATH, ...env },
    cwd
  }
  const code = await main(argv, io)
  return { code, out: out.join('\n'), err: err.join('\n') }
}

const extending = (spec: string): string =>
  lines('---', `extends: ${spec}`, '---', '## Gates', '- `echo local-gate-ran`')

describe('the CLI reads what a rubric extends through the API', () => {
  it('validate counts the inherited rules with a token from GITHUB_TOKEN or GH_TOKEN', async () => {
    for (const env of [{ GITHUB_TOKEN: 'ghs_job' }, { GH_TOKEN: 'ghs_job' }]) {
      const result = await cli(['validate'], extending('octo-org/open-policy/rubric.md@v1'), env)
      expect(result.err).toBe('')
      expect(result.out).toMatch(
        /^\.github\/rubric\.md: ok \(2 gates, 1 must-have, 0 nice-to-have, 5 dimensions, hash [0-9a-f]{12}\)$/
      )
      expect(result.code).toBe(0)
    }
  })

  it('runs the inherited gates with the local ones, and the report names what it extends', async () => {
    // The base branch's rubric, whose extends is read; the check grades by it, as the action does.
    const repo = await mkdtemp(join(tmpdir(), 'rc-extends-repo-'))
    await mkdir(join(repo, '.github'))
    await writeFile(join(repo, '.github/rubric.md'), extending(GATES))
    for (const args of [
      ['init', '-q', '-b', 'main'],
      ['add', '-A'],
      ['commit', '-q', '-m', 'rubric']
    ])
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd: repo })
    const json = join(repo, 'report.json')
    // Gates only: no judge is asked.
    const result = await cli(
      ['check', '--json', json],
      undefined,
      { GITHUB_TOKEN: 'ghs_job' },
      repo
    )
    const report = JSON.parse(await readFile(json, 'utf8')) as {
      gates: { command: string }[]
      rubric: { inherited: { from: string[] } | null }
    }
    expect(report.gates.map(g => g.command)).toEqual(['echo org-gate-ran', 'echo local-gate-ran'])
    expect(report.rubric.inherited?.from).toEqual([GATES])
    expect(result.out).toContain(`rubric extends ${GATES}`)
    expect(result.code).toBe(0)
  })

  it('names the access the job token lacks for a private repository', async () => {
    const result = await cli(['validate'], extending('octo-org/policy/rubric.md@v2'), {
      GITHUB_TOKEN: 'ghs_job'
    })
    expect(result.code).toBe(1)
    expect(result.err).toContain(
      `.github/rubric.md:2:10: error: extends "octo-org/policy/rubric.md@v2": octo-org/policy has no file rubric.md at the tag v2`
    )
    expect(result.err).toContain('give the action a token with contents: read on octo-org/policy')
    // A token that may read it does.
    const granted = await cli(['validate'], extending('octo-org/policy/rubric.md@v2'), {
      GITHUB_TOKEN: 'ghs_app'
    })
    expect(granted.err).toBe('')
    expect(granted.code).toBe(0)
  })

  it('does not read a branch: a ref is a tag or a full commit SHA', async () => {
    const result = await cli(['validate'], extending('octo-org/open-policy/rubric.md@main'), {
      GITHUB_TOKEN: 'ghs_job'
    })
    expect(result.code).toBe(1)
    expect(result.err).toContain('a ref must be a tag or a full commit SHA; a branch is not read')
    expect(github.requests.at(-1)?.query.ref).toBe('refs/tags/main')
  })

  it('says a token is needed when none is in the environment', async () => {
    const result = await cli(['validate'], extending('octo-org/open-policy/rubric.md@v1'))
    expect(result.code).toBe(1)
    expect(result.err).toContain('set GITHUB_TOKEN or GH_TOKEN for the CLI')
  })
})
