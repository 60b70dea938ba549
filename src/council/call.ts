import type { LanguageModel, LanguageModelUsage, ModelMessage, NoObjectGeneratedError } from 'ai'
import type { ProviderOptions } from '@ai-sdk/provider-utils'
import type { Validation } from './judge-schema.js'
import { extractJson } from './extract-json.js'
import { cacheCost, estimateCost } from './pricing.js'
import type { CallSettings, ProviderModule } from './providers/types.js'
import { formatCount } from '../util/format-count.js'
import { promptText, type JudgePrompt } from './prompt.js'
import { classify, spokenWait } from './provider-errors.js'
import { overflowSentence } from './window.js'
import { failed } from '../util/result.js'
import type { CacheTurn } from './cache-turns.js'
import { evidenceCuts } from './breakpoints.js'
import type { CacheCost, CouncilFailure, JudgeAnswer, JudgeRun, TokenUsage } from './types.js'

export interface JudgeCall {
  /** `provider:model` */
  readonly judge: string
  readonly provider: ProviderModule
  readonly sample: number
  readonly model: LanguageModel
  readonly prompt: JudgePrompt
  readonly schema: Record<string, unknown>
  readonly validate: (value: unknown) => Validation
  /** What this provider's requests need besides the prompt (see `callSettings`). */
  readonly settings: CallSettings
  /** The prompt's size by our count, to tell when a model saw only part of it. */
  readonly promptTokens: number
  /** The context window the member declares, or its server reports: for what an overflow says. */
  readonly window?: number
  /** The cap on the answer, reasoning included, and the temperature, however the provider takes them. */
  readonly cap: number
  readonly temperature?: number
  /**
   * For a model whose cache serves only what a breakpoint marks (the provider's `breakpoint`):
   * when a request may go (`turn`, see `cacheTurns`), the part's options that set a breakpoint, and
   * the fewest tokens a marked prefix must have to be cached (the model table's). Absent: the model
   * caches on its own (Gemini, OpenAI's earlier models) or not at all.
   */
  readonly cache?: {
    readonly turn: (cancel?: AbortSignal) => Promise<CacheTurn>
    readonly breakpoint: ProviderOptions
    readonly minimum: number
  }
}

export interface CallPolicy {
  /** Longest wait for one request. */
  readonly timeoutMs: number
  /** Epoch milliseconds after which no request starts or continues (the council's deadline). */
  readonly deadline: number
  /** Retries of one request after 429, 5xx or a network error. */
  readonly maxRetries: number
  /** First backoff; doubled each retry, with jitter. */
  readonly retryBaseMs: number
  /** A wait longer than this or than `timeoutMs` (or past the deadline) is not made. */
  readonly maxRetryWaitMs: number
  /** On an overloaded provider (529, 503): the first backoff, doubled each retry. */
  readonly overloadedRetryBaseMs: number
  /** On an overloaded provider: how many retries. */
  readonly overloadedMaxRetries: number
  /** Hides secrets in every message that leaves this module. */
  readonly mask: (text: string) => string
  /**
   * Aborted when the council no longer needs this call (the verdict is settled): the request in
   * flight is dropped, so a provider that stops on disconnect bills nothing more, and no retry
   * or repair follows.
   */
  readonly cancel?: AbortSignal
}

/** One repair request that returns the invalid answer with the error, then two re-asks. */
const REPAIRS = 1
const REASKS = 2
/**
 * The most of an invalid answer a repair request quotes: a repair is never much larger than the
 * first request (a self-hosted model's runaway answer, quoted whole, overflowed its window).
 */
const REPAIR_QUOTE_CHARS = 2000
/** The most of the problems with it a repair request lists. */
const REPAIR_PROBLEM_CHARS = 1000

type Attempt =
  | {
      readonly kind: 'answer'
      readonly value: unknown
      readonly text: string
      /** Input tokens the provider says the model read; undefined when it does not say. */
      readonly seen?: number
      /** The answer stopped at the cap on its length (finish reason `length`), after `output` tokens. */
      readonly cut?: { readonly output: number | undefined }
    }
  | {
      readonly kind: 'unparsable'
      readonly text: string
      readonly error: string
      readonly cut?: { readonly output: number | undefined }
    }
  | {
      readonly kind: 'failed'
      readonly failure: CouncilFailure
      readonly message: string
      /** The provider rejected the request itself: the same request would be rejected again. */
      readonly rejected: boolean
    }

/** Requests and tokens of one judge call, summed over retries, repairs and re-asks. */
interface Usage {
  requests: number
  input: number
  cachedInput: number
  cacheWrite: number
  output: number
  /** Each request priced on its own (a long prompt's price is per request); none if unpriced. */
  cost: number | undefined
  /** Of `cost`, the cache's reads and writes. */
  cacheCost: CacheCost | undefined
}

type Failure = Extract<Attempt, { kind: 'failed' }>

/**
 * A call ended by `CallPolicy.cancel`. The council that cancelled it reports it as cancelled, never
 * as this failure (src/council/session.ts): it is no judge's fault and counts against no quorum.
 */
const CANCELLED: Failure = {
  kind: 'failed',
  failure: 'timeout',
  rejected: false,
  message: 'cancelled: the verdict was settled without this answer'
}

/** How a judge call ends: a valid answer, or a failure. */
type Ending = { readonly kind: 'ok'; readonly answer: JudgeAnswer } | Failure

/**
 * Asks one judge once (one member × one sample) and returns a valid answer or a typed failure.
 * Never throws: a broken judge must not crash the verdict.
 */
export async function callJudge(call: JudgeCall, policy: CallPolicy): Promise<JudgeRun> {
  const started = Date.now()
  const none = { input: 0, cachedInput: 0, cacheWrite: 0, output: 0 }
  const model = pricedModel(call)
  const usage: Usage = {
    requests: 0,
    ...none,
    cost: estimateCost(model, none),
    cacheCost: cacheCost(model, none)
  }
  const finish = (outcome: Ending): JudgeRun =>
    judgeRun(call, outcome, { usage, latencyMs: Date.now() - started, mask: policy.mask })
  const base: ModelMessage[] = [userMessage(call)]
  let messages = base
  for (let asked = 1; ; asked++) {
    const attempt = await requestWithRetries(call, messages, policy, usage)
    if (attempt.kind === 'failed') {
      // A repair the model's window refused: asked afresh instead, which fitted before.
      if (attempt.failure === 'context_overflow' && messages !== base) {
        messages = base
        continue
      }
      return finish(attempt.failure === 'context_overflow' ? overflow(call, attempt) : attempt)
    }
    if (attempt.kind === 'answer' && cutShort(call, attempt.seen)) {
      return finish(windowCutPrompt(attempt.seen ?? 0, call.promptTokens))
    }
    const validation: Validation =
      attempt.kind === 'answer' ? call.validate(attempt.value) : failed(attempt.error)
    if (validation.ok) return finish({ kind: 'ok', answer: validation.value })
    // Cut at the cap: asked again, it would be cut again, and a repair would quote the cut text.
    if (attempt.cut !== undefined) return finish(answerCut(call, attempt.cut.output))
    if (asked > REPAIRS + REASKS) {
      return finish({
        kind: 'failed',
        failure: 'invalid_output',
        rejected: false,
        message: `no valid answer after ${1 + REPAIRS + REASKS} attempts (1 repair, ${REASKS} re-asks); last problem: ${validation.problem}`
      })
    }
    // The repairs first, each returning (an excerpt of) the invalid answer with its problem; then
    // re-asks. A repair the window cannot take is given up for a fresh re-ask.
    messages = asked <= REPAIRS ? repairMessages(base, attempt.text, validation.problem) : base
  }
}

/** An answer stopped at its cap (`maxOutputTokens`) before it was whole. */
function answerCut(call: JudgeCall, output: number | undefined): Failure {
  const { cap } = call
  const at = formatCount(output ?? cap)
  return {
    kind: 'failed',
    failure: 'answer_cut',
    rejected: false,
    message: `the answer was cut at ${at} tokens, the cap on its length (${formatCount(cap)}, reasoning included): raise max_output_tokens for ${call.judge} in council.models, or lower its reasoning`
  }
}

/** The run of a judge call that ended: its answer or failure, with what it took. */
function judgeRun(
  call: JudgeCall,
  outcome: Ending,
  spent: {
    readonly usage: Usage
    readonly latencyMs: number
    readonly mask: (text: string) => string
  }
): JudgeRun {
  const { requests, cost, cacheCost: cache, ...counted } = spent.usage
  const tokens: TokenUsage = { ...counted }
  const { temperature, window } = call
  const common = {
    judge: call.judge,
    sample: call.sample,
    sent: {
      cap: call.cap,
      ...(temperature !== undefined && { temperature }),
      ...(window !== undefined && { window })
    },
    latencyMs: spent.latencyMs,
    requests,
    tokens,
    ...(cost !== undefined && { costUsd: cost }),
    ...(cache !== undefined && { cacheCostUsd: cache })
  }
  if (outcome.kind === 'ok') return { ...common, status: 'ok', answer: outcome.answer }
  return {
    ...common,
    status: 'failed',
    failure: outcome.failure,
    message: spent.mask(outcome.message),
    ...(outcome.rejected && { rejected: true })
  }
}

/** A grade of half the evidence is no grade: a window too small cuts the prompt silently. */
function windowCutPrompt(seen: number, sent: number): Failure {
  return {
    kind: 'failed',
    failure: 'context_overflow',
    rejected: true,
    message: `the model read ${formatCount(seen)} of about ${formatCount(sent)} prompt tokens: its context window cut the prompt; re-running will not help: use a model with a longer context, or lower max-evidence-tokens`
  }
}

/** A prompt the provider refused as longer than the model's window: with the sizes we know. */
function overflow(call: JudgeCall, refused: Failure): Failure {
  const { cap } = call
  const sizes =
    call.window === undefined
      ? `the prompt is about ${formatCount(call.promptTokens)} tokens by our count, with ${formatCount(cap)} kept for the answer`
      : overflowSentence(call.judge, {
          window: call.window,
          promptTokens: call.promptTokens,
          cap
        })
  return {
    ...refused,
    rejected: true,
    message: `${refused.message}; ${sizes}${call.window === undefined ? `: lower max-evidence-tokens, or give ${call.judge} a larger window (council.models: [{ model, window }])` : ''}`
  }
}

/**
 * The first request again, followed by the invalid answer (at most `REPAIR_QUOTE_CHARS` of it) and
 * what is wrong with it.
 */
function repairMessages(base: ModelMessage[], answer: string, problem: string): ModelMessage[] {
  const quoted =
    answer.length <= REPAIR_QUOTE_CHARS
      ? answer
      : `${answer.slice(0, REPAIR_QUOTE_CHARS)}\n[… ${formatCount(answer.length - REPAIR_QUOTE_CHARS)} more characters of this answer not quoted]`
  return [
    ...base,
    { role: 'assistant', content: answer === '' ? '(empty answer)' : quoted },
    {
      role: 'user',
      content:
        `Your answer cannot be used: ${problem.length <= REPAIR_PROBLEM_CHARS ? problem : `${problem.slice(0, REPAIR_PROBLEM_CHARS)} …`}.\n` +
        'Answer again with one JSON object that follows the schema, grading every criterion id ' +
        'and every dimension exactly once, and nothing else.'
    }
  ]
}

/**
 * One request, retried after a transient failure (429, 5xx, a network error) while the wait fits
 * the judge's timeout and the council's deadline.
 */
async function requestWithRetries(
  call: JudgeCall,
  messages: ModelMessage[],
  policy: CallPolicy,
  usage: Usage
): Promise<Attempt> {
  for (let retry = 0; ; retry++) {
    if (policy.cancel?.aborted) return CANCELLED
    // Behind the first request of its model, until that one has begun its answer: then it reads.
    const turn = await call.cache?.turn(policy.cancel)
    const remaining = policy.deadline - Date.now()
    if (policy.cancel?.aborted || remaining <= 0) {
      turn?.settle(false)
      if (policy.cancel?.aborted) return CANCELLED
      return {
        kind: 'failed',
        failure: 'timeout',
        message: 'the council’s deadline passed before this judge answered',
        rejected: false
      }
    }
    const timeoutMs = Math.min(policy.timeoutMs, remaining)
    const timeout = AbortSignal.timeout(timeoutMs)
    const signal = policy.cancel ? AbortSignal.any([timeout, policy.cancel]) : timeout
    const outcome = await request(call, messages, signal, usage, turn)
    if (policy.cancel?.aborted) return CANCELLED
    if (outcome.kind !== 'error') return outcome
    if (timeout.aborted) {
      return {
        kind: 'failed',
        failure: 'timeout',
        message: `no answer within ${Math.round(timeoutMs / 1000)} s`,
        rejected: false
      }
    }
    const next = afterError(outcome.error, call.provider.variables.key, retry, policy)
    if (next.kind === 'failed') return next
    await sleep(next.waitMs, policy.cancel)
  }
}

/** One request: an answer in whatever form, or the error it ended with. */
async function request(
  call: JudgeCall,
  messages: ModelMessage[],
  signal: AbortSignal,
  usage: Usage,
  turn: CacheTurn | undefined
): Promise<Attempt | { readonly kind: 'error'; readonly error: unknown }> {
  usage.requests++
  // The AI SDK is loaded by the first request, not before: the action's and the CLI's first
  // line never wait for it (docs/performance.md, figure 8).
  const { generateText, jsonSchema, NoObjectGeneratedError, Output } = await import('ai')
  try {
    const result = await generateText({
      model: call.model,
      instructions: call.prompt.system,
      messages,
      output: Output.object({ schema: jsonSchema(call.schema), name: 'judgement' }),
      ...call.settings,
      // Retries are ours: they honour retry-after and the council's deadline.
      maxRetries: 0,
      abortSignal: signal
    })
    turn?.settle(true)
    addUsage(usage, result.usage, call)
    return {
      kind: 'answer',
      value: result.output,
      text: result.text,
      ...(result.usage.inputTokens !== undefined && { seen: result.usage.inputTokens }),
      ...(result.finishReason === 'length' && { cut: { output: result.usage.outputTokens } })
    }
  } catch (error) {
    // Answered, in whatever form: the provider has read the prompt, and cached what was marked.
    const answered = NoObjectGeneratedError.isInstance(error)
    turn?.settle(answered)
    if (!answered) return { kind: 'error', error }
    addUsage(usage, error.usage, call)
    return answerIn(error)
  }
}

/** An answer that is not the object asked for: the JSON it holds, or why it holds none. */
function answerIn(error: NoObjectGeneratedError): Attempt {
  const text = error.text ?? ''
  // A content filter stop is the model declining to judge, not a formatting slip.
  if (error.finishReason === 'content-filter') {
    return { kind: 'unparsable', text, error: 'the model refused to answer (content filter)' }
  }
  // One JSON object in a code fence or in prose (a provider that ignored the schema): taken out,
  // then validated as strictly as any other answer.
  const extracted = extractJson(text)
  const seen = error.usage?.inputTokens
  const cut = error.finishReason === 'length' && { cut: { output: error.usage?.outputTokens } }
  return extracted.ok
    ? { kind: 'answer', value: extracted.value, text, ...(seen !== undefined && { seen }), ...cut }
    : { kind: 'unparsable', text, error: extracted.problem, ...cut }
}

/** After a failed request: how long to wait before the next, or the judge's failure. */
function afterError(
  error: unknown,
  key: string,
  retry: number,
  policy: CallPolicy
): { readonly kind: 'retry'; readonly waitMs: number } | Failure {
  const problem = classify(error, key)
  const retries = problem.overloaded ? policy.overloadedMaxRetries : policy.maxRetries
  const base = problem.overloaded ? policy.overloadedRetryBaseMs : policy.retryBaseMs
  const wait = problem.retryAfterMs ?? backoff(base, retry)
  // A wait that does not fit ends the judge now: sleeping through it would change nothing.
  // Bounded by the time left and by the judge's own timeout (and never more than a minute).
  const left = policy.deadline - Date.now()
  const maxWait = Math.min(policy.maxRetryWaitMs, policy.timeoutMs)
  const fits = wait <= maxWait && wait < left
  if (problem.retryable && retry < retries && fits) return { kind: 'retry', waitMs: wait }
  const tries = retry + 1
  const asked =
    fits || problem.askedBy === undefined
      ? ''
      : `; ${waitTooLong(problem.askedBy, wait, left, maxWait)}`
  return {
    kind: 'failed',
    failure: problem.failure,
    message: problem.retryable
      ? `${problem.message}${asked} (after ${tries} ${tries === 1 ? 'try' : 'tries'})`
      : problem.message,
    rejected: problem.rejected ?? false
  }
}

/**
 * The first message as the provider takes it: one text, or, for a model that caches only at
 * breakpoints, the same text in parts, with a breakpoint after the shared part (instructions,
 * rubric, criteria and the answer's form) and up to three inside the diff (`evidenceCuts`).
 * The parts put together are the text every call read before there were breakpoints in the diff,
 * byte for byte: the breakpoints only say where the provider may cache. What follows the diff is
 * fenced with each call's own token, so no later call shares it. A prefix shorter than the model's
 * minimum is not cached, and not billed as a write.
 */
function userMessage(call: JudgeCall): ModelMessage {
  if (call.cache === undefined) return { role: 'user', content: promptText(call.prompt) }
  const { rubric, evidence, run, judge } = call.prompt
  const marked = { providerOptions: call.cache.breakpoint }
  const cuts = evidenceCuts(call.prompt, call.cache.minimum)
  const pieces = [{ offset: 0, marked: false }, ...cuts].map((from, i) => ({
    type: 'text' as const,
    text: evidence.slice(from.offset, cuts[i]?.offset ?? evidence.length),
    ...(cuts[i]?.marked === true && marked)
  }))
  return {
    role: 'user',
    content: [
      { type: 'text', text: rubric, ...marked },
      ...pieces,
      ...[run, judge].filter(Boolean).map(text => ({ type: 'text' as const, text }))
    ]
  }
}

/**
 * Less than half of the prompt read: the provider cut it (tokenizers differ, never by 2×). The
 * hosted APIs count cached input among the input tokens; a provider whose count may leave it out
 * (`countsWholePrompt`: Ollama) is not held to this, and a valid answer is not thrown away for it.
 */
function cutShort(call: JudgeCall, seen: number | undefined): boolean {
  if (!call.provider.countsWholePrompt) return false
  return seen !== undefined && seen > 0 && seen < call.promptTokens / 2
}

/** The model as the price table names it: OpenRouter's `vendor/model` is looked up as the vendor's. */
function pricedModel(call: JudgeCall): string {
  return call.judge.slice(call.judge.indexOf(':') + 1)
}

function addUsage(usage: Usage, add: LanguageModelUsage | undefined, call: JudgeCall): void {
  if (!add) return
  const one: TokenUsage = {
    input: add.inputTokens ?? 0,
    cachedInput: add.inputTokenDetails.cacheReadTokens ?? 0,
    cacheWrite: add.inputTokenDetails.cacheWriteTokens ?? call.provider.cacheWrites?.(add.raw) ?? 0,
    output: add.outputTokens ?? 0
  }
  usage.input += one.input
  usage.cachedInput += one.cachedInput
  usage.cacheWrite += one.cacheWrite
  usage.output += one.output
  const cost = estimateCost(pricedModel(call), one)
  usage.cost = usage.cost === undefined || cost === undefined ? undefined : usage.cost + cost
  const cache = cacheCost(pricedModel(call), one)
  usage.cacheCost =
    usage.cacheCost === undefined || cache === undefined
      ? undefined
      : { read: usage.cacheCost.read + cache.read, write: usage.cacheCost.write + cache.write }
}

/** "Gemini asked to wait 38 s, more than the 25 s left". */
function waitTooLong(who: string, wait: number, left: number, maxWait: number): string {
  const bound =
    maxWait < left
      ? `the ${spokenWait(maxWait)} a retry waits at most`
      : `the ${spokenWait(left)} left`
  return `${who} asked to wait ${spokenWait(wait)}, more than ${bound}`
}

function backoff(baseMs: number, retry: number): number {
  // Full jitter keeps judges that failed together from retrying together.
  return Math.round(baseMs * 2 ** retry * (0.5 + Math.random() * 0.5))
}

/** Waits `ms`, or less when `cancel` aborts: a cancelled call does not sleep through a backoff. */
function sleep(ms: number, cancel?: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    const timer = setTimeout(done, ms)
    cancel?.addEventListener('abort', done, { once: true })
    function done() {
      clearTimeout(timer)
      cancel?.removeEventListener('abort', done)
      resolve()
    }
  })
}
