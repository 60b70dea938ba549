import { createHash } from 'node:crypto'

/** First 12 hex digits of the sha256 of the rubric's bytes: `sha256sum rubric.md | cut -c1-12`. */
export function rubricHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 12)
}
