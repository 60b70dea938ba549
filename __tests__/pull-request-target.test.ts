import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
import { askedBy, wireAnswer } from './helpers/judge-answers.js'
import { startProviderStandIn, type StandIn } from './helpers/provider-standin.js'
import { uploadRecord } from './helpers/split-layout.js'

/**
 * The one-workflow layout for a rubric without gates (docs/security.md, "pull_request_target"):
 * the workflow runs on `pull_request_target` with the base branch checked out, the keys and a
 * write token present. The action reads the pull request's commits as git objects it fetches
 * itself and grades them by the base branch's rubric; nothing of the pull request is checked out
 * or run. The judges fail any pull request whose diff shows `BROKEN`. workflow_run, whose
 * checkout is the base too, follows the same rule.
 */

const WRITE = 'ghs_target_write_0001'
const BOT = { login: 'github-actions[bot]', type: 'Bot' as const }
const KEYS = { OPENAI_API_KEY: 'sk-target-layout-0123456789' }
const MODELS = 'openai:gpt-5.4-nano, openai:gpt-5.5'

const RUBRIC = [
  '---',
  'dimensions: false',
  '---',
  '## Criteria',
  '- correct: The change does what its description says, with no broken code',
  ''
].join('\n')

const BASE = {
  '.github/rubric.md': RUBRIC,
  'package.json': '{ "name": "app", "private": true }\n',
  'src/app.ts': 'export const app = 1\n'
}

let github: GitHubStandIn
let providers: StandIn
let nextPr = 1
let nextRun = 7000
beforeAll(async () => {
  github = await startGitHubStandIn({ owner: OWNER, repo: REPO })
  github.addToken(WRITE, { ...BOT, write: true })
  providers = await startProviderStandIn(call => ({
    json: wireAnswer(call.schema, call.text.includes('BROKEN') ? { fail: ['correct'] } : {})
  }))
})
afterEach(() => {
  expect(github.violations).toEqual([])
})
afterAll(async () => {
  await Promise.all([github.close(), providers.close()])
})

interface TargetRun {
  readonly result: ActionRun
  /** The verdict and its reasons: `PASS`, `FAIL criterion_failed`, `UNCLEAR invalid_input`. */
  readonly outcome: string
  /** The check runs posted on the pull request's head: name and conclusion. */
  readonly checks: readonly (readonly [string, string | null])[]
  /** The base branch's checkout the action ran in, as actions/checkout leaves it. */
  readonly workspace: string
  readonly repo: Repository
  readonly number: number
}

/**
 * A pull request from a fork, `head` committed on the base, then one run of the action on
 * `pull_request_target`, in a depth-1 clone of the base branch (actions/checkout's default for
 * this event): the pull request's commits are only in the base repository's refs/pull/N/head.
 */
async function onTarget(
  head: Record<string, string | null>,
  options: {
    readonly base?: Record<string, string>
    readonly inputs?: Record<string, string>
    /** What the gates job of this run recorded, before the action runs (`gates: recorded`). */
    readonly recorded?: (repo: Repository, number: number, runId: number) => void
    /** The bundle to run: the action (default) or the gates sub-action. */
    readonly script?: string
    /** Another event than pull_request_target, whose payload is written for this pull request. */
    readonly event?: (repo: Repository, number: number) => { name: string; path: string }
    /** Fields of the pull request as the API gives it (`labels`, …). */
    readonly pullRequest?: Record<string, unknown>
  } = {}
): Promise<TargetRun> {
  const number = nextPr++
  const repo = openPullRequest(github, number, options.base ?? BASE, head)
  // GitHub keeps a fork's head at refs/pull/N/head of the base repository, and lets a commit
  // reachable from a ref be fetched by its name.
  repo.git('update-ref', `refs/pull/${number}/head`, repo.headSha)
  repo.git('config', 'uploadpack.allowReachableSHA1InWant', 'true')
  const json = pullRequestJson(repo, number)
  // The contents API reads the pull request's head commit too, as GitHub serves it.
  for (const [path, text] of Object.entries(head))
    if (text !== null) github.setFile(repo.headSha, path, text)
  github.setPullRequest(number, {
    ...json,
    head: { ...(json.head as object), repo: { full_name: 'contributor/octo-repo' } },
    ...options.pullRequest
  })
  const workspace = mkdtempSync(join(tmpdir(), 'rc-target-'))
  execFileSync('git', [
    'clone',
    '-q',
    '--depth=1',
    '--branch',
    'main',
    `file://${repo.dir}`,
    workspace
  ])
  const runId = nextRun++
  options.recorded?.(repo, number, runId)
  const event = options.event?.(repo, number) ?? {
    name: 'pull_request_target',
    path: pullRequestEvent(repo, { number })
  }
  const result = await runAction({
    ...(options.script !== undefined && { script: options.script }),
    workspace,
    eventName: event.name,
    eventPath: event.path,
    apiUrl: github.url,
    inputs: { 'github-token': WRITE, models: MODELS, ...options.inputs },
    env: { ...KEYS, OPENAI_BASE_URL: providers.openaiBaseUrl, GITHUB_RUN_ID: String(runId) }
  })
  return {
    result,
    outcome: `${result.outputs.verdict ?? ''} ${result.outputs.reasons ?? ''}`.trim(),
    checks: github.checkRuns
      .filter(c => c.head_sha === repo.headSha)
      .map(c => [c.name, c.conclusion] as const),
    workspace,
    repo,
    number
  }
}

/** The base's working tree, untouched: HEAD is the base commit, nothing changed or added. */
function expectBaseUntouched(run: TargetRun): void {
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: run.workspace, encoding: 'utf8' }).trim()
  expect(git('rev-parse', 'HEAD')).toBe(run.repo.baseSha)
  expect(git('status', '--porcelain', '--untracked-files=all')).toBe('')
}

/**
 * What the pull request adds to try to run code in the job: npm's lifecycle scripts and a test
 * script, each writing `marker` if anything ran them.
 */
function codeThatWouldRun(marker: string): Record<string, string> {
  const touch = `node -e "require('fs').writeFileSync('${marker}', 'ran')"`
  return {
    'package.json': `${JSON.stringify(
      {
        name: 'app',
        private: true,
        scripts: { preinstall: touch, postinstall: touch, prepare: touch, test: touch }
      },
      null,
      2
    )}\n`,
    'scripts/check.sh': `touch '${marker}'\n`,
    '.envrc': `touch '${marker}'\n`
  }
}

describe('pull_request_target with the base checked out, a rubric without gates', () => {
  it('passes a good pull request on its merits, on its head commit, running none of its code', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'rc-target-marker-')), 'ran')
    const run = await onTarget({
      ...codeThatWouldRun(marker),
      'src/feature.ts': 'export const feature = 1\n'
    })
    expect(run.outcome).toBe('PASS')
    expect(run.checks).toEqual([['rubric-council', 'success']])
    expect(github.comments.get(run.number)?.[0]?.body).toContain('Rubric Council: PASS')
    // The judges saw the pull request's change, read from the fetched commits.
    expect(providers.calls.at(-1)?.text).toContain('+export const feature = 1')
    expect(existsSync(marker)).toBe(false)
    expect(existsSync(join(run.workspace, 'src/feature.ts'))).toBe(false)
    expectBaseUntouched(run)
  })

  it('fails a bad pull request on its merits, whatever its scripts would have done', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'rc-target-marker-')), 'ran')
    const run = await onTarget({
      ...codeThatWouldRun(marker),
      'src/feature.ts': 'export const feature = BROKEN\n'
    })
    expect(run.outcome).toBe('FAIL criterion_failed')
    expect(run.checks).toEqual([['rubric-council', 'failure']])
    expect(github.comments.get(run.number)?.[0]?.body).toContain('Rubric Council: FAIL')
    expect(existsSync(marker)).toBe(false)
    expectBaseUntouched(run)
  })

  it('grades a pull request that edits the rubric by the base branch’s rubric', async () => {
    const lenient = RUBRIC.replace(
      '- correct: The change does what its description says, with no broken code',
      '- lenient: Anything goes'
    )
    const run = await onTarget({
      '.github/rubric.md': lenient,
      'src/feature.ts': 'export const feature = BROKEN\n'
    })
    expect(run.outcome).toBe('FAIL criterion_failed')
    expect(run.checks).toEqual([['rubric-council', 'failure']])
    expect(run.result.outputs['rubric-hash']).toBe(rubricHash(RUBRIC))
    // The judges were asked the base rubric's criterion, not the pull request's.
    expect(askedBy(providers.calls.at(-1)?.schema).checklist).toEqual(['correct'])
    // And the comment says what the pull request would change in it.
    const body = github.comments.get(run.number)?.[0]?.body ?? ''
    expect(body).toContain('This pull request **weakens the rubric** that grades it')
    expect(body).toContain('correct')
    expectBaseUntouched(run)
  })
})

describe('pull_request_target with the base checked out, a rubric with gates', () => {
  const gated = {
    ...BASE,
    '.github/rubric.md': RUBRIC.replace(
      '## Criteria',
      '## Gates\n- `bash scripts/check.sh`\n## Criteria'
    ),
    'scripts/check.sh': 'echo checked\n'
  }

  it('is refused, naming the split and fork layouts, and runs no gate', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'rc-target-marker-')), 'ran')
    const run = await onTarget(
      { ...codeThatWouldRun(marker), 'src/feature.ts': 'export const feature = 1\n' },
      { base: gated }
    )
    expect(run.outcome).toBe('UNCLEAR invalid_input')
    expect(run.result.summary).toContain('rubric-council init --forks')
    // No advice to check out the pull request's head in this event.
    expect(run.result.summary).not.toContain('github.event.pull_request.head.sha')
    expect(run.checks.map(([, conclusion]) => conclusion)).not.toContain('success')
    expect(existsSync(marker)).toBe(false)
    expectBaseUntouched(run)
  })

  it('is refused by the gates sub-action too, which runs nothing there', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'rc-target-marker-')), 'ran')
    const base = { ...gated, 'scripts/check.sh': `touch '${marker}'\n` }
    const run = await onTarget(
      { 'src/feature.ts': 'export const feature = 1\n' },
      { base, script: 'gates/dist/index.js' }
    )
    expect(run.result.code).toBe(2)
    expect(run.result.stdout).toContain(
      "on pull_request_target the checkout is not the pull request's head"
    )
    expect(run.result.outputs['results-file']).toBeUndefined()
    expect(existsSync(marker)).toBe(false)
    expectBaseUntouched(run)
  })

  it('is graded when the gates ran in another job (gates: recorded)', async () => {
    const run = await onTarget(
      { 'src/feature.ts': 'export const feature = 1\n' },
      {
        base: gated,
        inputs: { gates: 'recorded' },
        recorded: (repo, number, runId) => {
          uploadRecord(
            github,
            runId,
            writeRecord({
              repository: `${OWNER}/${REPO}`,
              pullRequest: number,
              headSha: repo.headSha,
              rubricHash: rubricHash(gated['.github/rubric.md']),
              setup: [],
              gates: [gateResult('bash scripts/check.sh', 'pass', 'checked')]
            })
          )
          github.setRunJobs(runId, [
            { name: 'gates', conclusion: 'success' },
            { name: 'council', status: 'in_progress' }
          ])
        }
      }
    )
    expect(run.outcome).toBe('PASS')
    expect(run.checks).toEqual([['rubric-council', 'success']])
    expectBaseUntouched(run)
  })
})

describe('workflow_run, the base checked out too', () => {
  /** The council's workflow_run after a run of the workflow at `path` on the pull request. */
  const afterRun =
    (path?: string) =>
    (repo: Repository, number: number): { name: string; path: string } => {
      const triggering = nextRun++
      github.setWorkflowRun({ id: triggering, head_sha: repo.headSha })
      const example = webhookExample('workflow_run', 'completed')
      return {
        name: 'workflow_run',
        path: writeEvent({
          ...example,
          action: 'completed',
          workflow_run: {
            ...(example.workflow_run as object),
            id: triggering,
            run_attempt: 1,
            head_sha: repo.headSha,
            conclusion: 'success',
            event: 'pull_request',
            pull_requests: [{ number }],
            ...(path !== undefined && { path })
          },
          repository: {
            ...(example.repository as object),
            name: REPO,
            full_name: `${OWNER}/${REPO}`
          }
        })
      }
    }

  it('grades a rubric without gates with the default gates: run, running nothing', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'rc-target-marker-')), 'ran')
    const run = await onTarget(
      { ...codeThatWouldRun(marker), 'src/feature.ts': 'export const feature = BROKEN\n' },
      { event: afterRun() }
    )
    expect(run.outcome).toBe('FAIL criterion_failed')
    expect(run.checks).toEqual([['rubric-council', 'failure']])
    expect(existsSync(marker)).toBe(false)
    expectBaseUntouched(run)
  })

  it('attack: never skips by the skip label, which the event cannot bind to a commit', async () => {
    // The triggering workflow runs on every activity, the label's too; the payload does not say
    // which one started this run: a push after the label looks the same as the labelling.
    const gates = '.github/workflows/gates.yml'
    const run = await onTarget(
      { 'src/feature.ts': 'export const feature = BROKEN\n' },
      {
        base: {
          ...BASE,
          [gates]:
            'on:\n  pull_request:\n    types: [opened, synchronize, reopened, labeled, unlabeled]\njobs: {}\n'
        },
        inputs: { 'skip-label': 'no-council' },
        pullRequest: { labels: [{ name: 'no-council' }] },
        event: afterRun(gates)
      }
    )
    expect(run.outcome).toBe('FAIL criterion_failed')
    expect(run.checks).toEqual([['rubric-council', 'failure']])
    expect(run.result.stdout).toContain(
      `::warning::Rubric Council: skip-label would skip this pull request, but it is reviewed: on workflow_run the event does not say which activity started the run it follows, so the label cannot be bound to the commit it was put on, and ${run.repo.headSha.slice(0, 7)} is reviewed`
    )
  })
})
