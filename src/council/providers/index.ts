import type { ModelId, Provider } from '../../rubric/model-id.js'
import { anthropic } from './anthropic.js'
import { google } from './google.js'
import { ollama } from './ollama.js'
import { openai } from './openai.js'
import { openaiCompatible } from './openai-compatible.js'
import { openrouter } from './openrouter.js'
import type { ProviderModule } from './types.js'

type Environment = Readonly<Record<string, string | undefined>>

/**
 * The providers, one row each: the one place that lists them with what the council needs of them.
 * A provider's name is the rubric's (`PROVIDERS`, src/rubric/model-id.ts); the type makes every
 * name have its row. Lists that must cover every provider (the credentials below) are derived
 * from this table. docs/council.md#adding-a-provider says how a provider joins it.
 */
export const PROVIDER_TABLE: Readonly<Record<Provider, ProviderModule>> = {
  openai,
  anthropic,
  google,
  openrouter,
  ollama,
  'openai-compatible': openaiCompatible
}

const ROWS = Object.entries(PROVIDER_TABLE) as readonly (readonly [Provider, ProviderModule])[]
const MODULES: readonly ProviderModule[] = ROWS.map(([, module]) => module)

/** The module of a member's provider. */
export function providerOf(id: ModelId): ProviderModule {
  return PROVIDER_TABLE[id.provider]
}

/** Every provider, by name, in the table's order. */
export function everyProvider(): readonly (readonly [Provider, ProviderModule])[] {
  return ROWS
}

/**
 * Every variable the providers read, keys and endpoints, in the table's order: withheld from the
 * gates (`gateEnvironment`), which run the pull request's code.
 */
export function providerVariables(): string[] {
  return MODULES.flatMap(({ variables }) => [variables.key, variables.baseUrl])
}

/** The variable a provider reads its key from. */
export function keyVariable(provider: Provider): string {
  return PROVIDER_TABLE[provider].variables.key
}

/** The provider key variables set in the environment, by name, in the provider table's order. */
export function providerKeyNames(env: Environment): string[] {
  return MODULES.flatMap(({ variables }) =>
    nonEmpty(env[variables.key]) !== undefined ? [variables.key] : []
  )
}

/**
 * The keys set for providers that require one: issued by the provider, so a secret nobody outside
 * the repository's settings knows. The keys of providers that need none (Ollama, an
 * OpenAI-compatible endpoint) are often placeholders such as "ollama", and are left out.
 */
export function issuedProviderKeys(env: Environment): string[] {
  return MODULES.flatMap(({ variables }) => {
    const key = variables.keyRequired ? nonEmpty(env[variables.key]) : undefined
    return key === undefined ? [] : [key]
  })
}

/** A variable's value, trimmed; undefined when it is not set or blank. */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim()
}
