import { verifiedAcceptance, verifiedWaivers } from '../action/asked.js'
import type { LedgerPull } from '../calibrate/propose.js'
import { runGit } from '../evidence/git-process.js'
import { ACTIONS_BOT, type Repo } from '../github/comment.js'
import { octokitPort, type ClosedPullRequest, type GitHubPort } from '../github/port.js'
import { commentMarker, DEFAULT_CHECK_NAME, readState } from '../publish/memory.js'
import { failed, ok, type Result } from '../util/result.js'
import type { CliIo } from './io.js'
import { noLedgerComment } from '../calibrate/sentences.js'

/**
 * The verdict ledger of the last `count` closed pull requests, read through the API at
 * GITHUB_API_URL with GITHUB_TOKEN or GH_TOKEN: each one's sticky comment (written by `author`,
 * the account the action comments as, github-actions[bot] unless a workflow gives it an app's
 * token, and carrying the marker of the check `checkName`: a comment by anyone else is not ours),
 * its state read as the action reads it, and each acceptance and waiver it records counted only
 * once its command comment, read again, still gives it (as the action checks them). When none of
 * the pull requests has that comment, stderr says so. Why nothing could be read, in words that
 * follow "not read from GitHub: ".
 */
export async function readLedger(
  io: Pick<CliIo, 'env' | 'cwd' | 'stderr'>,
  count: number,
  whose: { readonly checkName?: string | undefined; readonly author?: string | undefined } = {}
): Promise<Result<LedgerPull[]>> {
  const { checkName = DEFAULT_CHECK_NAME, author = ACTIONS_BOT } = whose
  const token = [io.env.GITHUB_TOKEN, io.env.GH_TOKEN].find(t => t !== undefined && t !== '')
  if (token === undefined) return failed('no GITHUB_TOKEN or GH_TOKEN is set')
  const repo = await repositoryOf(io)
  if (!repo.ok) return repo
  const warn = (line: string): void => {
    io.stderr(`rubric-council: ${line}`)
  }
  const github = octokitPort(repo.value, {
    token,
    baseUrl: io.env.GITHUB_API_URL ?? 'https://api.github.com',
    warn,
    author
  })
  const name = `${repo.value.owner}/${repo.value.repo}`
  try {
    const pulls = await github.closedPullRequests(count)
    const ledger: LedgerPull[] = []
    let commented = 0
    for (const pull of pulls) {
      const read = await ledgerOf(github, pull, checkName, warn)
      if (read.commented) commented++
      ledger.push(read.pull)
    }
    if (pulls.length > 0 && commented === 0) warn(noLedgerComment(pulls.length, checkName, author))
    return ok(ledger)
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error)
    return failed(`GitHub did not answer for ${name}: ${why}`)
  }
}

/** One pull request's checked acceptance and waivers, from our comment on it, if it has one. */
async function ledgerOf(
  github: GitHubPort,
  pull: ClosedPullRequest,
  checkName: string,
  warn: (line: string) => void
): Promise<{ readonly pull: LedgerPull; readonly commented: boolean }> {
  const [ours] = await github.comments(pull.number, commentMarker(checkName))
  const state = readState(ours?.body ?? '')
  const io = {
    warning: (line: string) => {
      warn(`#${pull.number}: ${line.replace(/^Rubric Council: /, '')}`)
    }
  }
  const stored = state.accepted
  const accepted =
    stored &&
    (await verifiedAcceptance(github, stored, { head: stored.commit, number: pull.number }, io))
  const waivers: LedgerPull['waivers'][number][] = []
  for (const waiver of state.waivers ?? []) {
    const [held] = await verifiedWaivers(github, [waiver], pull.number, io)
    if (held !== undefined) waivers.push({ ...held, commit: waiver.commit })
  }
  return {
    pull: { ...pull, waivers, ...(accepted && { acceptance: accepted }) },
    commented: ours !== undefined
  }
}

const NAMED = /^([A-Za-z0-9-]{1,39})\/([A-Za-z0-9._-]{1,100})$/

/**
 * The repository on GitHub: GITHUB_REPOSITORY (`owner/name`, as in a workflow), else what the
 * `origin` remote's URL names (`https://github.com/owner/name.git`, `git@github.com:owner/name`).
 */
async function repositoryOf(io: Pick<CliIo, 'env' | 'cwd'>): Promise<Result<Repo>> {
  const given = io.env.GITHUB_REPOSITORY
  if (given !== undefined && given !== '') {
    const [, owner = '', repo = ''] = NAMED.exec(given) ?? []
    return owner === ''
      ? failed(`GITHUB_REPOSITORY "${given}" is not owner/name`)
      : ok({ owner, repo })
  }
  const remote = await runGit(['remote', 'get-url', 'origin'], io.cwd)
  if (remote.exitCode !== 0) {
    return failed('the repository has no origin remote (set GITHUB_REPOSITORY=owner/name)')
  }
  const path = /[:/]([^/:@]+\/[^/]+?)(?:\.git)?\/?$/.exec(remote.stdout.trim())?.[1] ?? ''
  const [, owner = '', repo = ''] = NAMED.exec(path) ?? []
  // The URL is not quoted: it can hold a token (https://x:TOKEN@host/owner/name).
  return owner === ''
    ? failed('the origin remote names no owner/name (set GITHUB_REPOSITORY=owner/name)')
    : ok({ owner, repo })
}
