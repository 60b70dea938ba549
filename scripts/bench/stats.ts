/** Small numeric and text helpers for the benchmark's figures and tables. */

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  if (sorted.length === 0) return NaN
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? NaN)
    : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2
}

export async function repeat<T>(times: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = []
  // One at a time: runs in parallel would share the two cores and time each other.
  for (let i = 0; i < times; i++) results.push(await work(i))
  return results
}

export const ms = (value: number): string => `${Math.round(value).toLocaleString('en-US')} ms`
export const mib = (kib: number): string => `${(kib / 1024).toFixed(0)} MiB`
export const count = (value: number): string => Math.round(value).toLocaleString('en-US')

/** Width in terminal columns, near enough: one per code point (the tables hold ✓, ✗, ×, −). */
const width = (text: string): number => Array.from(text).length

/** A plain-text table: the first row is the header, columns padded to their widest cell. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = []
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, width(cell))
    })
  const line = (row: readonly string[]): string =>
    row
      .map((cell, i) => cell + ' '.repeat(Math.max(0, (widths[i] ?? 0) - width(cell))))
      .join('  ')
      .trimEnd()
  const [head, ...body] = rows
  if (head === undefined) return ''
  const rule = widths.map(w => '-'.repeat(w)).join('  ')
  return [line(head), rule, ...body.map(line)].join('\n')
}
