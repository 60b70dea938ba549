/** What more than one provider's module uses. */

/**
 * Our tokenizer is not a self-hosted model's: a window is taken as a quarter smaller than we count
 * (llama.cpp's and Ollama's tokenizers count up to that much more than ours).
 */
export const TOKENIZER_MARGIN = 1.25

/**
 * What a repair request may add to the first (call.ts): at most 2,000 characters of the invalid
 * answer and 1,000 of its problems, with the request's own words; in tokens, by the least
 * characters per token a tokenizer gives text (2.5), rounded up. A window sized to the first
 * request keeps this room, so a repair fits where the first request did.
 */
export const REPAIR_ROOM_TOKENS = 1500

/** The key as `Authorization: Bearer`, as OpenAI's API and those shaped like it take it. */
export function bearer(key: string | undefined): Record<string, string> {
  return key === undefined ? {} : { authorization: `Bearer ${key}` }
}

/** An error response's body as JSON; undefined when there is none or it is not JSON. */
export function jsonBody(body: string | undefined): unknown {
  if (!body) return undefined
  try {
    return JSON.parse(body) as unknown
  } catch {
    return undefined
  }
}
