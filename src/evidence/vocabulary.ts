/* eslint-disable @typescript-eslint/no-non-null-assertion -- typed-array reads stay within bounds by construction */
import { endianness } from 'node:os'

/**
 * The o200k_base vocabulary as `src/evidence/o200k_base.bin` holds it, ready to use as read:
 *
 * - uint32 LE: the number of tokens N; uint32 LE: the number of hash slots S (a power of two);
 * - N bytes: each token's length, in rank order; then the tokens' bytes, in rank order;
 * - zero padding to a multiple of 4; then S int32 LE: an open-addressing table of the tokens
 *   (FNV-1a of the bytes, linear probing), each slot `rank + 1`, or 0 when empty.
 *
 * The table is written by `scripts/write-vocabulary.ts`, so that no run spends time building it.
 */
export interface Vocabulary {
  /** Every token's bytes, in rank order. */
  readonly bytes: Uint8Array
  /** Where token `rank` starts in `bytes`; `start[N]` is the end. */
  readonly start: Uint32Array
  readonly slots: Int32Array
  readonly mask: number
}

/** FNV-1a over `data[from, to)`. */
export function hashBytes(data: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5
  for (let i = from; i < to; i++) h = Math.imul(h ^ data[i]!, 0x01000193)
  return h
}

export function readVocabulary(file: Buffer): Vocabulary {
  const count = file.readUInt32LE(0)
  const slotCount = file.readUInt32LE(4)
  const start = new Uint32Array(count + 1)
  for (let rank = 0; rank < count; rank++) start[rank + 1] = start[rank]! + file[8 + rank]!
  const bytes = file.subarray(8 + count, 8 + count + start[count]!)
  const slotsAt = align4(8 + count + start[count]!)
  const aligned = (file.byteOffset + slotsAt) % 4 === 0 && endianness() === 'LE'
  const slots = aligned
    ? new Int32Array(file.buffer, file.byteOffset + slotsAt, slotCount)
    : Int32Array.from({ length: slotCount }, (_, slot) => file.readInt32LE(slotsAt + slot * 4))
  return { bytes, start, slots, mask: slotCount - 1 }
}

export function align4(n: number): number {
  return (n + 3) & ~3
}
