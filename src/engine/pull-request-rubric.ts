import { posix } from 'node:path'
import { rubricsFolder } from '../rubric/defaults.js'
import type { RubricText, RubricTextResult } from '../rubric/text.js'
import type { Rubric } from '../rubric/types.js'
import { failed } from '../util/result.js'
import type { RecordRead } from '../verdict/calibration.js'
import type { RubricReview } from './evaluation.js'
import { rubricChanges, unreadExtends, type RubricChoice } from './rubric-choice.js'

/**
 * Which rubric grades a pull request's run, and from where (docs/security.md#the-rubric-is-a-trust-
 * boundary), decided from what was read: the action reads the files through its ports, then asks
 * here. Pure.
 */

/** What the run read of its rubric, and the rules it runs under. */
export interface PullRequestRubricFacts {
  /** The `rubric` input, and the same file's path in the repository. */
  readonly path: string
  readonly repoPath: string
  /** The pull request's file, at its head. */
  readonly head: RubricTextResult
  /**
   * The base branch's file as it is now: its text, `absent` when it has none, `unread` without a
   * token, or why it could not be read.
   */
  readonly base: { readonly text: string } | 'absent' | 'unread' | { readonly problem: string }
  /** The `rubric-source` input. */
  readonly source: 'base' | 'head'
  /** pull_request_target: only the base's rubric grades. */
  readonly baseRubricOnly: boolean
  /** The running workflow is another repository's (an organisation ruleset's). */
  readonly central: boolean
  /** Where the base was read: its branch, or its commit when the event names no branch. */
  readonly baseRef: string
  readonly baseSha: string
  /**
   * The calibration record beside the rubric, the base's and the pull request's: the one read
   * where the rubric grades goes with it; the other only shows what the pull request changed.
   */
  readonly records?: { readonly base: RecordRead; readonly head: RecordRead }
}

/** The choice, or the base's rubric to grade by once what it extends is read (through the API). */
export type PullRequestRubric =
  | { readonly kind: 'chosen'; readonly choice: RubricChoice }
  | {
      readonly kind: 'base'
      readonly base: RubricText
      readonly review: RubricReview
      readonly calibration?: RecordRead
    }

/**
 * The base branch's rubric grades, so that a pull request cannot weaken the gate that grades it;
 * the pull request's own only when asked, or when the base has none yet (never under
 * pull_request_target, nor under a workflow of another repository: an organisation ruleset runs
 * that on repositories which may have no rubric yet, and a pull request must not bring the one
 * that grades it). When the pull request changes the rubric, the review says how.
 */
export function pullRequestRubric(facts: PullRequestRubricFacts): PullRequestRubric {
  const { head, repoPath } = facts
  const base: RubricText | undefined =
    typeof facts.base === 'object' && 'text' in facts.base
      ? { text: facts.base.text, path: facts.path, kind: 'file' }
      : undefined
  const { records } = facts
  const diff = rubricChanges(base, head.ok ? head.value : undefined, records)
  const headRecord = records && { calibration: records.head }
  if (facts.source === 'head' && !facts.baseRubricOnly) {
    return headChoice(head, { source: 'head', ...(diff && { diff }) }, headRecord)
  }
  if (base !== undefined) {
    const review: RubricReview = { source: 'base', ...(diff && { diff }) }
    return { kind: 'base', base, review, ...(records && { calibration: records.base }) }
  }
  if (facts.base === 'unread' && !facts.baseRubricOnly && !facts.central) {
    return headChoice(
      head,
      {
        source: 'head',
        note: `Without a github-token the base commit's rubric cannot be read, so the rubric in the working tree (${repoPath}) is used.`
      },
      headRecord
    )
  }
  if (facts.base !== 'absent' || facts.baseRubricOnly || facts.central) {
    return { kind: 'chosen', choice: noBaseRubric(facts) }
  }
  return headChoice(
    head,
    {
      source: 'head',
      note: `The base branch has no rubric at ${repoPath} yet, so this pull request's own rubric is used. Once it is merged, later pull requests are graded by the base branch's.`
    },
    headRecord
  )
}

/** The pull request's own rubric grades, untrusted, without what it extends, with its record. */
function headChoice(
  head: RubricTextResult,
  review: RubricReview,
  record: Pick<RubricChoice, 'calibration'> | undefined
): PullRequestRubric {
  return {
    kind: 'chosen',
    choice: { rubric: unreadExtends(head), trusted: false, review, ...record }
  }
}

/** Without the base's rubric there is nothing trusted to grade by: the rubric is missing. */
function noBaseRubric(facts: PullRequestRubricFacts): RubricChoice {
  const at =
    facts.baseRef === ''
      ? `${facts.repoPath} at the base commit ${facts.baseSha.slice(0, 7)}`
      : `${facts.repoPath} on the base branch ${facts.baseRef}`
  const why =
    typeof facts.base === 'object' && 'problem' in facts.base
      ? `could not be read (${facts.base.problem})`
      : facts.base === 'unread'
        ? 'could not be read without a github-token'
        : 'does not exist'
  const rule = facts.baseRubricOnly
    ? 'pull_request_target uses only the base branch’s rubric'
    : facts.central
      ? 'a workflow required from another repository uses only the base branch’s rubric, so that a pull request cannot bring the rubric that grades it'
      : 'the base branch’s rubric is required with rubric-source: base'
  return {
    rubric: failed({
      source: { path: facts.path, kind: 'file' },
      issues: [{ file: facts.path, rule: 'missing-file', message: `${at} ${why}; ${rule}` }]
    }),
    trusted: false,
    review: { source: 'base' }
  }
}

/**
 * A branch by its full name, as the base branch's files are read: git resolves a short name to a
 * tag before a branch, and a tag named like the base branch (which someone who may push tags can
 * create where branch protection does not reach) must never stand in for its rubric.
 */
export function branchRef(name: string): string {
  return `refs/heads/${name}`
}

/** Where the base's files are read: its branch as it is now, or its commit without a branch. */
export function baseRefOf(pr: { readonly baseRef: string; readonly baseSha: string }): string {
  return pr.baseRef === '' ? pr.baseSha : branchRef(pr.baseRef)
}

/** The rubric's path in the repository, as the review reads it (`working-directory`/`rubric`). */
export function repositoryRubricPath(inputs: {
  readonly workingDirectory: string
  readonly rubric: string
}): string {
  return posix.normalize(posix.join(inputs.workingDirectory, inputs.rubric))
}

/** A rubric file of the repository: where it is, and whether it is the `rubric` input's. */
export interface RubricFileAt {
  /** Relative to the working directory, as the `rubric` input is. */
  readonly path: string
  /** Relative to the repository's root. */
  readonly repoPath: string
  readonly main: boolean
}

/**
 * The repository's rubrics when it has several (docs/rubric.md#several-rubrics): the `rubric`
 * input's file when it exists, then each file of the `rubrics/` folder beside it (`folder`, their
 * paths in the repository). Undefined when that folder has none: one rubric, as before.
 */
export function severalRubricFiles(
  main: { readonly path: string; readonly repoPath: string; readonly exists: boolean },
  folder: readonly string[]
): RubricFileAt[] | undefined {
  if (folder.length === 0) return undefined
  const localFolder = rubricsFolder(main.path)
  return [
    ...(main.exists ? [{ path: main.path, repoPath: main.repoPath, main: true }] : []),
    ...folder.map(repoPath => ({
      path: posix.join(localFolder, posix.basename(repoPath)),
      repoPath,
      main: false
    }))
  ]
}

/**
 * The criteria of several rubrics, id → whether it is a must-have (in any of them); undefined when
 * there is no rubric.
 */
export function criteriaOf(rubrics: readonly Rubric[]): ReadonlyMap<string, boolean> | undefined {
  if (rubrics.length === 0) return undefined
  const criteria = new Map<string, boolean>()
  for (const c of rubrics.flatMap(r => r.criteria))
    criteria.set(c.id, c.required || criteria.get(c.id) === true)
  return criteria
}
