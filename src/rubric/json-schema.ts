import { z } from 'zod'
import { FrontMatterSchema } from './schema.js'

/**
 * Where the schema is published, and its `$id`: the file on the default branch, which resolves
 * from the first push on (a tag such as v0 exists only from the first release), at an address
 * that does not change with each release.
 */
export const RUBRIC_SCHEMA_URL =
  'https://raw.githubusercontent.com/rubric-council/rubric-council/main/schema/rubric.schema.json'

/** The JSON Schema editors use for completion; generated from the zod schema the parser uses. */
export function renderJsonSchema(): string {
  const { $schema, ...schema } = z.toJSONSchema(FrontMatterSchema, {
    io: 'input',
    target: 'draft-2020-12'
  })
  return `${JSON.stringify({ $schema, $id: RUBRIC_SCHEMA_URL, title: 'Rubric Council rubric', ...schema }, null, 2)}\n`
}
