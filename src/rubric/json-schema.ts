import { z } from 'zod'
import { FrontMatterSchema } from './schema.js'

/** The JSON Schema editors use for completion; generated from the zod schema the parser uses. */
export function renderJsonSchema(): string {
  const schema = z.toJSONSchema(FrontMatterSchema, { io: 'input', target: 'draft-2020-12' })
  return `${JSON.stringify({ ...schema, title: 'Rubric Council rubric' }, null, 2)}\n`
}
