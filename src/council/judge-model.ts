import type { ProviderOptions } from '@ai-sdk/provider-utils'
import type { ModelId } from '../rubric/model-id.js'
import type { ReasoningEffort } from '../rubric/types.js'
import { isRecord } from '../util/is-record.js'
import { failed, type Result } from '../util/result.js'
import { nonEmpty, providerOf } from './providers/index.js'
import type { CallContext, CallSettings, ModelLoader, ProviderModule } from './providers/types.js'

type Environment = Readonly<Record<string, string | undefined>>

/**
 * What loads the AI SDK model for a member (its provider's SDK with it), or why it cannot be formed
 * (a missing key or endpoint), which is known without loading anything. Its requests go through
 * `fetch` (the council's `proxiedFetch()`).
 */
export function languageModel(
  id: ModelId,
  env: Environment,
  fetch: typeof globalThis.fetch
): Result<ModelLoader> {
  const provider = providerOf(id)
  const { key, baseUrl } = provider.variables
  const { apiKey, baseURL } = providerEnvironment(provider, env)
  if (provider.variables.keyRequired && apiKey === undefined) return failed(`${key} is not set`)
  if (baseURL !== undefined && hasCredentials(baseURL)) {
    // Named, never quoted: the URL holds a secret. fetch refuses such URLs anyway.
    return failed(
      `${baseUrl} holds a user name or password (https://user:pass@host); remove them and give the key in ${key}`
    )
  }
  return provider.languageModel(id.model, {
    fetch,
    ...(apiKey !== undefined && { apiKey }),
    ...(baseURL !== undefined && { baseURL })
  })
}

/** A provider's key and endpoint as the environment gives them, the endpoint's default else. */
export function providerEnvironment(
  provider: ProviderModule,
  env: Environment
): { readonly apiKey?: string | undefined; readonly baseURL?: string | undefined } {
  const { key, baseUrl, defaultBaseUrl } = provider.variables
  return { apiKey: nonEmpty(env[key]), baseURL: nonEmpty(env[baseUrl]) ?? defaultBaseUrl }
}

/**
 * What one member's requests carry besides the prompt: the provider's own needs, and the member's
 * reasoning effort as its API takes it (`named`: the rubric's, else the provider's default).
 */
export function callSettings(
  id: ModelId,
  call: CallContext,
  named: ReasoningEffort | undefined
): CallSettings {
  const provider = providerOf(id)
  const base = provider.callSettings(id.model, call)
  const effort = named ?? provider.reasoning.default
  const reasoning =
    effort === undefined ? {} : provider.reasoning.options(id.model, effort, named !== undefined)
  const { cap, temperature } = call
  const answer = provider.answerOptions?.(cap, temperature)
  const providerOptions: ProviderOptions = { ...base.providerOptions }
  for (const [key, options] of [...Object.entries(reasoning), ...Object.entries(answer ?? {})]) {
    const merged = { ...providerOptions[key], ...options }
    // Ollama's `options` hold both the window (`num_ctx`) and the cap: neither replaces the other.
    const [before, added] = [providerOptions[key]?.options, options.options]
    providerOptions[key] =
      isRecord(before) && isRecord(added) ? { ...merged, options: { ...before, ...added } } : merged
  }
  return {
    ...base,
    ...(answer === undefined && {
      maxOutputTokens: cap,
      ...(temperature !== undefined && { temperature })
    }),
    ...(Object.keys(providerOptions).length > 0 && { providerOptions })
  }
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
