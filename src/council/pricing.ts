import type { TokenUsage } from './types.js'

/**
 * US dollars per million tokens for the default models, from the providers' published standard
 * (non-batch, non-cached) prices as of November 2026. Other models report tokens only.
 */
export const PRICES: Readonly<Record<string, { readonly input: number; readonly output: number }>> =
  {
    'gpt-5-mini': { input: 0.25, output: 2 },
    'claude-sonnet-4-5': { input: 3, output: 15 },
    'claude-sonnet-4.5': { input: 3, output: 15 },
    'gemini-2.5-flash': { input: 0.3, output: 2.5 }
  }

/** The estimated cost of a call, or undefined for a model without a known price. */
export function estimateCost(model: string, usage: TokenUsage): number | undefined {
  // OpenRouter names models vendor/model; the price is the vendor's.
  const name = model.slice(model.lastIndexOf('/') + 1)
  const price = Object.hasOwn(PRICES, name) ? PRICES[name] : undefined
  if (!price) return undefined
  return (usage.input * price.input + usage.output * price.output) / 1_000_000
}
