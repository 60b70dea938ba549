import type { Payload } from '../github/payload.js'
import { checkRunName } from '../publish/check-name.js'
import { rubricsFolder } from '../rubric/defaults.js'
import { rubricHash } from '../rubric/hash.js'
import { failed, ok, type Result } from '../util/result.js'

/**
 * A push to a branch (docs/pr-bot.md): whether it is one that can change a base rubric, what it
 * changed of the rubrics, and what the check runs and the log say of the re-verification. Pure.
 */

/** Pull requests named one by one in the warning about those that were not re-verified. */
const LISTED_PROBLEMS = 10

const NO_COMMIT = /^0+$/

/** A push that moved a branch from one commit to another. */
export interface BranchPush {
  readonly branch: string
  readonly before: string
  readonly after: string
  readonly defaultBranch: string
}

/**
 * The branch `push` moved, from and to which commits; otherwise (a tag, a branch created or
 * deleted) the log's notice that there is nothing to re-verify.
 */
export function branchPushed(push: Payload<'push'>): Result<BranchPush> {
  const { ref, before, after } = push
  if (!ref.startsWith('refs/heads/') || NO_COMMIT.test(after) || NO_COMMIT.test(before)) {
    return failed(`nothing to re-verify for a push to ${ref || 'an unknown ref'}`)
  }
  const branch = ref.slice('refs/heads/'.length)
  return ok({ branch, before, after, defaultBranch: push.repository.default_branch })
}

/** What a push changed of the rubrics. */
export interface RubricChange {
  /** How: the one rubric's hashes (`3f2a… → 9c1d…`), or how many rubrics changed. */
  readonly how: string
  /** The paths of the rubrics that changed. */
  readonly paths: string
}

/**
 * What changed between the versions (`[before, after]`, undefined where there is none) of the
 * rubric at `main` and those of the `rubrics/` folder beside it (docs/rubric.md#several-rubrics),
 * one per path of `paths`; otherwise the log's line that none did, on `branch`.
 */
export function rubricChange(
  main: string,
  paths: readonly string[],
  versions: readonly (readonly [string | undefined, string | undefined])[],
  branch: string
): Result<RubricChange> {
  const changed = paths.filter((_, i) => versions[i]?.[0] !== versions[i]?.[1])
  if (changed.length === 0) {
    const what = paths.length === 1 ? main : `${main} and ${rubricsFolder(main)}/`
    return failed(`${what} did not change on ${branch}; nothing to re-verify`)
  }
  const hash = (text: string | undefined): string =>
    text === undefined ? 'none' : rubricHash(text)
  const [old, now] = versions[paths.indexOf(changed[0] ?? main)] ?? []
  return ok({
    how: changed.length === 1 ? `${hash(old)} → ${hash(now)}` : `${changed.length} rubrics changed`,
    paths: changed.join(', ')
  })
}

/**
 * The pending check run of one rubric while its review runs again: its name on a pull request
 * into the pushed branch (`checkName` with the base's suffix), and what it says.
 */
export function pendingCheck(
  checkName: string,
  push: BranchPush,
  change: RubricChange
): { readonly name: string; readonly title: string; readonly summary: string } {
  const { branch, defaultBranch } = push
  return {
    name: checkRunName(checkName, { baseRef: branch, defaultBranch }),
    title: `The rubric changed: ${change.how}; re-verifying`,
    summary: `The rubric at ${change.paths} on ${branch} changed (${change.how}). This pull request is being reviewed again under the new rubric.`
  }
}

/** The log's line once the rubric changed on `branch`, before the re-runs. */
export function reverifying(branch: string, change: RubricChange, pulls: number): string {
  return `the rubric changed on ${branch} (${change.how}); re-verifying ${pulls} open pull request${pulls === 1 ? '' : 's'}`
}

/** The log's line once the re-runs are done: `rerun` of `pulls`, with `workflow`. */
export function reverified(workflow: string, rerun: number, pulls: number): string {
  return `re-ran the review (${workflow}) of ${rerun} of ${pulls} pull request${pulls === 1 ? '' : 's'}`
}

/** The warning naming the pull requests that were not re-verified, each with why. */
export function notReverified(problems: readonly string[]): string {
  const more = problems.length - LISTED_PROBLEMS
  return [
    `${problems.length} pull request${problems.length === 1 ? ' was' : 's were'} not re-verified; their verdicts are left as they are:`,
    ...problems.slice(0, LISTED_PROBLEMS).map(p => `- ${p}`),
    ...(more > 0 ? [`- and ${more} more`] : [])
  ].join('\n')
}
