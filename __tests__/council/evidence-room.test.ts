import { describe, expect, it } from 'vitest'
import {
  askedModels,
  evidenceRoom,
  RUBRIC_ROOM_TOKENS,
  rubricPromptTokens,
  rubricTooLarge
} from '../../src/council/window.js'
import { DEFAULT_MAX_EVIDENCE_TOKENS } from '../../src/evidence/build.js'
import type { Rubric } from '../../src/rubric/types.js'
import { formatCount } from '../../src/util/format-count.js'
import { lines, parse } from '../helpers/rubric.js'

/**
 * How much evidence a judge's context window holds: known for every model the table lists, however
 * the provider spells it, so the evidence budget is lowered for a judge with a small window.
 */
/** A rubric that declares no window: the table's windows alone. */
const ANY = parse('# R\n\n## Criteria\n- a: A\n')

describe('evidenceRoom', () => {
  it('knows the window of models whose names have dotted versions (gpt-5.4-mini, gemini-3.5-flash)', () => {
    const gpt = evidenceRoom(ANY, 'openai:gpt-5.4-mini')
    const gemini = evidenceRoom(ANY, 'google:gemini-3.5-flash')
    expect(gpt).toBeGreaterThan(100_000)
    expect(gemini).toBeGreaterThan(gpt ?? 0)
    expect(evidenceRoom(ANY, 'openrouter:openai/gpt-5.4-mini')).toBe(gpt)
  })

  it('knows a Claude model as Anthropic and as OpenRouter spell it', () => {
    const claude = evidenceRoom(ANY, 'anthropic:claude-sonnet-4-6')
    expect(claude).toBeGreaterThan(100_000)
    expect(evidenceRoom(ANY, 'openrouter:anthropic/claude-sonnet-4.6')).toBe(claude)
  })

  it('knows nothing of a model it does not list, nor of local models', () => {
    expect(evidenceRoom(ANY, 'openai:gpt-9-unknown')).toBeUndefined()
    expect(evidenceRoom(ANY, 'ollama:llama3')).toBeUndefined()
  })
})

/** A Markdown rubric of `count` must-haves, each a line of about 700 characters. */
function rubricOf(count: number, models: string): Rubric {
  const criteria = Array.from(
    { length: count },
    (_, i) =>
      `- c${i}: The change handles case ${i} ${'with care and tests it thoroughly, '.repeat(20)}`
  )
  return parse(lines('---', `council: { models: [${models}] }`, '---', '## Criteria', ...criteria))
}

/**
 * The rule of docs/council.md#the-rubrics-size: the instructions with the rubric, the evidence
 * budget (lowered to what the window leaves beside 48,000 tokens) and the answer's 32,000 fit the
 * smallest known window of those asked; with no window known, the rubric may take 16,000 tokens.
 */
describe('rubricTooLarge', () => {
  const claude = 'anthropic:claude-sonnet-4-6'
  const asked = [claude, 'openai:gpt-5.4-nano']

  it('accepts a rubric within the room every prompt keeps for it, whatever the council', () => {
    const rubric = rubricOf(50, claude)
    expect(rubricPromptTokens(rubric)).toBeLessThan(RUBRIC_ROOM_TOKENS)
    expect(rubricTooLarge(rubric, asked, 10_000_000)).toBeUndefined()
    expect(rubricTooLarge(rubric, ['ollama:llama3'], DEFAULT_MAX_EVIDENCE_TOKENS)).toBeUndefined()
  })

  it('refuses one the smallest window cannot hold beside the evidence budget and the answer, naming both', () => {
    const rubric = rubricOf(1200, claude)
    const tokens = rubricPromptTokens(rubric)
    // 200,000 less 60,000 of evidence and 32,000 of answer leaves 108,000.
    expect(tokens).toBeGreaterThan(108_000)
    expect(rubricTooLarge(rubric, asked, DEFAULT_MAX_EVIDENCE_TOKENS)).toBe(
      `the rubric takes about ${formatCount(tokens)} tokens of the judges' prompt (with their instructions); ` +
        "the smallest context window of the council, anthropic:claude-sonnet-4-6's 200,000 tokens, leaves it " +
        '108,000 beside 60,000 for the evidence and 32,000 for the answer: shorten it (its notes, its ' +
        'descriptions), split it into rubrics for parts of the repository (`paths`, in .github/rubrics/), ' +
        'give the council models with larger windows, or lower max-evidence-tokens'
    )
    // A larger window, or a smaller evidence budget, leaves it the room it needs.
    expect(rubricTooLarge(rubric, ['openai:gpt-6.1-sol'], DEFAULT_MAX_EVIDENCE_TOKENS)).toBe(
      undefined
    )
    expect(rubricTooLarge(rubric, asked, 200_000 - 32_000 - tokens)).toBeUndefined()
  })

  it('keeps 16,000 tokens for the rubric however large the evidence budget', () => {
    const rubric = rubricOf(100, claude)
    const tokens = rubricPromptTokens(rubric)
    expect(tokens).toBeGreaterThan(RUBRIC_ROOM_TOKENS)
    // Budget lowered to 152,000: 16,000 left for instructions and rubric, too few for this one.
    expect(rubricTooLarge(rubric, [claude], 10_000_000)).toContain(
      'leaves it 16,000 beside 152,000 for the evidence'
    )
    expect(rubricTooLarge(rubric, [claude], DEFAULT_MAX_EVIDENCE_TOKENS)).toBeUndefined()
  })

  it('with no known window, holds the rubric to 16,000 tokens, and says so', () => {
    const rubric = rubricOf(100, claude)
    expect(rubricTooLarge(rubric, ['ollama:llama3', 'openai:gpt-9-unknown'], 60_000)).toBe(
      `the rubric takes about ${formatCount(rubricPromptTokens(rubric))} tokens of the judges' prompt ` +
        '(with their instructions); with the context window of no member known, it may take 16,000 ' +
        '(docs/council.md#the-rubrics-size): shorten it (its notes, its descriptions), split it into ' +
        'rubrics for parts of the repository (`paths`, in .github/rubrics/), or name members whose ' +
        'windows the model table knows'
    )
  })

  it('counts reserves, and not a retired member, which is never asked', () => {
    const today = Date.parse('2026-12-01T00:00:00Z')
    expect(askedModels(['anthropic:claude-sonnet-4-5', 'openai:gpt-5.5'], [claude], today)).toEqual(
      ['openai:gpt-5.5', claude]
    )
  })
})
