import { probeProvider, type ProbeFailure } from '../council/probe.js'
import {
  alertRefreshed,
  councilOf,
  countNotKept,
  healedLine,
  healingSummary,
  latestOf,
  lookedAt,
  markedForHeal,
  notHealedOf,
  providersOf,
  stillFailing,
  unclearRubrics,
  warnedLine,
  type Looked
} from '../bot/heal.js'
import { SHARED_PROBLEMS } from '../bot/reverify.js'
import { isUnclear, type ToHeal } from '../engine/heal.js'
import type { ListedCheckRun } from '../github/check-run.js'
import type { IssueComment } from '../github/comment.js'
import type { Payload } from '../github/payload.js'
import type { GitHubPort, OpenPullRequest } from '../github/port.js'
import { checkRunName } from '../publish/check-name.js'
import { commentMarker, readState, type CommentState } from '../publish/memory.js'
import { otherCheckRuns, othersWarnings } from '../publish/plan.js'
import type { Provider } from '../rubric/model-id.js'
import { proxiedFetch } from '../util/fetch.js'
import { oncePerKey } from '../util/memo.js'
import { mapBounded } from '../util/pool.js'
import { failed, ok, type Result } from '../util/result.js'
import type { ActionInputs } from '../inputs/action-inputs.js'
import type { ActionIO } from './io.js'
import { reverify } from './reverify.js'
import { baseRubrics, rubricFilesAt } from './rubric.js'
import { branchRef, repositoryRubricPath } from '../engine/pull-request-rubric.js'

/** How many pull requests are looked at at once. */
const LOOK_WIDTH = 4
/** A provider's probe answers far below this: the response is not read. */
const PROBE_RESPONSE_BYTES = 1024 * 1024

/** What the bot's `schedule` job has: the API, its inputs and log, and its environment. */
export interface HealContext {
  readonly github: GitHubPort
  readonly inputs: ActionInputs
  readonly io: ActionIO
  /** The job's environment: the provider keys and endpoints the probes use, as the judges would. */
  readonly env: Readonly<Record<string, string | undefined>>
}

/**
 * `schedule` (docs/pr-bot.md#healing): the open pull requests whose latest check of ours is
 * UNCLEAR because a provider did not answer are reviewed again, by re-running their own latest
 * review run (`reverify`, as `/council rerun` does), once every provider their council asks
 * answers one cheap request again; at most `heal-limit` per run and 3 per head commit. The log
 * says what was re-run and what was left alone, and why.
 */
export async function healOutages(
  context: HealContext,
  schedule: Payload<'schedule'>
): Promise<void> {
  const { github, inputs, io } = context
  const pulls = await github.openPullRequests()
  const several = severalAt(github, inputs)
  const looked = await mapBounded(pulls, LOOK_WIDTH, pr =>
    look(github, inputs.checkName, pr, several)
  )
  const { healed, leftAlone, stopped } = await healCandidates(context, looked)
  // A review re-run names them itself, from its own comment.
  const rerun = new Set(healed.map(h => h.number))
  const warned = await alertsRefreshed(
    github,
    inputs.checkName,
    looked.filter(l => l.others.length > 0 && !rerun.has(l.pr.number)),
    io
  )
  const cron = schedule.schedule ?? ''
  io.info(healingSummary({ cron, looked, healed: healed.map(h => h.said), leftAlone, warned }))
  if (stopped !== undefined) {
    io.warning(`Rubric Council: ${stopped}; no pull request was re-verified after it`)
  }
}

/**
 * The pull requests `looked` finds to heal, re-run in number order while their providers answer,
 * up to `heal-limit`: those re-run, and those left alone with why (the others' reasons first). A
 * problem every pull request shares (`stopped`) leaves the rest alone.
 */
async function healCandidates(
  context: HealContext,
  looked: readonly Looked[]
): Promise<{
  readonly healed: readonly { readonly number: number; readonly said: string }[]
  readonly leftAlone: readonly string[]
  readonly stopped?: string
}> {
  const { github, inputs, env } = context
  const probe = probeOnce(env)
  const members = membersOf(github, inputs, env)
  const healed: { number: number; said: string }[] = []
  const leftAlone = notHealedOf(looked)
  let stopped: string | undefined
  const candidates = looked.filter(l => l.decision.heal).sort((a, b) => a.pr.number - b.pr.number)
  for (const { pr, decision, comment, state } of candidates) {
    if (!decision.heal || !comment || !state) continue
    if (stopped !== undefined || healed.length >= inputs.healLimit) {
      leftAlone.push(`#${pr.number} (${stopped ?? `over heal-limit: ${inputs.healLimit} a run`})`)
      continue
    }
    const providers = providersOf(await members(pr.baseRef))
    const failing = providers.ok ? await failingOf(providers.value, probe) : providers.problem
    if (failing !== undefined) {
      leftAlone.push(`#${pr.number} (${failing})`)
      continue
    }
    const outcome = await heal(github, inputs, pr, decision.value, { comment, state })
    if (!outcome.ok) {
      if (outcome.problem.shared) stopped = outcome.problem.message
      leftAlone.push(`#${pr.number} (${outcome.problem.message})`)
      continue
    }
    healed.push({ number: pr.number, said: healedLine(pr, decision.value, outcome.value) })
  }
  return { healed, leftAlone, ...(stopped !== undefined && { stopped }) }
}

/** Whether a base branch has several rubrics, asked once per branch. */
function severalAt(
  github: GitHubPort,
  inputs: ActionInputs
): (baseRef: string) => Promise<boolean> {
  const path = repositoryRubricPath(inputs)
  return oncePerKey(async (baseRef: string) => {
    return (await rubricFilesAt(github, path, branchRef(baseRef))).length > 0
  })
}

/** Each provider's probe, made once per run however many pull requests need it. */
function probeOnce(
  env: HealContext['env']
): (provider: Provider) => Promise<Result<void, ProbeFailure>> {
  const fetch = proxiedFetch(PROBE_RESPONSE_BYTES)
  return oncePerKey((provider: Provider) => probeProvider(provider, env, fetch))
}

/** The providers among `providers` that still do not answer, said in one line; undefined when all do. */
async function failingOf(
  providers: readonly Provider[],
  probe: (provider: Provider) => Promise<Result<void, ProbeFailure>>
): Promise<string | undefined> {
  const failures: { provider: Provider; message: string }[] = []
  for (const provider of providers) {
    const answer = await probe(provider)
    if (!answer.ok) failures.push({ provider, message: answer.problem.message })
  }
  return stillFailing(failures)
}

/** Our latest check run on the pull request's head, and the comment's memory when it is UNCLEAR. */
async function look(
  github: GitHubPort,
  checkName: string,
  pr: OpenPullRequest,
  several: (baseRef: string) => Promise<boolean>
): Promise<Looked> {
  const name = checkRunName(checkName, pr)
  const runs = await github.checkRunsNamed(pr.headSha, [name])
  const others = otherCheckRuns(runs)
  let latest = latestOf(runs)
  let read: { comment?: IssueComment; state: CommentState } | undefined
  if (!isUnclear(latest) && (await several(pr.baseRef))) {
    // Several rubrics (docs/rubric.md#several-rubrics): each has its own check run, and the
    // comment remembers each one's verdicts; the check run of one UNCLEAR on the head is asked.
    read = await ourMemory(github, pr.number, checkName)
    const unclear = unclearRubrics(read.state, pr.headSha)
    const runs = await Promise.all(unclear.map(name => latestOurs(github, pr.headSha, name)))
    latest = runs.find(isUnclear)
  }
  const seen = { pr, name, others }
  if (!isUnclear(latest)) return lookedAt(seen, latest)
  return lookedAt(seen, latest, read ?? (await ourMemory(github, pr.number, checkName)))
}

/** Our latest check run of that name on a commit, if any. */
export async function latestOurs(
  github: GitHubPort,
  headSha: string,
  name: string
): Promise<ListedCheckRun | undefined> {
  return latestOf(await github.checkRunsNamed(headSha, [name]))
}

/**
 * The alert about other check runs of the check's name (`Looked.others`) brought up to date in
 * each pull request's comment, when the comment's report is of the head they are on: a job of
 * the check's name that a pull request's workflow started after the review is named within a
 * schedule's period. The comment of several rubrics has none (each rubric's check run has its
 * own), and this job cannot write check runs: those keep what their review or acceptance saw.
 * The pull requests whose comment changed.
 */
async function alertsRefreshed(
  github: GitHubPort,
  checkName: string,
  looked: readonly Looked[],
  io: ActionIO
): Promise<string[]> {
  const refreshed = await mapBounded(looked, LOOK_WIDTH, async l => {
    // Read again right before the write: a review may have written the comment since `look`.
    const { comment, state } = await ourMemory(github, l.pr.number, checkName)
    const body = comment && alertRefreshed(comment, state, l)
    if (!comment || body === undefined) return []
    const written = await github.upsertComment(l.pr.number, body, [comment])
    if (!written.ok) {
      io.warning(`Rubric Council: #${l.pr.number}: ${written.problem}`)
      return []
    }
    for (const warning of othersWarnings(l.name, l.others)) io.warning(warning)
    return [warnedLine(l)]
  })
  return refreshed.flat()
}

/** Our sticky comment on the pull request and what it remembers. */
async function ourMemory(
  github: GitHubPort,
  number: number,
  checkName: string
): Promise<{ comment?: IssueComment; state: CommentState }> {
  const [comment] = await github.comments(number, commentMarker(checkName))
  return { ...(comment && { comment }), state: comment ? readState(comment.body) : { history: [] } }
}

/**
 * The members a pull request's council asks, as the review would form it (`councilOf`), from the
 * base branch's rubrics; each base branch's rubrics are read once.
 */
function membersOf(
  github: GitHubPort,
  inputs: ActionInputs,
  env: HealContext['env']
): (baseRef: string) => Promise<readonly string[]> {
  const path = repositoryRubricPath(inputs)
  return oncePerKey(async (baseRef: string) =>
    councilOf(
      // A checker's council is the inputs' alone: no rubric of the base names it.
      inputs.checker === undefined ? await baseRubrics(github, path, branchRef(baseRef)) : [],
      inputs.models,
      env
    )
  )
}

/**
 * The re-run: the comment records it first (the review it starts notes why it ran, and the count
 * holds even if the bot stops here), then the pull request's own latest review run is re-run. When
 * that fails, the comment is put back as it was.
 */
async function heal(
  github: GitHubPort,
  inputs: ActionInputs,
  pr: OpenPullRequest,
  toHeal: ToHeal,
  memory: { readonly comment: IssueComment; readonly state: CommentState }
): Promise<Result<string, { readonly message: string; readonly shared: boolean }>> {
  const { comment, state } = memory
  const marked = markedForHeal(comment, state, pr, toHeal)
  const written = await github.upsertComment(pr.number, marked, [comment])
  if (!written.ok) {
    // Without the count, re-runs could repeat without end: none is started.
    return failed({ message: countNotKept(written.problem), shared: true })
  }
  const outcome = await reverify(github, inputs.reviewWorkflow, pr)
  if (outcome.ok) return ok(outcome.value.runUrl)
  await github.upsertComment(pr.number, comment.body, [{ ...comment, body: marked }])
  return failed({
    message: outcome.problem.message,
    shared: SHARED_PROBLEMS.has(outcome.problem.kind)
  })
}
