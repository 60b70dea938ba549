// Where the AI SDK's errors are defined: 'ai' re-exports them, and is loaded only by a request.
import { APICallError, LoadAPIKeyError } from '@ai-sdk/provider'
import { ResponseTooLargeError } from '../util/fetch.js'
import { isRecord } from '../util/is-record.js'
import { jsonBody } from './providers/common.js'
import { everyProvider } from './providers/index.js'
import type { CouncilFailure } from './types.js'

/** A provider call's error, read: what it means for the verdict, and whether to try again. */

export interface Problem {
  readonly failure: CouncilFailure
  readonly message: string
  readonly retryable: boolean
  /** How long the provider asked us to wait before trying again. */
  readonly retryAfterMs?: number
  /** Who asked for `retryAfterMs`, for the message when the wait does not fit: "Gemini". */
  readonly askedBy?: string
  /** The provider is overloaded for everyone (529, 503): worth a longer, patient backoff. */
  readonly overloaded?: boolean
  /**
   * A deterministic rejection of the request (400, 404, 422…) or of its key (401, 403): re-running
   * will not help.
   */
  readonly rejected?: boolean
}

/**
 * What an error from a provider call means for the verdict, and whether to try again. Whether
 * an HTTP error is transient is the SDK's call (`APICallError.isRetryable`: 408, 409, 429, 5xx,
 * or what the provider's headers say); a success status with an unreadable body is retried too.
 * `key` names the variable the call's key came from, for a provider that refuses it.
 */
export function classify(error: unknown, key?: string): Problem {
  if (LoadAPIKeyError.isInstance(error)) {
    return { failure: 'missing_credentials', message: firstLine(error.message), retryable: false }
  }
  if (APICallError.isInstance(error)) {
    const status = error.statusCode
    const detail = providerMessage(error)
    if (status === 401 || status === 403 || keyRefused(error)) {
      return {
        failure: 'rejected_credentials',
        message: `the provider rejected ${key ?? 'the API key'} (${status})${detail}`,
        retryable: false,
        // The same key will be refused again.
        rejected: true
      }
    }
    if (status === 429) {
      return {
        failure: 'rate_limited',
        message: `rate limited (429)${detail}`,
        retryable: true,
        ...askedWait(error)
      }
    }
    if (status !== undefined && status >= 200 && status < 300) {
      // A success status with a body that cannot be read: cut short, empty, too long or not JSON.
      const why = error.cause instanceof ResponseTooLargeError ? error.cause : error
      return {
        failure: 'provider_error',
        message: `the provider's response could not be read (${status}): ${firstLine(why.message)}`,
        retryable: true
      }
    }
    if (status === undefined) {
      return {
        failure: 'provider_error',
        message: `could not reach the provider: ${firstLine(error.message)}`,
        retryable: error.isRetryable
      }
    }
    if (error.isRetryable) {
      return {
        failure: 'provider_error',
        message: `the provider failed (${status})${detail}`,
        retryable: true,
        ...askedWait(error),
        // Busy for everyone, as the provider says: Anthropic's 529 overloaded_error
        // (https://docs.anthropic.com/en/api/errors), Gemini's 503 UNAVAILABLE ("the service may be
        // temporarily overloaded or down", https://ai.google.dev/gemini-api/docs/troubleshooting),
        // and a 503 elsewhere, which means the same.
        ...((status === 529 || status === 503) && { overloaded: true })
      }
    }
    if (contextOverflow(error.responseBody)) {
      return {
        failure: 'context_overflow',
        message: `the provider refused the prompt as longer than the model's context window (${status})${detail}`,
        retryable: false,
        rejected: true
      }
    }
    const hint = status === 404 ? ': check the model name' : ''
    return {
      failure: 'provider_error',
      message: `the provider rejected the request (${status})${detail}; re-running will not help${hint}`,
      retryable: false,
      rejected: true
    }
  }
  const message = error instanceof Error ? firstLine(error.message) : String(error)
  return {
    failure: 'provider_error',
    message: `the call failed: ${message}`,
    retryable: /fetch failed|ECONN|ETIMEDOUT|socket/i.test(message)
  }
}

/**
 * How the servers say a prompt does not fit the model's window, each in its own words:
 * - OpenAI: `code: "context_length_exceeded"`, "This model's maximum context length is N tokens"
 *   (https://platform.openai.com/docs/guides/error-codes); vLLM says the same words;
 * - Anthropic: "prompt is too long: N tokens > M maximum" (invalid_request_error);
 * - Gemini: "The input token count (N) exceeds the maximum number of tokens allowed (M)";
 * - llama.cpp's server: `type: "exceed_context_size_error"`, "request (N tokens) exceeds the
 *   available context size (M tokens)" (tools/server);
 * - Ollama, when it does not truncate: "the input length exceeds the context length".
 */
const OVERFLOW_WORDS =
  /maximum context length|context length exceeded|exceeds the available context size|input length exceeds the context length|prompt is too long|exceeds the maximum number of tokens allowed/i

function contextOverflow(body: string | undefined): boolean {
  const parsed = jsonBody(body)
  const error = isRecord(parsed) ? parsed.error : undefined
  if (isRecord(error)) {
    if (error.type === 'exceed_context_size_error' || error.code === 'context_length_exceeded') {
      return true
    }
  }
  const message = errorMessageIn(body)
  return message !== undefined && OVERFLOW_WORDS.test(message)
}

/** A provider's own way of refusing a key under another status (Gemini's 400 API_KEY_INVALID). */
function keyRefused(error: APICallError): boolean {
  const response = { headers: error.responseHeaders, body: error.responseBody }
  return everyProvider().some(([, { errors }]) => errors?.keyRefused?.(response) === true)
}

function providerMessage(error: APICallError): string {
  const message = errorMessageIn(error.responseBody)
  return message === undefined ? '' : `: ${firstLine(message).slice(0, 300).replace(/\.$/, '')}`
}

/**
 * The message of a provider's error body: `{"error":{"message"}}` (OpenAI, Anthropic, Gemini),
 * `{"error":"…"}` (Ollama), `{"message"}`. A router's error (`upstream`, a provider module's error
 * dialect) carries the upstream provider's body: its message is the one to show.
 */
function errorMessageIn(body: string | undefined): string | undefined {
  const parsed = jsonBody(body)
  if (!isRecord(parsed)) return undefined
  const error = parsed.error
  if (typeof error === 'string') return error || undefined
  if (!isRecord(error)) return typeof parsed.message === 'string' ? parsed.message : undefined
  for (const [, { errors }] of everyProvider()) {
    const upstream = errors?.upstream?.(error)
    const message = upstream === undefined ? undefined : errorMessageIn(upstream.body)
    if (upstream === undefined || message === undefined) continue
    const name = upstream.name === undefined ? '' : ` ${upstream.name}`
    return `the upstream provider${name} says: ${message}`
  }
  return typeof error.message === 'string' && error.message !== '' ? error.message : undefined
}

/**
 * The wait a provider asked for, wherever it says it: `retry-after-ms` / `retry-after` (OpenAI,
 * Anthropic, any HTTP server), else in a provider's own way (its module's `waitAsked`: Anthropic's
 * rate-limit reset times, Gemini's `RetryInfo` in the body).
 */
function askedWait(error: APICallError): { retryAfterMs?: number; askedBy?: string } {
  const header = retryAfter(error.responseHeaders)
  if (header.retryAfterMs !== undefined) return { ...header, askedBy: 'the provider' }
  const response = { headers: error.responseHeaders, body: error.responseBody }
  for (const [, { errors }] of everyProvider()) {
    const asked = errors?.waitAsked
    const wait = asked?.read(response)
    if (asked !== undefined && wait !== undefined) return { retryAfterMs: wait, askedBy: asked.by }
  }
  return {}
}

/** A wait as people say it: "1.5 s", "38 s", "12 min", "1 h", "10.2 h". */
export function spokenWait(ms: number): string {
  const seconds = ms / 1000
  if (seconds < 10) return `${Math.round(seconds * 10) / 10} s`
  if (seconds < 120) return `${Math.round(seconds)} s`
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`
  return `${Math.round(seconds / 360) / 10} h`
}

/** `retry-after` in seconds or as an HTTP date, or OpenAI's `retry-after-ms`. */
export function retryAfter(headers: Readonly<Record<string, string>> | undefined): {
  retryAfterMs?: number
} {
  if (!headers) return {}
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
  const ms = Number(lower['retry-after-ms'])
  if (Number.isFinite(ms) && ms >= 0) return { retryAfterMs: ms }
  const value = lower['retry-after']
  if (value === undefined) return {}
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return { retryAfterMs: seconds * 1000 }
  const date = Date.parse(value)
  return Number.isNaN(date) ? {} : { retryAfterMs: Math.max(0, date - Date.now()) }
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim()
}
