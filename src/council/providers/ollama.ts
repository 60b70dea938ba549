import { isRecord } from '../../util/is-record.js'
import { ok } from '../../util/result.js'
import { bearer } from './common.js'
import type { ProviderModule } from './types.js'
import { REPAIR_ROOM_TOKENS, TOKENIZER_MARGIN } from './common.js'

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
  // Ollama's default window (4,096 tokens) silently cuts a longer prompt; size it to ours and
  // the answer's cap (the window a member declares bounds it: its server may hold no more).
  callSettings: (_model, { promptTokens, cap, window }) => {
    // Room for a repair too: it quotes part of the invalid answer after the same prompt.
    const tokens = promptTokens * TOKENIZER_MARGIN + REPAIR_ROOM_TOKENS + cap
    const needed = Math.ceil(tokens / 1024) * 1024
    const numCtx = window === undefined ? needed : Math.min(needed, window)
    return { providerOptions: { ollama: { options: { num_ctx: numCtx } } } }
  },
  // Its API reads neither the AI SDK's `max_output_tokens` nor a top-level `temperature`: the cap
  // is `options.num_predict` (without it the answer runs until the window is full) and the
  // temperature `options.temperature` (https://github.com/ollama/ollama/blob/main/docs/api.md,
  // "Generate a chat completion": `options` are the Modelfile parameters).
  answerOptions: (cap, temperature) => ({
    ollama: { options: { num_predict: cap, ...(temperature !== undefined && { temperature }) } }
  }),
  // Its default, 0.8 (docs/modelfile.md, `temperature`), makes repeat runs differ.
  temperature: () => 0,
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
  probe: { path: '/api/tags', headers: bearer, server: ollamaServer },
  // https://github.com/ollama/ollama/blob/main/docs/api.md#show-model-information: `model_info`
  // holds the model file's metadata, its window as `<general.architecture>.context_length`.
  windowReport: { path: '/api/show', body: model => ({ model }), read: contextLength }
}

/** The window in an `/api/show` answer's `model_info`, if it holds a plausible one. */
function contextLength(answer: unknown): number | undefined {
  const info = isRecord(answer) ? answer.model_info : undefined
  if (!isRecord(info)) return undefined
  const architecture = info['general.architecture']
  const window =
    typeof architecture === 'string' ? info[`${architecture}.context_length`] : undefined
  return typeof window === 'number' && Number.isSafeInteger(window) && window > 0
    ? window
    : undefined
}

/**
 * Ollama's address without the API's path: `OLLAMA_BASE_URL` was documented with `/v1` (the
 * OpenAI-compatible API), and people write `/api` too; both mean the same server.
 */
function ollamaServer(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/(v1|api)$/, '')
}
