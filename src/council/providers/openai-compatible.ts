import { bearer } from './common.js'
import { chatCompletionsCacheWrites, chatCompletionsModel } from './chat-completions.js'
import type { ProviderModule } from './types.js'

const BASE_URL = 'OPENAI_COMPATIBLE_BASE_URL'

/**
 * Any endpoint that speaks OpenAI's Chat Completions with structured outputs (Azure AI Foundry,
 * vLLM, LiteLLM), at the address the user gives. It runs the user's own models.
 */
export const openaiCompatible: ProviderModule = {
  variables: { key: 'OPENAI_COMPATIBLE_API_KEY', keyRequired: false, baseUrl: BASE_URL },
  languageModel: (model, connection) =>
    chatCompletionsModel('openai-compatible', model, connection, BASE_URL),
  callSettings: () => ({}),
  // The servers' defaults differ (llama.cpp's 0.8; vLLM's the model's generation config), and
  // make repeat runs differ.
  temperature: () => 0,
  reasoning: {
    // Chat Completions' `reasoning_effort`, which vLLM and LiteLLM pass on.
    options: (_model, effort) => ({ openaiCompatible: { reasoningEffort: effort } })
  },
  countsWholePrompt: true,
  cacheWrites: chatCompletionsCacheWrites,
  // The OpenAI-compatible servers (vLLM, LiteLLM) list their models as OpenAI does.
  probe: { path: '/models', headers: bearer }
}
