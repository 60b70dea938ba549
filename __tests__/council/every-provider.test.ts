import fc from 'fast-check'
import { stringify } from 'yaml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCouncil } from '../../src/council/council.js'
import { PROVIDER_TABLE } from '../../src/council/providers/index.js'
import { parse } from '../helpers/rubric.js'
import { RANKING_EVIDENCE } from '../helpers/evidence.js'
import { wireAnswer } from '../helpers/judge-answers.js'
import { startProviderStandIn, type StandIn } from '../helpers/provider-standin.js'

/**
 * The judge schema of any rubric is one every provider accepts: generated rubrics (checklist and
 * score-band criteria, 0 to 200 of them, dimensions on and off, focus areas) go through the real
 * council code to each provider's stand-in, which refuses what the real service refuses.
 */

/** One judge on each provider profile; OpenRouter's upstream rules are Anthropic's here. */
const MEMBERS = [
  'openai:gpt-5.4-mini',
  'anthropic:claude-sonnet-4-6',
  'google:gemini-3.5-flash',
  'openrouter:anthropic/claude-sonnet-4.6',
  'openrouter:openai/gpt-5.4-mini',
  'ollama:qwen3:8b',
  'openai-compatible:local-model'
]

const EVIDENCE = RANKING_EVIDENCE

let standIn: StandIn
beforeAll(async () => {
  standIn = await startProviderStandIn(call => ({ json: wireAnswer(call.schema) }))
})
afterAll(async () => {
  await standIn.close()
})

const id = fc.stringMatching(/^[a-z][a-z0-9_-]{0,20}$/)

/** A rubric in its YAML form: criteria of both kinds, dimensions or not, focus areas. */
const rubricText = fc
  .record({
    criteria: fc.uniqueArray(
      fc.record({
        id,
        scored: fc.boolean(),
        required: fc.boolean(),
        minimum: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined })
      }),
      { selector: c => c.id, maxLength: 200 }
    ),
    dimensions: fc.constantFrom<false | 'default' | Record<string, number>>(false, 'default', {
      accuracy: 2,
      clarity: 1
    }),
    focus: fc.subarray(['security', 'performance', 'accessibility'])
  })
  .map(({ criteria, dimensions, focus }) =>
    stringify({
      // At least one gate, so a rubric with no criteria and no dimensions is still valid.
      gates: ['true'],
      dimensions,
      focus,
      criteria: criteria.map(c => ({
        id: c.id,
        description: `Criterion ${c.id}`,
        required: c.required,
        ...(c.scored && {
          score_ranges: { 0: 'Poor', 5: 'Fair', 8: 'Good' },
          ...(c.minimum !== undefined && { required_min_score: c.minimum })
        })
      }))
    })
  )

/** Every member judges the rubric once; the failures, one line each. */
async function failures(text: string): Promise<string[]> {
  const rubric = parse(text, 'rubric.yml')
  if (rubric.criteria.length === 0 && rubric.dimensions.length === 0) return []
  const council = createCouncil({
    env: {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: standIn.openaiBaseUrl,
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: standIn.anthropicBaseUrl,
      GOOGLE_GENERATIVE_AI_API_KEY: 'g-test',
      GOOGLE_GENERATIVE_AI_BASE_URL: standIn.googleBaseUrl,
      OPENROUTER_API_KEY: 'sk-or-test',
      OPENROUTER_BASE_URL: standIn.openrouterBaseUrl,
      OLLAMA_BASE_URL: standIn.ollamaBaseUrl,
      OPENAI_COMPATIBLE_API_KEY: 'local-key',
      OPENAI_COMPATIBLE_BASE_URL: standIn.compatibleBaseUrl
    },
    models: MEMBERS,
    mask: value => value
  })
  const { runs } = await council.convene({
    rubric,
    gates: [],
    evidence: EVIDENCE,
    iteration: 1,
    earlier: []
  })
  expect(runs).toHaveLength(MEMBERS.length)
  return runs.flatMap(r =>
    r.status === 'failed'
      ? [`${r.judge}: ${r.message}`]
      : r.requests === 1
        ? []
        : [`${r.judge}: ${r.requests} requests`]
  )
}

describe('the judge schema on every provider', () => {
  it('is sent to a member of each provider of the table: a provider added there is held to it', () => {
    const providers = new Set(MEMBERS.map(member => member.slice(0, member.indexOf(':'))))
    expect([...providers].sort()).toEqual(Object.keys(PROVIDER_TABLE).sort())
  })

  it('is accepted by all of them, for any rubric: 0 rejected requests', async () => {
    await fc.assert(
      fc.asyncProperty(rubricText, async text => {
        expect(await failures(text)).toEqual([])
      }),
      { numRuns: 40 }
    )
  })

  it('is accepted for the largest rubric: 200 criteria of both kinds, dimensions and every focus', async () => {
    const text = stringify({
      dimensions: 'default',
      focus: ['security', 'performance', 'accessibility'],
      criteria: Array.from({ length: 200 }, (_, i) => ({
        id: `criterion-${i}`,
        description: `Criterion ${i}`,
        required: i % 3 !== 0,
        ...(i % 2 === 0 && { score_ranges: { 0: 'Poor', 5: 'Fair', 8: 'Good' } })
      }))
    })
    expect(await failures(text)).toEqual([])
  })
})
