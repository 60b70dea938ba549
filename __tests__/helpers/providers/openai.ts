import { isRecord, list, nodes, ofType, present, record, type Json } from './schema.js'

/**
 * The OpenAI API's request rules that a client can break (Responses and Chat Completions), as
 * the real service enforces them, each with its source. A broken rule is answered as the API
 * answers it: `{"error":{"message","type","param","code"}}` with the same status.
 *
 * Sources:
 * - Structured outputs, strict mode ("Supported schemas", limits):
 *   https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
 * - Reasoning models' parameters:
 *   https://platform.openai.com/docs/guides/reasoning and
 *   https://platform.openai.com/docs/guides/latest-model#gpt-5-1-parameter-compatibility
 * - `reasoning.effort`: per model ("Supported values vary by model": gpt-5 minimal–high, gpt-5.1
 *   adds none, gpt-5.2 on xhigh; o3 and o4-mini low–high), refused on a model that does not
 *   reason (https://developers.openai.com/api/docs/guides/reasoning; the messages as met in
 *   BoundaryML/baml#2708 and livekit/agents#3966).
 * - `reasoning.summary`: refused to an organization that is not verified, which the stand-in
 *   plays (https://help.openai.com/en/articles/10910291-api-organization-verification; the message
 *   as met in continuedev/continue#9283 and OpenHands/software-agent-sdk#987).
 * - `store` (Responses): whether the response is kept as application state, default true
 *   (https://developers.openai.com/api/docs/guides/your-data); with `store: false` an
 *   input item that refers to an earlier item by id is refused, since nothing was kept
 *   ("Items are not persisted when `store` is set to false…", as met in anomalyco/opencode#7724
 *   and #8987).
 * - Prompt caching (https://developers.openai.com/api/docs/guides/prompt-caching, and OpenAI's
 *   OpenAPI description, openai/openai-openapi of 2026-08-21): `prompt_cache_key` is a string of
 *   at most 64 characters (the bound the description gives on /responses/compact; the stand-in
 *   holds every endpoint to it, the stricter reading), refused beyond with the API's
 *   `string_above_max_length` wording; a part's `prompt_cache_breakpoint` requires `mode`
 *   (`explicit`), and `prompt_cache_options.mode` is `implicit` or `explicit`, refused otherwise
 *   with the API's `Missing required parameter` and `invalid_value` wordings.
 * - Models and deprecations: https://platform.openai.com/docs/models,
 *   https://platform.openai.com/docs/deprecations; the GPT-5.6 family and GPT-6 models as the
 *   models page and each model's page list them (read 2026-11-29): GPT-5.6, GPT-6 Sol and Luna
 *   and GPT-6.1 Terra take efforts `none` to `max`; GPT-6 Astra, GPT-6.1 Sol and the GPT-6.2
 *   models `low` to `max` ("The API rejects requests that set reasoning effort to none").
 * - Messages as others met them: mavam/pi-web-providers#14 (invalid_json_schema on
 *   text.format.schema), coder/mux#1220 (minLength), mastra-ai/mastra#23321 (uniqueItems),
 *   vercel/ai#8784 (a root that is not an object), Aider-AI/aider#2030 (model_not_found),
 *   community.openai.com/t/974416 (the enum-count message).
 */

export interface OpenAIModel {
  /** Reasoning models refuse `temperature` and `top_p` (from gpt-5.1 on, unless effort is none). */
  readonly reasoning: 'always' | 'unless-effort-none' | 'never'
  /** The `reasoning.effort` values the model takes; none for a model that does not reason. */
  readonly efforts: readonly string[]
  /**
   * From the GPT-5.6 family on: the cache is written at breakpoints (an implicit one at the end of
   * the input unless `prompt_cache_options.mode` is `explicit`), and a write is billed.
   */
  readonly cacheWrites?: true
}

const GPT_5_EFFORTS = ['minimal', 'low', 'medium', 'high']
const GPT_5_2_EFFORTS = ['none', 'low', 'medium', 'high', 'xhigh']
const O_EFFORTS = ['low', 'medium', 'high']

const GPT_6_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max']

const always = (efforts: readonly string[]): OpenAIModel => ({ reasoning: 'always', efforts })
const unlessNone: OpenAIModel = { reasoning: 'unless-effort-none', efforts: GPT_5_2_EFFORTS }
const never: OpenAIModel = { reasoning: 'never', efforts: [] }
const writesFromNone: OpenAIModel = {
  reasoning: 'unless-effort-none',
  efforts: ['none', ...GPT_6_EFFORTS],
  cacheWrites: true
}
const writesFromLow: OpenAIModel = { ...always(GPT_6_EFFORTS), cacheWrites: true }

/** Models the API serves (November 2026). */
export const OPENAI_MODELS: Readonly<Record<string, OpenAIModel>> = {
  'gpt-6.2-astra': writesFromLow,
  'gpt-6.2-sol': writesFromLow,
  'gpt-6.1-sol': writesFromLow,
  'gpt-6.1-terra': writesFromNone,
  'gpt-6-astra': writesFromLow,
  'gpt-6-sol': writesFromNone,
  'gpt-6-luna': writesFromNone,
  'gpt-5.6-sol': writesFromNone,
  'gpt-5.6-terra': writesFromNone,
  'gpt-5.6-luna': writesFromNone,
  'gpt-5.5': unlessNone,
  'gpt-5.4': unlessNone,
  'gpt-5.4-mini': unlessNone,
  'gpt-5.4-nano': unlessNone,
  // The gpt-5 aliases: their dated snapshots shut down on 2026-12-11.
  'gpt-5': always(GPT_5_EFFORTS),
  'gpt-5-mini': always(GPT_5_EFFORTS),
  'gpt-5-nano': always(GPT_5_EFFORTS),
  o3: always(O_EFFORTS),
  'o4-mini': always(O_EFFORTS),
  'gpt-4.1': never,
  'gpt-4.1-mini': never,
  'gpt-4.1-nano': never,
  'gpt-4o': never,
  'gpt-4o-mini': never
}

/**
 * Served until their shutdown date (the deprecations page, and each model's `shutdown_date` in
 * GET /v1/models): gpt-5, gpt-5-mini, gpt-5-nano and o3 on 2026-12-11; gpt-4.1, gpt-4.1-mini, gpt-4o
 * and gpt-4o-mini on 2027-01-14. From that day a request is answered as for any model the key
 * cannot reach: 404 `model_not_found` (the page names no other error; Aider-AI/aider#2030 shows
 * the message).
 */
export const OPENAI_SHUTDOWNS: Readonly<Record<string, string>> = {
  'gpt-5': '2026-12-11',
  'gpt-5-mini': '2026-12-11',
  'gpt-5-nano': '2026-12-11',
  o3: '2026-12-11',
  'gpt-4.1': '2027-01-14',
  'gpt-4.1-mini': '2027-01-14',
  'gpt-4o': '2027-01-14',
  'gpt-4o-mini': '2027-01-14'
}

export interface Rejection {
  readonly status: number
  readonly type: string
  readonly param: string | null
  readonly code: string | null
  readonly message: string
}

const invalid = (
  message: string,
  param: string | null = null,
  code: string | null = null
): Rejection => ({ status: 400, type: 'invalid_request_error', param, code, message })

export type Endpoint = 'responses' | 'chat'

/** The first rule the request breaks; undefined if none. */
export function openaiRequestProblem(
  body: Json,
  endpoint: Endpoint,
  today: string
): Rejection | undefined {
  if (typeof body.model !== 'string')
    return endpoint === 'chat'
      ? invalid('you must provide a model parameter')
      : invalid("Missing required parameter: 'model'.", 'model', 'missing_required_parameter')
  if (body.stream === true) return invalid('provider stand-in: streaming is not supported')
  if (
    endpoint === 'responses' &&
    body.input === undefined &&
    body.previous_response_id === undefined
  )
    return invalid("Missing required parameter: 'input'.", 'input', 'missing_required_parameter')
  if (endpoint === 'chat') {
    if (!Array.isArray(body.messages))
      return invalid(
        "Missing required parameter: 'messages'.",
        'messages',
        'missing_required_parameter'
      )
    if (body.messages.length === 0)
      return invalid(
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        'messages',
        'empty_array'
      )
  }
  const shutdown = Object.hasOwn(OPENAI_SHUTDOWNS, body.model)
    ? OPENAI_SHUTDOWNS[body.model]
    : undefined
  const served =
    Object.hasOwn(OPENAI_MODELS, body.model) && (shutdown === undefined || today < shutdown)
      ? OPENAI_MODELS[body.model]
      : undefined
  if (served === undefined) {
    return {
      status: 404,
      type: 'invalid_request_error',
      param: null,
      code: 'model_not_found',
      message: `The model \`${body.model}\` does not exist or you do not have access to it.`
    }
  }
  const caching = promptCacheProblem(body, endpoint)
  if (caching) return caching
  const effort = record(body.reasoning)?.effort ?? body.reasoning_effort
  const reasoning = reasoningProblem(body, endpoint, served)
  if (reasoning) return reasoning
  const refusesSampling =
    served.reasoning === 'always' ||
    (served.reasoning === 'unless-effort-none' && effort !== 'none')
  for (const param of ['temperature', 'top_p']) {
    if (refusesSampling && body[param] !== undefined && body[param] !== null)
      return invalid(
        `Unsupported parameter: '${param}' is not supported with this model.`,
        param,
        'unsupported_parameter'
      )
  }
  return endpoint === 'responses' ? responsesFormatProblem(body) : chatFormatProblem(body)
}

/** `prompt_cache_key`, `prompt_cache_options` and each part's `prompt_cache_breakpoint`. */
function promptCacheProblem(body: Json, endpoint: Endpoint): Rejection | undefined {
  const key = body.prompt_cache_key
  if (key !== undefined && key !== null) {
    if (typeof key !== 'string')
      return invalid(
        `Invalid type for 'prompt_cache_key': expected a string, but got ${typeof key} instead.`,
        'prompt_cache_key',
        'invalid_type'
      )
    if (key.length > 64)
      return invalid(
        `Invalid 'prompt_cache_key': string too long. Expected a string with maximum length 64, but got a string with length ${key.length} instead.`,
        'prompt_cache_key',
        'string_above_max_length'
      )
  }
  const mode = record(body.prompt_cache_options)?.mode
  if (mode !== undefined && mode !== 'implicit' && mode !== 'explicit')
    return invalid(
      `Invalid value: ${JSON.stringify(mode).replaceAll('"', "'")}. Supported values are: 'implicit' and 'explicit'.`,
      'prompt_cache_options.mode',
      'invalid_value'
    )
  const items = endpoint === 'responses' ? list(body.input) : list(body.messages)
  for (const [i, item] of items.entries()) {
    for (const [j, part] of list(record(item)?.content).entries()) {
      const breakpoint = record(part)?.prompt_cache_breakpoint
      if (breakpoint === undefined || breakpoint === null) continue
      const param = `${endpoint === 'responses' ? 'input' : 'messages'}[${i}].content[${j}].prompt_cache_breakpoint.mode`
      if (record(breakpoint)?.mode !== 'explicit')
        return invalid(
          `Missing required parameter: '${param}'.`,
          param,
          'missing_required_parameter'
        )
    }
  }
  return undefined
}

/** `reasoning.effort` (Responses) or `reasoning_effort` (Chat), and `reasoning.summary`. */
function reasoningProblem(
  body: Json,
  endpoint: Endpoint,
  served: OpenAIModel
): Rejection | undefined {
  const param = endpoint === 'responses' ? 'reasoning.effort' : 'reasoning_effort'
  const effort = endpoint === 'responses' ? record(body.reasoning)?.effort : body.reasoning_effort
  if (effort !== undefined && effort !== null) {
    if (served.efforts.length === 0)
      return invalid(
        `Unsupported parameter: '${param}' is not supported with this model.`,
        param,
        'unsupported_parameter'
      )
    if (typeof effort !== 'string' || !served.efforts.includes(effort)) {
      const quoted = served.efforts.map(e => `'${e}'`)
      return invalid(
        `Unsupported value: '${param}' does not support ${JSON.stringify(effort).replaceAll('"', "'")} with this model. Supported values are: ${quoted.slice(0, -1).join(', ')}, and ${quoted.at(-1) ?? ''}.`,
        param,
        'unsupported_value'
      )
    }
  }
  const summary = record(body.reasoning)?.summary
  if (endpoint === 'responses' && summary !== undefined && summary !== null)
    return invalid(
      'Your organization must be verified to generate reasoning summaries. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization. If you just verified, it can take up to 15 minutes for access to propagate.',
      'reasoning.summary',
      'unsupported_value'
    )
  return undefined
}

function responsesFormatProblem(body: Json): Rejection | undefined {
  if (body.store === false) {
    const reference = list(body.input)
      .map(record)
      .find(item => item?.type === 'item_reference' || typeof item?.id === 'string')
    if (reference !== undefined)
      return invalid(
        `Item with id '${String(reference.id)}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
        'input'
      )
  }
  const format = record(record(body.text)?.format)
  if (format?.type !== 'json_schema') return undefined
  return jsonSchemaProblem('text.format', format)
}

function chatFormatProblem(body: Json): Rejection | undefined {
  const format = record(body.response_format)
  if (format?.type === 'json_object' && !/json/i.test(JSON.stringify(body.messages)))
    return invalid(
      "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
      'messages'
    )
  const spec = record(format?.json_schema)
  return format?.type === 'json_schema' && spec
    ? jsonSchemaProblem('response_format', spec)
    : undefined
}

const NAME = /^[a-zA-Z0-9_-]+$/

/** `name`, `schema` and, with `strict: true`, the strict-mode rules. */
export function jsonSchemaProblem(param: string, format: Json): Rejection | undefined {
  const nameParam =
    param === 'text.format' ? 'text.format.name' : 'response_format.json_schema.name'
  if (typeof format.name !== 'string' || format.name === '')
    return invalid(
      `Missing required parameter: '${nameParam}'.`,
      nameParam,
      'missing_required_parameter'
    )
  if (!NAME.test(format.name))
    return invalid(
      `Invalid '${nameParam}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      nameParam,
      'invalid_value'
    )
  if (format.name.length > 64)
    return invalid(
      `Invalid '${nameParam}': string too long. Expected a string with maximum length 64, but got a string with length ${format.name.length} instead.`,
      nameParam,
      'string_above_max_length'
    )
  if (!isRecord(format.schema))
    return invalid(`Missing required parameter: '${param}.schema'.`, `${param}.schema`)
  if (format.strict !== true) return undefined
  const problem = strictSchemaProblem(format.schema)
  return problem === undefined
    ? undefined
    : invalid(
        `Invalid schema for response_format '${format.name}': ${problem}`,
        param === 'text.format' ? 'text.format.schema' : 'response_format',
        'invalid_json_schema'
      )
}

const NOT_PERMITTED = [
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'patternProperties',
  'minLength',
  'maxLength',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'unevaluatedProperties'
]

/** Limits of one strict schema ("Supported schemas": objects have limitations). */
const MAX_PROPERTIES = 5000
const MAX_DEPTH = 10
const MAX_ENUM_VALUES = 1000
const MAX_CHARACTERS = 120_000
const LARGE_ENUM = 250
const LARGE_ENUM_CHARACTERS = 15_000

/** The first strict-mode rule the schema breaks, worded as the API words it. */
export function strictSchemaProblem(schema: Json): string | undefined {
  if (schema.type !== 'object') {
    const union = ['oneOf', 'anyOf', 'allOf', 'enum', 'not'].find(key => key in schema)
    return union
      ? `schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level. Found '${union}'.`
      : `schema must be a JSON Schema of 'type: "object"', got 'type: "${String(schema.type)}"'.`
  }
  let properties = 0
  let enumValues = 0
  let characters = 0
  // "property names, definition names and enum values" count towards the characters alike.
  for (const defs of ['$defs', 'definitions'])
    characters += Object.keys(record(schema[defs]) ?? {}).join('').length
  for (const { schema: node, path, depth } of nodes(schema)) {
    const where = `In context=(${path.map(part => `'${part}'`).join(', ')})`
    if (depth > MAX_DEPTH)
      return `${where}, the schema is nested ${depth} levels deep; at most ${MAX_DEPTH} are allowed.`
    const forbidden = present(node, NOT_PERMITTED)[0]
    if (forbidden) return `${where}, '${forbidden}' is not permitted.`
    const props = record(node.properties)
    if (node.type === 'object' || props !== undefined) {
      if (node.additionalProperties !== false)
        return `${where}, 'additionalProperties' is required to be supplied and to be false.`
      const required = Array.isArray(node.required) ? node.required : []
      const missing = Object.keys(props ?? {}).filter(key => !required.includes(key))
      if (missing.length > 0)
        return `${where}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing.join("', '")}'.`
      properties += Object.keys(props ?? {}).length
      characters += Object.keys(props ?? {}).join('').length
    }
    if (Array.isArray(node.enum)) {
      const types = Array.isArray(node.type) ? (node.type as string[]) : [node.type as string]
      const stray = list(node.enum).find(
        value => node.type !== undefined && !types.some(t => ofType(value, t))
      )
      if (stray !== undefined)
        return `${where}, enum value ${JSON.stringify(stray)} does not validate against ${JSON.stringify({ type: node.type })}.`
      enumValues += node.enum.length
      const text = node.enum.map(value => String(value)).join('').length
      characters += text
      if (node.enum.length > LARGE_ENUM && text > LARGE_ENUM_CHARACTERS)
        return `${where}, an enum with more than ${LARGE_ENUM} values may have at most ${LARGE_ENUM_CHARACTERS} characters in total, but has ${text}.`
    }
  }
  if (properties > MAX_PROPERTIES)
    return `Expected at most ${MAX_PROPERTIES} object properties in total within a single schema when using structured outputs, but received ${properties}.`
  if (enumValues > MAX_ENUM_VALUES)
    return `Expected at most ${MAX_ENUM_VALUES} enum values in total within a single schema when using structured outputs, but received ${enumValues}. Consider reducing the number of enums, or use 'strict: false' to opt out of structured outputs.`
  if (characters > MAX_CHARACTERS)
    return `Expected at most ${MAX_CHARACTERS} characters of property names, definition names and enum values in total within a single schema when using structured outputs, but received ${characters}.`
  return undefined
}
