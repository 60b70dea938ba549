import { modelRow, type Price } from './models.js'
import type { CacheCost, TokenUsage } from './types.js'

/**
 * The estimated cost of one request (or of several, priced as one) with the cache discount, or
 * undefined for an unpriced model. A request whose input is over the model's long-context line
 * costs its long-context rates for all of it.
 */
export function estimateCost(model: string, usage: TokenUsage): number | undefined {
  // OpenRouter names models vendor/model; the price is the vendor's (models.ts).
  const price = modelRow(model)?.price
  if (!price) return undefined
  const [inputRate, outputRate] = rates(price, usage)
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

/** What the prompt cache's reads and writes in `usage` cost, of `estimateCost`; undefined if unpriced. */
export function cacheCost(model: string, usage: TokenUsage): CacheCost | undefined {
  const price = modelRow(model)?.price
  return price === undefined ? undefined : cacheCostAt(price, usage, rates(price, usage)[0])
}

function cacheCostAt(price: Price, usage: TokenUsage, inputRate: number): CacheCost {
  return {
    read: (usage.cachedInput * price.cachedInput * inputRate) / 1_000_000,
    write: (usage.cacheWrite * (price.cacheWrite ?? price.input) * inputRate) / 1_000_000
  }
}

/** The input and output rates' multipliers: 1, or the long-context ones above its line. */
function rates(price: Price, usage: TokenUsage): readonly [number, number] {
  const long = price.longContext
  return long !== undefined && usage.input > long.above ? [long.input, long.output] : [1, 1]
}
