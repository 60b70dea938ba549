import type { ReasoningEffort } from '../../rubric/types.js'
import { ok } from '../../util/result.js'
import type { ErrorResponse, ProviderModule } from './types.js'

/** Anthropic's own API, spoken to on its Messages API. */
export const anthropic: ProviderModule = {
  variables: { key: 'ANTHROPIC_API_KEY', keyRequired: true, baseUrl: 'ANTHROPIC_BASE_URL' },
  languageModel: (model, connection) =>
    ok(async () => (await import('@ai-sdk/anthropic')).createAnthropic(connection)(model)),
  // Its `max_tokens` is the council's cap (answer-cap.ts), as every provider's.
  callSettings: () => ({}),
  reasoning: {
    default: 'medium',
    // Claude 4.6 and later think adaptively at an `output_config.effort`; budgets are refused
    // from 4.7 on ("thinking.type.enabled is not supported for this model"). Earlier models
    // take only a budget, and refuse adaptive thinking and the effort parameter.
    // https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking,
    // https://platform.claude.com/docs/en/build-with-claude/effort
    options: (model, effort) =>
      claudeThinksAdaptively(model)
        ? { anthropic: { thinking: { type: 'adaptive' }, effort } }
        : {
            anthropic: {
              thinking: { type: 'enabled', budgetTokens: ANTHROPIC_THINKING_BUDGET[effort] }
            }
          },
    // The AI SDK adds a thinking budget to `max_tokens`, so the answer keeps all of its cap.
    budgetAdded: model => !claudeThinksAdaptively(model)
  },
  // Its cache serves only what a `cache_control` breakpoint marks
  // (https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
  breakpoint: () => ({ anthropic: { cacheControl: { type: 'ephemeral' } } }),
  countsWholePrompt: true,
  errors: { waitAsked: { by: 'Anthropic', read: ({ headers }) => anthropicReset(headers) } },
  // https://docs.anthropic.com/en/api/models-list: `x-api-key` and `anthropic-version`.
  probe: {
    defaultBaseUrl: 'https://api.anthropic.com/v1',
    path: '/models?limit=1',
    headers: key => ({
      ...(key !== undefined && { 'x-api-key': key }),
      'anthropic-version': '2023-06-01'
    })
  },
  tableModels: { vendor: 'anthropic' },
  defaultJudges: { models: ['claude-sonnet-4-6'] }
}

/**
 * Claude's thinking budget per level, for the models that take a budget rather than an effort
 * (before 4.6). The API wants at least 1,024 and less than `max_tokens`; the AI SDK adds the budget
 * to `max_tokens`, so the answer keeps all of its room.
 * https://platform.claude.com/docs/en/build-with-claude/extended-thinking
 */
const ANTHROPIC_THINKING_BUDGET: Readonly<Record<ReasoningEffort, number>> = {
  low: 2048,
  medium: 8192,
  high: 16_384
}

/**
 * Whether a Claude model thinks adaptively (4.6 and later); `claude-sonnet-4-5-20250929` does not.
 * A name of another shape is taken for a newer model: those are the ones this version does not know.
 */
function claudeThinksAdaptively(model: string): boolean {
  const name = model.slice(model.lastIndexOf('/') + 1)
  if (/^claude-\d/.test(name)) return false // claude-3-7-sonnet and older
  const version = /^claude-[a-z]+-(\d+)(?:[-.](\d{1,2}))?(?:-\d{8})?$/.exec(name)
  if (version === null) return true
  const major = Number(version[1])
  return major > 4 || (major === 4 && Number(version[2] ?? 0) >= 6)
}

/**
 * Anthropic's rate-limit headers: `anthropic-ratelimit-{requests,tokens,input-tokens,
 * output-tokens}-reset` are RFC 3339 times at which each limit is replenished, beside its
 * `-remaining`. The wait is until the latest reset of a limit that has nothing left.
 * https://docs.anthropic.com/en/api/rate-limits#response-headers (also
 * https://docs.aws.amazon.com/claude-platform/latest/userguide/rate-limits.html)
 */
export function anthropicReset(headers: ErrorResponse['headers']): number | undefined {
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
