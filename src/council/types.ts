/** The council as the engine sees it; providers live behind this interface. */

import type { Evidence } from '../evidence/types.js'
import type { GateResult } from '../gate-result/types.js'
import type { ReasoningEffort, Rubric } from '../rubric/types.js'

export type Severity = 'critical' | 'major' | 'minor' | 'info'

export interface Finding {
  readonly severity: Severity
  readonly title: string
  readonly path?: string
  readonly line?: number
  readonly evidence: string
}

export type ChecklistVerdict = 'PASS' | 'FAIL'
export type Recommendation = 'ACCEPT' | 'RETRY' | 'TERMINATE'

export interface CriterionGrade {
  readonly id: string
  /** Checklist criteria. */
  readonly verdict?: ChecklistVerdict
  /** Score-range criteria: an integer 0–10. */
  readonly score?: number
  readonly reasoning: string
}

interface DimensionGrade {
  readonly name: string
  /** An integer 1–10. */
  readonly score: number
  readonly reasoning: string
}

/** One valid judge answer, already checked against the rubric by the council. */
export interface JudgeAnswer {
  readonly findings: readonly Finding[]
  readonly criteria: readonly CriterionGrade[]
  readonly dimensions: readonly DimensionGrade[]
  readonly verdict: Recommendation
  readonly feedback: string
}

/** Why a judge call produced no valid answer; each maps to the verdict reason of the same name. */
export type CouncilFailure =
  | 'missing_credentials'
  | 'rejected_credentials'
  | 'rate_limited'
  | 'timeout'
  | 'provider_error'
  | 'invalid_output'
  | 'answer_cut'
  | 'context_overflow'

/** Tokens billed for one judge call, summed over its requests. */
export interface TokenUsage {
  /** Every input token, cached or not. */
  readonly input: number
  /** Of `input`, those read from the provider's prompt cache (billed at its cache price). */
  readonly cachedInput: number
  /** Of `input`, those written to the cache (Anthropic bills them above the input price). */
  readonly cacheWrite: number
  readonly output: number
}

/** What a call's prompt-cache reads and writes cost, in US dollars (part of its `costUsd`). */
export interface CacheCost {
  readonly read: number
  readonly write: number
}

/** What an extra call was for, and who made it. */
export interface ExtraVote {
  /** The must-haves it was asked for: its vote counts on these only. */
  readonly criteria: readonly string[]
  /** A reserve of the rubric (`council.reserve`), not a member whose first call failed. */
  readonly reserve: boolean
}

/** One call of one member: its answer, or the typed reason it has none. */
export type JudgeRun = {
  /** `provider:model` */
  readonly judge: string
  /** 1-based sample number. */
  readonly sample: number
  /**
   * An extra vote: a call made for one more vote on must-haves the judges were not agreed on; its
   * vote counts only on `criteria`, and only where its judge has not voted otherwise.
   */
  readonly extra?: ExtraVote
  readonly latencyMs: number
  /** HTTP requests made: the first, then retries, repairs and re-asks. */
  readonly requests?: number
  readonly tokens?: TokenUsage
  /** Estimated cost in US dollars; absent for models without a known price. */
  readonly costUsd?: number
  /** Of `costUsd`, what the cache reads and writes cost; absent with it. */
  readonly cacheCostUsd?: CacheCost
  /**
   * What its requests were sent besides the prompt: the cap on the answer and the temperature; and
   * the context window its prompt was sized to, where one was declared or reported.
   */
  readonly sent?: { readonly cap: number; readonly temperature?: number; readonly window?: number }
} & (
  | { readonly status: 'ok'; readonly answer: JudgeAnswer }
  | {
      readonly status: 'failed'
      readonly failure: CouncilFailure
      readonly message: string
      /**
       * The provider rejected the request itself (400, 404, 422) or its key (401, 403): re-running
       * will not help.
       */
      readonly rejected?: boolean
      /** No request was made: the member's model is retired (models.ts). */
      readonly notAsked?: true
    }
)

export interface CouncilOutcome {
  readonly runs: readonly JudgeRun[]
  /** Valid answers needed for a verdict. */
  readonly quorum: number
  /**
   * The calls the council stopped waiting for, because the answers in `runs` had settled the
   * verdict (src/verdict/settled.ts). None of them is a failure: they count for no quorum and no
   * extra vote; absent when none was cancelled.
   */
  readonly cancelled?: readonly CancelledCall[]
}

/** A call cancelled once the verdict was settled, with what it had spent until then. */
export interface CancelledCall {
  readonly judge: string
  readonly sample: number
  /** The reason codes of the settled verdict: what no answer of this call could change. */
  readonly settledBy: readonly string[]
  readonly latencyMs: number
  readonly requests?: number
  readonly tokens?: TokenUsage
  readonly costUsd?: number
  readonly cacheCostUsd?: CacheCost
}

/**
 * Whether the answers in hand settle the verdict, asked by the council as each call ends: the
 * reason codes of the settled verdict, or undefined while an outstanding call could change it.
 */
export type SettledCheck = (
  inHand: CouncilOutcome,
  pending: readonly { readonly judge: string; readonly sample: number }[]
) => readonly string[] | undefined

export interface CouncilRequest {
  readonly rubric: Rubric
  readonly gates: readonly GateResult[]
  readonly evidence: Evidence
  /** This run's place on the pull request: 1 for the first run. */
  readonly iteration: number
  /** The earlier runs, oldest first, as the sticky comment remembers them (untrusted text). */
  readonly earlier: readonly EarlierRun[]
}

/** One earlier run of the check on the pull request, as the judges are told of it. */
interface EarlierRun {
  readonly iteration: number
  /** Empty for an iteration of the local loop, which has no commit of its own. */
  readonly commit: string
  readonly verdict: string
  readonly summary: string
  readonly rubricHash?: string
  readonly feedback?: string | undefined
}

/**
 * What the engine asks for judgement. Implementations never throw: every failure comes back as a
 * failed run with its typed reason, so one broken judge cannot crash the verdict.
 */
/** Who a council asks about a rubric, and how. */
export interface CouncilSetup {
  readonly members: readonly string[]
  readonly samples: number
  /** Each member's reasoning effort, in the order of `members`; null: the provider's own. */
  readonly reasoning: readonly (ReasoningEffort | null)[]
  /** Each member's temperature as sent, in the order of `members`; null: none sent. */
  readonly temperature: readonly (number | null)[]
  /** Who may cast extra votes, each with its effort. */
  readonly reserve: readonly (readonly [string, ReasoningEffort | null])[]
  readonly maxExtraVotes: number
}

export interface Council {
  /**
   * Every member asked; with `settled`, the calls still out are cancelled (and reported in
   * `cancelled`) as soon as it says the answers in hand settle the verdict.
   */
  readonly convene: (request: CouncilRequest, settled?: SettledCheck) => Promise<CouncilOutcome>
  /**
   * The reserves that can be asked for an extra vote on this rubric, in order: the rubric's
   * `council.reserve` less any member, retired model or model without credentials.
   */
  readonly reserves?: (rubric: Rubric) => readonly string[]
  /**
   * One extra call to `judge` (a reserve, or a member whose first call failed) for one more vote on
   * the must-haves in `criteria`; `round` counts the extra calls, from 1. Undefined when the council
   * cannot ask.
   */
  readonly extraVote?: (
    request: CouncilRequest,
    call: { readonly judge: string; readonly round: number; readonly criteria: readonly string[] }
  ) => Promise<JudgeRun | undefined>
  /**
   * The most evidence tokens every member's context window can take beside the instructions, the
   * rubric and the answer, where the windows are known (from the model table, the rubric, or the
   * member's server); undefined when none is.
   */
  readonly contextLimit?: (rubric: Rubric) => Promise<number | undefined>
  /**
   * Why the rubric does not fit the context windows of those asked, beside the evidence budget
   * (`max-evidence-tokens`) and the answer, with what to do; undefined when it fits.
   */
  readonly tooLarge?: (rubric: Rubric, evidenceBudget: number) => string | undefined
  /**
   * Who is asked about this rubric, and how many times, as text: a judgement is reused only for
   * the same configuration (the verdict cache).
   */
  readonly configuration?: (rubric: Rubric) => string
  /**
   * Who is asked about this rubric, how many times and at what effort: a calibration record stands
   * only for the same (src/verdict/calibration.ts).
   */
  readonly setup?: (rubric: Rubric) => CouncilSetup
}
