import type { GateResult } from '../gate-result/types.js'
import { formatCount } from '../util/format-count.js'

// Formatting lives with the result type, below the gates and their readers.
export { formatExcerpt } from '../gate-result/excerpt.js'

/** Bytes kept from the start of a gate's output. */
export const HEAD_BYTES = 2048
/** Bytes kept from the end of a gate's output: where test runners print their summary. */
export const TAIL_BYTES = 8192
/** Characters kept of a recorded `detail` or setup command: the action writes a sentence or two. */
const DETAIL_CHARS = 1000

/**
 * A result recorded by another job (src/gates/recorded.ts) within the limits a gate run here is
 * kept to: that job ran the pull request's code, so its record may hold anything. What is over is
 * cut, counted as elided, and said in the result's detail.
 */
export function withinGateLimits(result: GateResult): GateResult {
  const head = firstBytes(result.output.head, HEAD_BYTES)
  const tail = lastBytes(result.output.tail, TAIL_BYTES)
  const detail = result.detail === undefined ? undefined : withinChars(result.detail)
  const cut = bytes(result.output.head) - bytes(head) + bytes(result.output.tail) - bytes(tail)
  if (cut === 0 && detail === result.detail) return result
  const said =
    cut === 0
      ? []
      : [
          `the record held ${formatCount(cut)} bytes of output more than a gate keeps; they are left out`
        ]
  const elidedBytes = result.output.elidedBytes + cut
  return {
    ...result,
    output: {
      head,
      tail,
      elidedBytes,
      totalBytes: Math.max(result.output.totalBytes, bytes(head) + bytes(tail) + elidedBytes)
    },
    detail: [detail, ...said].filter(part => part !== undefined).join('; ')
  }
}

const bytes = (text: string): number => Buffer.byteLength(text)

/** At most `max` bytes of UTF-8 from the start, never half a character. */
function firstBytes(text: string, max: number): string {
  if (bytes(text) <= max) return text
  return Buffer.from(text)
    .subarray(0, max)
    .toString('utf8')
    .replace(/\uFFFD$/, '')
}

/** At most `max` bytes of UTF-8 from the end, never half a character. */
function lastBytes(text: string, max: number): string {
  if (bytes(text) <= max) return text
  const buffer = Buffer.from(text)
  return buffer
    .subarray(buffer.length - max)
    .toString('utf8')
    .replace(/^\uFFFD+/, '')
}

/** A line of words from a record (a detail, a setup command): at most 1,000 characters. */
export function withinChars(text: string): string {
  return text.length <= DETAIL_CHARS ? text : `${text.slice(0, DETAIL_CHARS)}…`
}
