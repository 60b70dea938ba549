import { modelRow } from './models.js'
import type { TokenUsage } from './types.js'

/** The estimated cost of a call with the cache discount, or undefined for an unpriced model. */
export function estimateCost(model: string, usage: TokenUsage): number | undefined {
  // OpenRouter names models vendor/model; the price is the vendor's (models.ts).
  const price = modelRow(model)?.price
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
