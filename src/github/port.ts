import type { Evaluation } from '../engine/evaluation.js'
import { GATES_ARTIFACT, GATES_FILE, MAX_RECORD_BYTES } from '../gates/record.js'
import type { RecordingRun } from '../gates/recorded.js'
import type { FailOn } from '../verdict/outcome.js'
import { publishCheckRun, type CheckRunOutcome } from './check-run.js'
import { createGitHub, type GitHub } from './client.js'
import {
  findComments,
  upsertComment,
  type CommentOutcome,
  type IssueComment,
  type Repo
} from './comment.js'
import { fileAt } from './contents.js'
import { runJobs } from './actions-runs.js'
import { downloadArtifactFile, findArtifact } from './artifacts.js'

/**
 * Everything the action asks of GitHub, for one repository. The action's flow is written against
 * this port; `octokitPort` is the one implementation, tested against the GitHub stand-in.
 */
export interface GitHubPort {
  readonly repo: Repo
  /** `GET /pulls/{n}`: the pull request as it is now. */
  readonly pullRequest: (number: number) => Promise<unknown>
  /** A file's text at a ref (a branch or a commit); undefined when it does not exist there. */
  readonly fileAt: (path: string, ref: string) => Promise<string | undefined>
  /** Our comments on an issue or pull request carrying `marker`, oldest first. */
  readonly comments: (issue: number, marker: string) => Promise<IssueComment[]>
  readonly upsertComment: (
    issue: number,
    body: string,
    existing: readonly IssueComment[]
  ) => Promise<CommentOutcome>
  readonly checkRun: (
    where: { readonly headSha: string; readonly name: string; readonly detailsUrl?: string },
    evaluation: Evaluation,
    failOn: FailOn
  ) => Promise<CheckRunOutcome>
  /**
   * A workflow run (attempt) whose job `jobName` ran the gates sub-action: its recorded results
   * (the artifact) and that job's conclusion, each read once.
   */
  readonly recordingRun: (runId: number, attempt: number, jobName: string) => RecordingRun
}

/**
 * The action's GitHub: the repository of GITHUB_REPOSITORY at GITHUB_API_URL (GitHub Enterprise
 * Server too), through `token`; none without a token (a local dry run).
 */
export function actionGitHub(
  env: NodeJS.ProcessEnv,
  token: string,
  warn: (message: string) => void
): GitHubPort | undefined {
  if (token === '') return undefined
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/')
  const baseUrl = env.GITHUB_API_URL ?? 'https://api.github.com'
  return octokitPort({ owner, repo }, { token, baseUrl, warn })
}

/**
 * The port over Octokit. The client is made on first use, so that whatever runs before the first
 * request (git computing the diff) is not held up by it.
 */
export function octokitPort(
  repo: Repo,
  client: { readonly token: string; readonly baseUrl: string; readonly warn: (m: string) => void }
): GitHubPort {
  let github: GitHub | undefined
  const api = (): GitHub => (github ??= createGitHub(client.token, client.baseUrl, client.warn))
  return {
    repo,
    pullRequest: async number =>
      (await api().rest.pulls.get({ ...repo, pull_number: number })).data,
    fileAt: (path, ref) => fileAt(api(), { ...repo, path, ref }),
    comments: (issue, marker) => findComments(api(), { ...repo, issue, marker }),
    upsertComment: (issue, body, existing) =>
      upsertComment(api(), { ...repo, issue }, body, existing),
    checkRun: (where, evaluation, failOn) =>
      publishCheckRun(api(), { ...repo, ...where }, evaluation, failOn),
    recordingRun: (runId, attempt, jobName) => {
      const where = { ...repo, runId }
      let record: Promise<string | undefined> | undefined
      let conclusion: Promise<string | null | undefined> | undefined
      return {
        description: `the job "${jobName}" of run ${runId}`,
        recordText: () =>
          (record ??= findArtifact(api(), { ...where, name: GATES_ARTIFACT }).then(async found =>
            found === undefined
              ? undefined
              : (
                  await downloadArtifactFile(api(), {
                    ...repo,
                    artifactId: found.id,
                    file: GATES_FILE,
                    maxBytes: MAX_RECORD_BYTES
                  })
                ).toString('utf8')
          )),
        jobConclusion: () =>
          (conclusion ??= runJobs(api(), { ...where, attempt }).then(jobs => {
            const job = jobs.find(j => j.name === jobName)
            return job === undefined ? undefined : job.conclusion
          }))
      }
    }
  }
}
