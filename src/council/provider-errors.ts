import { APICallError, LoadAPIKeyError } from 'ai'
import { ResponseTooLargeError } from '../util/fetch.js'
import { isRecord } from '../util/is-record.js'
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
 */
export function classify(error: unknown): Problem {
  if (LoadAPIKeyError.isInstance(error)) {
    return { failure: 'missing_credentials', message: firstLine(error.message), retryable: false }
  }
  if (APICallError.isInstance(error)) {
    const status = error.statusCode
    const detail = providerMessage(error)
    if (status === 401 || status === 403) {
      return {
        failure: 'missing_credentials',
        message: `the provider rejected the API key (${status})${detail}; check the key and its permissions`,
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

function providerMessage(error: APICallError): string {
  const message = errorMessageIn(error.responseBody)
  return message === undefined ? '' : `: ${firstLine(message).slice(0, 300).replace(/\.$/, '')}`
}

/**
 * The message of a provider's error body: `{"error":{"message"}}` (OpenAI, Anthropic, Gemini),
 * `{"error":"…"}` (Ollama), `{"message"}`. A router's error (OpenRouter: "Provider returned
 * error") carries the upstream provider's body in `metadata.raw`: its message is the one to show.
 */
function errorMessageIn(body: string | undefined): string | undefined {
  const parsed = jsonBody(body)
  if (!isRecord(parsed)) return undefined
  const error = parsed.error
  if (typeof error === 'string') return error || undefined
  if (!isRecord(error)) return typeof parsed.message === 'string' ? parsed.message : undefined
  const metadata = isRecord(error.metadata) ? error.metadata : {}
  const upstream = typeof metadata.raw === 'string' ? errorMessageIn(metadata.raw) : undefined
  if (upstream !== undefined) {
    const name = typeof metadata.provider_name === 'string' ? ` ${metadata.provider_name}` : ''
    return `the upstream provider${name} says: ${upstream}`
  }
  return typeof error.message === 'string' && error.message !== '' ? error.message : undefined
}

/**
 * The wait a provider asked for, wherever it says it: `retry-after-ms` / `retry-after` (OpenAI,
 * Anthropic, any HTTP server), Anthropic's `anthropic-ratelimit-*-reset` times, Gemini's
 * `RetryInfo.retryDelay` in the error body.
 */
function askedWait(error: APICallError): { retryAfterMs?: number; askedBy?: string } {
  const header = retryAfter(error.responseHeaders)
  if (header.retryAfterMs !== undefined) return { ...header, askedBy: 'the provider' }
  const reset = anthropicReset(error.responseHeaders)
  if (reset !== undefined) return { retryAfterMs: reset, askedBy: 'Anthropic' }
  const delay = geminiRetryDelay(error.responseBody)
  if (delay !== undefined) return { retryAfterMs: delay, askedBy: 'Gemini' }
  return {}
}

/**
 * Anthropic's rate-limit headers: `anthropic-ratelimit-{requests,tokens,input-tokens,
 * output-tokens}-reset` are RFC 3339 times at which each limit is replenished, beside its
 * `-remaining`. The wait is until the latest reset of a limit that has nothing left.
 * https://docs.anthropic.com/en/api/rate-limits#response-headers (also
 * https://docs.aws.amazon.com/claude-platform/latest/userguide/rate-limits.html)
 */
export function anthropicReset(
  headers: Readonly<Record<string, string>> | undefined
): number | undefined {
  if (!headers) return undefined
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
  let latest: number | undefined
  for (const [name, value] of Object.entries(lower)) {
    const limit = /^anthropic-ratelimit-(.+)-reset$/.exec(name)?.[1]
    if (limit === undefined || lower[`anthropic-ratelimit-${limit}-remaining`]?.trim() !== '0') {
      continue
    }
    const at = Date.parse(value)
    if (!Number.isNaN(at)) latest = Math.max(latest ?? 0, at)
  }
  return latest === undefined ? undefined : Math.max(0, latest - Date.now())
}

/**
 * Gemini says how long to wait in the body of a 429, not in a header: `error.details[]` holds a
 * `google.rpc.RetryInfo` whose `retryDelay` is a protobuf Duration in its JSON form, seconds
 * with an `s` ("38s", "1.5s"; hours for a daily quota: "36845s").
 * https://ai.google.dev/gemini-api/docs/troubleshooting,
 * https://cloud.google.com/java/docs/reference/proto-google-common-protos/latest/com.google.rpc.RetryInfo,
 * https://protobuf.dev/reference/protobuf/google.protobuf/#duration
 */
export function geminiRetryDelay(body: string | undefined): number | undefined {
  const parsed = jsonBody(body)
  const error = isRecord(parsed) ? parsed.error : undefined
  const details = isRecord(error) && Array.isArray(error.details) ? error.details : []
  for (const detail of details) {
    if (!isRecord(detail) || detail['@type'] !== 'type.googleapis.com/google.rpc.RetryInfo') {
      continue
    }
    const match = /^(\d+(?:\.\d{1,9})?)s$/.exec(String(detail.retryDelay).trim())
    if (match?.[1] !== undefined) return Math.round(Number(match[1]) * 1000)
  }
  return undefined
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

/** An error response's body as JSON; undefined when there is none or it is not JSON. */
function jsonBody(body: string | undefined): unknown {
  if (!body) return undefined
  try {
    return JSON.parse(body) as unknown
  } catch {
    return undefined
  }
}
