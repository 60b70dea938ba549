import { DEFAULT_SAMPLES } from '../rubric/defaults.js'
import { parseModelId } from '../rubric/model-id.js'
import type { Rubric } from '../rubric/types.js'
import { proxiedFetch } from '../util/fetch.js'
import type { Ticker } from '../util/ticker.js'
import { cacheTurns } from './cache-turns.js'
import { languageModel } from './judge-model.js'
import { defaultModels } from './members.js'
import { lifecycle, retirementNote } from './models.js'
import { declaredWindow, effortOf, temperatureOf } from './member-settings.js'
import { reportedWindow } from './probe.js'
import { judgeSession, type CouncilRun, type Task } from './session.js'
import type {
  Council,
  CouncilOutcome,
  CouncilRequest,
  CouncilSetup,
  JudgeRun,
  SettledCheck
} from './types.js'

export type { CouncilSetup } from './types.js'
import { askedModels, evidenceRoom, rubricTooLarge } from './window.js'

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
  /**
   * The longest a call waits for the first call of its model to answer, so that it reads what that
   * one wrote to the prompt cache (`CACHE_WAIT_MS` by default; cache-turns.ts).
   */
  readonly cacheWaitMs?: number
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
   * local checkout's path), for a provider that routes requests to its prompt cache by a key:
   * OpenAI is sent a digest of it as `prompt_cache_key`, so that a later push's calls go where the
   * earlier ones left the prompt cached (`promptCacheKey`, providers/openai.ts).
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
   * The answers in hand settled the verdict (its reason codes `settledBy`): the council stops
   * waiting for `calls`, whose requests are cancelled.
   */
  readonly settled?: (
    calls: readonly { readonly judge: string; readonly sample: number }[],
    settledBy: readonly string[]
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
  const fetch = proxiedFetch()
  const council: CouncilRun = {
    options,
    fetch,
    turns: cacheTurns(options.cacheWaitMs),
    now: options.now ?? Date.now,
    window: knownWindows(options.env, fetch)
  }
  return {
    configuration: rubric => configuration(council, rubric),
    setup: rubric => councilSetup(council.options, rubric),
    reserves: rubric => reserves(council, rubric),
    contextLimit: rubric => contextLimit(council, rubric),
    tooLarge: (rubric, evidenceBudget) =>
      rubricTooLarge(rubric, asked(council, rubric), evidenceBudget),
    convene: (request, settled) => convene(council, request, settled),
    extraVote: (request, vote) => extraVote(council, request, vote)
  }
}

function membersOf({ options }: CouncilRun, rubric: Rubric): readonly string[] {
  return councilMembers(rubric.council.models, options.models, options.env)
}

function samplesOf(options: Pick<CouncilOptions, 'samples'>, rubric: Rubric): number {
  return rubric.council.samples ?? options.samples ?? DEFAULT_SAMPLES
}

/** Who is asked about a rubric, and how: what a judgement, or a calibration, stands for. */
export function councilSetup(
  options: Pick<CouncilOptions, 'models' | 'env' | 'samples'>,
  rubric: Rubric
): CouncilSetup {
  const members = councilMembers(rubric.council.models, options.models, options.env)
  return {
    members,
    samples: samplesOf(options, rubric),
    // Another effort is another judgement: a cached one does not stand for it.
    reasoning: members.map(member => effortOf(rubric, member) ?? null),
    // Another temperature is another judgement too: the flip rate measured depends on it.
    temperature: members.map(member => temperatureOf(rubric, member) ?? null),
    // Who may cast extra votes, and how many: a judgement replays its extra votes.
    reserve: rubric.council.reserve.map(judge => [judge, effortOf(rubric, judge) ?? null]),
    maxExtraVotes: rubric.council.maxExtraVotes
  }
}

/** Who is asked about this rubric, and how, as text: a cached judgement stands only for the same. */
function configuration(council: CouncilRun, rubric: Rubric): string {
  return JSON.stringify(councilSetup(council.options, rubric))
}

/** The reserves that could cast a vote: not members, not retired, and with what they need. */
function reserves(council: CouncilRun, rubric: Rubric): readonly string[] {
  const members = new Set(membersOf(council, rubric))
  const today = council.now()
  return rubric.council.reserve.filter(judge => {
    if (members.has(judge) || lifecycle(judge, today).state === 'retired') return false
    const id = parseModelId(judge)
    return id.ok && languageModel(id.value, council.options.env, council.fetch).ok
  })
}

/**
 * Each member's window: the one it declares, else the one its server reports (asked once a run,
 * whoever asks: the evidence's size and every call of the member use the same).
 */
function knownWindows(
  env: CouncilOptions['env'],
  fetch: typeof globalThis.fetch
): CouncilRun['window'] {
  const reported = new Map<string, Promise<number | undefined>>()
  return (rubric, member) => {
    const declared = declaredWindow(rubric, member)
    if (declared !== undefined) return Promise.resolve(declared)
    const id = parseModelId(member)
    if (!id.ok) return Promise.resolve(undefined)
    let window = reported.get(member)
    if (window === undefined) {
      window = reportedWindow(id.value, env, fetch)
      reported.set(member, window)
    }
    return window
  }
}

/** The evidence every window can take, of the members and reserves that may be asked. */
async function contextLimit(council: CouncilRun, rubric: Rubric): Promise<number | undefined> {
  const rooms = await Promise.all(
    asked(council, rubric).map(async member =>
      evidenceRoom(rubric, member, await council.window(rubric, member))
    )
  )
  const known = rooms.filter(room => room !== undefined)
  return known.length === 0 ? undefined : Math.min(...known)
}

function asked(council: CouncilRun, rubric: Rubric): readonly string[] {
  return askedModels(membersOf(council, rubric), rubric.council.reserve, council.now())
}

/**
 * Every member asked `samples` times; the members retiring soon said first. With `settled`, the
 * council stops waiting once the answers in hand settle the verdict, and cancels the calls out.
 */
async function convene(
  council: CouncilRun,
  request: CouncilRequest,
  settled?: SettledCheck
): Promise<CouncilOutcome> {
  const { rubric } = request
  const members = membersOf(council, rubric)
  const samples = samplesOf(council.options, rubric)
  const quorum = rubric.council.quorum ?? Math.floor((members.length * samples) / 2) + 1
  if (members.length === 0) return { runs: [], quorum: 1 }
  const tasks: Task[] = members.flatMap(judge =>
    Array.from({ length: samples }, (_, i) => ({ judge, sample: i + 1, seed: `${judge}#${i + 1}` }))
  )
  const { progress } = council.options
  const today = council.now()
  for (const member of members) {
    if (lifecycle(member, today).state !== 'retiring') continue
    const note = retirementNote(member, today)
    if (note !== undefined) progress?.retiring?.(note)
  }
  progress?.started(tasks)
  const until =
    settled &&
    ((runs: readonly JudgeRun[], pending: readonly Task[]) =>
      settled(
        { runs, quorum },
        pending.map(({ judge, sample }) => ({ judge, sample }))
      ))
  const { runs, cancelled } = await judgeSession(council, request)(tasks, until)
  return { runs, quorum, ...(cancelled.length > 0 && { cancelled }) }
}

/** One more call to `judge`, for an extra vote on the must-haves `criteria`. */
async function extraVote(
  council: CouncilRun,
  request: CouncilRequest,
  { judge, round, criteria }: { judge: string; round: number; criteria: readonly string[] }
): Promise<JudgeRun | undefined> {
  // A member whose calls failed is asked as one more sample; a reserve answers its first.
  const member = membersOf(council, request.rubric).includes(judge)
  const sample = member ? samplesOf(council.options, request.rubric) + 1 : 1
  council.options.progress?.extraVote?.({ judge, sample, reserve: !member }, criteria)
  const ask = judgeSession(council, request)
  const { runs } = await ask([{ judge, sample, seed: `${judge}#extra-${round}` }])
  return runs[0]
}
