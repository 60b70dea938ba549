import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { skipReason, workflowTypes } from '../../src/engine/skip.js'
import { pullRequestEvent, pullRequestJson } from '../helpers/action-run.js'
import {
  IN_PROCESS_KEY,
  pullRequest,
  runInProcess,
  type PullRequest
} from '../helpers/in-process.js'

/**
 * The `skip-*` inputs, end to end in process: the real payloads of @octokit/webhooks-examples,
 * GitHub in memory, git and the gates for real. A skipped run concludes `success` with why; a
 * pull request whose reason to skip goes away is reviewed for real; and a pull request cannot
 * skip its own review by what it changes.
 */

const WORKFLOW = '.github/workflows/review.yml'
/** A workflow that runs on the activity that ends every skip rule. */
const LISTENING = `on:
  pull_request:
    types: [opened, synchronize, reopened, ready_for_review, labeled, unlabeled]
jobs: {}
`
/** A rubric whose gate fails and leaves a mark when it runs: a review is a FAIL. */
const RUBRIC = '## Gates\n- `touch gate-ran && false`\n'

function skippable(head: Record<string, string | null> = {}, workflow = LISTENING): PullRequest {
  return pullRequest(
    {
      '.github/rubric.md': RUBRIC,
      [WORKFLOW]: workflow,
      'feature.ts': 'export const feature = 1\n',
      'src/auth.ts': 'export const check = () => true\n',
      'docs/guide.md': '# Guide\n'
    },
    { 'feature.ts': 'export const feature = 2\n', ...head }
  )
}

const run = (
  pr: PullRequest,
  options: {
    readonly inputs: Record<string, string>
    readonly action?: string
    readonly pullRequest?: Record<string, unknown>
    readonly payload?: Record<string, unknown>
    readonly eventName?: string
  }
) =>
  runInProcess(pr, {
    inputs: options.inputs,
    ...(options.eventName !== undefined && { eventName: options.eventName }),
    event: pullRequestEvent(pr.repo, {
      number: pr.number,
      action: options.action ?? 'opened',
      ...(options.pullRequest && { pullRequest: options.pullRequest }),
      ...(options.payload && { payload: options.payload })
    }),
    providers: {
      OPENAI_API_KEY: IN_PROCESS_KEY,
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      GITHUB_WORKFLOW_REF: `octo-org/octo-repo/${WORKFLOW}@refs/pull/${String(pr.number)}/merge`
    }
  })

const lastCheck = (pr: PullRequest) =>
  pr.github.checkRuns.filter(c => c.head_sha === pr.repo.headSha).at(-1)
const gateRan = (pr: PullRequest): boolean => existsSync(join(pr.repo.dir, 'gate-ran'))
const bot = { login: 'dependabot[bot]', type: 'Bot' }
const person = { login: 'mallory', type: 'User' }

describe('skip-drafts', () => {
  it('concludes a draft success, "skipped", without running a gate; ready for review, it is reviewed', async () => {
    const pr = skippable()
    const draft = await run(pr, { inputs: { 'skip-drafts': 'true' }, pullRequest: { draft: true } })
    expect([draft.outputs.verdict, draft.code, lastCheck(pr)?.conclusion]).toEqual([
      'SKIPPED',
      0,
      'success'
    ])
    expect(lastCheck(pr)?.title).toBe('skipped: a draft pull request')
    expect(lastCheck(pr)?.summary).toContain(
      'It runs when the pull request is marked ready for review.'
    )
    expect(gateRan(pr)).toBe(false)
    expect(pr.github.commentsOn(pr.number)).toEqual([])

    const ready = await run(pr, {
      inputs: { 'skip-drafts': 'true' },
      action: 'ready_for_review',
      pullRequest: { draft: false }
    })
    expect([ready.outputs.verdict, lastCheck(pr)?.conclusion]).toEqual(['FAIL', 'failure'])
    expect(gateRan(pr)).toBe(true)
  })

  it('reviews a draft when the workflow would not run again once it is ready, and says why', async () => {
    const pr = skippable({}, 'on: pull_request\njobs: {}\n')
    const result = await run(pr, {
      inputs: { 'skip-drafts': 'true' },
      pullRequest: { draft: true }
    })
    expect(result.outputs.verdict).toBe('FAIL')
    expect(result.log).toContain(
      `warning: Rubric Council: skip-drafts would skip this pull request, but it is reviewed: ${WORKFLOW} does not run on pull_request ready_for_review, so the check would not run again once the reason goes away`
    )
  })

  it('reviews a draft that shares its head commit and base with another open pull request', async () => {
    // A is reviewed: FAIL on its head commit.
    const pr = skippable()
    await run(pr, { inputs: { 'skip-drafts': 'true' } })
    expect(lastCheck(pr)?.conclusion).toBe('failure')
    // The attacker opens B, a draft, from another branch at the same commit into the same base:
    // a skip would write success on the check run A's required check reads.
    const twin: PullRequest = { ...pr, number: pr.number + 1000 }
    pr.github.setPullRequest(twin.number, { ...pullRequestJson(pr.repo, twin.number), draft: true })
    const b = await run(twin, { inputs: { 'skip-drafts': 'true' }, pullRequest: { draft: true } })
    expect([b.outputs.verdict, lastCheck(pr)?.conclusion]).toEqual(['FAIL', 'failure'])
    expect(pr.github.checkRuns.map(c => c.conclusion)).not.toContain('success')
    expect(b.log).toContain(
      `warning: Rubric Council: skip-drafts would skip this pull request, but it is reviewed: pull request #${pr.number} has the same head commit and base, and the check run on that commit is its too`
    )
  })

  it('does not apply to a run started by hand (workflow_dispatch)', async () => {
    const pr = skippable()
    pr.github.setPullRequest(pr.number, { ...pullRequestJson(pr.repo, pr.number), draft: true })
    const result = await run(pr, {
      inputs: { 'skip-drafts': 'true', 'pull-request': String(pr.number) },
      eventName: 'workflow_dispatch'
    })
    expect(result.outputs.verdict).toBe('FAIL')
  })
})

describe('skip-label', () => {
  const inputs = { 'skip-label': 'no-council' }
  const labelled = (...names: string[]) => ({ labels: names.map(name => ({ name })) })

  it('skips while the label is on; taking it off reviews the pull request for real', async () => {
    const pr = skippable()
    const on = await run(pr, {
      inputs,
      action: 'labeled',
      pullRequest: labelled('bug', 'no-council'),
      payload: { label: { name: 'no-council' } }
    })
    expect([on.outputs.verdict, lastCheck(pr)?.title]).toEqual([
      'SKIPPED',
      'skipped: labelled "no-council"'
    ])
    const off = await run(pr, {
      inputs,
      action: 'unlabeled',
      pullRequest: labelled('bug'),
      payload: { label: { name: 'no-council' } }
    })
    expect([off.outputs.verdict, lastCheck(pr)?.conclusion]).toEqual(['FAIL', 'failure'])
  })

  it('does nothing on another label’s event: no run, no check run', async () => {
    const pr = skippable()
    const result = await run(pr, {
      inputs,
      action: 'labeled',
      pullRequest: labelled('bug'),
      payload: { label: { name: 'bug' } }
    })
    expect(result.outputs.verdict).toBeUndefined()
    expect(result.log).toContain(
      'notice: Rubric Council: nothing to review for pull_request.labeled of "bug": only the skip-label input\'s label ("no-council") starts a run'
    )
    expect(pr.github.checkRuns).toEqual([])
  })
})

describe('skip-bots', () => {
  it('skips a pull request a bot opened and pushed to', async () => {
    const pr = skippable()
    const result = await run(pr, {
      inputs: { 'skip-bots': 'true' },
      pullRequest: { user: bot },
      payload: { sender: bot }
    })
    expect(lastCheck(pr)?.title).toBe('skipped: opened by the bot @dependabot[bot]')
    expect(result.outputs.verdict).toBe('SKIPPED')
  })

  it('reviews a bot’s pull request once a person pushes to it', async () => {
    const pr = skippable()
    const result = await run(pr, {
      inputs: { 'skip-bots': 'true' },
      action: 'synchronize',
      pullRequest: { user: bot },
      payload: { sender: person }
    })
    expect(result.outputs.verdict).toBe('FAIL')
  })
})

describe('skip-paths', () => {
  const inputs = { 'skip-paths': 'docs/**\n*.md' }

  it('skips a pull request that changes only files those globs match', async () => {
    const pr = skippable({ 'feature.ts': 'export const feature = 1\n', 'docs/guide.md': '# New\n' })
    const result = await run(pr, { inputs })
    expect([result.outputs.verdict, lastCheck(pr)?.title]).toEqual([
      'SKIPPED',
      'skipped: the changed file matches skip-paths'
    ])
  })

  it('reviews one that also changes a file outside them', async () => {
    const pr = skippable({ 'docs/guide.md': '# New\n' })
    expect((await run(pr, { inputs })).outputs.verdict).toBe('FAIL')
  })

  // The attacks: a pull request that wants no review dresses its change up as documentation.
  it('reviews a pull request that moves code into a skipped path (a rename is a change at both ends)', async () => {
    const pr = skippable({
      'feature.ts': 'export const feature = 1\n',
      'src/auth.ts': null,
      'docs/auth.ts': 'export const check = () => true\n'
    })
    expect((await run(pr, { inputs: { 'skip-paths': 'docs/**' } })).outputs.verdict).toBe('FAIL')
  })

  it('reviews code in a folder named like a skipped file (a route folder `leak.md/`)', async () => {
    const pr = skippable({
      'feature.ts': 'export const feature = 1\n',
      'pages/api/leak.md/index.ts': 'export default () => process.env\n'
    })
    expect((await run(pr, { inputs })).outputs.verdict).toBe('FAIL')
    const nested = skippable({
      'feature.ts': 'export const feature = 1\n',
      'src/notes.md/backdoor.ts': 'export const open = true\n'
    })
    expect((await run(nested, { inputs: { 'skip-paths': '**/*.md' } })).outputs.verdict).toBe(
      'FAIL'
    )
  })

  it('reviews a pull request that changes this check’s workflow, even under globs that match it', async () => {
    const pr = skippable({
      'feature.ts': 'export const feature = 1\n',
      'docs/guide.md': '# New\n',
      [WORKFLOW]: `${LISTENING}# touched\n`
    })
    const result = await run(pr, { inputs: { 'skip-paths': 'docs/**\n.github/**' } })
    expect(result.outputs.verdict).toBe('FAIL')
    expect(gateRan(pr)).toBe(true)
  })

  it('reviews a pull request that edits the rubric, even when it is Markdown that *.md matches', async () => {
    const pr = skippable({
      'feature.ts': 'export const feature = 1\n',
      '.github/rubric.md': '## Gates\n- `true`\n'
    })
    const result = await run(pr, { inputs })
    expect(result.outputs.verdict).toBe('FAIL')
    expect(gateRan(pr)).toBe(true)
  })
})

describe('the skip inputs', () => {
  it('are checked: a value that is not true or false is quoted', async () => {
    const pr = skippable()
    const result = await run(pr, { inputs: { 'skip-drafts': 'yes' } })
    expect(result.outputs.verdict).toBe('UNCLEAR')
    expect(result.log.join('\n')).toContain(
      'input "skip-drafts" is "yes"; expected one of true, false'
    )
  })
})

describe('skipReason', () => {
  const rules = { drafts: true, bots: true, label: 'skip', paths: ['docs/**'] }
  const pr = { draft: false, labels: [] as string[], author: { login: 'a', bot: false } }
  const none = (): boolean => false

  it('takes the first rule that holds, in the order drafts, bots, label, paths', () => {
    expect(
      skipReason(rules, { pr: { ...pr, draft: true, labels: ['skip'] } }, ['docs/a.md'], none)
    ).toEqual({ rule: 'draft' })
    expect(skipReason(rules, { pr: { ...pr, labels: ['skip'] } }, ['docs/a.md'], none)).toEqual({
      rule: 'label',
      label: 'skip'
    })
    expect(skipReason(rules, { pr }, ['docs/a.md', 'docs/b.md'], none)).toEqual({
      rule: 'paths',
      files: 2
    })
  })

  it('never skips a pull request that touches a guarded file, nor one with no changed file on skip-paths', () => {
    const guarded = (path: string): boolean => path === '.github/rubric.md'
    expect(
      skipReason(rules, { pr: { ...pr, draft: true } }, ['.github/rubric.md'], guarded)
    ).toBeUndefined()
    expect(skipReason({ ...rules, drafts: false }, { pr }, [], none)).toBeUndefined()
  })
})

describe('workflowTypes', () => {
  it('reads the activity types a workflow runs on, with GitHub’s defaults', () => {
    const defaults = ['opened', 'synchronize', 'reopened']
    expect(workflowTypes('on: pull_request\n', 'pull_request')).toEqual(defaults)
    expect(workflowTypes('on: [push, pull_request]\n', 'pull_request')).toEqual(defaults)
    expect(workflowTypes('on:\n  pull_request:\n', 'pull_request')).toEqual(defaults)
    expect(workflowTypes('on:\n  pull_request:\n    types: labeled\n', 'pull_request')).toEqual([
      'labeled'
    ])
    expect(workflowTypes('on: push\n', 'pull_request')).toBeUndefined()
    expect(workflowTypes('on: [', 'pull_request')).toBeUndefined()
  })
})
