import { anthropicSchemaProblem, cacheBreakpoints } from './anthropic.js'
import { jsonSchemaProblem as geminiSchemaProblem } from './google.js'
import { strictSchemaProblem } from './openai.js'
import { isRecord, record, type Json } from './schema.js'

/**
 * OpenRouter's Chat Completions, as the real router behaves for what we send, each rule with its
 * source. Errors are `{"error":{"code","message","metadata"}}` with the HTTP status = `code`.
 *
 * Sources:
 * - Structured outputs: https://openrouter.ai/docs/features/structured-outputs ("set
 *   `require_parameters: true` in your provider preferences" so that only providers that enforce
 *   the schema are used).
 * - Provider routing: https://openrouter.ai/docs/features/provider-routing (`require_parameters`,
 *   default false: any provider of the model may serve the request, whether it supports every
 *   parameter or not).
 * - Errors: https://openrouter.ai/docs/api-reference/errors ("Provider returned error" with the
 *   upstream body in `metadata.raw`).
 * - Provider routing's `only` (provider slugs to allow, e.g. `anthropic`): the same page. With
 *   Claude, `require_parameters` alone still reached a provider that answered in free-form JSON
 *   (a third-party report); the stand-in serves such a request schema-blind, the worst it may get.
 * - Prompt caching: https://openrouter.ai/docs/features/prompt-caching (Claude at the parts'
 *   `cache_control` breakpoints, the others automatic; `prompt_tokens_details.cache_write_tokens`).
 * - What happens without it: openstory-so/openstory#1410 (an Anthropic schema 400 made the router
 *   fall back to a provider that ignored the schema; the answer came back as fenced prose),
 *   prism-php/prism#1019.
 * - Usage: https://openrouter.ai/docs/use-cases/usage-accounting (`cost`,
 *   `prompt_tokens_details.cached_tokens`, always included).
 * - Reasoning: `reasoning: { effort }`, turned into each vendor's setting
 *   (https://openrouter.ai/docs/guides/best-practices/reasoning-tokens). With
 *   `require_parameters`, a model none of whose endpoints takes a parameter of the request has no
 *   route: 404 "No endpoints found that can handle the requested parameters." (as met in
 *   block/buzz#3018 for `reasoning`, openstory-so/openstory#1317).
 */

/** Models the stand-in routes (vendor/model, OpenRouter's dotted versions). */
export const OPENROUTER_MODELS: readonly string[] = [
  'openai/gpt-5.4-mini',
  'openai/gpt-5-mini',
  'anthropic/claude-sonnet-4.6',
  'anthropic/claude-sonnet-4.5',
  'anthropic/claude-haiku-4.5',
  'google/gemini-3.5-flash',
  'google/gemini-3.1-flash-lite',
  'meta-llama/llama-4-maverick'
]

/** Models whose endpoints do not take `reasoning`. */
export const OPENROUTER_NOT_REASONING: readonly string[] = ['meta-llama/llama-4-maverick']

/**
 * Routed until the vendor retires them (the vendors' deprecation pages: Anthropic's Sonnet 4.5 on
 * 2026-11-30, OpenAI's gpt-5-mini on 2026-12-11). OpenRouter's documents name no error of their
 * own for a retired model; the stand-in answers as for an id the router does not list (the errors
 * page's 400).
 */
export const OPENROUTER_RETIRING: Readonly<Record<string, string>> = {
  'openai/gpt-5-mini': '2026-12-11',
  'anthropic/claude-sonnet-4.5': '2026-11-30'
}

export interface Rejection {
  readonly status: number
  readonly body: unknown
}

/** How the router will serve the request: upstream rules applied, or a schema-blind fallback. */
export type Routing = { readonly kind: 'enforced' } | { readonly kind: 'schema ignored' }

const UPSTREAM: Readonly<Record<string, string>> = {
  anthropic: 'Anthropic',
  openai: 'OpenAI',
  google: 'Google AI Studio'
}

export function openrouterRequest(body: Json, today: string): Rejection | Routing {
  const retires =
    typeof body.model === 'string' && Object.hasOwn(OPENROUTER_RETIRING, body.model)
      ? OPENROUTER_RETIRING[body.model]
      : undefined
  if (
    typeof body.model !== 'string' ||
    !OPENROUTER_MODELS.includes(body.model) ||
    (retires !== undefined && today >= retires)
  )
    return {
      status: 400,
      body: { error: { code: 400, message: `${String(body.model)} is not a valid model ID` } }
    }
  const required = record(body.provider)?.require_parameters === true
  if (required && body.reasoning !== undefined && OPENROUTER_NOT_REASONING.includes(body.model))
    return {
      status: 404,
      body: {
        error: {
          message: 'No endpoints found that can handle the requested parameters.',
          code: 404
        }
      }
    }
  // Claude's `cache_control` parts go on to Anthropic, which refuses more than four; OpenRouter
  // passes its error on as any upstream error.
  const breakpoints = cacheBreakpoints(body)
  if (body.model.startsWith('anthropic/') && breakpoints > 4)
    return upstreamError('anthropic', {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: `A maximum of 4 blocks with cache_control may be provided. Found ${String(breakpoints)}.`
      }
    })
  const format = record(body.response_format)
  const schema = record(format?.json_schema)?.schema
  if (format?.type !== 'json_schema' || !isRecord(schema)) return { kind: 'enforced' }
  // Without require_parameters the router may pick a provider that ignores response_format.
  if (!required) return { kind: 'schema ignored' }
  const vendor = body.model.slice(0, body.model.indexOf('/'))
  // Claude: a provider that takes response_format has answered in free-form JSON even so; only
  // Anthropic's own API is sure to enforce it.
  const only = record(body.provider)?.only
  if (vendor === 'anthropic' && !(Array.isArray(only) && only.every(slug => slug === 'anthropic')))
    return { kind: 'schema ignored' }

  const upstream = upstreamProblem(vendor, schema)
  return upstream === undefined ? { kind: 'enforced' } : upstreamError(vendor, upstream)
}

/** The vendor's 400 as OpenRouter passes it on: "Provider returned error", its body in `raw`. */
function upstreamError(vendor: string, upstream: unknown): Rejection {
  return {
    status: 400,
    body: {
      error: {
        message: 'Provider returned error',
        code: 400,
        metadata: { raw: JSON.stringify(upstream), provider_name: UPSTREAM[vendor] ?? vendor }
      },
      user_id: 'org_standin'
    }
  }
}

/** The upstream provider's own rejection body, if its rules refuse the schema. */
function upstreamProblem(vendor: string, schema: Json): unknown {
  switch (vendor) {
    case 'anthropic': {
      const problem = anthropicSchemaProblem(schema)
      return problem
        ? {
            type: 'error',
            error: {
              type: 'invalid_request_error',
              message: problem.counted
                ? problem.message
                : `output_config.format.schema${problem.at ?? ''}: ${problem.message}`
            }
          }
        : undefined
    }
    case 'openai': {
      const problem = strictSchemaProblem(schema)
      return problem
        ? {
            error: {
              message: `Invalid schema for response_format 'response': ${problem}`,
              type: 'invalid_request_error',
              param: 'response_format',
              code: 'invalid_json_schema'
            }
          }
        : undefined
    }
    case 'google': {
      const problem = geminiSchemaProblem(schema)
      return problem
        ? { error: { code: 400, message: problem.message, status: problem.code } }
        : undefined
    }
    default:
      return undefined
  }
}
