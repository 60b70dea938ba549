import { isRecord, nodes, record, type Json } from './schema.js'

/**
 * The Gemini API's `generateContent` request rules that a client can break, as the real service
 * enforces them, each with its source. A broken rule is answered as the API answers it:
 * `{"error":{"code","message","status"}}` with the same HTTP status.
 *
 * Sources:
 * - Structured output, `responseJsonSchema` (a JSON Schema subset) and the older `responseSchema`
 *   (an OpenAPI subset: no type arrays, no additionalProperties, string enums only):
 *   https://ai.google.dev/gemini-api/docs/structured-output
 * - Models and shutdowns: https://ai.google.dev/gemini-api/docs/models,
 *   https://ai.google.dev/gemini-api/docs/deprecations
 * - Messages as others met them: simonw/llm-gemini#49 (a type array in responseSchema),
 *   QuantumNous/new-api#1037 and zed-industries/zed#44875 (unknown names in responseSchema),
 *   BrokkAi/bifrost#25 (a non-string enum), vercel/ai#21192 and googleapis/python-genai#2170 (the
 *   bare "invalid argument" for a schema it cannot compile), vercel/ai#20757 (`const` refused in
 *   responseJsonSchema), google/adk-docs#1840 (a retired model).
 * - Thinking: https://ai.google.dev/gemini-api/docs/thinking (`thinkingConfig.thinkingLevel` for
 *   Gemini 3 and later, each model its own levels; `thinkingBudget` for 2.5). The messages as met
 *   in microsoft/vscode#334581 and RooCodeInc/Roo-Code#10700 (a level sent to 2.5) and
 *   vellum-ai/vellum-assistant#32687 (a level the model does not take).
 */

/** Models the API serves (November 2026). */
export const GOOGLE_MODELS: readonly string[] = [
  'gemini-3.5-flash',
  'gemini-3.5-flash-lite',
  'gemini-3.1-flash-lite',
  'gemini-3-flash-preview',
  'gemini-3.1-pro-preview',
  'gemini-2.5-pro'
]

/** The `thinkingLevel` values each model takes; none: the model takes a budget only. */
export const GOOGLE_THINKING_LEVELS: Readonly<Record<string, readonly string[]>> = {
  'gemini-3.5-flash': ['minimal', 'low', 'medium', 'high'],
  'gemini-3.5-flash-lite': ['minimal', 'low', 'medium', 'high'],
  'gemini-3.1-flash-lite': ['minimal', 'low', 'medium', 'high'],
  'gemini-3-flash-preview': ['minimal', 'low', 'medium', 'high'],
  'gemini-3.1-pro-preview': ['low', 'medium', 'high'],
  'gemini-2.5-pro': []
}

/** Shut down: the API answers 404 "… is no longer available". */
export const GOOGLE_RETIRED: readonly string[] = [
  'gemini-2.5-flash',
  'gemini-2.5-flash-lite',
  'gemini-2.0-flash',
  'gemini-2.0-flash-lite',
  'gemini-1.5-flash',
  'gemini-1.5-pro'
]

export interface Rejection {
  readonly status: number
  readonly code: string
  readonly message: string
}

const invalid = (message: string): Rejection => ({
  status: 400,
  code: 'INVALID_ARGUMENT',
  message
})

/** What the API answers when it cannot compile a schema: no field named. */
const BARE = 'Request contains an invalid argument.'

/** The first rule the request breaks; undefined if none. */
export function googleRequestProblem(model: string, body: Json): Rejection | undefined {
  if (!Array.isArray(body.contents) || body.contents.length === 0)
    return invalid('* GenerateContentRequest.contents: contents is not specified\n')
  if (GOOGLE_RETIRED.includes(model))
    return {
      status: 404,
      code: 'NOT_FOUND',
      message: `This model models/${model} is no longer available. Please update your code to use a newer model for the latest features and improvements.`
    }
  if (!GOOGLE_MODELS.includes(model))
    return {
      status: 404,
      code: 'NOT_FOUND',
      message: `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`
    }
  const config = record(body.generationConfig)
  const level = record(config?.thinkingConfig)?.thinkingLevel
  if (level !== undefined) {
    const levels = GOOGLE_THINKING_LEVELS[model] ?? []
    if (levels.length === 0) return invalid('Thinking level is not supported for this model.')
    if (typeof level !== 'string' || !levels.includes(level.toLowerCase()))
      return invalid(
        `Thinking level ${JSON.stringify(level).replaceAll('"', '').toUpperCase()} is not supported for this model.`
      )
  }
  const jsonSchema = config?.responseJsonSchema
  const openApiSchema = config?.responseSchema
  if (jsonSchema !== undefined && openApiSchema !== undefined)
    return invalid(
      'response_schema and response_json_schema cannot both be set; use response_json_schema.'
    )
  if (
    (jsonSchema !== undefined || openApiSchema !== undefined) &&
    config?.responseMimeType !== 'application/json'
  )
    return invalid('A response schema needs response_mime_type "application/json"; it is not set.')
  if (jsonSchema !== undefined) return jsonSchemaProblem(jsonSchema)
  if (openApiSchema !== undefined) return openApiSchemaProblem(openApiSchema)
  return undefined
}

/** `responseJsonSchema`: type arrays, anyOf, $ref and additionalProperties are fine here. */
export function jsonSchemaProblem(schema: unknown): Rejection | undefined {
  for (const { schema: node } of nodes(schema)) {
    if ('const' in node) return invalid(BARE)
    if (Array.isArray(node.enum) && node.enum.length === 0) return invalid(BARE)
  }
  return undefined
}

const OPENAPI_FIELDS = [
  'type',
  'format',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'propertyOrdering',
  'items',
  'anyOf',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'default'
]

/** `responseSchema`, the OpenAPI subset: unknown names, type arrays, non-string enums refused. */
export function openApiSchemaProblem(schema: unknown): Rejection | undefined {
  for (const { schema: node, path } of nodes(schema)) {
    const at = `generation_config.response_schema${path.map(p => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`)).join('')}`
    const unknown = Object.keys(node).find(key => !OPENAPI_FIELDS.includes(key))
    if (unknown !== undefined)
      return invalid(
        `Invalid JSON payload received. Unknown name "${unknown}" at '${at}': Cannot find field.`
      )
    if (Array.isArray(node.type))
      return invalid(
        `Invalid value at '${at}.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), ${JSON.stringify(node.type)}`
      )
    if (Array.isArray(node.enum)) {
      const index = node.enum.findIndex(value => typeof value !== 'string')
      if (index >= 0)
        return invalid(
          `Invalid value at '${at}.enum[${index}]' (TYPE_STRING), ${JSON.stringify(node.enum[index])}`
        )
      if (node.enum.length === 0) return invalid(BARE)
    }
    if (isRecord(node) && node.type === undefined && node.anyOf === undefined && path.length > 0)
      return invalid(`${at.replace('generation_config.', '')}.type: must be specified`)
  }
  return undefined
}
