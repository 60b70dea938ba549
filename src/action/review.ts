import type { Council } from '../council/types.js'
import { evaluate, shownElsewhere } from '../engine/evaluate.js'
import type { Evaluation } from '../engine/evaluation.js'
import { nextIteration } from '../engine/history.js'
import { cachingCouncil, type SealedJudgement } from '../engine/judgement-cache.js'
import type { RubricChoice } from '../engine/rubric-choice.js'
import { plannedRubric } from '../engine/rubric-choice.js'
import {
  planAlone,
  planRubrics,
  scopeText,
  type PlannedRubric,
  type RubricFile
} from '../engine/rubric-set.js'
import type { EvidenceSource } from '../evidence/source.js'
import type { EvidenceScope } from '../evidence/types.js'
import type { GateSource } from '../gates/types.js'
import type { CheckRunPlace } from '../github/check-run.js'
import type { PullRequestRun } from '../github/event.js'
import type { GitHubPort } from '../github/port.js'
import { checkRunName } from '../publish/check-name.js'
import {
  historyEntry,
  iterationNote,
  memoryOf,
  readState,
  type CommentState,
  type RubricMemory
} from '../publish/memory.js'
import { CHECK_RUN_MARK } from '../publish/plan.js'
import { planReview, type ReviewedRubric } from '../publish/review-plan.js'
import { duplicateRubricName, notApplicableTitle } from '../sentences/scope.js'
import { failed } from '../util/result.js'
import { askedOf, verifiedAcceptance, type Asked } from './asked.js'
import { publicationSettings, type ActionInputs } from '../inputs/action-inputs.js'
import type { ActionIO } from './io.js'
import { reportPathIn, sayToRunner, type PublishContext } from './publish.js'
import { checkRunsNamed, failBegun, ourComments, publishToPullRequest } from './review-github.js'

/** What a review runs on: gate results, evidence and judgement come in through these. */
export interface ReviewPorts {
  /** Absent without a token: nothing is read from GitHub or written to it then. */
  readonly github: GitHubPort | undefined
  readonly gates: GateSource
  readonly evidence: EvidenceSource
  readonly council: Council
  readonly machinery: (path: string) => boolean
  /** Every path the pull request changes (renames by both names); rejects when unreadable. */
  readonly changedPaths: () => Promise<readonly string[]>
  /** Seals the judges' answers kept for the next run; none without a provider key. */
  readonly judgementKey?: Buffer
}

/** A rubric file of the repository as the review reads it, before it is planned. */
export interface RubricRead {
  /** Its path relative to the working directory (as the `rubric` input is). */
  readonly path: string
  /** Its path in the repository, which `paths` and the changed files are relative to. */
  readonly repoPath: string
  readonly main: boolean
  readonly choice: RubricChoice
}

/** A rubric file as read and parsed (see `plannedRubric`). */
type ReadFile = RubricRead & RubricFile

/** A rubric's plan, with where its check run goes and the run this review started. */
interface Begun {
  readonly plan: PlannedRubric<ReadFile>
  readonly place: CheckRunPlace
  readonly id?: number
}

/**
 * One review of a pull request by its rubrics (docs/rubric.md#several-rubrics): a rubric alone
 * (`alone`: `.github/rubric.md` without a `rubrics/` folder) is a set of one. Each rubric that
 * applies gets its check run started (pending), then, with what the sticky comment remembers, is
 * judged (its judges' answers reused when nothing they saw changed); one that does not apply
 * concludes `success` "not applicable", so a required check never waits. Then the comment, each
 * check run, the job summary, the outputs and the report, as `planReview` plans them.
 */
export async function reviewPullRequest(
  review: {
    readonly run: PullRequestRun
    readonly inputs: ActionInputs
    readonly rubrics: readonly RubricRead[]
    readonly alone: boolean
    readonly ports: ReviewPorts
    /** Why a `skip-*` rule that held did not skip this run (`skipOf`), for each report. */
    readonly skipRefused?: string
  },
  context: PublishContext & { readonly detailsUrl?: string | undefined },
  io: ActionIO
): Promise<void> {
  const { run, inputs, ports } = review
  const writer = inputs.dryRun ? undefined : ports.github
  const plans = await planned(review)
  const begun = await Promise.all(
    plans.map(plan => begin(plan, run, writer, context.detailsUrl, io))
  )
  // After the check runs started: the first tells the port who the token is, so finding our
  // comments by their author needs no request of its own.
  const existing =
    inputs.comment === 'sticky' ? await ourComments(ports.github, run, inputs.checkName, io) : []
  try {
    const state: CommentState = existing[0] ? readState(existing[0].body) : { history: [] }
    const asked = await askedOf(state, run.pr, ports.github, io)
    const judgeAfterFailedGate = inputs.judgeAfterFailedGate
    const memory = { state, asked, alone: review.alone, writer, judgeAfterFailedGate }
    const rubrics = await judged(begun, memory, ports, io)
    const acceptance = await verifiedAcceptance(
      ports.github,
      state.accepted,
      { head: run.pr.headSha, number: run.pr.number },
      io
    )
    const told = {
      ...(acceptance && { acceptance }),
      ...(review.skipRefused !== undefined && { skipRefused: review.skipRefused })
    }
    const publication = planReview(
      rubrics.map(r => (r.evaluation ? { ...r, evaluation: { ...r.evaluation, ...told } } : r)),
      publicationSettings(inputs),
      {
        headSha: run.pr.headSha,
        pullRequest: run.pr.number,
        ...(context.detailsUrl !== undefined && { detailsUrl: context.detailsUrl }),
        reportPath: reportPathIn(context.tempDir),
        alone: review.alone,
        prior: state.history,
        ...noteOf(state, run.pr.headSha, asked),
        accepted: acceptance && state.accepted,
        heal: asked.heal,
        waivers: asked.waivers,
        at: new Date(),
        base: run.pr
      }
    )
    const commentUrl = await publishToPullRequest(publication, review, { existing, state }, io)
    await sayToRunner(publication, { ...context, commentUrl }, io)
  } catch (error) {
    await failBegun(begun, writer, error)
    throw error
  }
}

/**
 * The rubrics planned: a rubric alone applies whatever changed, and its judges see every file;
 * among several, each applies by its `paths` (and one whose name another file has is not judged).
 */
async function planned(review: {
  readonly inputs: ActionInputs
  readonly rubrics: readonly RubricRead[]
  readonly alone: boolean
  readonly ports: ReviewPorts
}): Promise<PlannedRubric<ReadFile>[]> {
  const files = review.rubrics.map(read => ({ ...read, ...plannedRubric(read.choice) }))
  const [first] = files
  if (review.alone && first) return [planAlone(first, review.inputs.checkName)]
  // Unread, every rubric applies: each then says why it has no verdict.
  const changed = await review.ports.changedPaths().catch(() => undefined)
  return planRubrics(files, changed, review.inputs.checkName)
}

/** Its check run's place on the head commit, started (pending) when it applies and can be. */
async function begin(
  plan: PlannedRubric<ReadFile>,
  run: PullRequestRun,
  writer: GitHubPort | undefined,
  detailsUrl: string | undefined,
  io: ActionIO
): Promise<Begun> {
  const head = run.pr.headSha
  const place: CheckRunPlace = {
    headSha: head,
    name: checkRunName(plan.checkName, run.pr),
    externalId: CHECK_RUN_MARK,
    ...(detailsUrl !== undefined && { detailsUrl })
  }
  const by = plan.file.main ? '' : ` by ${plan.file.repoPath}`
  const started =
    plan.applicable && writer
      ? await writer.startCheckRun(place, {
          title: 'Reviewing…',
          summary: `Rubric Council is reviewing ${head.slice(0, 7)}${by}: gates, then the judges.`
        })
      : undefined
  if (started?.ok === false) io.warning(`Rubric Council: ${started.problem}`)
  return { plan, place, ...(started?.ok === true && { id: started.value }) }
}

/**
 * Each rubric that applies, judged with what it remembers; the others say why they did not apply.
 * Gates of several rubrics run one rubric at a time: they share the checkout. A file outside a
 * rubric's paths counts as seen only when another rubric's judges are shown it (`shownElsewhere`).
 */
async function judged(
  begun: readonly Begun[],
  memory: {
    readonly state: CommentState
    readonly asked: Asked
    readonly alone: boolean
    /** Where check runs are written (none in a dry run): those of our names are listed there. */
    readonly writer: GitHubPort | undefined
    /** The `judge-after-failed-gate` input. */
    readonly judgeAfterFailedGate: boolean
  },
  ports: ReviewPorts,
  io: ActionIO
): Promise<ReviewedRubric[]> {
  const gates = oneAtATime(ports.gates)
  const scoped = await shownElsewhere(
    begun.map(b => b.plan),
    plan => plan.file.choice.trusted,
    ports
  )
  const head = begun[0]?.place.headSha ?? ''
  const reviewed = await Promise.all(
    begun.map(async ({ plan, place, id }, i): Promise<ReviewedRubric> => {
      const base = {
        checkName: place.name,
        name: plan.name,
        path: plan.file.repoPath,
        ...(id !== undefined && { checkRunId: id })
      }
      if (!plan.applicable) {
        return {
          ...base,
          notApplicable: notApplicableTitle(scopeText(plan.file.rubric?.scope ?? {}))
        }
      }
      const choice =
        plan.duplicateOf === undefined
          ? plan.file.choice
          : { ...plan.file.choice, rubric: duplicate(plan) }
      const remembered = memoryOf(memory.state, place.name, memory.alone)
      const { evaluation, sealed } = await judgeRubric(
        {
          choice,
          memory: remembered,
          head,
          asked: memory.asked,
          scope: scoped[i]?.scope,
          judgeAfterFailedGate: memory.judgeAfterFailedGate
        },
        { ...ports, gates }
      )
      return {
        ...base,
        evaluation,
        memory: { history: evaluation.history ?? [], ...(sealed && { judgement: sealed }) }
      }
    })
  )
  // Listed once all are judged, in one request: a job of one of these names started meanwhile
  // is named too.
  const judgedNames = reviewed.filter(r => r.evaluation).map(r => r.checkName)
  const named = await checkRunsNamed(memory.writer, head, judgedNames, io)
  return reviewed.map(r =>
    r.evaluation ? { ...r, checkRunsNamed: named.filter(run => run.name === r.checkName) } : r
  )
}

/**
 * One rubric judged with what it remembers (its history, and the judges' answers it may reuse):
 * the evaluation with its history entry, and the answers to keep for the next run.
 */
async function judgeRubric(
  request: {
    readonly choice: RubricChoice
    readonly memory: RubricMemory
    readonly head: string
    readonly asked: Asked
    /** A rubric among several: which changed files its judges see. */
    readonly scope?: EvidenceScope | undefined
    readonly judgeAfterFailedGate: boolean
  },
  ports: ReviewPorts
): Promise<{ readonly evaluation: Evaluation; readonly sealed?: SealedJudgement }> {
  const { choice, memory, head, asked } = request
  const prior = memory.history
  const council = cachingCouncil(ports.council, {
    key: ports.judgementKey,
    ...(asked.rerun === undefined && memory.judgement && { previous: memory.judgement }),
    iteration: nextIteration(prior)
  })
  const evaluated = await evaluate(
    {
      rubric: choice.rubric,
      trusted: choice.trusted,
      ...(choice.review && { review: choice.review }),
      ...(choice.calibration && { calibration: choice.calibration }),
      history: prior,
      ...(request.scope && { scope: request.scope }),
      ...(asked.waived.length > 0 && { waived: asked.waived }),
      judgeAfterFailedGate: request.judgeAfterFailedGate
    },
    { ...ports, council }
  )
  const cache = council.result()
  const note = iterationNote(
    prior,
    head,
    evaluated.rubric.hash,
    { ...(asked.rerun && { rerun: asked.rerun }), healed: asked.heal?.due === true },
    cache.reusedFrom
  )
  return {
    evaluation: {
      ...evaluated,
      ...(cache.reusedFrom !== undefined && { reusedFrom: cache.reusedFrom }),
      history: [...prior, historyEntry(evaluated, head, note, new Date())]
    },
    ...(cache.sealed && { sealed: cache.sealed })
  }
}

/** Why this run ran, for the history, when it is not a new push (with several rubrics). */
function noteOf(state: CommentState, head: string, asked: Asked): { readonly note?: string } {
  const note = iterationNote(
    state.history,
    head,
    undefined,
    { ...(asked.rerun && { rerun: asked.rerun }), healed: asked.heal?.due === true },
    undefined
  )
  return note === undefined ? {} : { note }
}

/** A rubric whose name another file of the set already has: a problem of the rubric, not judged. */
function duplicate(plan: PlannedRubric<ReadFile>): RubricChoice['rubric'] {
  const { path } = plan.file
  return failed({
    source: { path, kind: 'file' as const },
    issues: [
      {
        file: path,
        line: 1,
        rule: 'name' as const,
        message: duplicateRubricName(plan.name, plan.duplicateOf ?? '')
      }
    ]
  })
}

/** The gate source, asked for one rubric's gates at a time (in the order asked). */
function oneAtATime(gates: GateSource): GateSource {
  let queue: Promise<unknown> = Promise.resolve()
  return {
    ...gates,
    results: rubric => {
      const next = queue.then(() => gates.results(rubric))
      queue = next.catch(() => undefined)
      return next
    }
  }
}
