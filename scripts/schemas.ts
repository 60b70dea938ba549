import { join } from 'node:path'
import { createGenerator } from 'ts-json-schema-generator'
import { z } from 'zod'
import { CalibrationRecordSchema } from '../src/calibrate/record.js'
import { RUBRIC_SCHEMA_URL, renderJsonSchema } from '../src/rubric/json-schema.js'

/**
 * The files of schema/, each rendered from what the code holds to be true: the rubric's from the
 * zod schema its parser uses, the calibration record's from the zod schema its reader uses, the reports' from the TypeScript types their builders return (a
 * field added to the type is in the schema at the next `npm run schema`, and a test fails until
 * then). The reports' generation compiles the source, so it lives here and not in the bundle.
 */

/** Each report form: its file in schema/ and the type that owns it. */
const REPORT_FORMS = [
  {
    file: 'report.schema.json',
    type: 'JsonReport',
    title: 'Rubric Council report of one rubric'
  },
  {
    file: 'report-set.schema.json',
    type: 'RubricsJsonReport',
    title: 'Rubric Council report of several rubrics'
  }
] as const

const ROOT = join(import.meta.dirname, '..')
/** The module whose program holds both types (it imports `JsonReport` from src/report/json.ts). */
const ENTRY = 'src/publish/rubrics.ts'

/** Each file of schema/ by its path from the repository's root, with its text. */
export function renderSchemas(): Record<string, string> {
  const generator = createGenerator({
    path: join(ROOT, ENTRY),
    tsconfig: join(ROOT, 'tsconfig.json'),
    // The root type inline, so its description is the schema's; every other named type a definition.
    topRef: false,
    // Objects are closed where the type is: a key the type does not declare is rejected.
    additionalProperties: false,
    // `npm run typecheck` checks the source with the project's compiler; this one only reads it.
    skipTypeCheck: true
  })
  const schemas: Record<string, string> = {
    'schema/rubric.schema.json': renderJsonSchema(),
    'schema/calibration-record.schema.json': renderRecordSchema()
  }
  for (const form of REPORT_FORMS) {
    const { $schema, description, ...schema } = generator.createSchema(form.type)
    const $id = new URL(form.file, RUBRIC_SCHEMA_URL).href
    schemas[`schema/${form.file}`] =
      `${JSON.stringify({ $schema, $id, title: form.title, description, ...schema }, null, 2)}\n`
  }
  return schemas
}

/** The calibration record's schema (`calibrate --record`), from the zod schema its reader uses. */
function renderRecordSchema(): string {
  // What the reader accepts: a record written before a field with a default existed is read.
  const { $schema, ...schema } = z.toJSONSchema(CalibrationRecordSchema, {
    io: 'input',
    target: 'draft-2020-12'
  })
  const $id = new URL('calibration-record.schema.json', RUBRIC_SCHEMA_URL).href
  const title = 'Rubric Council calibration record'
  const description =
    'Per criterion, what `rubric-council calibrate --record` measured (precision, recall and flip with 95% Wilson intervals) and with what (the criterion text hash, the council, the prompt version, the order of the files shown): docs/calibration.md.'
  return `${JSON.stringify({ $schema, $id, title, description, ...schema }, null, 2)}\n`
}
