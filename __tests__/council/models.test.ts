import { describe, expect, it } from 'vitest'
import { lifecycle, MODELS, modelRow, retirementNote } from '../../src/council/models.js'
import { estimateCost } from '../../src/council/pricing.js'
import { defaultModels } from '../../src/council/members.js'

const day = (date: string): number => Date.parse(`${date}T12:00:00Z`)

describe('the model table', () => {
  it('names for every row the page its facts come from and the day it was read', () => {
    for (const [id, row] of Object.entries(MODELS)) {
      expect(row.source, id).toMatch(/^https:\/\//)
      expect(row.read, id).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    }
  })

  it('suggests as a replacement only a current model of the same vendor that it knows', () => {
    for (const [id, row] of Object.entries(MODELS)) {
      if (row.retires === undefined) continue
      expect(row.retires, id).toMatch(/^\d{4}-\d{2}-\d{2}$/)
      const replacement = row.replacement === undefined ? undefined : MODELS[row.replacement]
      expect(replacement?.vendor, id).toBe(row.vendor)
      expect(replacement?.retires, id).toBeUndefined()
    }
  })

  it('prices every model of the default councils, under either name', () => {
    const all = { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', GOOGLE_GENERATIVE_AI_API_KEY: 'k' }
    const members = [...defaultModels(all), ...defaultModels({ OPENROUTER_API_KEY: 'k' })]
    for (const member of members) {
      const model = member.slice(member.indexOf(':') + 1)
      expect(modelRow(model)?.price, member).toBeDefined()
      expect(lifecycle(member, day('2026-11-27')), member).toEqual({ state: 'current' })
    }
  })

  it('prices the current models the issue found without one', () => {
    const tokens = { input: 1_000_000, cachedInput: 0, cacheWrite: 0, output: 1_000_000 }
    expect(estimateCost('gpt-5.5', tokens)).toBeCloseTo(5 + 30, 10)
    expect(estimateCost('claude-sonnet-5', tokens)).toBeCloseTo(2 + 10, 10)
    // A model whose price no page gave: unknown, not guessed.
    expect(estimateCost('gemini-3.5-flash-lite', tokens)).toBeUndefined()
  })

  it('prices GPT-6.2 Sol’s cache writes, and a request over 272K input tokens at its long-context rates', () => {
    const short = { input: 200_000, cachedInput: 100_000, cacheWrite: 50_000, output: 10_000 }
    // 50K fresh at $2, 100K read at $0.10, 50K written at $2.50, 10K out at $10 (per million).
    expect(estimateCost('gpt-6.2-sol', short)).toBeCloseTo(0.1 + 0.01 + 0.125 + 0.1, 10)
    const long = { ...short, input: 300_000, cachedInput: 200_000 }
    // Over 272K: input and cache rates twice, output 1.5 times, for the whole request.
    expect(estimateCost('gpt-6.2-sol', long)).toBeCloseTo((0.1 + 0.02 + 0.125) * 2 + 0.1 * 1.5, 10)
    // gpt-5.4 has no long-context rate in the table: priced as any other request.
    const plain = { input: 300_000, cachedInput: 0, cacheWrite: 0, output: 0 }
    expect(estimateCost('gpt-5.4', plain)).toBeCloseTo(0.75, 10)
  })
})

describe('a member’s retirement', () => {
  it('is nothing to say more than 30 days before the date', () => {
    expect(lifecycle('anthropic:claude-sonnet-4-5', day('2026-10-30'))).toEqual({
      state: 'current'
    })
    expect(retirementNote('anthropic:claude-sonnet-4-5', day('2026-10-30'))).toBeUndefined()
  })

  it('is a warning within 30 days, with the date and the replacement', () => {
    expect(retirementNote('anthropic:claude-sonnet-4-5', day('2026-10-31'))).toBe(
      '"anthropic:claude-sonnet-4-5" retires on 2026-11-30, in 30 days; use "anthropic:claude-sonnet-4-6" before then'
    )
    expect(retirementNote('openai:gpt-5-mini', day('2026-12-10'))).toBe(
      '"openai:gpt-5-mini" retires on 2026-12-11, in 1 day; use "openai:gpt-6.1-terra" before then'
    )
  })

  it('is retired from the date on, with the replacement written as the member is', () => {
    expect(lifecycle('anthropic:claude-sonnet-4-5', Date.parse('2026-11-30T00:00:00Z'))).toEqual({
      state: 'retired',
      date: '2026-11-30',
      replacement: 'anthropic:claude-sonnet-4-6'
    })
    expect(retirementNote('openrouter:anthropic/claude-sonnet-4.5', day('2027-03-01'))).toBe(
      '"openrouter:anthropic/claude-sonnet-4.5" retired on 2026-11-30; use "openrouter:anthropic/claude-sonnet-4.6"'
    )
    expect(retirementNote('openrouter:openai/gpt-5-mini', day('2026-12-11'))).toBe(
      '"openrouter:openai/gpt-5-mini" retired on 2026-12-11; use "openrouter:openai/gpt-6.1-terra"'
    )
  })

  it('is never said of the user’s own models or of ids the table does not know', () => {
    for (const member of ['ollama:gpt-5-mini', 'openai-compatible:gpt-5-mini', 'openai:gpt-9']) {
      expect(lifecycle(member, day('2030-01-01')), member).toEqual({ state: 'current' })
    }
  })
})
