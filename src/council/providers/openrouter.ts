import { isRecord } from '../../util/is-record.js'
import { bearer } from './common.js'
import { chatCompletionsCacheWrites, chatCompletionsModel } from './chat-completions.js'
import { openaiReasons } from './openai.js'
import type { ProviderModule } from './types.js'

const BASE_URL = 'OPENROUTER_BASE_URL'

/** OpenRouter, on its Chat Completions: the vendors' models, named `vendor/model`. */
export const openrouter: ProviderModule = {
  variables: {
    key: 'OPENROUTER_API_KEY',
    keyRequired: true,
    baseUrl: BASE_URL,
    defaultBaseUrl: 'https://openrouter.ai/api/v1'
  },
  languageModel: (model, connection) =>
    chatCompletionsModel('openrouter', model, connection, BASE_URL),
  callSettings: model => ({ providerOptions: { openrouter: { provider: routing(model) } } }),
  reasoning: {
    default: 'medium',
    // OpenRouter's own `reasoning.effort`, which it turns into each vendor's setting
    // (https://openrouter.ai/docs/guides/best-practices/reasoning-tokens). With
    // `require_parameters` a model that does not reason has no endpoint for it (404 "No
    // endpoints found that can handle the requested parameters.", as met in block/buzz#3018):
    // the default goes only to the vendors' reasoning models; an effort the rubric names is
    // sent as it is.
    options: (model, effort, named) =>
      named || reasons(model) ? { openrouter: { reasoning: { effort } } } : {}
  },
  // Anthropic's models through OpenRouter, which passes a part's `cache_control` on
  // (https://openrouter.ai/docs/features/prompt-caching); the others cache on their own.
  breakpoint: model =>
    model.startsWith('anthropic/')
      ? { openaiCompatible: { cache_control: { type: 'ephemeral' } } }
      : undefined,
  countsWholePrompt: true,
  cacheWrites: chatCompletionsCacheWrites,
  errors: { upstream: upstreamError },
  // https://openrouter.ai/docs/api-reference/api-keys/get-current-key: the key's own record,
  // which checks it (the model list does not).
  probe: { path: '/key', headers: bearer },
  // `vendor/name`, and Anthropic's versions dotted (`claude-sonnet-4.6`).
  tableModels: {
    written: name => (name.startsWith('claude-') ? name.replace(/(\d)-(\d)/g, '$1.$2') : name)
  },
  defaultJudges: {
    models: ['openai/gpt-5.4-mini', 'anthropic/claude-sonnet-4.6', 'google/gemini-3.5-flash'],
    fallback: true
  }
}

/**
 * Which of a model's providers OpenRouter may route to. `require_parameters` keeps to providers
 * that take every parameter sent, the schema included; without it, one that ignores the schema may
 * answer in prose (https://openrouter.ai/docs/features/structured-outputs). For Claude that is not
 * enough: a provider that serves Claude and takes `response_format` has answered in free-form JSON
 * all the same (one detailed report), so Claude goes to Anthropic's own API only, which enforces
 * the schema (`only`, https://openrouter.ai/docs/features/provider-routing).
 */
function routing(model: string): { require_parameters: true; only?: string[] } {
  return {
    require_parameters: true,
    ...(model.startsWith('anthropic/') && { only: ['anthropic'] })
  }
}

/** The vendors' reasoning models as OpenRouter names them (`openai/gpt-5.4-mini`, …). */
function reasons(model: string): boolean {
  const slash = model.indexOf('/')
  const vendor = model.slice(0, slash)
  const name = model.slice(slash + 1)
  switch (vendor) {
    case 'openai':
      return openaiReasons(name)
    case 'anthropic':
      // From Claude 3.7 on (OpenRouter gives the models before 4.6 a budget itself).
      return name.startsWith('claude-') && !/^claude-(?:[12][.-]|3-|3\.[0-6]-)/.test(name)
    case 'google':
      return /^gemini-(?:[3-9]|\d{2})/.test(name) || name.startsWith('gemini-2.5')
    default:
      return false
  }
}

/**
 * A router's error ("Provider returned error") carries the upstream provider's body in
 * `metadata.raw`, and its name in `metadata.provider_name`: that is the message to show.
 */
function upstreamError(
  error: Readonly<Record<string, unknown>>
): { body: string; name?: string } | undefined {
  const metadata = isRecord(error.metadata) ? error.metadata : {}
  if (typeof metadata.raw !== 'string') return undefined
  return {
    body: metadata.raw,
    ...(typeof metadata.provider_name === 'string' && { name: metadata.provider_name })
  }
}
