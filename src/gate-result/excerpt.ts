import { formatCount } from '../util/format-count.js'
import type { OutputExcerpt } from './types.js'

/** An excerpt as one text: head, a line saying how much was elided, tail. */
export function formatExcerpt(output: OutputExcerpt): string {
  if (output.elidedBytes === 0) return output.head + output.tail
  const head = output.head.endsWith('\n') ? output.head : `${output.head}\n`
  return `${head}… ${formatCount(output.elidedBytes)} bytes elided …\n${output.tail}`
}
