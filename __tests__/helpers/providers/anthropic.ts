import { isRecord, list, nodes, ofType, present, record, type Json } from './schema.js'

/**
 * The Anthropic Messages API's request rules that a client can break, as the real service
 * enforces them, each with its source. A broken rule is answered as the API answers it:
 * `{"type":"error","error":{"type":…,"message":…},"request_id":…}` with the same status.
 *
 * Sources:
 * - Structured outputs and their "JSON Schema limitations":
 *   https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations
 * - Errors: https://platform.claude.com/docs/en/api/errors
 * - Models, output limits: https://platform.claude.com/docs/en/about-claude/models/overview
 * - Retirements: https://platform.claude.com/docs/en/about-claude/model-deprecations
 * - Prompt caching (breakpoints, minimum lengths, usage fields):
 *   https://platform.claude.com/docs/en/build-with-claude/prompt-caching; the 400 for a fifth
 *   breakpoint, "A maximum of 4 blocks with cache_control may be provided. Found 5.", as met in
 *   tghamm/Anthropic.SDK#50 (the whole error body) and Wei-Shaw/sub2api#176.
 * - Thinking: https://platform.claude.com/docs/en/build-with-claude/extended-thinking (a budget
 *   of at least 1,024 and below `max_tokens`; temperature only 1; budgets deprecated on 4.6 and
 *   refused from 4.7 on), https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking
 *   (4.6 and later), https://platform.claude.com/docs/en/build-with-claude/effort
 *   (`output_config.effort`: Opus 4.5, and 4.6 and later). The messages as met in
 *   danny-avila/LibreChat#8346 (a budget below 1,024) and liuw1535/antigravity2api-nodejs#149 (a
 *   budget not below `max_tokens`); the extended-thinking page names the start of the refusal of
 *   a budget ("thinking.type.enabled" is not supported); the refusals of adaptive thinking and of
 *   the effort on Haiku 4.5, and of a temperature with thinking, as quoted by public clients that
 *   probed the API (found by their text; the repositories are not named in the index).
 * - Property keys: `^[a-zA-Z0-9_.-]{1,64}$`, refused otherwise with "<schema>.properties:
 *   Property keys should match pattern …", as met for tools' input schemas in
 *   saidsurucu/ihale-mcp#2 (a non-ASCII letter), freee/freee-mcp#35 and
 *   erikmaday/unusual-whales-mcp#57; the stand-in holds the output schema to it too, the stricter
 *   reading, for the structured-outputs page does not say it is exempt.
 * - Messages as others met them: BerriAI/litellm#37881 and openstory-so/openstory#1410 (an enum
 *   beside a type array), home-assistant/core#173771 (empty enum), vercel/ai#17268 and
 *   CultivateLabs/raif#518 (minimum/maximum), ghostlobster/memorize-everything#93 (minItems),
 *   spring-projects/spring-ai#2387 and PolicyEngine/policyengine-api#3800 (404 for a retired model).
 */

export interface AnthropicModel {
  /** The dated id the API resolves an alias to, as its errors name it. */
  readonly dated: string
  /** The most `max_tokens` may ask for. */
  readonly maxOutput: number
  /** Shorter prefixes are not cached (no error: the request just is not cached). */
  readonly minCacheTokens: number
  /**
   * `strict`: models after Opus 4.6 refuse sampling parameters (temperature other than 1, any
   * top_k, top_p below 0.99); `one`: temperature and top_p may not both be given.
   */
  readonly sampling: 'strict' | 'one'
  /**
   * The thinking it takes: `budget` (`type: enabled`, before 4.6), `adaptive` (4.7 on: a budget
   * is refused), or `both` (4.6).
   */
  readonly thinking: 'budget' | 'both' | 'adaptive'
  /** Whether it takes `output_config.effort`. */
  readonly effort: boolean
}

const model = (
  dated: string,
  maxOutput: number,
  minCacheTokens: number,
  sampling: AnthropicModel['sampling'],
  thinking: AnthropicModel['thinking'] = sampling === 'strict' ? 'adaptive' : 'both',
  effort = true
): AnthropicModel => ({ dated, maxOutput, minCacheTokens, sampling, thinking, effort })

const HAIKU_4_5 = model('claude-haiku-4-5-20251001', 64_000, 4096, 'one', 'budget', false)
const SONNET_4_5 = model('claude-sonnet-4-5-20250929', 64_000, 1024, 'one', 'budget', false)
const OPUS_4_5 = model('claude-opus-4-5-20251101', 64_000, 4096, 'one', 'budget')

/** Models the API serves (November 2026), by every id that reaches them. */
export const ANTHROPIC_MODELS: Readonly<Record<string, AnthropicModel>> = {
  'claude-haiku-4-5': HAIKU_4_5,
  'claude-haiku-4-5-20251001': HAIKU_4_5,
  'claude-sonnet-4-5': SONNET_4_5,
  'claude-sonnet-4-5-20250929': SONNET_4_5,
  'claude-opus-4-5': OPUS_4_5,
  'claude-opus-4-5-20251101': OPUS_4_5,
  // Third-party tables give Sonnet 4.6 64K of output; the AI SDK assumes 128K. The lower bound.
  'claude-sonnet-4-6': model('claude-sonnet-4-6', 64_000, 1024, 'one'),
  'claude-opus-4-6': model('claude-opus-4-6', 128_000, 4096, 'one'),
  'claude-opus-4-7': model('claude-opus-4-7', 128_000, 4096, 'strict'),
  // Cache minimums of the newer models: 1,024 for Opus 4.8 and Sonnet 5, 512 for Opus 5, as the
  // prompt-caching page's table is quoted by docs.litellm.ai/docs/completion/prompt_caching and
  // dev.to/creeta/claudes-prompt-cache-fails-silently-below-1024-tokens-1ch1 (the page itself is
  // not in reach here); Opus 4.7 stays at 4,096, where those quotes disagree.
  'claude-opus-4-8': model('claude-opus-4-8', 128_000, 1024, 'strict'),
  'claude-sonnet-5': model('claude-sonnet-5', 128_000, 1024, 'strict'),
  'claude-opus-5': model('claude-opus-5', 128_000, 512, 'strict')
}

/** Retired: the API answers 404 `model: <id>` (model-deprecations page). */
export const ANTHROPIC_RETIRED: readonly string[] = [
  'claude-2.1',
  'claude-3-opus-20240229',
  'claude-3-haiku-20240307',
  'claude-3-5-haiku-20241022',
  'claude-3-7-sonnet-20250219',
  'claude-sonnet-4-0',
  'claude-sonnet-4-20250514',
  'claude-opus-4-0',
  'claude-opus-4-20250514'
]

/**
 * Served until the day they retire (model-deprecations page: Sonnet 4.5 retires 2026-11-30, its
 * replacement Sonnet 4.6); from that day the API answers 404 `model: <id>` like any retired model.
 */
export const ANTHROPIC_RETIRING: Readonly<Record<string, string>> = {
  'claude-sonnet-4-5': '2026-11-30',
  'claude-sonnet-4-5-20250929': '2026-11-30'
}

export interface Rejection {
  readonly status: number
  readonly type: string
  readonly message: string
}

const invalid = (message: string): Rejection => ({
  status: 400,
  type: 'invalid_request_error',
  message
})

/** The first rule the request breaks, in the order the API checks them; undefined if none. */
export function anthropicRequestProblem(
  body: Json,
  headers: Readonly<Record<string, string>>,
  today: string
): Rejection | undefined {
  if (headers['anthropic-version'] === undefined)
    return invalid('anthropic-version: header is required')
  if (typeof body.model !== 'string') return invalid('model: Field required')
  if (typeof body.max_tokens !== 'number') return invalid('max_tokens: Field required')
  if (!Array.isArray(body.messages)) return invalid('messages: Field required')
  if (body.stream === true) return invalid('provider stand-in: streaming is not supported')

  const retires = Object.hasOwn(ANTHROPIC_RETIRING, body.model)
    ? ANTHROPIC_RETIRING[body.model]
    : undefined
  const served =
    Object.hasOwn(ANTHROPIC_MODELS, body.model) && (retires === undefined || today < retires)
      ? ANTHROPIC_MODELS[body.model]
      : undefined
  if (served === undefined)
    return { status: 404, type: 'not_found_error', message: `model: ${body.model}` }
  if (body.max_tokens > served.maxOutput) {
    return invalid(
      `max_tokens: ${body.max_tokens} > ${served.maxOutput}, which is the maximum allowed number of output tokens for ${served.dated}`
    )
  }
  const sampling = samplingProblem(body, served)
  if (sampling) return invalid(sampling)
  const thinking = thinkingProblem(body, served)
  if (thinking) return invalid(thinking)

  const breakpoints = cacheBreakpoints(body)
  if (breakpoints > 4)
    return invalid(
      `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`
    )

  const output = record(record(body.output_config)?.format)
  const legacy = record(body.output_format)
  const format = output ?? legacy
  if (format?.type === 'json_schema') {
    const where = output ? 'output_config.format.schema' : 'output_format.schema'
    const problem = anthropicSchemaProblem(format.schema)
    if (problem)
      return invalid(
        problem.counted ? problem.message : `${where}${problem.at ?? ''}: ${problem.message}`
      )
  }
  return undefined
}

function samplingProblem(body: Json, served: AnthropicModel): string | undefined {
  if (served.sampling === 'strict') {
    if (body.temperature !== undefined && body.temperature !== 1)
      return '`temperature` is deprecated for this model.'
    if (body.top_k !== undefined) return '`top_k` is deprecated for this model.'
    if (typeof body.top_p === 'number' && body.top_p < 0.99)
      return '`top_p` is deprecated for this model.'
    return undefined
  }
  return body.temperature !== undefined && body.top_p !== undefined
    ? '`temperature` and `top_p` cannot both be specified for this model. Please use only one.'
    : undefined
}

/** `thinking` and `output_config.effort`, as the model takes them. */
function thinkingProblem(body: Json, served: AnthropicModel): string | undefined {
  const thinking = record(body.thinking)
  if (thinking?.type === 'enabled') {
    if (served.thinking === 'adaptive')
      return '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'
    const budget = thinking.budget_tokens
    if (typeof budget !== 'number') return 'thinking.enabled.budget_tokens: Field required'
    if (budget < 1024)
      return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024'
    if (typeof body.max_tokens === 'number' && budget >= body.max_tokens)
      return '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size'
  }
  if (thinking?.type === 'adaptive' && served.thinking === 'budget')
    return 'adaptive thinking is not supported on this model'
  const thinks = thinking?.type === 'enabled' || thinking?.type === 'adaptive'
  if (thinks && body.temperature !== undefined && body.temperature !== 1)
    return '`temperature` may only be set to 1 when thinking is enabled or in adaptive mode'
  if (record(body.output_config)?.effort !== undefined && !served.effort)
    return 'This model does not support the effort parameter'
  return undefined
}

/** Blocks with `cache_control` in the system prompt, the messages and the tools. */
export function cacheBreakpoints(body: Json): number {
  const blocks = [
    ...list(body.system),
    ...list(body.messages).flatMap(m => list(record(m)?.content)),
    ...list(body.tools)
  ]
  return blocks.filter(block => isRecord(block) && block.cache_control !== undefined).length
}

const UNSUPPORTED: Readonly<Record<string, readonly string[]>> = {
  integer: ['exclusiveMaximum', 'exclusiveMinimum', 'maximum', 'minimum', 'multipleOf'],
  number: ['exclusiveMaximum', 'exclusiveMinimum', 'maximum', 'minimum', 'multipleOf'],
  string: ['maxLength', 'minLength'],
  array: ['maxItems', 'uniqueItems'],
  object: ['maxProperties', 'minProperties']
}

const FORMATS = [
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'uri',
  'ipv4',
  'ipv6',
  'uuid'
]

const PROPERTY_KEY = /^[a-zA-Z0-9_.-]{1,64}$/

/** Most optional properties and union-typed properties a request's strict schemas may have. */
const MAX_OPTIONAL = 24
const MAX_UNIONS = 16

/**
 * The first "JSON Schema limitations" rule the schema breaks. `counted` problems (the optional
 * and union limits) are reported without the schema's path, as the API reports them.
 */
export function anthropicSchemaProblem(
  schema: unknown
): { readonly message: string; readonly counted?: true; readonly at?: string } | undefined {
  let optional = 0
  let unions = 0
  for (const { schema: node } of nodes(schema)) {
    const types = Array.isArray(node.type) ? (node.type as string[]) : undefined
    const type = typeof node.type === 'string' ? node.type : undefined
    if (Array.isArray(node.enum)) {
      if (node.enum.length === 0)
        return { message: 'Invalid schema: Enum must be a non-empty array' }
      if (types) {
        return {
          message: `Invalid schema: Enum value '${String(node.enum[0])}' does not match declared type '[${types.map(t => `'${t}'`).join(', ')}]'`
        }
      }
      const stray = type ? list(node.enum).find(value => !ofType(value, type)) : undefined
      if (type && stray !== undefined)
        return {
          message: `Invalid schema: Enum value '${JSON.stringify(stray)}' does not match declared type '${type}'`
        }
    }
    if (
      node.type === undefined &&
      node.anyOf === undefined &&
      node.oneOf === undefined &&
      node.allOf === undefined &&
      node.$ref === undefined &&
      node.enum === undefined &&
      node.const === undefined
    )
      return { message: "Schema must have a 'type', 'anyOf', 'oneOf', or 'allOf' field" }
    for (const kind of types ?? (type ? [type] : [])) {
      const bad = present(node, UNSUPPORTED[kind] ?? [])
      if (kind === 'array' && typeof node.minItems === 'number' && node.minItems > 1)
        return {
          message: "For 'array' type, 'minItems' values other than 0 or 1 are not supported"
        }
      if (bad.length === 1)
        return { message: `For '${kind}' type, property '${bad[0] ?? ''}' is not supported` }
      if (bad.length > 1)
        return { message: `For '${kind}' type, properties ${bad.join(', ')} are not supported` }
      if (kind === 'string' && typeof node.format === 'string' && !FORMATS.includes(node.format))
        return { message: `For 'string' type, format '${node.format}' is not supported` }
    }
    if (type === 'object' || node.properties !== undefined) {
      if (node.additionalProperties === undefined)
        return {
          message: "For 'object' type, 'additionalProperties' must be explicitly set to false"
        }
      if (node.additionalProperties !== false)
        return {
          message:
            "For 'object' type, 'additionalProperties: true' is not supported. Please set 'additionalProperties' to false"
        }
      const keys = Object.keys(record(node.properties) ?? {})
      if (keys.some(key => !PROPERTY_KEY.test(key)))
        return {
          at: '.properties',
          message: `Property keys should match pattern '${PROPERTY_KEY.source}'`
        }
      const required = Array.isArray(node.required) ? node.required : []
      optional += Object.keys(record(node.properties) ?? {}).filter(
        key => !required.includes(key)
      ).length
    }
    if (types || node.anyOf !== undefined || node.oneOf !== undefined) unions++
  }
  const cycle = refCycle(schema)
  if (cycle)
    return {
      message: `Invalid schema: Circular reference detected in schema definitions: ${cycle}. Self-referencing schemas are not supported`
    }
  if (optional > MAX_OPTIONAL)
    return {
      counted: true,
      message: `Schemas contains too many optional parameters (${optional}), which would make grammar compilation inefficient. Reduce the number of optional parameters in your tool schemas (limit: ${MAX_OPTIONAL}).`
    }
  if (unions > MAX_UNIONS)
    return {
      counted: true,
      message: `Schemas contains too many parameters with union types (${unions} parameters with type arrays or anyOf). This causes exponential compilation cost. Reduce the number of nullable or union-typed parameters (limit: ${MAX_UNIONS} parameters with unions).`
    }
  return undefined
}

/** A definition that refers back to itself, as `a -> b -> a`. */
function refCycle(schema: unknown): string | undefined {
  const defs = { ...record(record(schema)?.$defs), ...record(record(schema)?.definitions) }
  const refsOf = (name: string): string[] =>
    [...nodes(defs[name])].flatMap(({ schema: node }) =>
      typeof node.$ref === 'string' ? [node.$ref.replace(/^#\/(\$defs|definitions)\//, '')] : []
    )
  for (const start of Object.keys(defs)) {
    const path = [start]
    const seen = new Set<string>()
    const walk = (name: string): string | undefined => {
      for (const next of refsOf(name)) {
        if (next === start) return [...path, next].join(' -> ')
        if (seen.has(next) || !(next in defs)) continue
        seen.add(next)
        path.push(next)
        const found = walk(next)
        if (found) return found
        path.pop()
      }
      return undefined
    }
    const found = walk(start)
    if (found) return found
  }
  return undefined
}
