import { isAbsolute, relative } from 'node:path'
import type { BaseFiles } from '../github/base-files.js'
import { LABEL_ACTIONS, type PullRequestRun } from '../github/event.js'
import { parseRubric } from '../rubric/parse.js'
import type { RubricChoice } from './rubric-choice.js'

/**
 * Whether a pull request's run may go on to a review, and on what checkout: the action reads the
 * event, the pull request and the workspace, then asks here. Pure.
 */

/**
 * What the working tree is. `pull-request`: the pull request, which the gates may run on. `base`:
 * not the pull request (the base branch that workflow_run and pull_request_target check out), on
 * which no gate may run; the evidence comes from the pull request's commits, fetched as git
 * objects by commit, either way.
 */
export type Checkout = 'pull-request' | 'base'

/** The run a review can start from, or why there is none. */
export type Prepared =
  | {
      readonly kind: 'ready'
      readonly run: PullRequestRun
      readonly checkout: Checkout
      /** The base's rubric files as read with the pull request's head; none without a token. */
      readonly base: BaseFiles | undefined
    }
  /** A pull request event with nothing to review (e.g. closed): end quietly, saying so. */
  | { readonly kind: 'skip'; readonly message: string }
  /** Something the workflow must fix: UNCLEAR `invalid_input`, with this message. */
  | { readonly kind: 'invalid'; readonly message: string }

/** A label's event starts a run only for the skip label (`skip-label`, '' for none). */
export function labelEventSkip(
  run: { readonly event: string; readonly action: string; readonly label?: string },
  skipLabel: string
): Prepared | undefined {
  if (!(LABEL_ACTIONS as readonly string[]).includes(run.action)) return undefined
  const label = run.label ?? ''
  if (skipLabel !== '' && label === skipLabel) return undefined
  return {
    kind: 'skip',
    message: `nothing to review for ${run.event}.${run.action} of "${label}": only the skip-label input's label (${skipLabel === '' ? 'none is set' : `"${skipLabel}"`}) starts a run`
  }
}

/**
 * A run of a commit the pull request has moved past (`head`, now; undefined when unknown). No
 * concurrency group cancels a superseded review (a pull request's own workflow could join the
 * group): the review of the newer commit decides, and this one costs nothing.
 */
export function supersededSkip(
  run: PullRequestRun,
  head: string | undefined
): Prepared | undefined {
  if (head === undefined || head === run.pr.headSha) return undefined
  return {
    kind: 'skip',
    message: `pull request #${run.pr.number} is now at ${head.slice(0, 7)}, not at ${run.pr.headSha.slice(0, 7)}: the review of the newer commit decides`
  }
}

/** `gates: recorded` reads the results through the API, which needs a token. */
export const RECORDED_NEEDS_TOKEN =
  'gates: recorded reads the gate results through the API: give the action a github-token with actions: read'

/**
 * The checkout, from why the working tree is not the pull request's head (`problem`, undefined
 * when it is). pull_request_target checks out the base branch by default: the pull request is then
 * graded from its commits as data, never checked out, if no gate has to run here. Elsewhere the
 * gates would run on other code than the pull request the verdict is posted on: invalid.
 */
export function checkoutOf(
  event: string,
  problem: string | undefined
): Checkout | { readonly invalid: string } {
  if (problem === undefined) return 'pull-request'
  return event === 'pull_request_target' ? 'base' : { invalid: problem }
}

/**
 * The `rubric` input must name a file inside the workspace: a pull request could otherwise point
 * it at a file of its choosing outside what the base branch controls. `full` is its absolute path.
 */
export function rubricOutside(workspace: string, full: string, rubric: string): string | undefined {
  const inside = relative(workspace, full)
  return inside === '' || inside.startsWith('..') || isAbsolute(inside)
    ? `the rubric "${rubric}" is outside the workspace (${workspace}); give a path inside the repository`
    : undefined
}

/**
 * Why this run may not go on with the rubric it chose: `gates: run`, a rubric with gates, and a
 * checkout that is not the pull request, where the gates would run on the base branch's code (and
 * on pull_request_target beside the secrets). The one place this is decided: only once the base's
 * rubric is read is it known whether it has gates. A rubric that does not parse has none to run;
 * the evaluation reports it.
 */
export function gatesHereProblem(
  run: PullRequestRun,
  checkout: Checkout,
  choice: RubricChoice,
  inputs: { readonly gates: 'run' | 'recorded' }
): string | undefined {
  if (checkout === 'pull-request' || inputs.gates === 'recorded') return undefined
  const parsed = choice.rubric.ok ? parseRubric(choice.rubric.value) : undefined
  const gates = parsed?.ok === true ? parsed.value.gates.length : 0
  if (gates === 0) return undefined
  if (run.trigger !== undefined) {
    return 'on workflow_run the gates ran in the triggering run: set gates: recorded (docs/security.md, the fork layout)'
  }
  const count = `${gates} gate${gates === 1 ? '' : 's'}`
  return (
    `the rubric has ${count} to run, and on ${run.event} the checkout is the base branch, not the pull request: ` +
    'the gates would run on other code, in a job that holds the secrets. Run them on pull_request in a job without ' +
    'secrets: the split layout (`rubric-council init`), or for pull requests from forks the fork layout ' +
    '(`rubric-council init --forks`); this one-workflow layout (`rubric-council init --target`) is for rubrics ' +
    'without gates (docs/security.md)'
  )
}
