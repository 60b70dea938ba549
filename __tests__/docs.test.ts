import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { describe, expect, it } from 'vitest'
import { STARTER_WORKFLOW } from '../src/cli/init.js'

const ROOT = join(import.meta.dirname, '..')
const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>
  outputs: Record<string, unknown>
}

interface Step {
  readonly uses?: string
  readonly with?: Record<string, unknown>
  readonly id?: string
}

/** Every step of every job that uses this action. */
function ourSteps(workflow: unknown): Step[] {
  const jobs = (workflow as { jobs?: Record<string, { steps?: Step[] }> }).jobs ?? {}
  return Object.values(jobs)
    .flatMap(j => j.steps ?? [])
    .filter(s => s.uses === 'rubric-council/rubric-council@v0' || s.uses === './')
}

const workflows = [
  ...readdirSync(join(ROOT, 'examples/workflows')).map(f => ({
    name: `examples/workflows/${f}`,
    text: readFileSync(join(ROOT, 'examples/workflows', f), 'utf8')
  })),
  { name: 'rubric-council init', text: STARTER_WORKFLOW },
  {
    name: '.github/workflows/ci.yml',
    text: readFileSync(join(ROOT, '.github/workflows/ci.yml'), 'utf8')
  }
]

describe('the example workflows', () => {
  it.each(workflows)('$name uses only inputs and outputs the action has', ({ text }) => {
    const steps = ourSteps(parse(text))
    expect(steps.length).toBeGreaterThan(0)
    for (const step of steps) {
      for (const input of Object.keys(step.with ?? {}))
        expect(Object.keys(action.inputs)).toContain(input)
    }
    for (const match of text.matchAll(/steps\.\w+\.outputs\.([\w-]+)/g)) {
      expect(Object.keys(action.outputs)).toContain(match[1])
    }
  })

  it('every optional input has a default, so getInput never sees an unset boolean', () => {
    for (const [name, input] of Object.entries(action.inputs)) {
      expect({ name, hasDefault: input.default !== undefined }).toEqual({ name, hasDefault: true })
    }
  })
})

describe('the README', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')

  it('documents every input and output of action.yml', () => {
    for (const name of [...Object.keys(action.inputs), ...Object.keys(action.outputs)]) {
      expect(readme).toContain(`\`${name}\``)
    }
  })

  it('links only to files that exist', () => {
    for (const match of readme.matchAll(/\]\(((?:docs|examples|schema)\/[^)#]+)/g)) {
      expect({ link: match[1], exists: existsSync(join(ROOT, match[1] ?? '')) }).toEqual({
        link: match[1],
        exists: true
      })
    }
  })
})
