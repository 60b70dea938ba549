import { countTokens as countO200k, decode, encode } from 'gpt-tokenizer/encoding/o200k_base'

/**
 * Text from a pull request may contain `<|endoftext|>` and the like. By default the tokenizer
 * throws on them; here they are ordinary text, counted (and sent) as the characters they are.
 */
const AS_TEXT = { disallowedSpecial: new Set<string>() }

/**
 * Tokens in `text` under o200k_base (GPT-4o, GPT-5 and o-series models). Other vendors'
 * tokenizers differ by some percent; the budget is an estimate of the prompt's size, not a bill.
 */
export function countTokens(text: string): number {
  return text === '' ? 0 : countO200k(text, AS_TEXT)
}

/**
 * The first `max` tokens of `text`. A cut through a multi-byte character decodes to U+FFFD, which
 * is dropped from the end.
 */
export function truncateToTokens(text: string, max: number): string {
  const tokens = encode(text, AS_TEXT)
  if (tokens.length <= max) return text
  return decode(tokens.slice(0, Math.max(0, max))).replace(/\uFFFD+$/, '')
}
