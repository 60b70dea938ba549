import {
  ANSWER_BASE_TOKENS,
  ITEM_TOKENS,
  REASONING_TOKENS
} from '../../src/council/member-settings.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCouncil } from '../../src/council/council.js'
import { REPAIR_ROOM_TOKENS, TOKENIZER_MARGIN } from '../../src/council/providers/common.js'
import { rubricPromptTokens } from '../../src/council/window.js'
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
 * is told to keep nothing, each judge its reasoning effort as its API takes it, an enum value in
 * another case is read without a repair request, and an Ollama count shortened by its prompt cache
 * is not taken for a cut prompt.
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
  // A fixed calendar (the stand-ins' and the council's): the models named here stay served.
  standIn = await startProviderStandIn(undefined, { today: () => '2026-11-27' })
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
  OLLAMA_BASE_URL: standIn.ollamaBaseUrl,
  GOOGLE_GENERATIVE_AI_API_KEY: 'g-test',
  GOOGLE_GENERATIVE_AI_BASE_URL: standIn.googleBaseUrl,
  OPENAI_COMPATIBLE_API_KEY: 'sk-local',
  OPENAI_COMPATIBLE_BASE_URL: standIn.compatibleBaseUrl
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
    retryBaseMs: 20,
    now: () => Date.parse('2026-11-27T12:00:00Z')
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

/** A failed run's message; '' for an answer. */
const messageOf = (run: CouncilOutcome['runs'][number] | undefined): string =>
  run?.status === 'failed' ? run.message : ''

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

describe('reasoning effort', () => {
  /** What each request said about reasoning, by judge, in its provider's own words. */
  const reasoningOf = (call: RecordedCall): unknown => {
    const body = record(call.body) ?? {}
    switch (call.protocol) {
      case 'openai-responses':
        return { reasoning: body.reasoning }
      case 'anthropic-messages':
        return {
          thinking: body.thinking,
          effort: record(body.output_config)?.effort,
          max_tokens: body.max_tokens
        }
      case 'google-generate':
        return { thinkingConfig: record(body.generationConfig)?.thinkingConfig }
      case 'ollama-chat':
        return { think: body.think }
      case 'openai-chat':
        return { reasoning: body.reasoning, reasoning_effort: body.reasoning_effort }
    }
  }
  const byModel = (calls: readonly RecordedCall[]) =>
    Object.fromEntries(calls.map(call => [call.model, reasoningOf(call)]))

  it('is medium by default on the hosted providers, each in its own words; none to a model that does not reason', async () => {
    const { outcome, calls } = await convene(
      [
        'openai:gpt-5.4-mini',
        'openai:gpt-4.1',
        'anthropic:claude-sonnet-4-6',
        'anthropic:claude-sonnet-4-5',
        'google:gemini-3.5-flash',
        'google:gemini-2.5-pro',
        'openrouter:openai/gpt-5.4-mini',
        'openrouter:meta-llama/llama-4-maverick',
        'ollama:llama3.1:8b',
        'openai-compatible:local-model'
      ],
      valid
    )
    expect(outcome.runs.map(r => [r.judge, r.status])).toEqual(
      outcome.runs.map(r => [r.judge, 'ok'])
    )
    expect(byModel(calls)).toEqual({
      // No summary is asked for: an organization that is not verified is refused one.
      'gpt-5.4-mini': { reasoning: { effort: 'medium' } },
      'gpt-4.1': { reasoning: undefined },
      // Adaptive thinking at an effort from 4.6 on: the cap holds the answer (three criteria and
      // dimensions) and the thinking a medium effort may do.
      'claude-sonnet-4-6': {
        thinking: { type: 'adaptive' },
        effort: 'medium',
        max_tokens: ANSWER_BASE_TOKENS + 3 * ITEM_TOKENS + REASONING_TOKENS.medium
      },
      // A budget before 4.6, which the SDK adds to the answer's cap.
      'claude-sonnet-4-5': {
        thinking: { type: 'enabled', budget_tokens: 8192 },
        effort: undefined,
        max_tokens: ANSWER_BASE_TOKENS + 3 * ITEM_TOKENS + 8192
      },
      'gemini-3.5-flash': { thinkingConfig: { thinkingLevel: 'medium' } },
      'gemini-2.5-pro': { thinkingConfig: { thinkingBudget: 8192 } },
      'openai/gpt-5.4-mini': { reasoning: { effort: 'medium' }, reasoning_effort: undefined },
      'meta-llama/llama-4-maverick': { reasoning: undefined, reasoning_effort: undefined },
      // The model's own default: the SDK says no thinking.
      'llama3.1:8b': { think: false },
      'local-model': { reasoning: undefined, reasoning_effort: undefined }
    })
  })

  it('is the rubric’s: council.reasoning for every judge, a member’s own above it', async () => {
    const rubric = parse(
      lines(
        '---',
        'dimensions: { accuracy: 1 }',
        'council:',
        '  reasoning: high',
        '  models:',
        '    - openai:gpt-5.4-mini',
        '    - { model: anthropic:claude-sonnet-4-6, reasoning: low }',
        '    - { model: google:gemini-3.5-flash, reasoning: low }',
        '    - { model: "ollama:gpt-oss:20b", reasoning: low }',
        '    - openai-compatible:local-model',
        '---',
        '## Criteria',
        '- tested: The change is tested'
      )
    )
    const { outcome, calls } = await convene([], valid, { rubric })
    expect(outcome.runs.map(r => r.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok'])
    expect(byModel(calls)).toEqual({
      'gpt-5.4-mini': { reasoning: { effort: 'high' } },
      'claude-sonnet-4-6': {
        thinking: { type: 'adaptive' },
        effort: 'low',
        // One criterion and one dimension, thought over at a low effort.
        max_tokens: ANSWER_BASE_TOKENS + 2 * ITEM_TOKENS + REASONING_TOKENS.low
      },
      'gemini-3.5-flash': { thinkingConfig: { thinkingLevel: 'low' } },
      // Ollama thinks or not: any level turns it on.
      'gpt-oss:20b': { think: true },
      'local-model': { reasoning: undefined, reasoning_effort: 'high' }
    })
  })

  it('council.reasoning reaches the judges the rubric does not name (the models input, the defaults)', async () => {
    const rubric = parse(
      lines(
        '---',
        'dimensions: { accuracy: 1 }',
        'council: { reasoning: low }',
        '---',
        '## Criteria',
        '- tested: The change is tested'
      )
    )
    const { calls } = await convene(['openai:gpt-5.4-mini', 'google:gemini-3.5-flash'], valid, {
      rubric
    })
    expect(byModel(calls)).toEqual({
      'gpt-5.4-mini': { reasoning: { effort: 'low' } },
      'gemini-3.5-flash': { thinkingConfig: { thinkingLevel: 'low' } }
    })
  })

  it('asked of a model that cannot reason, fails that judge with the provider’s own refusal', async () => {
    const rubric = parse(
      lines(
        '---',
        'dimensions: { accuracy: 1 }',
        'council:',
        '  reasoning: low',
        '  models: ["ollama:llama3.1:8b", openrouter:meta-llama/llama-4-maverick]',
        '---',
        '## Criteria',
        '- tested: The change is tested'
      )
    )
    const { outcome, calls } = await convene([], valid, { rubric })
    // Refused, not retried: the same request would be refused again.
    expect(calls).toHaveLength(2)
    expect(outcome.runs.map(r => [r.judge, r.status, r.status === 'failed' && r.message])).toEqual([
      ['ollama:llama3.1:8b', 'failed', expect.stringContaining('does not support thinking')],
      [
        'openrouter:meta-llama/llama-4-maverick',
        'failed',
        expect.stringContaining('No endpoints found that can handle the requested parameters')
      ]
    ])
  })

  it('is part of the council’s configuration: another effort is not served a cached judgement', () => {
    const council = createCouncil({ env: ENV(), models: [], mask: text => text })
    const withEffort = (effort: string) =>
      parse(
        lines(
          '---',
          `council: { models: [{ model: openai:gpt-5.4-mini, reasoning: ${effort} }] }`,
          '---',
          '## Criteria',
          '- tested: The change is tested'
        )
      )
    expect(council.configuration?.(withEffort('low'))).not.toBe(
      council.configuration?.(withEffort('high'))
    )
  })

  it('another temperature is not served a cached judgement; the default written out is the same', () => {
    const council = createCouncil({ env: ENV(), models: [], mask: text => text })
    const at = (member: string) =>
      council.configuration?.(
        parse(lines('---', `council: { models: [${member}] }`, '---', '## Criteria', '- tested: T'))
      )
    const zero = at('{ model: "ollama:llama3.1:8b", temperature: 0 }')
    expect(at('ollama:llama3.1:8b')).toBe(zero)
    expect(at('{ model: "ollama:llama3.1:8b", temperature: 0.7 }')).not.toBe(zero)
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
      const criteria = answer.criteria as Record<string, { verdict: string }>
      criteria.tested = { ...criteria.tested, verdict: 'passed' }
      return { json: answer }
    })
    expect(calls.map(isRepair)).toEqual([false, true])
    expect(JSON.stringify(calls[1]?.body)).toContain('criteria.tested.verdict')
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

  it('forgives the case of a key too, unless the key it matches is given as well', () => {
    const grade = { reasoning: 'r', verdict: 'pass' }
    const keys = (criteria: Record<string, unknown>) =>
      (withEnumCase({ criteria }, schema) as { criteria: Record<string, unknown> }).criteria
    expect(keys({ Tested: grade, SAFE: grade })).toEqual({
      tested: { reasoning: 'r', verdict: 'PASS' },
      safe: { reasoning: 'r', verdict: 'PASS' }
    })
    expect(Object.keys(keys({ Tested: grade, tested: grade }))).toEqual(['Tested', 'tested'])
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

describe('answer caps and temperature (docs/council.md#answer-caps)', () => {
  /** What a request says of the answer's cap and the temperature, in its provider's own words. */
  const capOf = (call: RecordedCall): { cap: unknown; temperature: unknown } => {
    const body = record(call.body) ?? {}
    switch (call.protocol) {
      case 'openai-responses':
        return { cap: body.max_output_tokens, temperature: body.temperature }
      case 'anthropic-messages':
      case 'openai-chat':
        return { cap: body.max_tokens, temperature: body.temperature }
      case 'google-generate': {
        const config = record(body.generationConfig)
        return { cap: config?.maxOutputTokens, temperature: config?.temperature }
      }
      case 'ollama-chat': {
        // Ollama reads neither a top-level cap nor a top-level temperature: only its `options`.
        expect(body.max_output_tokens ?? body.max_tokens).toBeUndefined()
        const options = record(body.options)
        return { cap: options?.num_predict, temperature: options?.temperature }
      }
    }
  }
  const rubric = (models: string) =>
    parse(
      lines(
        '---',
        'dimensions: { accuracy: 1, clarity: 1 }',
        `council: { models: ${models} }`,
        '---',
        '## Criteria',
        '- tested: The change is tested',
        '- safe: Errors are handled',
        '- small: The change is small'
      )
    )
  // Three criteria and two dimensions.
  const answer = ANSWER_BASE_TOKENS + 5 * ITEM_TOKENS

  it('caps every request on every provider, sized from the rubric; temperature 0 only where the server’s default varies', async () => {
    const { outcome, calls } = await convene([], valid, {
      rubric: rubric(
        '[openai:gpt-4.1, openai:gpt-5.4-mini, google:gemini-3.5-flash, "ollama:llama3.1:8b", openai-compatible:local-model, openrouter:meta-llama/llama-4-maverick]'
      )
    })
    expect(outcome.runs.map(r => r.status)).toEqual(outcome.runs.map(() => 'ok'))
    expect(Object.fromEntries(calls.map(c => [c.model, capOf(c)]))).toEqual({
      'gpt-4.1': { cap: answer + REASONING_TOKENS.medium, temperature: undefined },
      'gpt-5.4-mini': { cap: answer + REASONING_TOKENS.medium, temperature: undefined },
      'gemini-3.5-flash': { cap: answer + REASONING_TOKENS.medium, temperature: undefined },
      // Neither thinks unless told to: the answer's cap alone.
      'llama3.1:8b': { cap: answer, temperature: 0 },
      'local-model': { cap: answer, temperature: 0 },
      'meta-llama/llama-4-maverick': {
        cap: answer + REASONING_TOKENS.medium,
        temperature: undefined
      }
    })
    // The report's runs say what each was sent.
    expect(outcome.runs.find(r => r.judge === 'ollama:llama3.1:8b')?.sent).toEqual({
      cap: answer,
      temperature: 0
    })
    expect(outcome.runs.find(r => r.judge === 'openai:gpt-5.4-mini')?.sent).toEqual({
      cap: answer + REASONING_TOKENS.medium
    })
  })

  it('takes a member’s own max_output_tokens and temperature over the defaults', async () => {
    const { calls } = await convene([], valid, {
      rubric: rubric(
        '[{ model: "ollama:llama3.1:8b", max_output_tokens: 2048, temperature: 0.3 }, { model: openai:gpt-4.1, temperature: 0.5 }]'
      )
    })
    expect(Object.fromEntries(calls.map(c => [c.model, capOf(c)]))).toEqual({
      'llama3.1:8b': { cap: 2048, temperature: 0.3 },
      'gpt-4.1': { cap: answer + REASONING_TOKENS.medium, temperature: 0.5 }
    })
  })

  it('a cut answer is its own failure, named with the cap, and is not repaired', async () => {
    const { outcome, calls } = await convene(['openai-compatible:local-model'], call => ({
      // What llama.cpp's server sends when the cap stops the answer: the JSON unfinished.
      raw: JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: call.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: '{"findings": [{"severity": "minor", "title": "'
            },
            finish_reason: 'length'
          }
        ],
        usage: { prompt_tokens: 900, completion_tokens: answer, total_tokens: 900 + answer }
      })
    }))
    expect(calls).toHaveLength(1)
    expect(outcome.runs[0]).toMatchObject({ status: 'failed', failure: 'answer_cut' })
    expect(messageOf(outcome.runs[0])).toMatch(
      /^the answer was cut at [\d,]+ tokens, the cap on its length \([\d,]+, reasoning included\): raise max_output_tokens for openai-compatible:local-model in council.models/
    )
  })

  it('a repair quotes at most 2,000 characters of a runaway answer, and is never much larger than the first request', async () => {
    const runaway = {
      ...wireAnswer(judgeJsonSchema(RUBRIC)),
      feedback: 'x'.repeat(60_000),
      verdict: 'MAYBE'
    }
    const { outcome, calls } = await convene(['openai-compatible:local-model'], call =>
      isRepair(call) ? valid(call) : { json: runaway }
    )
    expect(outcome.runs.map(r => r.status)).toEqual(['ok'])
    const [first, repair] = calls
    expect(repair && isRepair(repair)).toBe(true)
    const size = (call: RecordedCall | undefined) => JSON.stringify(call?.body ?? '').length
    expect(size(repair) - size(first)).toBeLessThan(2000 + 1500)
    expect(JSON.stringify(repair?.body)).toContain('more characters of this answer not quoted')
  })

  it('a repair refused for the window is given up for a fresh re-ask, which fits', async () => {
    let asked = 0
    const { outcome, calls } = await convene(['openai-compatible:local-model'], call =>
      ++asked > 1 && isRepair(call)
        ? {
            status: 400,
            // llama.cpp's server (tools/server): the request did not fit its `n_ctx`.
            body: {
              error: {
                code: 400,
                message: 'request (8468 tokens) exceeds the available context size (8192 tokens)',
                type: 'exceed_context_size_error',
                n_prompt_tokens: 8468,
                n_ctx: 8192
              }
            }
          }
        : asked === 1
          ? { json: { findings: [] } }
          : valid(call)
    )
    expect(outcome.runs.map(r => r.status)).toEqual(['ok'])
    expect(calls.map(isRepair)).toEqual([false, true, false])
  })

  it('a prompt the server refuses for its window: context_overflow, with the sizes and what to do, and no retry', async () => {
    const { outcome, calls } = await convene(['openai-compatible:local-model'], () => ({
      status: 400,
      body: {
        error: {
          code: 400,
          message: 'request (9100 tokens) exceeds the available context size (8192 tokens)',
          type: 'exceed_context_size_error'
        }
      }
    }))
    expect(calls).toHaveLength(1)
    const run = outcome.runs[0]
    expect(run).toMatchObject({ status: 'failed', failure: 'context_overflow', rejected: true })
    const message = run?.status === 'failed' ? run.message : ''
    expect(message).toContain('exceeds the available context size (8192 tokens)')
    expect(message).toContain('max-evidence-tokens')
    expect(message).toContain('council.models: [{ model, window }]')
    expect(message).not.toContain('model name')
  })
})

describe('a window a member declares (docs/council.md#self-hosted-models)', () => {
  const declaring = (window: number) =>
    parse(
      lines(
        '---',
        'dimensions: false',
        `council: { models: [{ model: "ollama:llama3.1:8b", window: ${window} }] }`,
        '---',
        '## Criteria',
        '- tested: The change is tested'
      )
    )

  it('sizes the evidence to it, beside the answer’s cap and the rubric, and bounds Ollama’s num_ctx', async () => {
    const rubric = declaring(8192)
    const council = createCouncil({ env: ENV(), models: [], mask: text => text })
    const room = (await council.contextLimit?.(rubric)) ?? 0
    // The sized cap (3,400) is more than a quarter of the window: the quarter is kept.
    expect(ANSWER_BASE_TOKENS + ITEM_TOKENS).toBeGreaterThan(8192 / 4)
    const cap = 8192 / 4
    expect(room).toBe(
      Math.floor((8192 - cap) / TOKENIZER_MARGIN) -
        rubricPromptTokens(rubric) -
        1000 -
        REPAIR_ROOM_TOKENS
    )
    const { outcome, calls } = await convene([], valid, { rubric })
    expect(outcome.runs.map(r => r.status)).toEqual(['ok'])
    expect(record(record(calls[0]?.body)?.options)?.num_ctx).toBeLessThanOrEqual(8192)
    expect(record(record(calls[0]?.body)?.options)?.num_predict).toBe(cap)
  })

  it('too small for the instructions and the rubric: the judge is not asked, and the reason names it, its window, the prompt’s size and max-evidence-tokens', async () => {
    const { outcome, calls } = await convene([], valid, { rubric: declaring(2048) })
    expect(calls).toHaveLength(0)
    expect(outcome.runs[0]).toMatchObject({ status: 'failed', failure: 'context_overflow' })
    expect(messageOf(outcome.runs[0])).toMatch(
      /^the prompt \(about [\d,]+ tokens by our count\), the 512 kept for the answer and the 1,500 for a repair do not fit ollama:llama3\.1:8b's context window of 2,048 tokens; re-running will not help: lower max-evidence-tokens, or give ollama:llama3\.1:8b a larger window/
    )
  })
})
