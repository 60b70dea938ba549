import { modelRow } from './models.js'
import type { TokenUsage } from './types.js'

/**
 * The estimated cost of one request (or of several, priced as one) with the cache discount, or
 * undefined for an unpriced model. A request whose input is over the model's long-context line
 * costs its long-context rates for all of it.
 */
export function estimateCost(model: string, usage: TokenUsage): number | undefined {
  // OpenRouter names models vendor/model; the price is the vendor's (models.ts).
  const price = modelRow(model)?.price
  if (!price) return undefined
  const long = price.longContext
  const [inputRate, outputRate] =
    long !== undefined && usage.input > long.above ? [long.input, long.output] : [1, 1]
  const fresh = Math.max(0, usage.input - usage.cachedInput - usage.cacheWrite)
  return (
    ((fresh * price.input +
      usage.cachedInput * price.cachedInput +
      usage.cacheWrite * (price.cacheWrite ?? price.input)) *
      inputRate +
      usage.output * price.output * outputRate) /
    1_000_000
  )
}
