import { record, type Json } from './schema.js'

/**
 * Ollama's chat APIs (native `/api/chat`, OpenAI-compatible `/v1/chat/completions`), as the real
 * server behaves for what we send, each rule with its source.
 *
 * Sources:
 * - The context window: https://docs.ollama.com/context-length and the FAQ ("By default, Ollama
 *   uses a context window size of 4096 tokens"; set `num_ctx` in the request's `options`).
 *   From v0.15.5 the default is sized by VRAM, 4096 below 24 GiB: what a CI runner has.
 * - A longer prompt is cut, silently: the server logs `truncating input prompt` and answers 200
 *   (server/prompt.go, llm/server.go; ollama/ollama#9452, #10368, #3839).
 * - The OpenAI-compatible endpoint cannot set the context size ("The OpenAI API does not have a
 *   way of setting the context size for a model", docs/api/openai-compatibility): its request
 *   has no `options`, so `options.num_ctx` there is ignored.
 * - Errors: https://docs.ollama.com/api/errors; a model not pulled is 404
 *   `{"error":"model \"x\" not found, try pulling it first"}` (server/routes.go); on /v1 the same
 *   message in OpenAI's shape with type `not_found_error` (middleware/openai.go).
 * - Thinking: `think` (https://ollama.com/blog/thinking); a truthy `think` for a model that cannot
 *   think is 400 `{"error":"\"llama3.1:8b\" does not support thinking"}` (the chat handler's
 *   capability check, as met in Gitlawb/openclaude#1371 and CherryHQ/cherry-studio#18744);
 *   `think: false` is taken by every model.
 */

/** The context window when the request sets none. */
export const DEFAULT_NUM_CTX = 4096

/** Models the stand-in has "pulled". */
export const OLLAMA_MODELS: readonly string[] = ['llama3.1:8b', 'qwen3:8b', 'gpt-oss:20b']

/** The pulled models that can think. */
export const OLLAMA_THINKING: readonly string[] = ['qwen3:8b', 'gpt-oss:20b']

export function cannotThink(model: string): string {
  return `"${model}" does not support thinking`
}

export function notPulled(model: string): string {
  return `model "${model}" not found, try pulling it first`
}

/** The context window a request gets: `options.num_ctx` on the native API only. */
export function contextWindow(body: Json, native: boolean): number {
  const asked = native ? record(body.options)?.num_ctx : undefined
  return typeof asked === 'number' && asked > 0 ? asked : DEFAULT_NUM_CTX
}

/**
 * What the model sees of a prompt longer than its window: the start and the end, the middle
 * dropped, with no error (the server only logs it).
 */
export function truncate(
  text: string,
  tokens: number,
  window: number
): { text: string; tokens: number } {
  if (tokens <= window) return { text, tokens }
  const keep = Math.floor((text.length * window) / tokens / 2)
  return { text: `${text.slice(0, keep)}${text.slice(text.length - keep)}`, tokens: window }
}
