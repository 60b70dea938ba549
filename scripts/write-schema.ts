// Writes every file of schema/ (scripts/schemas.ts). A test fails when one is stale.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { renderSchemas } from './schemas.js'

for (const [file, text] of Object.entries(renderSchemas())) {
  writeFileSync(join(import.meta.dirname, '..', file), text)
}
