import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OWNER, REPO } from './helpers/action-run.js'
import { startGitHubStandIn, type GitHubStandIn } from './helpers/github-standin.js'
import {
  checkoutFor,
  jobRunsOn,
  readWorkflows,
  runJob,
  runsTheAction
} from './helpers/workflow-runner.js'

/**
 * This repository's own workflows pass on every event they listen to: each job that runs the
 * action (`uses: ./`) is played step by step, the action through dist/index.js exactly as the runner
 * runs it, and the workflow's own assertions (its `run:` steps) decide, as they would on GitHub.
 */

const TOKEN = 'ghs_workflow_token_0001'

let github: GitHubStandIn
beforeAll(async () => {
  github = await startGitHubStandIn({ owner: OWNER, repo: REPO })
  github.addToken(TOKEN, { login: 'github-actions[bot]', type: 'Bot', write: true })
})
afterAll(async () => {
  await github.close()
})

const jobs = readWorkflows().flatMap(workflow =>
  Object.entries(workflow.jobs)
    .filter(([, job]) => runsTheAction(job))
    .map(([id, job]) => ({ name: `${workflow.file}: job ${id}`, job, events: workflow.events }))
)
const runs = jobs.flatMap(({ name, job, events }) =>
  events.filter(event => jobRunsOn(job, event)).map(event => ({ name, job, event }))
)

describe("the repository's workflows", () => {
  it('run the action in a job, on at least one event each such job listens to', () => {
    expect(jobs.length).toBeGreaterThan(0)
    for (const { name } of jobs)
      expect(
        runs.map(r => r.name),
        name
      ).toContain(name)
  })

  it.each(runs.map(r => [`${r.name}, on ${r.event}`, r] as const))(
    '%s: every step passes',
    async (_, { job, event }) => {
      const before = github.checkRuns.length
      const steps = await runJob(job, event, checkoutFor(event, github), { github, token: TOKEN })
      expect(
        steps.filter(s => s.status !== 'success').map(s => `${s.step} (${s.status}):\n${s.log}`)
      ).toEqual([])
      expect(steps).toHaveLength(job.steps.length)
      // A pull request that leaves the machinery alone gets a green check.
      if (event === 'pull_request') {
        expect(github.checkRuns.slice(before).map(r => r.conclusion)).toContain('success')
      }
      expect(github.violations).toEqual([])
    },
    120_000
  )

  it.each(
    runs
      .filter(r => r.event === 'pull_request')
      .map(r => [`${r.name}, on a pull request that edits ci.yml`, r] as const)
  )(
    '%s: every step passes, and the check posted is not green',
    async (_, { job, event }) => {
      const before = github.checkRuns.length
      const steps = await runJob(job, event, checkoutFor(event, github, 'workflow'), {
        github,
        token: TOKEN
      })
      expect(
        steps.filter(s => s.status !== 'success').map(s => `${s.step} (${s.status}):\n${s.log}`)
      ).toEqual([])
      // The workflow came from the pull request: the check cannot vouch for it.
      const posted = github.checkRuns.slice(before)
      expect(posted.length).toBeGreaterThan(0)
      for (const run of posted) {
        expect(run.conclusion).not.toBe('success')
        expect(run.output.summary).toContain('.github/workflows/ci.yml')
      }
      expect(github.violations).toEqual([])
    },
    120_000
  )
})
