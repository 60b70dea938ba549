import { statusOf, type GitHub } from './client.js'
import type { Repo } from './comment.js'

/**
 * The write permissions a token could lend a pull request's code to turn its own check green or
 * act on the repository: post a check run or a commit status of the required check's name, push,
 * change pull requests, run workflows (which hold secrets). GitHub has no call that lists what a
 * GITHUB_TOKEN may do, so each is probed with a request it must refuse either way: an empty body.
 * GitHub checks the token's permission before the request itself, so a token without the
 * permission gets 403 ("Resource not accessible by integration") and one with it gets 422 (the
 * body lacks required fields); nothing is created either way.
 */
const WRITE_PROBES: readonly { readonly permission: string; readonly route: string }[] = [
  { permission: 'checks', route: 'POST /repos/{owner}/{repo}/check-runs' },
  { permission: 'statuses', route: 'POST /repos/{owner}/{repo}/statuses/{sha}' },
  { permission: 'contents', route: 'POST /repos/{owner}/{repo}/git/refs' },
  { permission: 'pull-requests', route: 'POST /repos/{owner}/{repo}/pulls' },
  {
    permission: 'actions',
    route: 'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches'
  }
]

/**
 * The permissions the token may write, each with how that is known: `write` when GitHub took the
 * request past the permission check, `unknown` when it answered neither 403 nor 422 (a network
 * failure, a 404 from an older GitHub Enterprise Server). Secure by default: unknown counts as
 * writable.
 */
export async function writablePermissions(
  api: GitHub,
  repo: Repo,
  headSha: string
): Promise<string[]> {
  const answers = await Promise.all(
    WRITE_PROBES.map(async ({ permission, route }) => {
      try {
        // The route as a plain string: the request is incomplete on purpose, which Octokit's
        // typed routes would not allow.
        await api.request(route, {
          ...repo,
          sha: headSha,
          workflow_id: 'rubric-council-write-probe.yml',
          data: {}
        })
        return `${permission} (GitHub accepted an empty request)`
      } catch (error) {
        const status = statusOf(error)
        if (status === 403) return undefined
        if (status === 422) return permission
        return `${permission} (not confirmed: ${status === undefined ? 'no answer' : `HTTP ${status}`})`
      }
    })
  )
  return answers.filter(answer => answer !== undefined)
}
