/** A plain object (not an array, not null): what parsed JSON and YAML mappings are. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
