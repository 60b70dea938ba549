// Writes schema/rubric.schema.json from the zod schema. A test fails when the file is stale.
import { writeFileSync } from 'node:fs'
import { renderJsonSchema } from '../src/rubric/json-schema.js'

writeFileSync('schema/rubric.schema.json', renderJsonSchema())
