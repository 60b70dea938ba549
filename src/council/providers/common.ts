/** What more than one provider's module uses. */

/**
 * The most a judge's answer may take, in tokens. An answer is a few thousand; Anthropic refuses a
 * `max_tokens` above the model's limit, which for a model the SDK does not know it guesses.
 */
export const ANSWER_MAX_TOKENS = 32_000

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
