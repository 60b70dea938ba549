import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCouncil } from '../../src/council/council.js'
import { judgeJsonSchema, validateAnswer, withEnumCase } from '../../src/council/judge-schema.js'
import type { CouncilOutcome } from '../../src/council/types.js'
import type { Rubric } from '../../src/rubric/types.js'
import { RANKING_EVIDENCE } from '../helpers/evidence.js'
import { wireAnswer } from '../helpers/judge-answers.js'
import {
  startProviderStandIn,
  type RecordedCall,
  type Reply,
  type StandIn
} from '../helpers/provider-standin.js'
import { tokensOf } from '../helpers/providers/prompt-cache.js'
import { record } from '../helpers/providers/schema.js'
import { lines, parse } from '../helpers/rubric.js'

/**
 * What the council's requests carry and how it reads the answers, per provider: OpenAI
 * is told to keep nothing, an enum value in another case is read without a repair request, and an
 * Ollama count shortened by its prompt cache is not taken for a cut prompt.
 */

const RUBRIC = parse(
  lines(
    '---',
    'dimensions: { accuracy: 1 }',
    '---',
    '## Criteria',
    '- tested: The change is tested',
    '- safe: Errors are handled'
  )
)

let standIn: StandIn
beforeAll(async () => {
  standIn = await startProviderStandIn()
})
afterAll(async () => {
  await standIn.close()
})

const ENV = (): Record<string, string> => ({
  OPENAI_API_KEY: 'sk-test-openai',
  OPENAI_BASE_URL: standIn.openaiBaseUrl,
  ANTHROPIC_API_KEY: 'sk-ant-test',
  ANTHROPIC_BASE_URL: standIn.anthropicBaseUrl,
  OPENROUTER_API_KEY: 'sk-or-test',
  OPENROUTER_BASE_URL: standIn.openrouterBaseUrl,
  OLLAMA_BASE_URL: standIn.ollamaBaseUrl
})

async function convene(
  models: readonly string[],
  script: (call: RecordedCall) => Reply,
  options: { samples?: number; rubric?: Rubric } = {}
): Promise<{ outcome: CouncilOutcome; calls: readonly RecordedCall[] }> {
  const before = standIn.calls.length
  standIn.setScript(call => script(call))
  const council = createCouncil({
    env: ENV(),
    models,
    ...(options.samples !== undefined && { samples: options.samples }),
    mask: text => text,
    retryBaseMs: 20
  })
  const outcome = await council.convene({
    rubric: options.rubric ?? RUBRIC,
    gates: [],
    evidence: RANKING_EVIDENCE,
    iteration: 1,
    earlier: []
  })
  return { outcome, calls: standIn.calls.slice(before) }
}

const valid = (call: RecordedCall): Reply => ({ json: wireAnswer(call.schema) })

/** Whether a request hands an earlier answer back (the repair request). */
const isRepair = (call: RecordedCall): boolean =>
  JSON.stringify(call.body).includes('Your answer cannot be used')

describe('OpenAI keeps nothing: store: false', () => {
  it('is on every Responses request: first calls, the repair, the re-ask, every sample', async () => {
    let unusable = 3
    const { outcome, calls } = await convene(
      ['openai:gpt-5.4-mini', 'openai:gpt-5.5'],
      call => {
        // The first three gpt-5.4-mini answers are prose: both samples repair, one re-asks.
        if (call.model === 'gpt-5.4-mini' && unusable > 0) {
          unusable--
          return { text: 'It looks fine to me.' }
        }
        return valid(call)
      },
      { samples: 2 }
    )
    expect(outcome.runs.map(r => r.status)).toEqual(['ok', 'ok', 'ok', 'ok'])
    expect(calls).toHaveLength(7)
    expect(calls.filter(isRepair)).toHaveLength(2)
    expect(calls.map(c => [c.protocol, record(c.body)?.store])).toEqual(
      calls.map(() => ['openai-responses', false])
    )
  })

  it('is not sent through OpenRouter, whose API has no such parameter', async () => {
    const { outcome, calls } = await convene(['openrouter:openai/gpt-5.4-mini'], valid)
    expect(outcome.runs.map(r => r.status)).toEqual(['ok'])
    expect(
      calls.map(c => record(c.body) !== undefined && 'store' in (record(c.body) ?? {}))
    ).toEqual([false])
  })
})

describe('enum values in another case', () => {
  /** The valid answer with its enum values written in lower case (ids and names too). */
  const lowerCased = (call: RecordedCall): Reply => {
    const answer = wireAnswer(call.schema, { fail: ['safe'] })
    return {
      json: JSON.parse(
        JSON.stringify(answer)
          .replace(/"(PASS|FAIL|RETRY)"/g, m => m.toLowerCase())
          .replace('"tested"', '"Tested"')
      ) as unknown
    }
  }

  it('are read as the value they match, with no repair request: Claude answering "pass"', async () => {
    const { outcome, calls } = await convene(['anthropic:claude-sonnet-4-6'], lowerCased)
    expect(calls).toHaveLength(1)
    expect(calls.filter(isRepair)).toEqual([])
    const run = outcome.runs[0]
    expect(run?.status).toBe('ok')
    if (run?.status !== 'ok') return
    expect(run.answer.criteria.map(c => [c.id, c.verdict])).toEqual([
      ['tested', 'PASS'],
      ['safe', 'FAIL']
    ])
    expect(run.answer.verdict).toBe('RETRY')
  })

  it('are refused when they differ by more than case: the repair request names the field', async () => {
    let first = true
    const { outcome, calls } = await convene(['anthropic:claude-sonnet-4-6'], call => {
      if (!first) return valid(call)
      first = false
      const answer = wireAnswer(call.schema)
      const criteria = answer.criteria as { verdict: string }[]
      criteria[0] = { ...criteria[0], verdict: 'passed' }
      return { json: answer }
    })
    expect(calls.map(isRepair)).toEqual([false, true])
    expect(JSON.stringify(calls[1]?.body)).toContain('criteria.0.verdict')
    expect(outcome.runs[0]?.status).toBe('ok')
  })
})

describe('withEnumCase', () => {
  const schema = judgeJsonSchema(RUBRIC)

  it('forgives case only, and only where one value matches', () => {
    const verdict = (v: string) =>
      (
        withEnumCase(
          { verdict: v },
          { properties: { verdict: { enum: ['ACCEPT', 'RETRY'] } } }
        ) as {
          verdict: string
        }
      ).verdict
    expect(verdict('accept')).toBe('ACCEPT')
    expect(verdict('Retry')).toBe('RETRY')
    expect(verdict('accepted')).toBe('accepted')
    expect(verdict(' accept')).toBe(' accept')
    // Two values alike but for case: which one was meant is not known.
    expect(withEnumCase('api', { enum: ['API', 'Api'] })).toBe('api')
    // Not a difference of case: the dotless ı and the Kelvin sign K.
    expect(withEnumCase('ıd', { enum: ['ID'] })).toBe('ıd')
    expect(withEnumCase('\u212Aey', { enum: ['key'] })).toBe('\u212Aey')
  })

  it('leaves a value that is no member in any case to the validation, which refuses it', () => {
    const answer = { ...wireAnswer(schema), verdict: 'MAYBE' }
    const validation = validateAnswer(answer, RUBRIC)
    expect(validation.ok).toBe(false)
    if (!validation.ok) expect(validation.problem).toContain('verdict')
  })
})

describe('Ollama', () => {
  it('does not refuse a valid second answer whose count its prompt cache shortened', async () => {
    let first = true
    const { outcome, calls } = await convene(['ollama:qwen3:8b'], call => {
      if (!first) return valid(call)
      first = false
      return { text: 'It looks fine to me.' }
    })
    // The repair request repeats the whole first prompt: the stand-in counts only what follows.
    expect(calls).toHaveLength(2)
    expect(outcome.runs.map(r => r.status)).toEqual(['ok'])
    // Reported for the second request: well under half of what it sent.
    const second = (outcome.runs[0]?.tokens?.input ?? 0) - tokensOf(calls[0]?.text ?? '')
    expect(second).toBeGreaterThan(0)
    expect(second).toBeLessThan(tokensOf(calls[1]?.text ?? '') / 2)
  })
})
