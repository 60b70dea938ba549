import type { ProviderOptions } from '@ai-sdk/provider-utils'
import type { ModelId, Provider } from '../rubric/model-id.js'
import type { ReasoningEffort } from '../rubric/types.js'

/**
 * The effort a member reasons at when neither it nor the rubric's `council.reasoning` names one
 * (docs/council.md). A judge weighs every criterion against a diff: some thought before the answer
 * pays, and `medium` is the level each hosted provider describes as the balance of quality and cost.
 * Left to the APIs, OpenAI's gpt-5.4 family does not reason at all (its effort defaults to `none`),
 * Claude does not think unless asked, and each Gemini model thinks at a level of its own (`high`
 * for the first Gemini 3 models): three judges of one council reasoning at three different depths. Ollama and other OpenAI-compatible servers run the user's
 * own models, which may not reason at all: they are sent nothing unless the rubric asks.
 */
export const DEFAULT_REASONING: Readonly<Record<Provider, ReasoningEffort | undefined>> = {
  openai: 'medium',
  anthropic: 'medium',
  google: 'medium',
  openrouter: 'medium',
  ollama: undefined,
  'openai-compatible': undefined
}

/**
 * Claude's thinking budget per level, for the models that take a budget rather than an effort
 * (before 4.6). The API wants at least 1,024 and less than `max_tokens`; the AI SDK adds the budget
 * to `max_tokens`, so the answer keeps all of its room.
 * https://platform.claude.com/docs/en/build-with-claude/extended-thinking
 */
export const ANTHROPIC_THINKING_BUDGET: Readonly<Record<ReasoningEffort, number>> = {
  low: 2048,
  medium: 8192,
  high: 16_384
}

/** Gemini 2.5's thinking budget per level (2.5 Pro takes 128–32,768 tokens; it cannot be off). */
export const GEMINI_THINKING_BUDGET: Readonly<Record<ReasoningEffort, number>> = {
  low: 2048,
  medium: 8192,
  high: 24_576
}

/**
 * What a member's requests carry for its reasoning effort, in the AI SDK's provider options, as
 * each API takes it; empty when the member is sent none (a model that does not reason, or a
 * provider whose default is the model's own). `effort` is what the rubric names, else
 * `DEFAULT_REASONING`.
 */
export function reasoningOptions(id: ModelId, named: ReasoningEffort | undefined): ProviderOptions {
  const effort = named ?? DEFAULT_REASONING[id.provider]
  if (effort === undefined) return {}
  switch (id.provider) {
    case 'openai':
      // Responses `reasoning.effort`, only for models that reason: gpt-4.1 answers 400
      // "Unsupported parameter: 'reasoning.effort' is not supported with this model."
      // (https://developers.openai.com/api/docs/guides/reasoning). The SDK would add
      // `reasoning.summary`, which an organization that is not verified is refused
      // (https://help.openai.com/en/articles/10910291-api-organization-verification); nobody
      // reads it here, so none is asked for.
      return openaiReasons(id.model)
        ? { openai: { reasoningEffort: effort, reasoningSummary: null } }
        : {}
    case 'anthropic':
      // Claude 4.6 and later think adaptively at an `output_config.effort`; budgets are refused
      // from 4.7 on ("thinking.type.enabled is not supported for this model"). Earlier models
      // take only a budget, and refuse adaptive thinking and the effort parameter.
      // https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking,
      // https://platform.claude.com/docs/en/build-with-claude/effort
      return claudeThinksAdaptively(id.model)
        ? { anthropic: { thinking: { type: 'adaptive' }, effort } }
        : {
            anthropic: {
              thinking: { type: 'enabled', budgetTokens: ANTHROPIC_THINKING_BUDGET[effort] }
            }
          }
    case 'google':
      // Gemini 3 and later take `thinkingConfig.thinkingLevel`; 2.5 refuses it ("Thinking level
      // is not supported for this model.") and takes `thinkingBudget` instead.
      // https://ai.google.dev/gemini-api/docs/thinking
      return {
        google: {
          thinkingConfig: geminiTakesLevels(id.model)
            ? { thinkingLevel: effort }
            : { thinkingBudget: GEMINI_THINKING_BUDGET[effort] }
        }
      }
    case 'openrouter':
      // OpenRouter's own `reasoning.effort`, which it turns into each vendor's setting
      // (https://openrouter.ai/docs/guides/best-practices/reasoning-tokens). With
      // `require_parameters` a model that does not reason has no endpoint for it (404 "No
      // endpoints found that can handle the requested parameters.", as met in block/buzz#3018):
      // the default goes only to the vendors' reasoning models; an effort the rubric names is
      // sent as it is.
      return named !== undefined || openrouterReasons(id.model)
        ? { openrouter: { reasoning: { effort } } }
        : {}
    case 'ollama':
      // Ollama thinks or not (`think`); the SDK sends `think: false` unless told. A model that
      // cannot think answers 400 "… does not support thinking" (https://ollama.com/blog/thinking;
      // as met in Gitlawb/openclaude#1371).
      return { ollama: { think: true } }
    case 'openai-compatible':
      // Chat Completions' `reasoning_effort`, which vLLM and LiteLLM pass on.
      return { openaiCompatible: { reasoningEffort: effort } }
  }
}

/**
 * OpenAI's reasoning models as the AI SDK tells them (o-series, gpt-5 and later but the `-chat`
 * variants): it drops `reasoningEffort` for any other model, with a warning.
 */
function openaiReasons(model: string): boolean {
  if (/^o\d+(?:-|$)/.test(model)) return true
  const gpt = /^gpt-(\d+)(?:\.\d+)?(?:-(.+))?$/.exec(model)
  return gpt !== null && Number(gpt[1]) >= 5 && !(gpt[2] ?? '').startsWith('chat')
}

/**
 * Whether a Claude model thinks adaptively (4.6 and later); `claude-sonnet-4-5-20250929` does not.
 * A name of another shape is taken for a newer model: those are the ones this version does not know.
 */
export function claudeThinksAdaptively(model: string): boolean {
  const name = model.slice(model.lastIndexOf('/') + 1)
  if (/^claude-\d/.test(name)) return false // claude-3-7-sonnet and older
  const version = /^claude-[a-z]+-(\d+)(?:[-.](\d{1,2}))?(?:-\d{8})?$/.exec(name)
  if (version === null) return true
  const major = Number(version[1])
  return major > 4 || (major === 4 && Number(version[2] ?? 0) >= 6)
}

/** Gemini 3 and later: `gemini-3.5-flash`, `gemini-3-flash-preview`; not `gemini-2.5-pro`. */
function geminiTakesLevels(model: string): boolean {
  const version = /^gemini-(\d+)/.exec(model)
  return version === null || Number(version[1]) >= 3
}

/** The vendors' reasoning models as OpenRouter names them (`openai/gpt-5.4-mini`, …). */
function openrouterReasons(model: string): boolean {
  const slash = model.indexOf('/')
  const vendor = model.slice(0, slash)
  const name = model.slice(slash + 1)
  switch (vendor) {
    case 'openai':
      return openaiReasons(name)
    case 'anthropic':
      // From Claude 3.7 on (OpenRouter gives the models before 4.6 a budget itself).
      return name.startsWith('claude-') && !/^claude-(?:[12][.-]|3-|3\.[0-6]-)/.test(name)
    case 'google':
      return /^gemini-(?:[3-9]|\d{2})/.test(name) || name.startsWith('gemini-2.5')
    default:
      return false
  }
}
