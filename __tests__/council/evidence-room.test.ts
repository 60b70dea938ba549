import { describe, expect, it } from 'vitest'
import { evidenceRoom } from '../../src/council/members.js'

/**
 * How much evidence a judge's context window holds: known for every model the table lists, however
 * the provider spells it, so the evidence budget is lowered for a judge with a small window.
 */
describe('evidenceRoom', () => {
  it('knows the window of models whose names have dotted versions (gpt-5.4-mini, gemini-3.5-flash)', () => {
    const gpt = evidenceRoom('openai:gpt-5.4-mini')
    const gemini = evidenceRoom('google:gemini-3.5-flash')
    expect(gpt).toBeGreaterThan(100_000)
    expect(gemini).toBeGreaterThan(gpt ?? 0)
    expect(evidenceRoom('openrouter:openai/gpt-5.4-mini')).toBe(gpt)
  })

  it('knows a Claude model as Anthropic and as OpenRouter spell it', () => {
    const claude = evidenceRoom('anthropic:claude-sonnet-4-6')
    expect(claude).toBeGreaterThan(100_000)
    expect(evidenceRoom('openrouter:anthropic/claude-sonnet-4.6')).toBe(claude)
  })

  it('knows nothing of a model it does not list, nor of local models', () => {
    expect(evidenceRoom('openai:gpt-9-unknown')).toBeUndefined()
    expect(evidenceRoom('ollama:llama3')).toBeUndefined()
  })
})
