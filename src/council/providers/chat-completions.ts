import type { LanguageModelUsage } from 'ai'
import { failed, ok, type Result } from '../../util/result.js'
import type { Connection, ModelLoader } from './types.js'

/**
 * A model on an endpoint that speaks OpenAI's Chat Completions with structured outputs
 * (OpenRouter, vLLM, LiteLLM), which has no address of its own: `baseUrlVariable` names where the
 * user gives it.
 */
export function chatCompletionsModel(
  name: string,
  model: string,
  connection: Connection,
  baseUrlVariable: string
): Result<ModelLoader> {
  const { baseURL, apiKey, fetch } = connection
  if (baseURL === undefined) return failed(`${baseUrlVariable} is not set (the endpoint to call)`)
  return ok(async () => {
    const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible')
    const provider = createOpenAICompatible({
      name,
      baseURL,
      fetch,
      ...(apiKey !== undefined && { apiKey }),
      supportsStructuredOutputs: true
    })
    return provider(model)
  })
}

/**
 * Tokens the endpoint says it wrote to a cache (`prompt_tokens_details.cache_write_tokens`, as
 * OpenRouter reports them: https://openrouter.ai/docs/use-cases/usage-accounting), which the AI
 * SDK's OpenAI-compatible provider does not read.
 */
export function chatCompletionsCacheWrites(raw: LanguageModelUsage['raw']): number {
  const details: unknown = raw?.prompt_tokens_details
  const written =
    typeof details === 'object' && details !== null && 'cache_write_tokens' in details
      ? details.cache_write_tokens
      : undefined
  return typeof written === 'number' ? written : 0
}
