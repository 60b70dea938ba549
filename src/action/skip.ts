import { readFile } from 'node:fs/promises'
import { rubricsFolder } from '../rubric/defaults.js'
import { isAbsolute, relative, resolve } from 'node:path'
import {
  ENDED_BY,
  skipReason,
  unboundLabel,
  workflowTypes,
  type SkipReason,
  type SkipRules
} from '../engine/skip.js'
import type { PullRequestRun } from '../github/event.js'
import { labelNotBound, skipRefused } from '../sentences/scope.js'
import type { RunningWorkflow } from './machinery.js'

/**
 * The events a skip rule applies on: those a pull request's own activity starts. A run someone
 * starts by hand (workflow_dispatch) reviews for real.
 */
const SKIPPABLE_EVENTS = ['pull_request', 'pull_request_target', 'workflow_run']

/**
 * Whether this run is skipped, and why. Never when no rule is set, on an event a person started,
 * when the changed files cannot be listed, when the pull request changes this check's machinery
 * or its rubric, or when the workflow would not run again once the reason goes away; nor by the
 * label on any run but the one putting it on started. Where a rule would have skipped, `warn` is
 * told why it did not (one sentence, for the log and the report).
 */
export async function skipOf(
  run: PullRequestRun,
  rules: SkipRules,
  where: {
    readonly workspace: string
    /** The rubric's path in the repository; undefined for a `checker` rubric. */
    readonly rubricPath: string | undefined
    readonly changedPaths: () => Promise<readonly string[]>
    readonly machinery: (path: string) => boolean
    /** The running workflow (GITHUB_WORKFLOW_REF). */
    readonly workflow: RunningWorkflow | undefined
    /**
     * The other open pull requests into the same base branch at the same head commit, whose check
     * run is this one's (one name, one commit); rejects when they cannot be listed.
     */
    readonly twins: () => Promise<readonly number[]>
  },
  warn: (message: string) => void
): Promise<SkipReason | undefined> {
  const set = rules.drafts || rules.bots || rules.label !== '' || rules.paths.length > 0
  if (!set || !SKIPPABLE_EVENTS.includes(run.event)) return undefined
  const changed = await where.changedPaths().catch(() => undefined)
  if (changed === undefined) return undefined
  // The rubric, and the folder of several rubrics beside it.
  const folder = where.rubricPath === undefined ? undefined : `${rubricsFolder(where.rubricPath)}/`
  const guarded = (path: string): boolean =>
    where.machinery(path) ||
    path === where.rubricPath ||
    (folder !== undefined && path.startsWith(folder))
  const reason = skipReason(rules, run, changed, guarded)
  if (reason === undefined) {
    const label = changed.some(guarded) ? undefined : unboundLabel(rules, run)
    if (label !== undefined) {
      warn(skipRefused({ rule: 'label', label }, labelNotBound(run, run.pr.headSha)))
    }
    return undefined
  }
  const problem =
    (await twinProblem(reason, where.twins)) ??
    (await unseenEnd(reason, run, where.workspace, where.workflow))
  if (problem === undefined) return reason
  warn(skipRefused(reason, problem))
  return undefined
}

/**
 * Why a rule about the pull request (a draft, its author, a label) may not skip this run: a check
 * run is the commit's, so a skipped draft that shares its head commit and base with another pull
 * request would write `success` on that one's required check. The changed files (`skip-paths`)
 * are the same for both, so that rule is theirs too.
 */
async function twinProblem(
  reason: SkipReason,
  twins: () => Promise<readonly number[]>
): Promise<string | undefined> {
  if (reason.rule === 'paths') return undefined
  const others = await twins().catch(() => undefined)
  if (others === undefined) {
    return 'the open pull requests at this head commit could not be listed, and the check run is theirs too'
  }
  return others.length === 0
    ? undefined
    : `pull request ${others.map(n => `#${n}`).join(', ')} has the same head commit and base, and the check run on that commit is its too`
}

/**
 * Why `reason` may not skip this run, or undefined: the activity that ends it is not among the
 * types of the workflow the pull request's events start (this one's, or on workflow_run the
 * triggering one's), or that workflow cannot be read from the workspace. A central workflow (an
 * organisation ruleset's) is not in the workspace: a file at its path there is the pull request's,
 * which could claim any activity types, so it is never read.
 */
export async function unseenEnd(
  reason: SkipReason,
  run: Pick<PullRequestRun, 'event' | 'trigger'>,
  workspace: string,
  workflow: RunningWorkflow | undefined
): Promise<string | undefined> {
  const needed = ENDED_BY[reason.rule]
  if (needed === undefined) return undefined
  const path = run.trigger?.path ?? ownWorkflowPath(workflow)
  if (path === undefined) return 'the workflow that runs it is not in this repository'
  const full = resolve(workspace, path)
  const inside = relative(workspace, full)
  if (inside.startsWith('..') || isAbsolute(inside)) return `${path} is not in the workspace`
  const text = await readFile(full, 'utf8').catch(() => undefined)
  if (text === undefined) return `${path} could not be read from the workspace`
  const event = run.event === 'workflow_run' ? 'pull_request' : run.event
  const types = workflowTypes(text, event)
  return types?.includes(needed) === true
    ? undefined
    : `${path} does not run on ${event} ${needed}, so the check would not run again once the reason goes away`
}

/** The running workflow's file when it is in this repository's `.github/workflows`. */
function ownWorkflowPath(workflow: RunningWorkflow | undefined): string | undefined {
  return workflow !== undefined &&
    !workflow.central &&
    workflow.path.startsWith('.github/workflows/')
    ? workflow.path
    : undefined
}
