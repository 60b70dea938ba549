import { readFile } from 'node:fs/promises'
import { isAbsolute, relative, resolve } from 'node:path'
import {
  endingWorkflow,
  guardedPaths,
  skipMayApply,
  skipReason,
  twinProblem,
  unboundLabel,
  unseenEndProblem,
  type SkipReason,
  type SkipRules
} from '../engine/skip.js'
import type { PullRequestRun } from '../github/event.js'
import { labelNotBound, skipRefused } from '../sentences/scope.js'
import type { RunningWorkflow } from './machinery.js'

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
  if (!skipMayApply(rules, run.event)) return undefined
  const changed = await where.changedPaths().catch(() => undefined)
  if (changed === undefined) return undefined
  const guarded = guardedPaths(where.rubricPath, where.machinery)
  const reason = skipReason(rules, run, changed, guarded)
  if (reason === undefined) {
    const label = changed.some(guarded) ? undefined : unboundLabel(rules, run)
    if (label !== undefined) {
      warn(skipRefused({ rule: 'label', label }, labelNotBound(run, run.pr.headSha)))
    }
    return undefined
  }
  // The changed files are the same for every twin: `skip-paths` needs no list of them.
  const twins = reason.rule === 'paths' ? [] : await where.twins().catch(() => undefined)
  const problem =
    twinProblem(reason, twins) ?? (await unseenEnd(reason, run, where.workspace, where.workflow))
  if (problem === undefined) return reason
  warn(skipRefused(reason, problem))
  return undefined
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
  const ending = endingWorkflow(reason, run.trigger, workflow)
  if (ending === undefined || 'problem' in ending) return ending?.problem
  const full = resolve(workspace, ending.path)
  const inside = relative(workspace, full)
  if (inside.startsWith('..') || isAbsolute(inside)) return `${ending.path} is not in the workspace`
  const text = await readFile(full, 'utf8').catch(() => undefined)
  return unseenEndProblem(ending, run.event, text)
}
