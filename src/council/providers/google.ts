import type { ReasoningEffort } from '../../rubric/types.js'
import { isRecord } from '../../util/is-record.js'
import { ok } from '../../util/result.js'
import { jsonBody } from './common.js'
import type { ProviderModule } from './types.js'

/** Google's Gemini API, spoken to on its generateContent. */
export const google: ProviderModule = {
  variables: {
    key: 'GOOGLE_GENERATIVE_AI_API_KEY',
    keyRequired: true,
    baseUrl: 'GOOGLE_GENERATIVE_AI_BASE_URL'
  },
  languageModel: (model, connection) =>
    ok(async () => (await import('@ai-sdk/google')).createGoogleGenerativeAI(connection)(model)),
  callSettings: () => ({}),
  reasoning: {
    default: 'medium',
    // Gemini 3 and later take `thinkingConfig.thinkingLevel`; 2.5 refuses it ("Thinking level
    // is not supported for this model.") and takes `thinkingBudget` instead.
    // https://ai.google.dev/gemini-api/docs/thinking
    options: (model, effort) => ({
      google: {
        thinkingConfig: geminiTakesLevels(model)
          ? { thinkingLevel: effort }
          : { thinkingBudget: GEMINI_THINKING_BUDGET[effort] }
      }
    })
  },
  // No `breakpoint`: Gemini caches on its own, at no charge for a write.
  countsWholePrompt: true,
  errors: {
    waitAsked: { by: 'Gemini', read: ({ body }) => geminiRetryDelay(body) },
    keyRefused: ({ body }) => geminiKeyInvalid(body)
  },
  // https://ai.google.dev/api/models#method:-models.list: the key in `x-goog-api-key`.
  probe: {
    defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    path: '/models?pageSize=1',
    headers: key => (key === undefined ? {} : { 'x-goog-api-key': key })
  },
  tableModels: { vendor: 'google' },
  defaultJudges: { models: ['gemini-3.5-flash'] }
}

/** Gemini 2.5's thinking budget per level (2.5 Pro takes 128–32,768 tokens; it cannot be off). */
const GEMINI_THINKING_BUDGET: Readonly<Record<ReasoningEffort, number>> = {
  low: 2048,
  medium: 8192,
  high: 24_576
}

/** Gemini 3 and later: `gemini-3.5-flash`, `gemini-3-flash-preview`; not `gemini-2.5-pro`. */
function geminiTakesLevels(model: string): boolean {
  const version = /^gemini-(\d+)/.exec(model)
  return version === null || Number(version[1]) >= 3
}

/**
 * Gemini refuses a key it does not know with 400 INVALID_ARGUMENT ("API key not valid. Please pass
 * a valid API key."), not 401: its `error.details[]` holds a `google.rpc.ErrorInfo` whose reason is
 * `API_KEY_INVALID`. https://ai.google.dev/gemini-api/docs/troubleshooting,
 * https://cloud.google.com/apis/design/errors#error_info
 */
export function geminiKeyInvalid(body: string | undefined): boolean {
  const parsed = jsonBody(body)
  const error = isRecord(parsed) ? parsed.error : undefined
  const details = isRecord(error) && Array.isArray(error.details) ? error.details : []
  return details.some(
    detail =>
      isRecord(detail) &&
      detail['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo' &&
      detail.reason === 'API_KEY_INVALID'
  )
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
