import { createHash } from 'node:crypto'
import { ok } from '../../util/result.js'
import { bearer } from './common.js'
import type { ProviderModule } from './types.js'

/** OpenAI's own API, spoken to on its Responses API. */
export const openai: ProviderModule = {
  variables: { key: 'OPENAI_API_KEY', keyRequired: true, baseUrl: 'OPENAI_BASE_URL' },
  languageModel: (model, connection) =>
    ok(async () => (await import('@ai-sdk/openai')).createOpenAI(connection)(model)),
  // The Responses API keeps every response (prompt included) unless told not to: `store`
  // defaults to true. Only OpenAI's own API takes it; OpenRouter and other endpoints do not.
  // A model that bills cache writes writes only at the breakpoints the call sets, never at one of
  // its own near the prompt's end.
  callSettings: (model, { thread }) => ({
    providerOptions: {
      openai: {
        store: false,
        ...(openaiBillsCacheWrites(model) && { promptCacheOptions: { mode: 'explicit' } }),
        ...(thread !== undefined && { promptCacheKey: promptCacheKey(thread) })
      }
    }
  }),
  reasoning: {
    default: 'medium',
    // Responses `reasoning.effort`, only for models that reason: gpt-4.1 answers 400
    // "Unsupported parameter: 'reasoning.effort' is not supported with this model."
    // (https://developers.openai.com/api/docs/guides/reasoning). The SDK would add
    // `reasoning.summary`, which an organization that is not verified is refused
    // (https://help.openai.com/en/articles/10910291-api-organization-verification); nobody
    // reads it here, so none is asked for.
    options: (model, effort) =>
      openaiReasons(model) ? { openai: { reasoningEffort: effort, reasoningSummary: null } } : {}
  },
  // `prompt_cache_breakpoint` (https://developers.openai.com/api/docs/guides/prompt-caching).
  breakpoint: model =>
    openaiBillsCacheWrites(model)
      ? { openai: { promptCacheBreakpoint: { mode: 'explicit' } } }
      : undefined,
  countsWholePrompt: true,
  // https://platform.openai.com/docs/api-reference/models/list
  probe: { defaultBaseUrl: 'https://api.openai.com/v1', path: '/models', headers: bearer },
  tableModels: { vendor: 'openai' },
  defaultJudges: { models: ['gpt-5.4-mini'] }
}

/**
 * OpenAI's `prompt_cache_key` for the calls of one pull request (`thread`: its repository and
 * number, or a local checkout). OpenAI routes a request to a machine by a hash of the prompt's
 * first tokens and this key, and a cache lives on a machine
 * (https://developers.openai.com/api/docs/guides/prompt-caching). Every judge's prompt opens with
 * the same instructions, so without a key all of an organization's calls share one route, and
 * past about 15 requests a minute they spill onto machines that hold nothing of the pull request.
 * A digest: at most 64 characters (OpenAI's OpenAPI description), and no name leaves as written.
 */
function promptCacheKey(thread: string): string {
  return `rubric-council-${createHash('sha256').update(thread).digest('hex').slice(0, 32)}`
}

/**
 * OpenAI's reasoning models as the AI SDK tells them (o-series, gpt-5 and later but the `-chat`
 * variants): it drops `reasoningEffort` for any other model, with a warning.
 */
export function openaiReasons(model: string): boolean {
  if (/^o\d+(?:-|$)/.test(model)) return true
  const gpt = /^gpt-(\d+)(?:\.\d+)?(?:-(.+))?$/.exec(model)
  return gpt !== null && Number(gpt[1]) >= 5 && !(gpt[2] ?? '').startsWith('chat')
}

/**
 * OpenAI's models from the GPT-5.6 family on (`gpt-5.6-sol`, `gpt-6.2-astra`, and later families
 * this version does not know yet) bill a cache write at 1.25× the input price, and unless told
 * otherwise write the prompt up to a breakpoint of their own near its end (the prompt caching
 * guide, https://developers.openai.com/api/docs/guides/prompt-caching; `prompt_cache_options` in
 * OpenAI's OpenAPI description). A judge's prompt ends with what no other call shares, so that
 * write would never be read: these models are asked to cache at explicit breakpoints only.
 */
function openaiBillsCacheWrites(model: string): boolean {
  const version = /^gpt-(\d+)(?:\.(\d+))?(?:-|$)/.exec(model)
  if (version === null) return false
  const major = Number(version[1])
  const minor = Number(version[2] ?? '0')
  return major > 5 || (major === 5 && minor >= 6)
}
