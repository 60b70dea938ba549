import { describe, expect, it } from 'vitest'
import { pullRequestEvent } from '../helpers/action-run.js'
import {
  IN_PROCESS_KEY,
  pullRequest,
  runInProcess,
  type PullRequest
} from '../helpers/in-process.js'

/**
 * A workflow an organisation ruleset requires, end to end in process (the real payloads of
 * @octokit/webhooks-examples, GitHub in memory, git and the gates for real). GitHub runs it from
 * the central repository at the ref the ruleset pins, so a pull request that changes its own
 * repository's workflows does not change the check, and is judged like any other; the same pull
 * request under a workflow of its own repository is UNCLEAR workflow_modified. GITHUB_WORKFLOW_REF
 * and GITHUB_REPOSITORY are the runner's, which no workflow can overwrite: the tests set them as
 * the runner would.
 */

const OWN_WORKFLOW = '.github/workflows/review.yml'
const CENTRAL = 'octo-org/.github/.github/workflows/rubric-council.yml@refs/heads/main'
const own = (pr: PullRequest) =>
  `octo-org/octo-repo/${OWN_WORKFLOW}@refs/pull/${String(pr.number)}/merge`
/** Gates only: PASS when the gate passes and nothing else stands in the way. */
const RUBRIC = '## Gates\n- `true`\n'

function changingItsWorkflows(head: Record<string, string | null> = {}): PullRequest {
  return pullRequest(
    {
      '.github/rubric.md': RUBRIC,
      [OWN_WORKFLOW]: 'on: pull_request\njobs: {}\n',
      'feature.ts': 'export const feature = 1\n'
    },
    {
      'feature.ts': 'export const feature = 2\n',
      [OWN_WORKFLOW]: 'on: pull_request\njobs:\n  deploy: { runs-on: ubuntu-latest, steps: [] }\n',
      ...head
    }
  )
}

const run = (
  pr: PullRequest,
  workflowRef: string,
  options: { inputs?: Record<string, string>; pullRequest?: Record<string, unknown> } = {}
) =>
  runInProcess(pr, {
    inputs: options.inputs ?? {},
    event: pullRequestEvent(pr.repo, {
      number: pr.number,
      ...(options.pullRequest && { pullRequest: options.pullRequest })
    }),
    providers: {
      OPENAI_API_KEY: IN_PROCESS_KEY,
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      GITHUB_WORKFLOW_REF: workflowRef
    }
  })

describe('a workflow required by an organisation ruleset', () => {
  it('judges a pull request that changes its own repository’s workflows normally, and says which workflow ran', async () => {
    const pr = changingItsWorkflows()
    const result = await run(pr, CENTRAL)
    expect([result.outputs.verdict, result.outputs.reasons, result.code]).toEqual(['PASS', '', 0])
    expect(result.log).toContain(
      'Rubric Council: run by octo-org/.github/.github/workflows/rubric-council.yml@refs/heads/main, a workflow of another repository (required by a ruleset), which this pull request cannot change: its changes to .github/workflows/ are judged like any other file.'
    )
  })

  it('attack: the same pull request under its own repository’s workflow is UNCLEAR workflow_modified', async () => {
    const pr = changingItsWorkflows()
    const result = await run(pr, own(pr))
    expect([result.outputs.verdict, result.outputs.reasons]).toEqual([
      'UNCLEAR',
      'workflow_modified'
    ])
    expect(result.log.join('\n')).not.toContain('a workflow of another repository')
  })

  it('attack: a local action the central workflow may use is still the machinery', async () => {
    const pr = changingItsWorkflows({
      '.github/actions/setup/action.yml': 'runs: { using: composite, steps: [] }\n'
    })
    const result = await run(pr, CENTRAL)
    expect([result.outputs.verdict, result.outputs.reasons]).toEqual([
      'UNCLEAR',
      'workflow_modified'
    ])
  })

  it('attack: a draft cannot skip by adding a file at the central workflow’s path that claims to run again when ready', async () => {
    // Ruleset workflows run on the default activity types only: skipping a draft would leave it
    // green once ready. The file at that path in the pull request's repository is not the one
    // GitHub runs, so it is never read.
    const pr = changingItsWorkflows({
      '.github/workflows/rubric-council.yml':
        'on:\n  pull_request:\n    types: [opened, synchronize, reopened, ready_for_review]\njobs: {}\n'
    })
    const result = await run(pr, CENTRAL, {
      inputs: { 'skip-drafts': 'true' },
      pullRequest: { draft: true }
    })
    expect(result.outputs.verdict).toBe('PASS')
    expect(result.log).toContain(
      'warning: Rubric Council: skip-drafts would skip this pull request, but it is reviewed: the workflow that runs it is not in this repository'
    )
  })

  it('attack: in a repository with no rubric yet, a pull request cannot bring the one that grades it', async () => {
    const pr = pullRequest(
      { 'feature.ts': 'export const feature = 1\n' },
      { 'feature.ts': 'export const feature = 2\n', '.github/rubric.md': RUBRIC }
    )
    const central = await run(pr, CENTRAL)
    expect([central.outputs.verdict, central.outputs.reasons]).toEqual([
      'UNCLEAR',
      'invalid_rubric'
    ])
    expect(central.log.join('\n')).toMatch(
      /\.github\/rubric\.md on the base branch \S+ does not exist; a workflow required from another repository uses only the base branch’s rubric/
    )
    // Under the repository's own workflow the owner chose to run it: the pull request's rubric
    // is used until the base has one, as before.
    expect((await run(pr, own(pr))).outputs.verdict).toBe('PASS')
  })
})
