import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import matter from 'gray-matter'
import { parse as parseYaml } from 'yaml'
import { describe, expect, it } from 'vitest'
import { starterRubric } from '../src/init/rubrics.js'
import { RUBRIC_SCHEMA_URL, renderJsonSchema } from '../src/rubric/json-schema.js'
import { parseRubric } from '../src/rubric/parse.js'

const ROOT = join(import.meta.dirname, '..')
const checkedIn = readFileSync(join(ROOT, 'schema/rubric.schema.json'), 'utf8')

describe('the JSON Schema of the rubric', () => {
  it('is up to date with the zod schema (run `npm run schema` if not)', () => {
    expect(checkedIn).toBe(renderJsonSchema())
  })

  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(
    JSON.parse(checkedIn) as object
  )

  /** The YAML data of a rubric file: the front matter of Markdown, or the whole YAML file. */
  function dataOf(file: string): unknown {
    const text = readFileSync(file, 'utf8')
    return file.endsWith('.md') ? matter(text, {}).data : (parseYaml(text) as unknown)
  }

  it('accepts the front matter of every example and of this repository’s rubric', () => {
    const files = [
      // The rubrics: examples/workflows and examples/agent hold other files.
      ...readdirSync(join(ROOT, 'examples'), { withFileTypes: true })
        .filter(f => f.isFile())
        .map(f => join(ROOT, 'examples', f.name)),
      join(ROOT, '.github/rubric.md')
    ]
    for (const file of files) {
      expect({ file, valid: validate(dataOf(file)), errors: validate.errors ?? [] }).toEqual({
        file,
        valid: true,
        errors: []
      })
    }
  })

  it('rejects what the parser rejects on shape: unknown keys, wrong types, out-of-range values', () => {
    expect(validate({ tresholds: {} })).toBe(false)
    expect(validate({ thresholds: { pass: 2 } })).toBe(false)
    expect(validate({ criteria: [{ id: 'a', description: 'A', weight: -1 }] })).toBe(false)
    expect(
      validate({
        criteria: [{ id: 'a', score_ranges: [{ score_range: [0, 11], expected_outcome: 'x' }] }]
      })
    ).toBe(false)
    expect(validate({ criteria: [{ id: 'a', score_ranges: { '0': 'low', '12': 'x' } }] })).toBe(
      false
    )
    expect(validate({ focus: 'speed' })).toBe(false)
    expect(
      validate({ focus: ['security'], dimensions: { accuracy: 2 }, council: { samples: 2 } })
    ).toBe(true)
  })

  it('has an $id: the address of this file on the default branch of this repository', () => {
    const repository = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        repository: { url: string }
      }
    ).repository.url.replace(/^git\+https:\/\/github\.com\/|\.git$/g, '')
    expect((JSON.parse(checkedIn) as { $id?: string }).$id).toBe(
      `https://raw.githubusercontent.com/${repository}/main/schema/rubric.schema.json`
    )
    expect(RUBRIC_SCHEMA_URL).toBe((JSON.parse(checkedIn) as { $id?: string }).$id)
  })

  it('accepts the rubrics init writes, whose front matter names it first, and they parse', () => {
    const rubrics = [
      starterRubric('npm test'),
      starterRubric(undefined),
      starterRubric(undefined, { gates: false })
    ]
    for (const text of rubrics) {
      expect(text.split('\n').slice(0, 2)).toEqual([
        '---',
        `# yaml-language-server: $schema=${RUBRIC_SCHEMA_URL}`
      ])
      const data = matter(text, {}).data
      expect({ valid: validate(data), errors: validate.errors ?? [] }).toEqual({
        valid: true,
        errors: []
      })
      const parsed = parseRubric({ text, path: '.github/rubric.md' })
      expect(parsed.ok && parsed.value.criteria.length).toBe(4)
    }
  })

  it('a YAML rubric may name it on its first line, as editors read it, and still parses', () => {
    const text = `# yaml-language-server: $schema=${RUBRIC_SCHEMA_URL}\ntitle: Gates only\ngates: [npm test]\n`
    expect(validate(parseYaml(text))).toBe(true)
    const parsed = parseRubric({ text, path: '.github/rubric.yml' })
    expect(parsed.ok && parsed.value.gates.map(g => g.command)).toEqual(['npm test'])
  })
})
