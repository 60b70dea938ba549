import { parse } from 'yaml'
import { excludedBy } from '../evidence/denylist.js'
import type { Actor, PullRequest } from '../github/pull-request.js'
import { rubricsFolder } from '../rubric/defaults.js'
import { isRecord } from '../util/is-record.js'

/** The `skip-*` inputs: all off by default. */
export interface SkipRules {
  readonly drafts: boolean
  readonly bots: boolean
  /** A label's name; '' for none. */
  readonly label: string
  /** Globs (as `exclude`'s): skipped when every changed file matches one. */
  readonly paths: readonly string[]
}

/** Why a run is skipped: the first of the `skip-*` rules that holds. */
export type SkipReason =
  | { readonly rule: 'draft' }
  | { readonly rule: 'bot'; readonly login: string }
  | { readonly rule: 'label'; readonly label: string }
  | { readonly rule: 'paths'; readonly files: number }

/**
 * The pull request activity after which each rule no longer holds, and which the workflow must
 * therefore run on: a check skipped for a reason that goes away unseen would stay green.
 * (`synchronize`, which ends the bot and paths rules, and the label's, which binds only to the
 * commit it was put on, is among the default types.)
 */
export const ENDED_BY: Readonly<Record<SkipReason['rule'], string | undefined>> = {
  draft: 'ready_for_review',
  label: 'unlabeled',
  bot: undefined,
  paths: undefined
}

/** GitHub's default `types` for pull_request and pull_request_target. */
const DEFAULT_TYPES = ['opened', 'synchronize', 'reopened']

/** What the rules read of a run: the pull request, and the event that started the run. */
export interface SkipRun {
  readonly pr: Pick<PullRequest, 'draft' | 'author' | 'labels'>
  readonly sender?: Actor
  /** The event's activity (`labeled`, `synchronize`, …) and, on `labeled`, the label's name. */
  readonly action: string
  readonly label?: string
}

/**
 * The rule that skips this pull request, if any. Pure. `changed` is every path the pull request
 * touches (renames by both names); `guarded` says which of them no skip may pass over (this
 * check's machinery and its rubric): a pull request that changes them is always reviewed.
 */
export function skipReason(
  rules: SkipRules,
  run: SkipRun,
  changed: readonly string[],
  guarded: (path: string) => boolean
): SkipReason | undefined {
  if (changed.some(guarded)) return undefined
  const { pr, sender } = run
  if (rules.drafts && pr.draft) return { rule: 'draft' }
  // The event's sender too: a person who pushes to a bot's branch is reviewed.
  if (rules.bots && pr.author?.bot === true && sender?.bot === true) {
    return { rule: 'bot', login: pr.author.login }
  }
  if (rules.label !== '' && pr.labels.includes(rules.label) && labelling(run, rules.label)) {
    return { rule: 'label', label: rules.label }
  }
  if (
    rules.paths.length > 0 &&
    changed.length > 0 &&
    changed.every(path => excludedBy(path, rules.paths) !== undefined)
  ) {
    return { rule: 'paths', files: changed.length }
  }
  return undefined
}

/**
 * Whether this run is the one putting `label` on started: the only run whose event binds the
 * label to a commit (the payload's head), the one a person looked at when they labelled it. Every
 * later run with the label still on (a push, a reopening, ready for review, a run by hand or after
 * another workflow) is about a commit nobody vouched for.
 */
function labelling(run: SkipRun, label: string): boolean {
  return run.action === 'labeled' && run.label === label
}

/**
 * The skip label, when the pull request has it but this run is not its labelling (so it is
 * reviewed, and says why); undefined otherwise. Pure.
 */
export function unboundLabel(rules: SkipRules, run: SkipRun): string | undefined {
  return rules.label !== '' && run.pr.labels.includes(rules.label) && !labelling(run, rules.label)
    ? rules.label
    : undefined
}

/** The workflow's `types` for `event`, from its text; undefined when it does not run on it. */
export function workflowTypes(text: string, event: string): readonly string[] | undefined {
  let workflow: unknown
  try {
    workflow = parse(text)
  } catch {
    return undefined
  }
  const on = isRecord(workflow) ? workflow.on : undefined
  if (typeof on === 'string') return on === event ? DEFAULT_TYPES : undefined
  if (Array.isArray(on)) return on.includes(event) ? DEFAULT_TYPES : undefined
  if (!isRecord(on) || !Object.hasOwn(on, event)) return undefined
  const types = isRecord(on[event]) ? on[event].types : undefined
  if (types === undefined) return DEFAULT_TYPES
  if (typeof types === 'string') return [types]
  return Array.isArray(types) ? types.filter(t => typeof t === 'string') : []
}

/**
 * The events a skip rule applies on: those a pull request's own activity starts. A run someone
 * starts by hand (workflow_dispatch) reviews for real.
 */
const SKIPPABLE_EVENTS = ['pull_request', 'pull_request_target', 'workflow_run']

/** Whether any `skip-*` rule is set and may apply on `event`. Pure. */
export function skipMayApply(rules: SkipRules, event: string): boolean {
  const set = rules.drafts || rules.bots || rules.label !== '' || rules.paths.length > 0
  return set && SKIPPABLE_EVENTS.includes(event)
}

/**
 * The paths no skip may pass over: this check's machinery, its rubric, and the folder of several
 * rubrics beside it (`rubricPath` undefined for a `checker` rubric). Pure.
 */
export function guardedPaths(
  rubricPath: string | undefined,
  machinery: (path: string) => boolean
): (path: string) => boolean {
  const folder = rubricPath === undefined ? undefined : `${rubricsFolder(rubricPath)}/`
  return path =>
    machinery(path) || path === rubricPath || (folder !== undefined && path.startsWith(folder))
}

/**
 * Why a rule about the pull request (a draft, its author, a label) may not skip this run: a check
 * run is the commit's, so a skipped draft that shares its head commit and base with another pull
 * request would write `success` on that one's required check. The changed files (`skip-paths`)
 * are the same for both, so that rule is theirs too. `others`: those pull requests; undefined when
 * they could not be listed. Pure.
 */
export function twinProblem(
  reason: SkipReason,
  others: readonly number[] | undefined
): string | undefined {
  if (reason.rule === 'paths') return undefined
  if (others === undefined) {
    return 'the open pull requests at this head commit could not be listed, and the check run is theirs too'
  }
  return others.length === 0
    ? undefined
    : `pull request ${others.map(n => `#${n}`).join(', ')} has the same head commit and base, and the check run on that commit is its too`
}

/** The workflow whose activity types must end a skip: its path, and the activity it must run on. */
export type EndingWorkflow =
  { readonly path: string; readonly needed: string } | { readonly problem: string } | undefined

/**
 * The workflow the pull request's events start (this one, or on workflow_run the triggering one),
 * which must run on the activity that ends `reason`; undefined when no activity is needed. A
 * central workflow (an organisation ruleset's) is not in the workspace: a file at its path there is
 * the pull request's, which could claim any activity types, so it is never read. Pure.
 */
export function endingWorkflow(
  reason: SkipReason,
  trigger: { readonly path?: string } | undefined,
  workflow: { readonly path: string; readonly central: boolean } | undefined
): EndingWorkflow {
  const needed = ENDED_BY[reason.rule]
  if (needed === undefined) return undefined
  const own =
    workflow !== undefined && !workflow.central && workflow.path.startsWith('.github/workflows/')
      ? workflow.path
      : undefined
  const path = trigger?.path ?? own
  return path === undefined
    ? { problem: 'the workflow that runs it is not in this repository' }
    : { path, needed }
}

/**
 * Why the workflow at `path` (its `text`, undefined when it could not be read) would not run the
 * check again once the reason to skip goes away; undefined when it would. Pure.
 */
export function unseenEndProblem(
  ending: { readonly path: string; readonly needed: string },
  runEvent: string,
  text: string | undefined
): string | undefined {
  const { path, needed } = ending
  if (text === undefined) return `${path} could not be read from the workspace`
  const event = runEvent === 'workflow_run' ? 'pull_request' : runEvent
  return workflowTypes(text, event)?.includes(needed) === true
    ? undefined
    : `${path} does not run on ${event} ${needed}, so the check would not run again once the reason goes away`
}
