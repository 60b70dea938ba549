import type { TokenUsage } from './types.js'

/** US dollars per million tokens. */
interface Price {
  readonly input: number
  /** Input read from the provider's prompt cache. */
  readonly cachedInput: number
  /** Input written to the cache, where the provider bills it apart (Anthropic); else `input`. */
  readonly cacheWrite?: number
  readonly output: number
}

/**
 * Standard (non-batch) prices of the default models and their usual alternatives, from the
 * providers' price pages as of November 2026 (OpenAI and Gemini bill cached input at a tenth of
 * the input price; Anthropic bills 5-minute cache writes at 1.25× and reads at 0.1×). OpenRouter
 * names the same models vendor/model with dotted versions. Other models report tokens only.
 */
const SONNET: Price = { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 }
const HAIKU: Price = { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 }
const PRICES: Readonly<Record<string, Price>> = {
  'gpt-5.4-mini': { input: 0.75, cachedInput: 0.075, output: 4.5 },
  'gpt-5.4-nano': { input: 0.2, cachedInput: 0.02, output: 1.25 },
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'claude-sonnet-4-6': SONNET,
  'claude-sonnet-4.6': SONNET,
  'claude-sonnet-4-5': SONNET,
  'claude-sonnet-4.5': SONNET,
  'claude-haiku-4-5': HAIKU,
  'claude-haiku-4.5': HAIKU,
  'gemini-3.5-flash': { input: 1.5, cachedInput: 0.15, output: 9 },
  'gemini-3.1-flash-lite': { input: 0.25, cachedInput: 0.025, output: 1.5 }
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
