import { failed, ok, type Result } from '../util/result.js'

/** Providers a judge can be addressed on, as `provider:model` (docs/council.md). */
export const PROVIDERS = [
  'openai',
  'anthropic',
  'google',
  'openrouter',
  'ollama',
  'openai-compatible'
] as const

export type Provider = (typeof PROVIDERS)[number]

export interface ModelId {
  readonly provider: Provider
  readonly model: string
}

function isProvider(value: string): value is Provider {
  return (PROVIDERS as readonly string[]).includes(value)
}

/**
 * Splits `provider:model` at the first colon (model names such as `llama3.1:8b` keep theirs).
 * Returns a reason instead of throwing so callers can attach file and line.
 */
export function parseModelId(text: string): Result<ModelId> {
  const colon = text.indexOf(':')
  if (colon <= 0 || colon === text.length - 1) {
    return failed(`"${text}" is not of the form provider:model (e.g. openai:gpt-5.4-mini)`)
  }
  const provider = text.slice(0, colon).trim()
  const model = text.slice(colon + 1).trim()
  if (!isProvider(provider)) {
    return failed(`unknown provider "${provider}" in "${text}" (known: ${PROVIDERS.join(', ')})`)
  }
  if (model === '') return failed(`"${text}" names no model after "${provider}:"`)
  return ok({ provider, model })
}
