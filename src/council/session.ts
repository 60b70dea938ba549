import { countTokens } from '../evidence/tokens.js'
import { parseModelId, type ModelId } from '../rubric/model-id.js'
import type { ReasoningEffort, Rubric } from '../rubric/types.js'
import { mapBounded } from '../util/pool.js'
import type { CacheTurn } from './cache-turns.js'
import type { CouncilOptions } from './council.js'
import { callJudge, type CallPolicy, type JudgeCall } from './call.js'
import { callSettings, languageModel } from './judge-model.js'
import { judgeJsonSchema, validateAnswer } from './judge-schema.js'
import { overflowSentence } from './window.js'
import { answerCap, effortOf, temperatureOf } from './member-settings.js'
import { REPAIR_ROOM_TOKENS, TOKENIZER_MARGIN } from './providers/common.js'
import { cacheMinimum, lifecycle, retirementNote } from './models.js'
import { buildPrompt, fenceToken, withoutFence } from './prompt.js'
import { providerOf } from './providers/index.js'
import type { CancelledCall, CouncilRequest, JudgeRun } from './types.js'
import { watchCalls } from './waiting.js'

/** Timing and retry defaults, in one place (documented in docs/council.md). */
const COUNCIL_DEFAULTS = {
  /** Seconds one request may take, unless the rubric's `council.timeout` says otherwise. */
  timeoutSeconds: 180,
  /** The whole council may take this many request timeouts, then it stops and reports. */
  deadlineTimeouts: 3,
  /**
   * Judge calls in flight at once: every member × sample of any council people run (a cap of 6
   * made 9 judges take 1.9× as long as 3); it only guards against a runaway configuration.
   */
  concurrency: 32,
  maxRetries: 2,
  retryBaseMs: 1000,
  maxRetryWaitMs: 60_000,
  /**
   * An overloaded provider (Anthropic's 529, a 503: busy for everyone) clears in seconds to
   * minutes, not in the ~3 s the
   * usual backoff gives up after: one more retry, each backoff twice as long (1–2 s, 2–4 s, 4–8 s:
   * up to 14 s in all, instead of up to 3 s).
   */
  overloadedBackoffFactor: 2,
  overloadedMaxRetries: 3
} as const

/** One call to make: a member (or a reserve) and its sample. */
export interface Task {
  readonly judge: string
  readonly sample: number
  /** Seeds the criteria order this call sees. */
  readonly seed: string
}

/** What the council holds for the whole run, whatever the request. */
export interface CouncilRun {
  readonly options: CouncilOptions
  readonly fetch: typeof globalThis.fetch
  /** For the whole run, extra votes included: an extra call reads what the first calls wrote. */
  readonly turns: (model: string, cancel?: AbortSignal) => Promise<CacheTurn>
  /** Epoch ms: `options.now`, else the clock. */
  readonly now: () => number
  /** The context window `member` declares, else the one its server reports; undefined if neither. */
  readonly window: (rubric: Rubric, member: string) => Promise<number | undefined>
}

/**
 * Whether the runs ended so far settle the verdict, given the tasks still out: the settled
 * verdict's reason codes, or undefined.
 */
export type Until = (
  ended: readonly JudgeRun[],
  pending: readonly Task[]
) => readonly string[] | undefined

/** The runs of a session, and the calls it cancelled once `until` said the verdict was settled. */
export interface Asked {
  readonly runs: JudgeRun[]
  readonly cancelled: CancelledCall[]
}

/**
 * The calls about one request: every one shares its schema, its policy and the prompt's shared
 * part, which is counted once. `tasks` are asked all at once, within the council's bound; with
 * `until`, those still out are cancelled as soon as it says the verdict is settled.
 */
export function judgeSession(
  council: CouncilRun,
  request: CouncilRequest
): (tasks: readonly Task[], until?: Until) => Promise<Asked> {
  const policy = callPolicy(council, request.rubric)
  const schema = judgeJsonSchema(request.rubric)
  let sharedTokens: number | undefined
  const prompted = (task: Task) => {
    // A fence of its own for every call: the tokens are counted once, for they are as long.
    const fence = fenceToken()
    const prompt = buildPrompt({ ...request, seed: task.seed, fence })
    sharedTokens ??= [prompt.system, prompt.rubric, prompt.evidence, prompt.run]
      .map(countTokens)
      .reduce((a, b) => a + b, 0)
    return { fence, prompt, promptTokens: sharedTokens + countTokens(prompt.judge) }
  }
  const ask = async (task: Task, cancel?: AbortSignal): Promise<JudgeRun> => {
    // Cancelled before it started: no prompt is built, no request made.
    if (cancel?.aborted) return notAsked(task, 'cancelled')
    const id = parseModelId(task.judge)
    if (!id.ok) return notAsked(task, id.problem)
    // Past its retirement date the provider refuses the model (or answers with another): no
    // request is spent on it, and the report says what to use instead.
    const today = council.now()
    if (lifecycle(task.judge, today).state === 'retired') {
      return notAsked(task, retirementNote(task.judge, today) ?? '', 'provider_error')
    }
    const model = languageModel(id.value, council.options.env, council.fetch)
    if (!model.ok) return notAsked(task, model.problem)
    const { fence, prompt, promptTokens } = prompted(task)
    const window = await council.window(request.rubric, task.judge)
    const how = howAsked(request.rubric, task.judge, window)
    // A known window the prompt, the answer's cap and a repair's room cannot share (the evidence
    // was sized to it, so this is a window too small for the instructions and rubric): no
    // request is spent.
    const needed = promptTokens * TOKENIZER_MARGIN + REPAIR_ROOM_TOKENS + how.cap
    if (how.window !== undefined && needed > how.window) {
      const sizes = { window: how.window, promptTokens, cap: how.cap }
      return notAsked(task, overflowSentence(task.judge, sizes), 'context_overflow')
    }
    const call = judgeCall(council, task, id.value, how, {
      model: await model.value(),
      prompt,
      promptTokens,
      schema,
      validate: value => validateAnswer(value, request.rubric)
    })
    const run = await callJudge(call, cancel ? { ...policy, cancel } : policy)
    return withoutFence(run, fence)
  }
  return (tasks, until) => askAll(council, tasks, ask, until)
}

/**
 * How a judge is asked about a rubric: its effort, the cap on its answer, its temperature, and the
 * window it is known to have (declared, or reported by its server).
 */
interface HowAsked {
  readonly effort: ReasoningEffort | undefined
  readonly cap: number
  readonly temperature: number | undefined
  readonly window: number | undefined
}

function howAsked(rubric: Rubric, judge: string, window: number | undefined): HowAsked {
  return {
    effort: effortOf(rubric, judge),
    cap: answerCap(rubric, judge, window),
    temperature: temperatureOf(rubric, judge),
    window
  }
}

/** One call as `callJudge` makes it: the prompt, and what the provider is sent besides. */
function judgeCall(
  council: CouncilRun,
  task: Task,
  id: ModelId,
  how: HowAsked,
  asked: Pick<JudgeCall, 'model' | 'prompt' | 'promptTokens' | 'schema' | 'validate'>
): JudgeCall {
  const provider = providerOf(id)
  const breakpoint = provider.breakpoint?.(id.model)
  const { thread } = council.options
  const { cap, temperature, window } = how
  return {
    ...asked,
    judge: task.judge,
    provider,
    sample: task.sample,
    settings: callSettings(
      id,
      {
        promptTokens: asked.promptTokens,
        cap,
        ...(temperature !== undefined && { temperature }),
        ...(window !== undefined && { window }),
        ...(thread !== undefined && { thread })
      },
      how.effort
    ),
    cap,
    ...(temperature !== undefined && { temperature }),
    ...(window !== undefined && { window }),
    ...(breakpoint !== undefined && {
      cache: {
        turn: (stop?: AbortSignal) => council.turns(task.judge, stop),
        breakpoint,
        minimum: cacheMinimum(id.model)
      }
    })
  }
}

/**
 * Every task asked, at most `concurrency` at once, each told to the log as it ends. Once `until`
 * says the runs ended so far settle the verdict, the calls still out are aborted: a call that
 * ends after that (aborted, or answering just then) is cancelled, not a run.
 */
async function askAll(
  council: CouncilRun,
  tasks: readonly Task[],
  ask: (task: Task, cancel?: AbortSignal) => Promise<JudgeRun>,
  until?: Until
): Promise<Asked> {
  const { ticker, progress, concurrency } = council.options
  const waiting = progress?.waiting
  const watch =
    ticker && waiting ? watchCalls(tasks, waiting, { ticker, now: council.now }) : undefined
  const stop = until && new AbortController()
  const out = new Set(tasks)
  const ended: JudgeRun[] = []
  let settledBy: readonly string[] = []
  try {
    const width = concurrency ?? COUNCIL_DEFAULTS.concurrency
    const results = await mapBounded(tasks, width, async (task): Promise<Ended> => {
      const run = await ask(task, stop?.signal)
      out.delete(task)
      watch?.ended(task)
      if (stop?.signal.aborted) return { cancelled: cancelledCall(run, settledBy) }
      ended.push(run)
      progress?.finished(run)
      const settled = out.size > 0 ? until?.(ended, [...out]) : undefined
      if (settled !== undefined) {
        settledBy = settled
        stop?.abort()
        progress?.settled?.([...out], settled)
      }
      return { run }
    })
    return {
      runs: results.flatMap(r => (r.run ? [r.run] : [])),
      cancelled: results.flatMap(r => (r.cancelled ? [r.cancelled] : []))
    }
  } finally {
    watch?.stop()
  }
}

type Ended =
  | { readonly run: JudgeRun; readonly cancelled?: never }
  | { readonly run?: never; readonly cancelled: CancelledCall }

/** A call cancelled once the verdict was settled: who, why, and what it had spent. */
function cancelledCall(run: JudgeRun, settledBy: readonly string[]): CancelledCall {
  return {
    judge: run.judge,
    sample: run.sample,
    settledBy,
    latencyMs: run.latencyMs,
    ...(run.requests !== undefined && { requests: run.requests }),
    ...(run.tokens !== undefined && { tokens: run.tokens }),
    ...(run.costUsd !== undefined && { costUsd: run.costUsd }),
    ...(run.cacheCostUsd !== undefined && { cacheCostUsd: run.cacheCostUsd })
  }
}

/** The timeouts and retries of the calls about one rubric. */
function callPolicy({ options }: CouncilRun, rubric: Rubric): CallPolicy {
  const timeoutMs = (rubric.council.timeout ?? COUNCIL_DEFAULTS.timeoutSeconds) * 1000
  const retryBaseMs = options.retryBaseMs ?? COUNCIL_DEFAULTS.retryBaseMs
  return {
    timeoutMs,
    deadline: options.deadline ?? Date.now() + timeoutMs * COUNCIL_DEFAULTS.deadlineTimeouts,
    maxRetries: COUNCIL_DEFAULTS.maxRetries,
    retryBaseMs,
    maxRetryWaitMs: COUNCIL_DEFAULTS.maxRetryWaitMs,
    overloadedRetryBaseMs: retryBaseMs * COUNCIL_DEFAULTS.overloadedBackoffFactor,
    overloadedMaxRetries: COUNCIL_DEFAULTS.overloadedMaxRetries,
    mask: options.mask
  }
}

/**
 * A member that could not be formed (no key, no endpoint: `missing_credentials`) or whose model is
 * retired (a `provider_error` the provider would answer every time): failed, with why, and never
 * asked.
 */
function notAsked(
  task: Task,
  problem: string,
  failure: 'missing_credentials' | 'provider_error' | 'context_overflow' = 'missing_credentials'
): JudgeRun {
  return {
    judge: task.judge,
    sample: task.sample,
    latencyMs: 0,
    requests: 0,
    status: 'failed',
    failure,
    message: `${problem}; this judge was not asked`,
    ...(failure !== 'missing_credentials' && { rejected: true, notAsked: true })
  }
}
