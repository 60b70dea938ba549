/**
 * Runs `work` over `items`, at most `width` at a time, each worker taking the next item when it
 * is free; the results keep the items' order. The one bounded pool of the code base: judges,
 * gates and git reads all go through it.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  width: number,
  work: (item: T, index: number) => Promise<R>
): Promise<R[]> {
  const results: R[] = []
  const queue = items.entries()
  const worker = async (): Promise<void> => {
    for (const [index, item] of queue) results[index] = await work(item, index)
  }
  const workers = Math.max(1, Math.min(Math.floor(width), items.length))
  await Promise.all(Array.from({ length: workers }, worker))
  return results
}
