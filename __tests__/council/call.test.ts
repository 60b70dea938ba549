import { describe, expect, it } from 'vitest'
import { retryAfter } from '../../src/council/call.js'
import { estimateCost } from '../../src/council/pricing.js'

describe('retry-after', () => {
  it('reads seconds, an HTTP date and OpenAI’s retry-after-ms', () => {
    expect(retryAfter({ 'Retry-After': '2' })).toEqual({ retryAfterMs: 2000 })
    expect(retryAfter({ 'retry-after-ms': '350' })).toEqual({ retryAfterMs: 350 })
    const date = new Date(Date.now() + 5000).toUTCString()
    const fromDate = retryAfter({ 'retry-after': date }).retryAfterMs ?? -1
    expect(fromDate).toBeGreaterThan(3000)
    expect(fromDate).toBeLessThanOrEqual(5000)
    expect(retryAfter({ 'retry-after': 'soon' })).toEqual({})
    expect(retryAfter(undefined)).toEqual({})
  })
})

describe('estimated cost', () => {
  it('prices the default models and leaves others unpriced', () => {
    expect(estimateCost('gpt-5-mini', { input: 1_000_000, output: 100_000 })).toBeCloseTo(
      0.25 + 0.2,
      10
    )
    expect(
      estimateCost('anthropic/claude-sonnet-4.5', { input: 10_000, output: 1000 })
    ).toBeCloseTo(0.03 + 0.015, 10)
    expect(estimateCost('llama3.1:8b', { input: 1, output: 1 })).toBeUndefined()
  })
})
