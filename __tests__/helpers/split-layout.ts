import { cpSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { gatesArtifact, GATES_FILE } from '../../src/gates/record.js'
import { runAction, type ActionRun } from './action-run.js'
import type { GitHubStandIn } from './github-standin.js'
import { zip } from './zip.js'

/**
 * The split layout's untrusted half, as the runner plays it: the gates job's token (its
 * GITHUB_TOKEN with `contents: read`), its runtime token and results service URL (which the runner
 * gives every action's process), then the gates sub-action (`gates/dist/index.js`), which runs the
 * setup commands and the gates and uploads its results itself, and the job's conclusion as GitHub
 * records it. No step runs after it.
 */
export const GATES_TOKEN = 'ghs_gates_job_readonly_0003'

const ROOT = join(import.meta.dirname, '..', '..')

export interface GatesJobOptions {
  readonly workspace: string
  readonly eventPath: string
  readonly runId: number
  readonly eventName?: string
  /** The job's environment beyond the runner's: a gates job holds no secret. */
  readonly env?: Record<string, string>
  /** The gates job's name in the run; `gates` by default. */
  readonly job?: string
  /** The gates step's `setup` input. */
  readonly setup?: string
  /** More inputs of the gates step (`pull-request` on workflow_dispatch). */
  readonly inputs?: Record<string, string>
  /**
   * Where the runner downloaded the gates sub-action (`actionsFolder()`); this repository's
   * `gates/` by default.
   */
  readonly action?: string
}

/**
 * A copy of the gates sub-action where the runner keeps it: `_actions/<owner>/<repo>/<ref>/gates`,
 * downloaded before the job's first step and writable by every step of the job. The runner
 * downloads the whole repository: the bundle's shared chunks are in `<ref>/dist/chunks`.
 */
export function actionsFolder(): string {
  const dir = join(
    mkdtempSync(join(tmpdir(), 'rc-actions-')),
    '_actions/rubric-council/rubric-council/v0/gates'
  )
  mkdirSync(dir, { recursive: true })
  cpSync(join(ROOT, 'gates/action.yml'), join(dir, 'action.yml'))
  cpSync(join(ROOT, 'gates/dist'), join(dir, 'dist'), { recursive: true })
  cpSync(join(ROOT, 'dist'), join(dirname(dir), 'dist'), { recursive: true })
  return dir
}

export async function gatesJob(
  github: GitHubStandIn,
  options: GatesJobOptions
): Promise<ActionRun> {
  const job = options.job ?? 'gates'
  const result = await runAction({
    script: join(options.action ?? join(ROOT, 'gates'), 'dist/index.js'),
    workspace: options.workspace,
    eventName: options.eventName ?? 'pull_request',
    eventPath: options.eventPath,
    apiUrl: github.url,
    inputs: {
      'github-token': GATES_TOKEN,
      ...(options.setup !== undefined && { setup: options.setup }),
      ...options.inputs
    },
    env: {
      GITHUB_RUN_ID: String(options.runId),
      ...github.runtimeFor(options.runId, job),
      ...options.env
    }
  })
  github.setRunJobs(options.runId, [
    { name: job, conclusion: result.code === 0 ? 'success' : 'failure' },
    { name: 'council', status: 'in_progress' }
  ])
  return result
}

/**
 * A record uploaded under the gates' artifact name by something else in the run (a forger), as
 * `actions/upload-artifact` would store it: a zip of the one file.
 */
export function uploadRecord(
  github: GitHubStandIn,
  runId: number,
  record: Buffer | string,
  attempt = 1
): void {
  github.addArtifact(
    runId,
    gatesArtifact(attempt),
    zip([{ name: GATES_FILE, data: record, dataDescriptor: true }])
  )
}
