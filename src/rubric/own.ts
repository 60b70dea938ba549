/**
 * A record's own entry for `key`. Rubric keys come from user text, and `obj[key]` would also
 * find `__proto__`, `constructor` and the like on Object.prototype.
 */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined
}
