import { failed, type Result } from '../util/result.js'
import type { Council, CouncilOutcome, CouncilRequest, SettledCheck } from '../council/types.js'
import { EvidenceUnavailableError, type EvidenceSource } from '../evidence/source.js'
import type { Evidence, EvidenceScope } from '../evidence/types.js'
import type { GateSource } from '../gates/types.js'
import { parseRubric } from '../rubric/parse.js'
import type { RubricTextResult } from '../rubric/text.js'
import type { Rubric } from '../rubric/types.js'
import { PROMPT_VERSION } from '../council/prompt.js'
import { calibrationStanding, type RecordRead } from '../verdict/calibration.js'
import { settledVerdict } from '../verdict/settled.js'
import type { Waiver } from '../verdict/types.js'
import {
  decide,
  invalidVerdict,
  type VerdictInput,
  mustHavesInDoubt,
  needsCouncil,
  nextVoter
} from '../verdict/decide.js'
import type { Evaluation, RubricInfo, RubricReview } from './evaluation.js'
import { judgedPlans, withShownElsewhere, type PlannedRubric } from './rubric-set.js'
import { shownLocations } from './shown.js'
import { nextIteration, type HistoryEntry } from './history.js'

/** Everything an evaluation is of, resolved by the shell (the action, the CLI) beforehand. */
export interface EvaluationRequest {
  /** The rubric's text and where it is from, or why there is none. */
  readonly rubric: RubricTextResult
  /**
   * The rubric is its owner's (read from the base branch, a local file, the workflow's checker
   * input): only then may its `exclude` take files out of coverage.
   */
  readonly trusted: boolean
  /** Where the rubric came from and what the pull request changed in it, when that applies. */
  readonly review?: RubricReview
  /** The runs of the check on this pull request so far, oldest first; none outside a pull request. */
  readonly history?: readonly HistoryEntry[]
  /** Must-haves a maintainer waived for this commit, already checked by the shell. */
  readonly waived?: readonly Waiver[]
  /**
   * The calibration record beside the rubric, read where the rubric was (the base branch): what
   * lets a must-have block under `calibration: required`. Absent: not applied, every must-have
   * blocks (`calibrate` measures the council itself).
   */
  readonly calibration?: RecordRead
  /** A rubric among several: which changed files its judges see (docs/rubric.md#several-rubrics). */
  readonly scope?: EvidenceScope
  /**
   * Whether the judges are asked once a gate has failed (the `judge-after-failed-gate` input):
   * their feedback, for a verdict the gate has already decided. Asked unless false.
   */
  readonly judgeAfterFailedGate?: boolean
}

/** The engine's ports: where gate results, evidence and judgement come from. */
export interface EnginePorts {
  readonly gates: GateSource
  readonly evidence: EvidenceSource
  readonly council: Council
  /**
   * The paths of this check's own machinery (its workflows, local actions, the action's files): a
   * pull request that changes one cannot PASS, for it could have changed how it is judged.
   * Absent: not checked (a local run, where nobody else relies on the verdict).
   */
  readonly machinery?: (path: string) => boolean
}

/**
 * One evaluation: rubric → evidence → gates → council → verdict. A function of the request and
 * what the ports answer; every failure of the machinery ends in a verdict with a named reason, and
 * only a bug can make this throw.
 */
export async function evaluate(
  request: EvaluationRequest,
  ports: EnginePorts
): Promise<Evaluation> {
  const history = request.history ?? []
  const iteration = nextIteration(history)
  const context = {
    iteration,
    ...(request.review && { rubricReview: request.review })
  }
  const parsed = await usableRubric(request, ports)
  if (!parsed.ok) return { ...parsed.problem, ...context }
  const rubric = parsed.value
  const { evidence, evidenceProblem } = await evidenceOf(rubric, request, ports)
  const machinery = ports.machinery
  const machineryChanged =
    machinery === undefined || evidence === undefined
      ? undefined
      : evidence.changed.filter(path => machinery(path))

  const gates = await ports.gates.results(rubric)
  // A signal stopped the run (Ctrl-C, the runner's cancel): the gate decides, no judge is paid for.
  const stopped = gates.some(gate => gate.stopped !== undefined)
  const judged = evidence !== undefined && needsCouncil(rubric) && !stopped
  // A failed gate has decided FAIL: the judges are asked for their feedback unless told not to.
  const unasked =
    judged && request.judgeAfterFailedGate === false && gates.some(g => g.status !== 'pass')
  const excusedBy: Excused = {
    ...(request.waived && { waived: request.waived }),
    ...standingOf(rubric, request, ports)
  }
  const council =
    evidence && judged && !unasked
      ? await conveneCouncil(
          ports.council,
          {
            rubric,
            gates,
            evidence,
            iteration,
            earlier: history
          },
          excusedBy
        )
      : undefined
  const verdict = decide({
    rubric,
    gates,
    ...(council && { council }),
    ...(evidence && { coverage: evidence.receipt.ratio }),
    ...(evidenceProblem !== undefined && { evidenceProblem }),
    ...(machineryChanged !== undefined && { machineryChanged }),
    machineryChecked: machinery !== undefined,
    ...excusedBy,
    ...(evidence && { shown: shownLocations(evidence, gates) })
  })
  return {
    verdict,
    rubric: describe(rubric),
    gates,
    ...(ports.gates.provenance !== undefined && { gatesProvenance: ports.gates.provenance }),
    ...(council && { council }),
    ...(unasked && { judgesNotAsked: 'gate_failed' as const }),
    ...(evidence && { evidence }),
    ...context
  }
}

/** What leaves a must-have's FAIL or SPLIT out of the verdict: a waiver, an advisory standing. */
type Excused = Pick<VerdictInput, 'waived' | 'calibration'>

/** Each must-have's standing under `calibration: required`, against the council asked. */
function standingOf(
  rubric: Rubric,
  request: EvaluationRequest,
  ports: Pick<EnginePorts, 'council' | 'evidence'>
): Pick<Excused, 'calibration'> {
  const read = request.calibration
  if (read === undefined) return {}
  const calibration = calibrationStanding(rubric, read, {
    // Every council and evidence source the product makes says what it does; a stand-in that
    // does not is not compared.
    council: ports.council.setup?.(rubric) ?? 'unchanged',
    promptVersion: PROMPT_VERSION,
    evidenceOrder: ports.evidence.order ?? 'unchanged'
  })
  return calibration ? { calibration } : {}
}

/**
 * The rubric to evaluate with, or the evaluation that says why there is none: it is not valid
 * (`invalid_rubric`), or the gates refuse to run it here (`invalid_input`).
 */
async function usableRubric(
  request: EvaluationRequest,
  ports: EnginePorts
): Promise<Result<Rubric, Omit<Evaluation, 'iteration'>>> {
  const parsed = request.rubric.ok
    ? parseRubric(request.rubric.value)
    : failed(request.rubric.problem.issues)
  if (!parsed.ok) {
    const source = request.rubric.ok ? request.rubric.value : request.rubric.problem.source
    return failed({
      verdict: invalidVerdict('invalid_rubric', parsed.problem.length),
      rubric: {
        path: source.path,
        source: source.kind,
        problems: parsed.problem,
        counts: { gates: 0, must: 0, nice: 0 }
      },
      gates: []
    })
  }
  const tooLarge = tooLargeRubric(parsed.value, ports)
  if (tooLarge !== undefined) return failed(tooLarge)
  const refusal = await ports.gates.refusal?.(parsed.value)
  if (refusal === undefined) return parsed
  return failed({
    verdict: invalidVerdict('invalid_input', refusal),
    rubric: describe(parsed.value),
    gates: []
  })
}

/**
 * A rubric its judges' context windows cannot hold beside the evidence budget and the answer: an
 * invalid rubric, said before any gate runs or any judge is asked (a provider would answer 400).
 */
function tooLargeRubric(
  rubric: Rubric,
  ports: Pick<EnginePorts, 'council' | 'evidence'>
): Omit<Evaluation, 'iteration'> | undefined {
  const message = needsCouncil(rubric)
    ? ports.council.tooLarge?.(rubric, ports.evidence.budget)
    : undefined
  if (message === undefined) return undefined
  return {
    verdict: invalidVerdict('invalid_rubric', 1),
    rubric: {
      ...describe(rubric),
      problems: [{ file: rubric.source.path, rule: 'too-large', message }]
    },
    gates: []
  }
}

/**
 * The evidence first, before any gate runs the pull request's code, so nothing the pull request
 * runs can change what the judges see. The changed files are needed for every rubric whose
 * verdict someone relies on (`ports.machinery`): they say whether the machinery was changed.
 */
async function evidenceOf(
  rubric: Rubric,
  request: EvaluationRequest,
  ports: EnginePorts
): Promise<{ readonly evidence?: Evidence; readonly evidenceProblem?: string }> {
  if (!needsCouncil(rubric) && ports.machinery === undefined) return {}
  try {
    return { evidence: await collectEvidence(rubric, request, ports) }
  } catch (error) {
    if (!(error instanceof EvidenceUnavailableError)) throw error
    return { evidenceProblem: error.message }
  }
}

/**
 * The evidence of `rubric`, within what its judges' context windows hold. Throws
 * EvidenceUnavailableError when the diff cannot be read.
 */
async function collectEvidence(
  rubric: Rubric,
  request: Pick<EvaluationRequest, 'trusted' | 'scope'>,
  ports: Pick<EnginePorts, 'evidence' | 'council'>
): Promise<Evidence> {
  const limit = needsCouncil(rubric) ? await ports.council.contextLimit?.(rubric) : undefined
  return ports.evidence.collect({
    rubric,
    trusted: request.trusted,
    ...(limit !== undefined && { limit }),
    ...(request.scope && { scope: request.scope })
  })
}

/**
 * Several rubrics' plans, each scoped one told which files the judges of the others are shown in
 * this run (docs/rubric.md#several-rubrics): their evidence is collected as their evaluations will
 * collect it, so a file counts as seen elsewhere only when another rubric's judges get its
 * content. `trusted` says whose `exclude` may waive (see EvaluationRequest).
 */
export async function shownElsewhere<P extends PlannedRubric>(
  plans: readonly P[],
  trusted: (plan: P) => boolean,
  ports: Pick<EnginePorts, 'evidence' | 'council'>
): Promise<P[]> {
  if (plans.every(plan => plan.scope === undefined)) return [...plans]
  const shown = await Promise.all(
    judgedPlans(plans).map(async plan => {
      const rubric = plan.file.rubric
      const request = { trusted: trusted(plan), ...(plan.scope && { scope: plan.scope }) }
      const paths = rubric
        ? await collectEvidence(rubric, request, ports).then(
            evidence => evidence.receipt.reviewed.map(r => r.path),
            // Its own evaluation says why; meanwhile it vouches for nothing.
            (error: unknown) => {
              if (error instanceof EvidenceUnavailableError) return []
              throw error
            }
          )
        : []
      return [plan, new Set(paths)] as const
    })
  )
  return withShownElsewhere(plans, new Map(shown))
}

/**
 * The council's answers, and while the judges are not agreed on a must-have, extra votes: one call
 * at a time, each to a voter that has not voted yet (a reserve, or a member whose call failed), for
 * the must-haves without a lead of two votes, up to the rubric's `council.max_extra_votes`
 * (docs/verdict.md#the-numbers). The council stops waiting as soon as the answers in hand settle
 * the verdict (src/verdict/settled.ts); then no extra vote could change it either. A council that
 * throws has a bug; it still ends as a named failure, never as a crash or a PASS.
 */
export async function conveneCouncil(
  council: Council,
  request: CouncilRequest,
  excused: Excused = {}
): Promise<CouncilOutcome> {
  try {
    const { rubric } = request
    const reserves = council.reserves?.(rubric) ?? []
    const gatesPassed = request.gates.every(g => g.status === 'pass')
    // After a failed gate the judges are asked for their feedback (`judge-after-failed-gate`):
    // every answer is waited for, though the gate has decided the verdict.
    let outcome = await council.convene(
      request,
      gatesPassed ? settledCheck(request, reserves, excused) : undefined
    )
    // A failed gate decides the verdict (row 2) whatever the votes: no extra call is worth its cost.
    const budget = gatesPassed && !outcome.cancelled ? rubric.council.maxExtraVotes : 0
    for (let round = 1; round <= budget; round++) {
      const criteria = mustHavesInDoubt(rubric, outcome)
      if (criteria.length === 0 || council.extraVote === undefined) break
      const voter = nextVoter(outcome, reserves)
      if (voter === undefined) break
      const run = await council.extraVote(request, { judge: voter.judge, round, criteria })
      if (run === undefined) break
      const extra = { criteria, reserve: voter.reserve }
      outcome = { ...outcome, runs: [...outcome.runs, { ...run, extra }] }
    }
    return outcome
  } catch (error) {
    return {
      quorum: 1,
      runs: [
        {
          judge: 'council',
          sample: 1,
          latencyMs: 0,
          status: 'failed',
          failure: 'provider_error',
          message: `internal error: ${error instanceof Error ? error.message : String(error)}`
        }
      ]
    }
  }
}

/** The council's check, as each call ends, that no call still out can change the verdict. */
function settledCheck(
  { rubric, gates, evidence }: CouncilRequest,
  reserves: readonly string[],
  excused: Excused
): SettledCheck {
  const shown = shownLocations(evidence, gates)
  return (council, pending) =>
    settledVerdict(
      { rubric, gates, council, ...excused, shown },
      { pending, reserves }
    )?.reasons.map(r => r.code)
}

/** What the report says of a valid rubric. */
export function describe(rubric: Rubric): RubricInfo {
  const must = rubric.criteria.filter(c => c.required).length
  return {
    path: rubric.source.path,
    source: rubric.source.kind,
    hash: rubric.hash,
    ...(rubric.title !== undefined && { title: rubric.title }),
    ...(rubric.source.kind === 'checker' && { materialised: rubric.text }),
    ...(rubric.inherited && { inherited: rubric.inherited }),
    problems: [],
    counts: { gates: rubric.gates.length, must, nice: rubric.criteria.length - must },
    thresholds: rubric.thresholds
  }
}
