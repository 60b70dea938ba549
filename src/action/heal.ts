import { councilMembers } from '../council/council.js'
import { probeProvider, type ProbeFailure } from '../council/probe.js'
import { healDecision, isUnclear, type NotHealed, type ToHeal } from '../engine/heal.js'
import type { IssueComment } from '../github/comment.js'
import type { GitHubPort, OpenPullRequest } from '../github/port.js'
import { checkRunName } from '../publish/check-name.js'
import {
  commentMarker,
  markHeal,
  readState,
  replaceState,
  withAlert,
  type CommentState
} from '../publish/memory.js'
import {
  CHECK_RUN_MARK,
  otherCheckRuns,
  othersAlert,
  othersWarnings,
  type NamedCheckRun
} from '../publish/plan.js'
import { parseModelId, type Provider } from '../rubric/model-id.js'
import { proxiedFetch } from '../util/fetch.js'
import { mapBounded } from '../util/pool.js'
import { failed, ok, type Result } from '../util/result.js'
import type { ActionInputs } from './inputs.js'
import type { ActionIO } from './io.js'
import { reverify, SHARED_PROBLEMS } from './reverify.js'
import { baseRubrics, branchRef, repositoryRubricPath, rubricFilesAt } from './rubric.js'
import type { ListedCheckRun } from '../github/check-run.js'
import type { Payload } from '../github/payload.js'

/** How many pull requests are looked at at once. */
const LOOK_WIDTH = 4
/** Pull requests named one by one in each line of the summary. */
const LISTED = 10
/** A provider's probe answers far below this: the response is not read. */
const PROBE_RESPONSE_BYTES = 1024 * 1024

export interface HealContext {
  readonly github: GitHubPort
  readonly inputs: ActionInputs
  readonly io: ActionIO
  /** The job's environment: the provider keys and endpoints the probes use, as the judges would. */
  readonly env: Readonly<Record<string, string | undefined>>
}

/** A pull request with an UNCLEAR check of ours on its head, and what is known of it. */
interface Looked {
  readonly pr: OpenPullRequest
  readonly decision: ReturnType<typeof healDecision>
  readonly comment?: IssueComment
  readonly state?: CommentState
  /** The check's name on it, and the check runs of that name on its head that are not ours. */
  readonly name: string
  readonly others: readonly NamedCheckRun[]
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
  const { github, inputs, io, env } = context
  const cron = schedule.schedule ?? ''
  const pulls = await github.openPullRequests()
  const several = severalAt(github, inputs)
  const looked = await mapBounded(pulls, LOOK_WIDTH, pr =>
    look(github, inputs.checkName, pr, several)
  )
  const candidates = looked.filter(l => l.decision.heal).sort((a, b) => a.pr.number - b.pr.number)
  const probe = probeOnce(env)
  const members = membersOf(github, inputs, env)
  const healed: string[] = []
  const rerun = new Set<number>()
  const leftAlone: string[] = looked.flatMap(l =>
    l.decision.heal || l.decision.why.kind === 'not-unclear'
      ? []
      : [`#${l.pr.number} (${notHealed(l.decision.why)})`]
  )
  let stopped: string | undefined
  for (const candidate of candidates) {
    if (!candidate.decision.heal || !candidate.comment || !candidate.state) continue
    const { pr } = candidate
    if (stopped !== undefined) {
      leftAlone.push(`#${pr.number} (${stopped})`)
      continue
    }
    if (healed.length >= inputs.healLimit) {
      leftAlone.push(`#${pr.number} (over heal-limit: ${inputs.healLimit} a run)`)
      continue
    }
    const providers = providersOf(await members(pr.baseRef))
    const failing = providers.ok ? await stillFailing(providers.value, probe) : providers.problem
    if (failing !== undefined) {
      leftAlone.push(`#${pr.number} (${failing})`)
      continue
    }
    const outcome = await heal(github, inputs, pr, candidate.decision.value, {
      comment: candidate.comment,
      state: candidate.state
    })
    if (!outcome.ok) {
      if (outcome.problem.shared) stopped = outcome.problem.message
      leftAlone.push(`#${pr.number} (${outcome.problem.message})`)
      continue
    }
    rerun.add(pr.number)
    healed.push(
      `#${pr.number} (${candidate.decision.value.reasons.join(', ')}; re-run ${candidate.decision.value.count} of 3 for ${pr.headSha.slice(0, 7)}: ${outcome.value})`
    )
  }
  // A review re-run names them itself, from its own comment.
  const warned = await alertsRefreshed(
    github,
    inputs.checkName,
    looked.filter(l => l.others.length > 0 && !rerun.has(l.pr.number)),
    io
  )
  const unclear = looked.filter(l => l.decision.heal || l.decision.why.kind !== 'not-unclear')
  io.info(
    [
      `Rubric Council: healing${cron === '' ? '' : ` (schedule "${cron}")`}: ${pulls.length} open pull request${pulls.length === 1 ? '' : 's'}, ${unclear.length} with an UNCLEAR check; re-verified ${healed.length}, left ${leftAlone.length} alone`,
      ...listed('re-verified after a provider outage', healed),
      ...listed('left alone', leftAlone),
      ...listed(
        'warned of a check run of the check’s name that Rubric Council did not create',
        warned
      )
    ].join('\n')
  )
  if (stopped !== undefined) {
    io.warning(`Rubric Council: ${stopped}; no pull request was re-verified after it`)
  }
}

/** Whether a base branch has several rubrics, asked once per branch. */
function severalAt(
  github: GitHubPort,
  inputs: ActionInputs
): (baseRef: string) => Promise<boolean> {
  const folders = new Map<string, Promise<boolean>>()
  return baseRef => {
    let known = folders.get(baseRef)
    if (known === undefined) {
      known = rubricFilesAt(github, repositoryRubricPath(inputs), branchRef(baseRef)).then(
        files => files.length > 0
      )
      folders.set(baseRef, known)
    }
    return known
  }
}

/** Each provider's probe, made once per run however many pull requests need it. */
function probeOnce(
  env: HealContext['env']
): (provider: Provider) => Promise<Result<void, ProbeFailure>> {
  const fetch = proxiedFetch(PROBE_RESPONSE_BYTES)
  const probes = new Map<Provider, Promise<Result<void, ProbeFailure>>>()
  return provider => {
    let answer = probes.get(provider)
    if (answer === undefined) {
      answer = probeProvider(provider, env, fetch)
      probes.set(provider, answer)
    }
    return answer
  }
}

/** The providers among `providers` that still do not answer, said in one line; undefined when all do. */
async function stillFailing(
  providers: readonly Provider[],
  probe: (provider: Provider) => Promise<Result<void, ProbeFailure>>
): Promise<string | undefined> {
  const failing: string[] = []
  for (const provider of providers) {
    const answer = await probe(provider)
    if (!answer.ok) failing.push(`${provider} still failing: ${answer.problem.message}`)
  }
  return failing.length > 0 ? failing.join('; ') : undefined
}

/** Our latest check run on the pull request's head, and the comment's memory when it is UNCLEAR. */
async function look(
  github: GitHubPort,
  checkName: string,
  pr: OpenPullRequest,
  several: (baseRef: string) => Promise<boolean>
): Promise<Looked> {
  const name = checkRunName(checkName, pr)
  const runs = await github.checkRunsNamed(pr.headSha, name)
  const others = otherCheckRuns(runs)
  let latest = latestOf(runs)
  let read: { comment?: IssueComment; state: CommentState } | undefined
  if (!isUnclear(latest) && (await several(pr.baseRef))) {
    // Several rubrics (docs/rubric.md#several-rubrics): each has its own check run, and the
    // comment remembers each one's verdicts; the check run of one UNCLEAR on the head is asked.
    read = await ourMemory(github, pr.number, checkName)
    const unclear = Object.entries(read.state.rubrics ?? {}).flatMap(([name, memory]) => {
      const last = memory.history.at(-1)
      return last?.commit === pr.headSha && last.verdict === 'UNCLEAR' ? [name] : []
    })
    const runs = await Promise.all(unclear.map(name => latestOurs(github, pr.headSha, name)))
    latest = runs.find(isUnclear)
  }
  if (!isUnclear(latest)) {
    return {
      pr,
      decision: { heal: false, why: { kind: 'not-unclear' } },
      name,
      others
    }
  }
  const { comment, state } = read ?? (await ourMemory(github, pr.number, checkName))
  return {
    pr,
    decision: healDecision(pr.headSha, latest, state.history, state.heal),
    ...(comment && { comment }),
    state,
    name,
    others
  }
}

/** Our latest check run of that name on a commit, if any. */
export async function latestOurs(
  github: GitHubPort,
  headSha: string,
  name: string
): Promise<ListedCheckRun | undefined> {
  return latestOf(await github.checkRunsNamed(headSha, name))
}

/** Ours, the newest, among the check runs of a name on a commit. */
function latestOf(runs: readonly ListedCheckRun[]): ListedCheckRun | undefined {
  return runs
    .filter(r => r.externalId === CHECK_RUN_MARK)
    .reduce<ListedCheckRun | undefined>(
      (a, r) => (a === undefined || r.id > a.id ? r : a),
      undefined
    )
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
    if (!comment || state.rubrics || state.history.at(-1)?.commit !== l.pr.headSha) return []
    const body = withAlert(comment.body, othersAlert(l.name, l.others))
    if (body === comment.body) return []
    const written = await github.upsertComment(l.pr.number, body, [comment])
    if (!written.ok) {
      io.warning(`Rubric Council: #${l.pr.number}: ${written.problem}`)
      return []
    }
    for (const warning of othersWarnings(l.name, l.others)) io.warning(warning)
    return [`#${l.pr.number} (${l.others.map(o => `check run ${o.id}`).join(', ')})`]
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
 * The members a pull request's council asks, as the review would form it: the base branch's
 * rubric's `council.models`, else the `models` input, else one per provider key set here. Each
 * base branch's rubric is read once.
 */
function membersOf(
  github: GitHubPort,
  inputs: ActionInputs,
  env: HealContext['env']
): (baseRef: string) => Promise<readonly string[]> {
  const path = repositoryRubricPath(inputs)
  const read = new Map<string, Promise<readonly string[]>>()
  return baseRef => {
    let members = read.get(baseRef)
    if (members === undefined) {
      members = (async () => {
        // With what it extends: an organisation's rubric may name the council. With several
        // rubrics, the members of every one.
        if (inputs.checker !== undefined) return councilMembers([], inputs.models, env)
        const rubrics = await baseRubrics(github, path, branchRef(baseRef))
        const members = (rubrics.length > 0 ? rubrics : [undefined]).map(r =>
          councilMembers(r?.council.models ?? [], inputs.models, env)
        )
        return [...new Set(members.flat())]
      })()
      read.set(baseRef, members)
    }
    return members
  }
}

/** The providers of `members`, each once; a council with none cannot be probed. */
function providersOf(members: readonly string[]): Result<Provider[]> {
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
  const marked = replaceState(
    comment.body,
    markHeal(state, { commit: pr.headSha, count: toHeal.count, due: true })
  )
  const written = await github.upsertComment(pr.number, marked, [comment])
  if (!written.ok) {
    // Without the count, re-runs could repeat without end: none is started.
    return failed({
      message: `the count of re-runs could not be kept in the comment (${written.problem}); give the heal job "pull-requests: write"`,
      shared: true
    })
  }
  const outcome = await reverify(github, inputs.reviewWorkflow, pr)
  if (outcome.ok) return ok(outcome.value.runUrl)
  await github.upsertComment(pr.number, comment.body, [{ ...comment, body: marked }])
  return failed({
    message: outcome.problem.message,
    shared: SHARED_PROBLEMS.has(outcome.problem.kind)
  })
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

function listed(title: string, items: readonly string[]): string[] {
  if (items.length === 0) return []
  const more = items.length - LISTED
  return [`- ${title}: ${items.slice(0, LISTED).join(', ')}${more > 0 ? `, and ${more} more` : ''}`]
}
