import { DEFAULT_SAMPLES } from '../rubric/defaults.js'
import { cacheTurns, cachesAtBreakpoints } from './cache-turns.js'
import { callJudge, type CallPolicy } from './call.js'
import { judgeJsonSchema, validateAnswer } from './judge-schema.js'
import { mapBounded } from '../util/pool.js'
import { parseModelId } from '../rubric/model-id.js'
import { buildPrompt, fenceToken, withoutFence } from './prompt.js'
import { lifecycle, retirementNote } from './models.js'
import {
  callSettings,
  defaultModels,
  evidenceRoom,
  languageModel,
  promptCacheKey
} from './providers.js'
import { countTokens } from '../evidence/tokens.js'
import type { ReasoningEffort, Rubric } from '../rubric/types.js'
import type { Council, CouncilOutcome, CouncilRequest, JudgeRun } from './types.js'
import { proxiedFetch } from '../util/fetch.js'
import type { Ticker } from '../util/ticker.js'
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

export interface CouncilOptions {
  readonly env: Readonly<Record<string, string | undefined>>
  /** The `models` input; the rubric's `council.models` wins over it. */
  readonly models: readonly string[]
  /** The `samples` input; the rubric's `council.samples` wins over it. */
  readonly samples?: number
  readonly mask: (text: string) => string
  /** Epoch ms by which the council must be done, to leave time to publish; from the timeouts if absent. */
  readonly deadline?: number
  readonly concurrency?: number
  readonly retryBaseMs?: number
  /** Told when the council starts and as each call ends, for the log. */
  readonly progress?: CouncilProgress
  /**
   * Ticks while calls are pending, for `progress.waiting`; given by the shell. Without one, the
   * log says nothing between the calls' ends.
   */
  readonly ticker?: Ticker
  /**
   * Epoch ms, for the time the waiting lines show and the day the models' retirement dates are
   * compared with; Date.now by default.
   */
  readonly now?: () => number
  /**
   * What the calls of one pull request share from one run to the next (`owner/repo#number`, or a
   * local checkout's path): OpenAI is sent a digest of it as `prompt_cache_key`, so that a later
   * push's calls go where the earlier ones left the prompt cached (`promptCacheKey`).
   */
  readonly thread?: string
}

/** What the log shows while the judges work, which can take minutes. */
export interface CouncilProgress {
  /** The calls about to be made: each member, `samples` times. */
  readonly started: (calls: readonly { readonly judge: string; readonly sample: number }[]) => void
  /** One call ended, with its answer or its failure. */
  readonly finished: (run: JudgeRun) => void
  /**
   * The judges are not agreed on the must-haves `criteria`: one more call, to `call.judge` (a
   * reserve, or a member whose call failed), for an extra vote on them.
   */
  readonly extraVote?: (
    call: { readonly judge: string; readonly sample: number; readonly reserve: boolean },
    criteria: readonly string[]
  ) => void
  /**
   * Every 15 s while calls are pending (with a ticker): who is still being waited for, as
   * `Judges: 2 of 3 done; still waiting on anthropic:claude-sonnet-4-6 (30 s)`.
   */
  readonly waiting?: (line: string) => void
  /**
   * Before the calls: a member that retires within 30 days (models.ts), as
   * `"openai:gpt-5-mini" retires on 2026-12-11, in 14 days; use "openai:gpt-6.1-terra" before then`.
   */
  readonly retiring?: (line: string) => void
}

/** Who sits on the council: the rubric's models, else the input's, else one per key present. */
export function councilMembers(
  rubricModels: readonly string[],
  inputModels: readonly string[],
  env: CouncilOptions['env']
): readonly string[] {
  if (rubricModels.length > 0) return rubricModels
  if (inputModels.length > 0) return inputModels
  return defaultModels(env)
}

/**
 * The LLM council (docs/council.md): every member asked `samples` times, one call each grading every
 * criterion and dimension at once, all at once within a bound; and, when the judges are not agreed
 * on a must-have, extra calls to the voters the engine chooses (a reserve, or a member whose call
 * failed). Failures come back as runs with their typed reason; the verdict decides what they mean.
 */
export function createCouncil(options: CouncilOptions): Council {
  const membersOf = (rubric: Rubric): readonly string[] =>
    councilMembers(rubric.council.models, options.models, options.env)
  const fetch = proxiedFetch()
  // For the whole run, extra votes included: an extra call reads what the first calls wrote.
  const turns = cacheTurns()
  const cacheKey = options.thread === undefined ? undefined : promptCacheKey(options.thread)

  /** What every call about one request shares: the schema, the fence, the prompt's size. */
  function session(request: CouncilRequest) {
    const { rubric } = request
    const timeoutMs = (rubric.council.timeout ?? COUNCIL_DEFAULTS.timeoutSeconds) * 1000
    const policy: CallPolicy = {
      timeoutMs,
      deadline: options.deadline ?? Date.now() + timeoutMs * COUNCIL_DEFAULTS.deadlineTimeouts,
      maxRetries: COUNCIL_DEFAULTS.maxRetries,
      retryBaseMs: options.retryBaseMs ?? COUNCIL_DEFAULTS.retryBaseMs,
      maxRetryWaitMs: COUNCIL_DEFAULTS.maxRetryWaitMs,
      overloadedRetryBaseMs:
        (options.retryBaseMs ?? COUNCIL_DEFAULTS.retryBaseMs) *
        COUNCIL_DEFAULTS.overloadedBackoffFactor,
      overloadedMaxRetries: COUNCIL_DEFAULTS.overloadedMaxRetries,
      mask: options.mask
    }
    const schema = judgeJsonSchema(rubric)
    // The shared part of the prompt is counted once: its text is the same in every call.
    let sharedTokens: number | undefined
    const ask = async (task: Task): Promise<JudgeRun> => {
      const id = parseModelId(task.judge)
      if (!id.ok) return notAsked(task, id.problem)
      // Past its retirement date the provider refuses the model (or answers with another): no
      // request is spent on it, and the report says what to use instead.
      const today = (options.now ?? Date.now)()
      if (lifecycle(task.judge, today).state === 'retired') {
        return notAsked(task, retirementNote(task.judge, today) ?? '', 'provider_error')
      }
      const resolved = languageModel(id.value, options.env, fetch)
      if (!resolved.ok) return notAsked(task, resolved.problem)
      // A fence of its own for every call: the tokens are counted once, for they are as long.
      const fence = fenceToken()
      const prompt = buildPrompt({ ...request, seed: task.seed, fence })
      sharedTokens ??= [prompt.system, prompt.rubric, prompt.evidence, prompt.run]
        .map(countTokens)
        .reduce((a, b) => a + b, 0)
      const promptTokens = sharedTokens + countTokens(prompt.judge)
      const run = await callJudge(
        {
          judge: task.judge,
          provider: id.value.provider,
          sample: task.sample,
          model: resolved.value,
          prompt,
          schema,
          validate: value => validateAnswer(value, rubric),
          settings: callSettings(id.value, promptTokens, effortOf(rubric, task.judge), cacheKey),
          promptTokens,
          ...(cachesAtBreakpoints(id.value) && { cacheTurn: () => turns(task.judge) })
        },
        policy
      )
      return withoutFence(run, fence)
    }
    return {
      run: async (tasks: readonly Task[]) => {
        const waiting = options.progress?.waiting
        const watch =
          options.ticker && waiting
            ? watchCalls(tasks, waiting, { ticker: options.ticker, now: options.now ?? Date.now })
            : undefined
        try {
          return await mapBounded(
            tasks,
            options.concurrency ?? COUNCIL_DEFAULTS.concurrency,
            async task => {
              const run = await ask(task)
              watch?.ended(task)
              options.progress?.finished(run)
              return run
            }
          )
        } finally {
          watch?.stop()
        }
      }
    }
  }

  return {
    configuration: rubric =>
      JSON.stringify({
        members: membersOf(rubric),
        samples: rubric.council.samples ?? options.samples ?? DEFAULT_SAMPLES,
        // Another effort is another judgement: a cached one does not stand for it.
        reasoning: membersOf(rubric).map(member => effortOf(rubric, member) ?? null),
        // Who may cast extra votes, and how many: a judgement replays its extra votes.
        reserve: rubric.council.reserve.map(judge => [judge, effortOf(rubric, judge) ?? null]),
        maxExtraVotes: rubric.council.maxExtraVotes
      }),
    reserves: rubric => {
      const members = new Set(membersOf(rubric))
      const today = (options.now ?? Date.now)()
      // A reserve that could not be formed (no key) or is retired would cast no vote: not offered.
      return rubric.council.reserve.filter(judge => {
        if (members.has(judge) || lifecycle(judge, today).state === 'retired') return false
        const id = parseModelId(judge)
        return id.ok && languageModel(id.value, options.env, fetch).ok
      })
    },
    contextLimit: rubric => {
      const today = (options.now ?? Date.now)()
      // A retired member is not asked: its window bounds nothing. A reserve may be asked with the
      // same evidence: its window bounds it too.
      const asked = [...membersOf(rubric), ...rubric.council.reserve].filter(
        m => lifecycle(m, today).state !== 'retired'
      )
      const rooms = asked.flatMap(member => {
        const room = evidenceRoom(member)
        return room === undefined ? [] : [room]
      })
      return rooms.length === 0 ? undefined : Math.min(...rooms)
    },
    convene: async (request: CouncilRequest): Promise<CouncilOutcome> => {
      const { rubric } = request
      const members = membersOf(rubric)
      const samples = rubric.council.samples ?? options.samples ?? DEFAULT_SAMPLES
      const asked = members.length * samples
      const quorum = rubric.council.quorum ?? Math.floor(asked / 2) + 1
      if (members.length === 0) return { runs: [], quorum: 1 }
      const tasks = members.flatMap(judge =>
        Array.from({ length: samples }, (_, i) => ({
          judge,
          sample: i + 1,
          seed: `${judge}#${i + 1}`
        }))
      )
      const today = (options.now ?? Date.now)()
      for (const member of members) {
        if (lifecycle(member, today).state !== 'retiring') continue
        const note = retirementNote(member, today)
        if (note !== undefined) options.progress?.retiring?.(note)
      }
      options.progress?.started(tasks)
      return { runs: await session(request).run(tasks), quorum }
    },
    extraVote: async (request, { judge, round, criteria }) => {
      const samples = request.rubric.council.samples ?? options.samples ?? DEFAULT_SAMPLES
      // A member whose calls failed is asked as one more sample; a reserve answers its first.
      const member = membersOf(request.rubric).includes(judge)
      const sample = member ? samples + 1 : 1
      options.progress?.extraVote?.({ judge, sample, reserve: !member }, criteria)
      const [run] = await session(request).run([{ judge, sample, seed: `${judge}#extra-${round}` }])
      return run
    }
  }
}

/** The effort a member names in the rubric, else the rubric's `council.reasoning`, else none. */
function effortOf(rubric: Rubric, member: string): ReasoningEffort | undefined {
  const named = rubric.council.memberReasoning
  return (
    (named && Object.hasOwn(named, member) ? named[member] : undefined) ?? rubric.council.reasoning
  )
}

interface Task {
  readonly judge: string
  readonly sample: number
  /** Seeds the criteria order this call sees. */
  readonly seed: string
}

/**
 * A member that could not be formed (no key, no endpoint: `missing_credentials`) or whose model is
 * retired (a `provider_error` the provider would answer every time): failed, with why, and never
 * asked.
 */
function notAsked(
  task: Task,
  problem: string,
  failure: 'missing_credentials' | 'provider_error' = 'missing_credentials'
): JudgeRun {
  return {
    judge: task.judge,
    sample: task.sample,
    latencyMs: 0,
    requests: 0,
    status: 'failed',
    failure,
    message: `${problem}; this judge was not asked`,
    ...(failure === 'provider_error' && { rejected: true, notAsked: true })
  }
}
