import { readFileSync } from 'node:fs'
import { GATES_ARTIFACT, GATES_FILE } from '../../src/gates/record.js'
import { runAction, type ActionRun } from './action-run.js'
import type { GitHubStandIn } from './github-standin.js'
import { zip } from './zip.js'

/**
 * The split layout's untrusted half, as the runner plays it: the gates job's token (its
 * GITHUB_TOKEN with `contents: read`), the gates sub-action (`gates/dist/index.js`), then
 * `actions/upload-artifact` (the results file zipped into the run's artifacts, as the artifact
 * service stores it), and the job's conclusion as GitHub records it.
 */
export const GATES_TOKEN = 'ghs_gates_job_readonly_0003'

export interface GatesJobOptions {
  readonly workspace: string
  readonly eventPath: string
  readonly runId: number
  readonly eventName?: string
  /** The job's environment beyond the runner's: a gates job holds no secret. */
  readonly env?: Record<string, string>
  /** The gates job's name in the run; `gates` by default. */
  readonly job?: string
}

export async function gatesJob(
  github: GitHubStandIn,
  options: GatesJobOptions
): Promise<ActionRun> {
  const result = await runAction({
    script: 'gates/dist/index.js',
    workspace: options.workspace,
    eventName: options.eventName ?? 'pull_request',
    eventPath: options.eventPath,
    apiUrl: github.url,
    inputs: { 'github-token': GATES_TOKEN },
    env: { GITHUB_RUN_ID: String(options.runId), ...options.env }
  })
  // upload-artifact runs with `if: always()`: whatever the gates step ended as.
  const file = result.outputs['results-file']
  if (file !== undefined && file !== '') {
    uploadRecord(github, options.runId, readFileSync(file))
  }
  github.setRunJobs(options.runId, [
    { name: options.job ?? 'gates', conclusion: result.code === 0 ? 'success' : 'failure' },
    { name: 'council', status: 'in_progress' }
  ])
  return result
}

/** What `actions/upload-artifact` stores for `path: <results-file>`: a zip of the one file. */
export function uploadRecord(github: GitHubStandIn, runId: number, record: Buffer | string): void {
  github.addArtifact(
    runId,
    GATES_ARTIFACT,
    zip([{ name: GATES_FILE, data: record, dataDescriptor: true }])
  )
}
