import {
  generateText,
  jsonSchema,
  NoObjectGeneratedError,
  Output,
  type LanguageModel,
  type LanguageModelUsage,
  type ModelMessage
} from 'ai'
import type { ProviderOptions } from '@ai-sdk/provider-utils'
import type { Validation } from './judge-schema.js'
import { extractJson } from './extract-json.js'
import type { Provider } from '../rubric/model-id.js'
import { estimateCost } from './pricing.js'
import type { CallSettings } from './providers.js'
import { formatCount } from '../util/format-count.js'
import { promptText, type JudgePrompt } from './prompt.js'
import { classify, spokenWait } from './provider-errors.js'
import { failed } from '../util/result.js'
import type { CacheTurn } from './cache-turns.js'
import type { CouncilFailure, JudgeRun, TokenUsage } from './types.js'

export interface JudgeCall {
  /** `provider:model` */
  readonly judge: string
  readonly provider: Provider
  readonly sample: number
  readonly model: LanguageModel
  readonly prompt: JudgePrompt
  readonly schema: Record<string, unknown>
  readonly validate: (value: unknown) => Validation
  /** What this provider's requests need besides the prompt (see `callSettings`). */
  readonly settings: CallSettings
  /** The prompt's size by our count, to tell when a model saw only part of it. */
  readonly promptTokens: number
  /**
   * For a provider that caches only at a breakpoint (Anthropic, also through OpenRouter): whether
   * a request marks the prompt's shared part (see `cacheTurns`). Absent: the provider caches on
   * its own (OpenAI, Gemini) or not at all.
   */
  readonly cacheTurn?: () => CacheTurn
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
}

/** One repair request that returns the invalid answer with the error, then two re-asks. */
const REPAIRS = 1
const REASKS = 2

type Attempt =
  | {
      readonly kind: 'answer'
      readonly value: unknown
      readonly text: string
      /** Input tokens the provider says the model read; undefined when it does not say. */
      readonly seen?: number
    }
  | { readonly kind: 'unparsable'; readonly text: string; readonly error: string }
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
}

/**
 * Asks one judge once (one member × one sample) and returns a valid answer or a typed failure.
 * Never throws: a broken judge must not crash the verdict.
 */
export async function callJudge(call: JudgeCall, policy: CallPolicy): Promise<JudgeRun> {
  const started = Date.now()
  const none = { input: 0, cachedInput: 0, cacheWrite: 0, output: 0 }
  const usage: Usage = { requests: 0, ...none, cost: estimateCost(pricedModel(call), none) }
  const base: ModelMessage[] = [userMessage(call, false)]
  let messages = base
  let repairs = 0
  let reasks = 0

  const finish = (
    outcome:
      | { status: 'ok'; answer: Extract<JudgeRun, { status: 'ok' }>['answer'] }
      | { status: 'failed'; failure: CouncilFailure; message: string; rejected: boolean }
  ): JudgeRun => {
    const { requests, cost, ...counted } = usage
    const tokens: TokenUsage = counted
    const common = {
      judge: call.judge,
      sample: call.sample,
      latencyMs: Date.now() - started,
      requests,
      tokens,
      ...(cost !== undefined && { costUsd: cost })
    }
    return outcome.status === 'ok'
      ? { ...common, status: 'ok', answer: outcome.answer }
      : {
          ...common,
          status: 'failed',
          failure: outcome.failure,
          message: policy.mask(outcome.message),
          ...(outcome.rejected && { rejected: true })
        }
  }

  for (;;) {
    const attempt = await requestWithRetries(call, messages, policy, usage)
    if (attempt.kind === 'failed') return finish({ status: 'failed', ...attempt })
    if (attempt.kind === 'answer' && cutShort(call.provider, attempt.seen, call.promptTokens)) {
      // A grade of half the evidence is no grade: a window too small cuts the prompt silently.
      return finish({
        status: 'failed',
        failure: 'provider_error',
        rejected: true,
        message: `the model read ${formatCount(attempt.seen ?? 0)} of about ${formatCount(call.promptTokens)} prompt tokens: its context window cut the prompt; re-running will not help: use a model with a longer context, or lower max-evidence-tokens`
      })
    }

    const validation: Validation =
      attempt.kind === 'answer'
        ? call.validate(attempt.value)
        : failed(`the answer is not JSON: ${attempt.error}`)
    if (validation.ok) return finish({ status: 'ok', answer: validation.value })

    if (repairs < REPAIRS) {
      repairs++
      messages = [
        ...base,
        { role: 'assistant', content: attempt.text === '' ? '(empty answer)' : attempt.text },
        {
          role: 'user',
          content:
            `Your answer cannot be used: ${validation.problem}.\n` +
            'Answer again with one JSON object that follows the schema, grading every criterion id ' +
            'and every dimension exactly once, and nothing else.'
        }
      ]
    } else if (reasks < REASKS) {
      reasks++
      messages = base
    } else {
      return finish({
        status: 'failed',
        failure: 'invalid_output',
        rejected: false,
        message: `no valid answer after ${1 + REPAIRS + REASKS} attempts (1 repair, ${REASKS} re-asks); last problem: ${validation.problem}`
      })
    }
  }
}

async function requestWithRetries(
  call: JudgeCall,
  messages: ModelMessage[],
  policy: CallPolicy,
  usage: Usage
): Promise<Attempt> {
  for (let retry = 0; ; retry++) {
    const remaining = policy.deadline - Date.now()
    if (remaining <= 0) {
      return {
        kind: 'failed',
        failure: 'timeout',
        message: 'the council’s deadline passed before this judge answered',
        rejected: false
      }
    }
    const timeoutMs = Math.min(policy.timeoutMs, remaining)
    const signal = AbortSignal.timeout(timeoutMs)
    usage.requests++
    const turn = call.cacheTurn?.()
    try {
      const result = await generateText({
        model: call.model,
        instructions: call.prompt.system,
        messages: turn?.marked ? [userMessage(call, true), ...messages.slice(1)] : messages,
        output: Output.object({ schema: jsonSchema(call.schema), name: 'judgement' }),
        ...call.settings,
        // Retries are ours: they honour retry-after and the council's deadline.
        maxRetries: 0,
        abortSignal: signal
      })
      turn?.settle(true)
      addUsage(usage, result.usage, pricedModel(call))
      return {
        kind: 'answer',
        value: result.output,
        text: result.text,
        ...(result.usage.inputTokens !== undefined && { seen: result.usage.inputTokens })
      }
    } catch (error) {
      // Answered, in whatever form: the provider has read the prompt, and cached what was marked.
      turn?.settle(NoObjectGeneratedError.isInstance(error))
      if (NoObjectGeneratedError.isInstance(error)) {
        addUsage(usage, error.usage, pricedModel(call))
        // A content filter stop is the model declining to judge, not a formatting slip.
        if (error.finishReason === 'content-filter') {
          return {
            kind: 'unparsable',
            text: error.text ?? '',
            error: 'the model refused to answer (content filter)'
          }
        }
        // One JSON object in a code fence or in prose (a provider that ignored the schema):
        // taken out, then validated as strictly as any other answer.
        const extracted = extractJson(error.text ?? '')
        const seen = error.usage?.inputTokens
        return extracted.ok
          ? {
              kind: 'answer',
              value: extracted.value,
              text: error.text ?? '',
              ...(seen !== undefined && { seen })
            }
          : { kind: 'unparsable', text: error.text ?? '', error: extracted.problem }
      }
      if (signal.aborted) {
        return {
          kind: 'failed',
          failure: 'timeout',
          message: `no answer within ${Math.round(timeoutMs / 1000)} s`,
          rejected: false
        }
      }
      const problem = classify(error)
      const retries = problem.overloaded ? policy.overloadedMaxRetries : policy.maxRetries
      const base = problem.overloaded ? policy.overloadedRetryBaseMs : policy.retryBaseMs
      const wait = problem.retryAfterMs ?? backoff(base, retry)
      // A wait that does not fit ends the judge now: sleeping through it would change nothing.
      // Bounded by the time left and by the judge's own timeout (and never more than a minute).
      const left = policy.deadline - Date.now()
      const maxWait = Math.min(policy.maxRetryWaitMs, policy.timeoutMs)
      const fits = wait <= maxWait && wait < left
      if (!problem.retryable || retry >= retries || !fits) {
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
      await sleep(wait)
    }
  }
}

/**
 * The first message as the provider takes it: one text, or, for a provider that caches only at a
 * breakpoint, the same parts with one after the shared part (instructions, rubric, criteria and
 * the answer's form) when `marked`: what follows it is fenced with each call's own token, so no
 * later call shares it. A prefix shorter than the model's minimum is not cached, and not billed
 * as a write.
 */
function userMessage(call: JudgeCall, marked: boolean): ModelMessage {
  if (call.cacheTurn === undefined) return { role: 'user', content: promptText(call.prompt) }
  const cached = breakpointOptions(call.provider)
  const { rubric, evidence, run, judge } = call.prompt
  return {
    role: 'user',
    content: [
      { type: 'text', text: rubric, ...(marked && { providerOptions: cached }) },
      ...[evidence, run, judge].filter(Boolean).map(text => ({ type: 'text' as const, text }))
    ]
  }
}

/**
 * A breakpoint as each API takes it on a part: Anthropic's `cache_control`, which OpenRouter
 * passes on to Anthropic, and OpenAI's `prompt_cache_breakpoint`
 * (https://developers.openai.com/api/docs/guides/prompt-caching).
 */
function breakpointOptions(provider: Provider): ProviderOptions {
  switch (provider) {
    case 'openai':
      return { openai: { promptCacheBreakpoint: { mode: 'explicit' } } }
    case 'anthropic':
      return { anthropic: { cacheControl: { type: 'ephemeral' } } }
    default:
      return { openaiCompatible: { cache_control: { type: 'ephemeral' } } }
  }
}

/**
 * Less than half of the prompt read: the provider cut it (tokenizers differ, never by 2×). The
 * hosted APIs count cached input among the input tokens. Ollama may not: some builds put only the
 * tokens their prompt cache did not hold in `prompt_eval_count` (ollama/ollama#16428 restored the
 * full count for llama-server builds), older ones leave it out once all is cached
 * (ollama/ollama#2068), and no answer says which build it came from. So on Ollama a short count
 * is no proof of a cut prompt, and a valid answer is not thrown away for it: the window is sized
 * to the prompt instead (`num_ctx`, see `callSettings`).
 */
function cutShort(provider: Provider, seen: number | undefined, sent: number): boolean {
  if (provider === 'ollama') return false
  return seen !== undefined && seen > 0 && seen < sent / 2
}

/** The model as the price table names it: OpenRouter's `vendor/model` is looked up as the vendor's. */
function pricedModel(call: JudgeCall): string {
  return call.judge.slice(call.judge.indexOf(':') + 1)
}

function addUsage(usage: Usage, add: LanguageModelUsage | undefined, model: string): void {
  if (!add) return
  const one: TokenUsage = {
    input: add.inputTokens ?? 0,
    cachedInput: add.inputTokenDetails.cacheReadTokens ?? 0,
    cacheWrite: add.inputTokenDetails.cacheWriteTokens ?? openRouterCacheWrites(add.raw),
    output: add.outputTokens ?? 0
  }
  usage.input += one.input
  usage.cachedInput += one.cachedInput
  usage.cacheWrite += one.cacheWrite
  usage.output += one.output
  const cost = estimateCost(model, one)
  usage.cost = usage.cost === undefined || cost === undefined ? undefined : usage.cost + cost
}

/**
 * Tokens OpenRouter says it wrote to a provider's cache (`prompt_tokens_details.cache_write_tokens`,
 * https://openrouter.ai/docs/use-cases/usage-accounting), which the AI SDK's OpenAI-compatible
 * provider does not read.
 */
function openRouterCacheWrites(raw: LanguageModelUsage['raw']): number {
  const details: unknown = raw?.prompt_tokens_details
  const written =
    typeof details === 'object' && details !== null && 'cache_write_tokens' in details
      ? details.cache_write_tokens
      : undefined
  return typeof written === 'number' ? written : 0
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

function sleep(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms))
}
