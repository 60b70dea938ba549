import type { TokenUsage } from './types.js'

/** US dollars per million tokens. */
export interface Price {
  readonly input: number
  /** Input read from the provider's prompt cache. */
  readonly cachedInput: number
  /** Input written to the cache, where the provider bills it apart (Anthropic); else `input`. */
  readonly cacheWrite?: number
  readonly output: number
}

/**
 * Standard (non-batch) prices of the default models, from the providers' published price pages
 * as of November 2026. Other models report tokens only.
 */
export const PRICES: Readonly<Record<string, Price>> = {
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'claude-sonnet-4-5': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
  'claude-sonnet-4.5': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
  'gemini-2.5-flash': { input: 0.3, cachedInput: 0.03, output: 2.5 }
}

/** The estimated cost of a call with the cache discount, or undefined for an unpriced model. */
export function estimateCost(model: string, usage: TokenUsage): number | undefined {
  // OpenRouter names models vendor/model; the price is the vendor's.
  const name = model.slice(model.lastIndexOf('/') + 1)
  const price = Object.hasOwn(PRICES, name) ? PRICES[name] : undefined
  if (!price) return undefined
  const fresh = Math.max(0, usage.input - usage.cachedInput - usage.cacheWrite)
  return (
    (fresh * price.input +
      usage.cachedInput * price.cachedInput +
      usage.cacheWrite * (price.cacheWrite ?? price.input) +
      usage.output * price.output) /
    1_000_000
  )
}
