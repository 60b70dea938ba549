// The o200k_base vocabulary in the form src/evidence/vocabulary.ts reads. The source is OpenAI's
// published `o200k_base.tiktoken` (one `base64 rank` pair per line), as shipped in the
// gpt-tokenizer package.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { writeVocabulary } from '../src/evidence/vocabulary.js'

export const VOCABULARY_PATH = 'src/evidence/o200k_base.bin'

export function tiktokenSource(): string {
  const require = createRequire(import.meta.url)
  return readFileSync(require.resolve('gpt-tokenizer/data/o200k_base.tiktoken'), 'utf8')
}

export function compactVocabulary(tiktoken: string): Uint8Array {
  const tokens: Buffer[] = []
  for (const line of tiktoken.split('\n')) {
    if (line === '') continue
    const [base64, rank] = line.split(' ')
    if (base64 === undefined || Number(rank) !== tokens.length) {
      throw new Error(`o200k_base.tiktoken: expected rank ${tokens.length}, read "${line}"`)
    }
    const bytes = Buffer.from(base64, 'base64')
    if (bytes.length === 0 || bytes.length > 255) {
      throw new Error(`o200k_base.tiktoken: token ${rank} is ${bytes.length} bytes long`)
    }
    tokens.push(bytes)
  }
  return writeVocabulary(tokens)
}
