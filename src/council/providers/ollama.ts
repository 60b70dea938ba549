import { ok } from '../../util/result.js'
import { bearer } from './common.js'
import type { ProviderModule } from './types.js'

/** Room left in Ollama's context window for the answer, beyond the prompt. */
const ANSWER_TOKENS = 8192
/** Our tokenizer is not the model's: the window gets a quarter more than we count. */
const TOKENIZER_MARGIN = 1.25

/**
 * A local or hosted Ollama, spoken to on its own API: the only one that can set the context
 * window. It runs the user's own models.
 */
export const ollama: ProviderModule = {
  variables: {
    key: 'OLLAMA_API_KEY',
    keyRequired: false,
    baseUrl: 'OLLAMA_BASE_URL',
    defaultBaseUrl: 'http://localhost:11434'
  },
  languageModel: (model, { baseURL, apiKey, fetch }) =>
    ok(async () =>
      (await import('ollama-ai-provider-v2')).createOllama({
        baseURL: `${ollamaServer(baseURL ?? '')}/api`,
        fetch,
        ...(apiKey !== undefined && { headers: { authorization: `Bearer ${apiKey}` } })
      })(model)
    ),
  // Ollama's default window (4,096 tokens) silently cuts a longer prompt; size it to ours.
  callSettings: (_model, { promptTokens }) => {
    const needed = promptTokens * TOKENIZER_MARGIN + ANSWER_TOKENS
    return {
      providerOptions: { ollama: { options: { num_ctx: Math.ceil(needed / 1024) * 1024 } } }
    }
  },
  reasoning: {
    // Ollama thinks or not (`think`); the SDK sends `think: false` unless told. A model that
    // cannot think answers 400 "… does not support thinking" (https://ollama.com/blog/thinking;
    // as met in Gitlawb/openclaude#1371).
    options: () => ({ ollama: { think: true } })
  },
  // Some builds put only the tokens their prompt cache did not hold in `prompt_eval_count`
  // (ollama/ollama#16428 restored the full count for llama-server builds), older ones leave it out
  // once all is cached (ollama/ollama#2068), and no answer says which build it came from: a short
  // count is no proof of a cut prompt. The window is sized to the prompt instead (`num_ctx`).
  countsWholePrompt: false,
  // https://github.com/ollama/ollama/blob/main/docs/api.md#list-local-models, on the server's
  // address without its API's path.
  probe: { path: '/api/tags', headers: bearer, server: ollamaServer }
}

/**
 * Ollama's address without the API's path: `OLLAMA_BASE_URL` was documented with `/v1` (the
 * OpenAI-compatible API), and people write `/api` too; both mean the same server.
 */
function ollamaServer(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/(v1|api)$/, '')
}
