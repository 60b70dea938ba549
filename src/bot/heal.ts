import { councilMembers } from '../council/council.js'
import { healDecision, isUnclear, type NotHealed, type ToHeal } from '../engine/heal.js'
import type { ListedCheckRun } from '../github/check-run.js'
import type { IssueComment } from '../github/comment.js'
import type { OpenPullRequest } from '../github/port.js'
import { markHeal, replaceState, withAlert, type CommentState } from '../publish/memory.js'
import { CHECK_RUN_MARK, othersAlert, type NamedCheckRun } from '../publish/plan.js'
import { parseModelId, type Provider } from '../rubric/model-id.js'
import type { Rubric } from '../rubric/types.js'
import { failed, ok, type Result } from '../util/result.js'

/**
 * Healing (docs/pr-bot.md#healing), the bot's part: which check run and rubrics of a pull request
 * are UNCLEAR, which providers to probe, what the comment records of a re-run, and what the log
 * says of the run. Whether a verdict may be healed at all is engine/heal.ts's `healDecision`. Pure.
 */

/** Pull requests named one by one in each line of the summary. */
const LISTED = 10

/** A pull request with an UNCLEAR check of ours on its head, and what is known of it. */
export interface Looked {
  readonly pr: OpenPullRequest
  readonly decision: ReturnType<typeof healDecision>
  readonly comment?: IssueComment
  readonly state?: CommentState
  /** The check's name on it, and the check runs of that name on its head that are not ours. */
  readonly name: string
  readonly others: readonly NamedCheckRun[]
}

/**
 * What is known of a pull request once its `latest` check run of ours (or, with several rubrics,
 * the UNCLEAR one) is read: nothing to heal unless it is UNCLEAR; then `healDecision` on what the
 * comment (`memory`) remembers.
 */
export function lookedAt(
  seen: Pick<Looked, 'pr' | 'name' | 'others'>,
  latest: ListedCheckRun | undefined,
  memory?: { readonly comment?: IssueComment; readonly state: CommentState }
): Looked {
  if (!isUnclear(latest) || memory === undefined) {
    return { ...seen, decision: { heal: false, why: { kind: 'not-unclear' } } }
  }
  const { comment, state } = memory
  return {
    ...seen,
    decision: healDecision(seen.pr.headSha, latest, state.history, state.heal),
    ...(comment && { comment }),
    state
  }
}

/**
 * Our comment with its alert about other check runs of the check's name (`looked.others`) brought
 * up to date, when its report is of the head they are on; undefined when nothing changes. The
 * comment of several rubrics has none: each rubric's check run has its own.
 */
export function alertRefreshed(
  comment: IssueComment,
  state: CommentState,
  looked: Looked
): string | undefined {
  if (state.rubrics || state.history.at(-1)?.commit !== looked.pr.headSha) return undefined
  const body = withAlert(comment.body, othersAlert(looked.name, looked.others))
  return body === comment.body ? undefined : body
}

/** What the log says of a pull request warned of other check runs of the check's name. */
export function warnedLine(looked: Looked): string {
  return `#${looked.pr.number} (${looked.others.map(o => `check run ${o.id}`).join(', ')})`
}

/** Ours, the newest, among the check runs of a name on a commit. */
export function latestOf(runs: readonly ListedCheckRun[]): ListedCheckRun | undefined {
  return runs
    .filter(r => r.externalId === CHECK_RUN_MARK)
    .reduce<ListedCheckRun | undefined>(
      (a, r) => (a === undefined || r.id > a.id ? r : a),
      undefined
    )
}

/**
 * With several rubrics (docs/rubric.md#several-rubrics), the rubrics whose latest verdict the
 * comment remembers on `head` is UNCLEAR: their check runs are the ones to ask.
 */
export function unclearRubrics(state: CommentState, head: string): string[] {
  return Object.entries(state.rubrics ?? {}).flatMap(([name, memory]) => {
    const last = memory.history.at(-1)
    return last?.commit === head && last.verdict === 'UNCLEAR' ? [name] : []
  })
}

/**
 * The members a pull request's council asks, as the review would form it from the base branch's
 * `rubrics` (read with what they extend: an organisation's rubric may name the council): each
 * one's `council.models`, else the `models` input, else one per provider key set in `env`. With
 * several rubrics, the members of every one.
 */
export function councilOf(
  rubrics: readonly Rubric[],
  models: readonly string[],
  env: Readonly<Record<string, string | undefined>>
): string[] {
  const members = (rubrics.length > 0 ? rubrics : [undefined]).map(r =>
    councilMembers(r?.council.models ?? [], models, env)
  )
  return [...new Set(members.flat())]
}

/** The providers of `members`, each once; a council with none cannot be probed. */
export function providersOf(members: readonly string[]): Result<Provider[]> {
  const providers = new Set<Provider>()
  for (const member of members) {
    const id = parseModelId(member)
    if (id.ok) providers.add(id.value.provider)
  }
  return providers.size > 0
    ? ok([...providers])
    : failed(
        'no judge to ask: the rubric and the models input name none, and no provider key is set in the bot job'
      )
}

/** The providers that still do not answer (with what their probe found), said in one line. */
export function stillFailing(
  failures: readonly { readonly provider: Provider; readonly message: string }[]
): string | undefined {
  return failures.length === 0
    ? undefined
    : failures.map(f => `${f.provider} still failing: ${f.message}`).join('; ')
}

/**
 * The comment once it records the re-run of `pr`'s head (`toHeal.count`, due): written before the
 * re-run starts, so that the count holds even if the bot stops there.
 */
export function markedForHeal(
  comment: IssueComment,
  state: CommentState,
  pr: OpenPullRequest,
  toHeal: ToHeal
): string {
  return replaceState(
    comment.body,
    markHeal(state, { commit: pr.headSha, count: toHeal.count, due: true })
  )
}

/** Why the re-run count could not be kept: without it, re-runs could repeat without end. */
export function countNotKept(problem: string): string {
  return `the count of re-runs could not be kept in the comment (${problem}); give the heal job "pull-requests: write"`
}

/** What the log says of a pull request re-run after an outage, whose run is `runUrl`. */
export function healedLine(pr: OpenPullRequest, toHeal: ToHeal, runUrl: string): string {
  return `#${pr.number} (${toHeal.reasons.join(', ')}; re-run ${toHeal.count} of 3 for ${pr.headSha.slice(0, 7)}: ${runUrl})`
}

/** The pull requests with an UNCLEAR check that may not be healed, each with why. */
export function notHealedOf(looked: readonly Looked[]): string[] {
  return looked.flatMap(l =>
    l.decision.heal || l.decision.why.kind === 'not-unclear'
      ? []
      : [`#${l.pr.number} (${notHealed(l.decision.why)})`]
  )
}

function notHealed(why: NotHealed): string {
  switch (why.kind) {
    case 'not-unclear':
      return 'no UNCLEAR verdict'
    case 'no-record':
      return 'the comment records no UNCLEAR verdict on its head commit'
    case 'not-transient':
      return `${why.reasons.join(', ') || 'no reason'}: not a provider outage`
    case 'lasting':
      return `${why.reasons.join(', ')}: a re-run would give ${why.lasting.join(', ')} again`
    case 'enough':
      return `re-run ${why.count} times after an outage already for this head commit; push or comment /council rerun`
  }
}

/** The log's account of a healing run: what was re-run, left alone, and warned of, and why. */
export function healingSummary(run: {
  /** The cron that fired ('' when the runner does not say). */
  readonly cron: string
  readonly looked: readonly Looked[]
  readonly healed: readonly string[]
  readonly leftAlone: readonly string[]
  readonly warned: readonly string[]
}): string {
  const { cron, looked, healed, leftAlone, warned } = run
  const pulls = looked.length
  const unclear = looked.filter(l => l.decision.heal || l.decision.why.kind !== 'not-unclear')
  return [
    `Rubric Council: healing${cron === '' ? '' : ` (schedule "${cron}")`}: ${pulls} open pull request${pulls === 1 ? '' : 's'}, ${unclear.length} with an UNCLEAR check; re-verified ${healed.length}, left ${leftAlone.length} alone`,
    ...listed('re-verified after a provider outage', healed),
    ...listed('left alone', leftAlone),
    ...listed(
      'warned of a check run of the check’s name that Rubric Council did not create',
      warned
    )
  ].join('\n')
}

function listed(title: string, items: readonly string[]): string[] {
  if (items.length === 0) return []
  const more = items.length - LISTED
  return [`- ${title}: ${items.slice(0, LISTED).join(', ')}${more > 0 ? `, and ${more} more` : ''}`]
}
