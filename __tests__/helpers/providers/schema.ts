/** Walking a JSON Schema, for the providers' structured-output rules. */

export type Json = Readonly<Record<string, unknown>>

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function record(value: unknown): Json | undefined {
  return isRecord(value) ? value : undefined
}

/** A subschema and where it sits: the keys from the root, as OpenAI's `context=(…)` names them. */
export interface Node {
  readonly schema: Json
  readonly path: readonly string[]
  /** Objects and arrays above it, the root included: OpenAI's nesting depth. */
  readonly depth: number
}

/** Every subschema, root first: properties, items, unions, definitions. */
export function* nodes(schema: unknown, path: readonly string[] = [], depth = 1): Generator<Node> {
  if (!isRecord(schema)) return
  yield { schema, path, depth }
  const deeper = schema.type === 'object' || schema.type === 'array' ? depth + 1 : depth
  for (const [key, child] of Object.entries(record(schema.properties) ?? {}))
    yield* nodes(child, [...path, 'properties', key], deeper)
  for (const defs of ['$defs', 'definitions'])
    for (const [key, child] of Object.entries(record(schema[defs]) ?? {}))
      yield* nodes(child, [...path, defs, key], depth)
  if (isRecord(schema.items)) yield* nodes(schema.items, [...path, 'items'], deeper)
  if (isRecord(schema.additionalProperties))
    yield* nodes(schema.additionalProperties, [...path, 'additionalProperties'], deeper)
  for (const union of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    const branches = schema[union]
    if (Array.isArray(branches))
      for (const [i, child] of branches.entries())
        yield* nodes(child, [...path, union, String(i)], depth)
  }
}

/** Whether a JSON value is of a JSON Schema type. */
export function ofType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string'
    case 'integer':
      return Number.isInteger(value)
    case 'number':
      return typeof value === 'number'
    case 'boolean':
      return typeof value === 'boolean'
    case 'null':
      return value === null
    case 'array':
      return Array.isArray(value)
    case 'object':
      return isRecord(value)
    default:
      return false
  }
}

/** Keys of `schema` among `keys`, in alphabetical order. */
export function present(schema: Json, keys: readonly string[]): string[] {
  return keys.filter(key => key in schema).sort()
}

/** The items of a JSON array, typed as unknown; [] for anything else. */
export function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : []
}
