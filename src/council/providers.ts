import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { ProviderOptions } from '@ai-sdk/provider-utils'
import type { LanguageModel } from 'ai'
import { createOllama } from 'ollama-ai-provider-v2'
import { createHash } from 'node:crypto'
import { parseModelId, type ModelId } from '../rubric/model-id.js'
import { closest } from '../rubric/similar.js'
import { openaiBillsCacheWrites } from './cache-turns.js'
import { MODELS, modelRow } from './models.js'
import { PROVIDER_SETTINGS } from './provider-settings.js'
import { reasoningOptions } from './reasoning.js'
import type { ReasoningEffort } from '../rubric/types.js'
import { failed, ok, type Result } from '../util/result.js'

type Environment = Readonly<Record<string, string | undefined>>

/**
 * The council formed when no models are named: one judge per provider whose key is set, each
 * from a different vendor. With only an OpenRouter key, three vendors through OpenRouter.
 */
const DEFAULT_MODELS: readonly {
  readonly whenKey: string
  readonly models: readonly string[]
}[] = [
  { whenKey: 'OPENAI_API_KEY', models: ['openai:gpt-5.4-mini'] },
  { whenKey: 'ANTHROPIC_API_KEY', models: ['anthropic:claude-sonnet-4-6'] },
  { whenKey: 'GOOGLE_GENERATIVE_AI_API_KEY', models: ['google:gemini-3.5-flash'] }
]

const OPENROUTER_DEFAULT_MODELS: readonly string[] = [
  'openrouter:openai/gpt-5.4-mini',
  'openrouter:anthropic/claude-sonnet-4.6',
  'openrouter:google/gemini-3.5-flash'
]

/** The members when neither the rubric nor the input names any. */
export function defaultModels(env: Environment): string[] {
  const direct = DEFAULT_MODELS.filter(d => isSet(env[d.whenKey])).flatMap(d => d.models)
  if (direct.length > 0) return direct
  return isSet(env.OPENROUTER_API_KEY) ? [...OPENROUTER_DEFAULT_MODELS] : []
}

export type ModelResolution = Result<LanguageModel>

/**
 * The AI SDK model for a member, or why it cannot be formed (a missing key or endpoint). Its
 * requests go through `fetch` (the council's `proxiedFetch()`).
 */
export function languageModel(
  id: ModelId,
  env: Environment,
  fetch: typeof globalThis.fetch
): ModelResolution {
  const settings = PROVIDER_SETTINGS[id.provider]
  const apiKey = settings.key === undefined ? undefined : nonEmpty(env[settings.key])
  if (settings.keyRequired && apiKey === undefined) {
    return failed(`${settings.key ?? 'an API key'} is not set`)
  }
  const baseURL = nonEmpty(env[settings.baseUrl]) ?? settings.defaultBaseUrl
  if (baseURL !== undefined && hasCredentials(baseURL)) {
    // Named, never quoted: the URL holds a secret. fetch refuses such URLs anyway.
    return failed(
      `${settings.baseUrl} holds a user name or password (https://user:pass@host); remove them and give the key in ${settings.key ?? 'the provider’s key variable'}`
    )
  }
  // Passed explicitly, so the SDK never falls back to reading process.env on its own.
  const connection = {
    fetch,
    ...(apiKey !== undefined && { apiKey }),
    ...(baseURL !== undefined && { baseURL })
  }
  switch (id.provider) {
    case 'openai':
      return ok(createOpenAI(connection)(id.model))
    case 'anthropic':
      return ok(createAnthropic(connection)(id.model))
    case 'google':
      return ok(createGoogleGenerativeAI(connection)(id.model))
    case 'ollama':
      return ok(
        createOllama({
          baseURL: `${ollamaServer(baseURL ?? '')}/api`,
          fetch,
          ...(apiKey !== undefined && { headers: { authorization: `Bearer ${apiKey}` } })
        })(id.model)
      )
    case 'openrouter':
    case 'openai-compatible': {
      if (baseURL === undefined) {
        return failed(`${settings.baseUrl} is not set (the endpoint to call)`)
      }
      const provider = createOpenAICompatible({
        name: id.provider,
        baseURL,
        fetch,
        ...(apiKey !== undefined && { apiKey }),
        supportsStructuredOutputs: true
      })
      return ok(provider(id.model))
    }
  }
}

/**
 * Ollama's address without the API's path: `OLLAMA_BASE_URL` was documented with `/v1` (the
 * OpenAI-compatible API), and people write `/api` too; both mean the same server.
 */
export function ollamaServer(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/(v1|api)$/, '')
}

/** What a judge's request needs besides the prompt, per provider (docs/council.md). */
export interface CallSettings {
  readonly providerOptions?: ProviderOptions
  readonly maxOutputTokens?: number
}

/**
 * The most an answer may take. A judge's answer is a few thousand tokens; Anthropic refuses a
 * `max_tokens` above the model's limit, which for a model the SDK does not know it guesses.
 */
const ANTHROPIC_MAX_OUTPUT_TOKENS = 32_000

/** Room left in Ollama's context window for the answer, beyond the prompt. */
const OLLAMA_ANSWER_TOKENS = 8192
/** Our tokenizer is not the model's: the window gets a quarter more than we count. */
const OLLAMA_TOKENIZER_MARGIN = 1.25

/**
 * OpenAI's `prompt_cache_key` for the calls of one pull request (`thread`: its repository and
 * number, or a local checkout). OpenAI routes a request to a machine by a hash of the prompt's
 * first tokens and this key, and a cache lives on a machine
 * (https://developers.openai.com/api/docs/guides/prompt-caching). Every judge's prompt opens with
 * the same instructions, so without a key all of an organization's calls share one route, and
 * past about 15 requests a minute they spill onto machines that hold nothing of the pull request.
 * A digest: at most 64 characters (OpenAI's OpenAPI description), and no name leaves as written.
 */
export function promptCacheKey(thread: string): string {
  return `rubric-council-${createHash('sha256').update(thread).digest('hex').slice(0, 32)}`
}

/**
 * What one member's requests carry besides the prompt: the provider's own needs, and the member's
 * reasoning effort as its API takes it (`reasoning`: the rubric's, else the provider's default;
 * see `reasoningOptions`).
 */
export function callSettings(
  id: ModelId,
  promptTokens: number,
  reasoning?: ReasoningEffort,
  cacheKey?: string
): CallSettings {
  const base = providerSettings(id, promptTokens, cacheKey)
  const effort = reasoningOptions(id, reasoning)
  const providerOptions: ProviderOptions = { ...base.providerOptions }
  for (const [key, options] of Object.entries(effort)) {
    providerOptions[key] = { ...providerOptions[key], ...options }
  }
  return {
    ...base,
    ...(Object.keys(providerOptions).length > 0 && { providerOptions })
  }
}

function providerSettings(id: ModelId, promptTokens: number, cacheKey?: string): CallSettings {
  switch (id.provider) {
    case 'anthropic':
      return { maxOutputTokens: ANTHROPIC_MAX_OUTPUT_TOKENS }
    case 'openrouter':
      return { providerOptions: { openrouter: { provider: openRouterRouting(id.model) } } }
    case 'ollama': {
      // Ollama's default window (4,096 tokens) silently cuts a longer prompt; size it to ours.
      const needed = promptTokens * OLLAMA_TOKENIZER_MARGIN + OLLAMA_ANSWER_TOKENS
      return {
        providerOptions: { ollama: { options: { num_ctx: Math.ceil(needed / 1024) * 1024 } } }
      }
    }
    case 'openai':
      // The Responses API keeps every response (prompt included) unless told not to: `store`
      // defaults to true. Only OpenAI's own API takes it; OpenRouter and other endpoints do not.
      // A model that bills cache writes writes only at the breakpoints the call sets
      // (`cachesAtBreakpoints`), never at one of its own near the prompt's end.
      return {
        providerOptions: {
          openai: {
            store: false,
            ...(openaiBillsCacheWrites(id.model) && { promptCacheOptions: { mode: 'explicit' } }),
            ...(cacheKey !== undefined && { promptCacheKey: cacheKey })
          }
        }
      }
    case 'google':
    case 'openai-compatible':
      return {}
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
function openRouterRouting(model: string): { require_parameters: true; only?: string[] } {
  return {
    require_parameters: true,
    ...(model.startsWith('anthropic/') && { only: ['anthropic'] })
  }
}

/**
 * Whether this version knows a member's model (it has a row in `MODELS`, models.ts), and if it does
 * not, the known model it most likely meant, as a whole `provider:model`. Undefined for a known
 * model, for a malformed id (the rubric's schema reports those) and for the models of Ollama and
 * OpenAI-compatible endpoints, which are the user's own. New models appear before this table
 * knows them: an unknown model is a warning, never an error.
 */
export function unknownModel(member: string): { readonly suggestion?: string } | undefined {
  const parsed = parseModelId(member)
  if (!parsed.ok) return undefined
  const { provider, model } = parsed.value
  if (provider === 'ollama' || provider === 'openai-compatible') return undefined
  // OpenRouter: `vendor/name`, and Anthropic's versions dotted (`claude-sonnet-4.6`).
  const slash = model.lastIndexOf('/')
  const vendor = slash === -1 ? '' : model.slice(0, slash + 1)
  const name = model.slice(slash + 1)
  const whose = provider === 'openrouter' ? vendor.slice(0, -1) : provider
  const written = (known: string): string =>
    provider === 'openrouter' && known.startsWith('claude-')
      ? known.replace(/(\d)-(\d)/g, '$1.$2')
      : known
  const rows = Object.entries(MODELS)
  // A vendor the table does not list (OpenRouter's `meta-llama/…`): any known model may be meant.
  const ofVendor = rows.some(([, row]) => row.vendor === whose)
    ? rows.filter(([, row]) => row.vendor === whose)
    : rows
  const known = ofVendor.map(([id]) => written(id))
  if (known.includes(name)) return undefined
  const suggestion = closest(name, known)
  if (suggestion === undefined) return {}
  return { suggestion: `${provider}:${vendor}${suggestion}` }
}

/** What a prompt holds beside the evidence: instructions and rubric, and the answer's room. */
const PROMPT_RESERVE_TOKENS = 16_000 + ANTHROPIC_MAX_OUTPUT_TOKENS

/** The evidence a member's window leaves room for, or undefined when its window is not known. */
export function evidenceRoom(member: string): number | undefined {
  const parsed = parseModelId(member)
  if (!parsed.ok) return undefined
  const id = parsed.value
  if (id.provider === 'ollama' || id.provider === 'openai-compatible') return undefined
  // As the table writes it (`gpt-5.4-mini`), or a Claude version dotted by OpenRouter (`4.6`).
  const window = modelRow(id.model)?.contextWindow
  return window === undefined ? undefined : window - PROMPT_RESERVE_TOKENS
}

/** The provider key variables set in the environment, by name, in the provider table's order. */
export function providerKeyNames(env: Environment): string[] {
  return Object.values(PROVIDER_SETTINGS).flatMap(settings =>
    settings.key !== undefined && nonEmpty(env[settings.key]) !== undefined ? [settings.key] : []
  )
}

/**
 * The keys set for providers that require one: issued by the provider, so a secret nobody outside
 * the repository's settings knows. The keys of providers that need none (Ollama, an
 * OpenAI-compatible endpoint) are often placeholders such as "ollama", and are left out.
 */
export function issuedProviderKeys(env: Environment): string[] {
  return Object.values(PROVIDER_SETTINGS).flatMap(settings => {
    const value = settings.keyRequired && settings.key !== undefined ? env[settings.key] : undefined
    const key = nonEmpty(value)
    return key === undefined ? [] : [key]
  })
}

/** Parses a comma- or newline-separated list of `provider:model` (the `models` input). */
export function parseModelList(text: string): { models: string[]; problems: string[] } {
  const models = text
    .split(/[,\n]/)
    .map(m => m.trim())
    .filter(m => m !== '' && !m.startsWith('#'))
  const problems = models.flatMap(m => {
    const parsed = parseModelId(m)
    return parsed.ok ? [] : [parsed.problem]
  })
  return { models, problems }
}

/** Whether a URL carries `user:password@` (a secret that must never be shown). */
export function hasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url)
    return parsed.username !== '' || parsed.password !== ''
  } catch {
    return false
  }
}

function isSet(value: string | undefined): boolean {
  return nonEmpty(value) !== undefined
}

/** A variable's value, trimmed; undefined when it is not set or blank. */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim()
}
