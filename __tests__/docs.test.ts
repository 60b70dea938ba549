import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { describe, expect, it } from 'vitest'
import { detectSetup } from '../src/init/setup.js'
import {
  botWorkflow,
  forksWorkflows,
  splitWorkflow,
  targetWorkflow
} from '../src/init/workflows.js'
import { formatIssue } from '../src/rubric/errors.js'
import { parseRubric } from '../src/rubric/parse.js'
import { actionlint } from './helpers/actionlint.js'
import { layoutViolations } from './helpers/workflow-layout.js'

const ROOT = join(import.meta.dirname, '..')
const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>
  outputs: Record<string, unknown>
}

/** The main action and the gates sub-action, as the workflows meet them. */
const mainAction = action
const gatesAction = parse(readFileSync(join(ROOT, 'gates/action.yml'), 'utf8')) as typeof action

interface Step {
  readonly uses?: string
  readonly with?: Record<string, unknown>
  readonly id?: string
}

/** Which of our actions a step uses, if any. */
function ours(step: Step): typeof action | undefined {
  if (step.uses?.startsWith('rubric-council/rubric-council@') === true || step.uses === './')
    return mainAction
  if (step.uses?.startsWith('rubric-council/rubric-council/gates@') === true) return gatesAction
  return undefined
}

/** Every job of a workflow, with its steps. */
function jobsOf(workflow: unknown): { steps?: Step[] }[] {
  return Object.values((workflow as { jobs?: Record<string, { steps?: Step[] }> }).jobs ?? {})
}

const PROJECT = { 'package.json': '{}', 'package-lock.json': '{}' }
const nodeProject = mkdtempSync(join(tmpdir(), 'rc-docs-'))
for (const [name, text] of Object.entries(PROJECT)) writeFileSync(join(nodeProject, name), text)
/** What the examples show in place of a release's commit and version. */
const PLACEHOLDER = { commit: '<commit-sha>', version: 'X.Y.Z' }
const initSplit = splitWorkflow(detectSetup(nodeProject), PLACEHOLDER)
const initForks = forksWorkflows(detectSetup(nodeProject), PLACEHOLDER)
const initBot = botWorkflow('rubric-council.yml', PLACEHOLDER)
const initForksBot = botWorkflow('rubric-council-gates.yml', PLACEHOLDER)
const initTarget = targetWorkflow(PLACEHOLDER)

const workflows = [
  ...readdirSync(join(ROOT, 'examples/workflows')).map(f => ({
    name: `examples/workflows/${f}`,
    text: readFileSync(join(ROOT, 'examples/workflows', f), 'utf8')
  })),
  { name: 'rubric-council init', text: initSplit },
  { name: 'rubric-council init --forks: the gates', text: initForks.gates },
  { name: 'rubric-council init --forks: the council', text: initForks.council },
  { name: 'rubric-council init: the bot', text: initBot },
  { name: 'rubric-council init --forks: the bot', text: initForksBot },
  { name: 'rubric-council init --target', text: initTarget },
  {
    name: '.github/workflows/ci.yml',
    text: readFileSync(join(ROOT, '.github/workflows/ci.yml'), 'utf8')
  }
]

describe('the example workflows', () => {
  it.each(workflows)('$name uses only inputs and outputs the actions have', ({ text }) => {
    const jobs = jobsOf(parse(text))
    expect(jobs.flatMap(j => j.steps ?? []).filter(s => ours(s)).length).toBeGreaterThan(0)
    for (const job of jobs) {
      const byId = new Map<string, typeof action>()
      for (const step of job.steps ?? []) {
        const used = ours(step)
        if (used === undefined) continue
        if (step.id !== undefined) byId.set(step.id, used)
        for (const input of Object.keys(step.with ?? {}))
          expect(Object.keys(used.inputs)).toContain(input)
      }
      for (const match of JSON.stringify(job).matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
        const used = byId.get(match[1] ?? '')
        expect({ step: match[1], ours: used !== undefined }).toEqual({ step: match[1], ours: true })
        expect(Object.keys(used?.outputs ?? {})).toContain(match[2])
      }
    }
  })

  it.each(workflows)('$name passes actionlint', async ({ name, text }) => {
    // ollama-self-hosted.yml runs on a self-hosted runner labelled gpu.
    expect(await actionlint(text, name, { labels: ['gpu'] })).toEqual([])
  })

  it('split.yml, bot.yml, the forks-*.yml and target.yml are what init writes for a Node project', () => {
    const example = (name: string): string =>
      readFileSync(join(ROOT, 'examples/workflows', name), 'utf8')
    expect(example('split.yml')).toBe(initSplit)
    expect(example('bot.yml')).toBe(initBot)
    expect(example('forks-gates.yml')).toBe(initForks.gates)
    expect(example('forks-council.yml')).toBe(initForks.council)
    expect(example('forks-bot.yml')).toBe(initForksBot)
    expect(example('target.yml')).toBe(initTarget)
  })

  it('the others say first that they are the single-job mode, for a rubric without gates unless the workflow opts in', () => {
    const layouts = [
      'split.yml',
      'bot.yml',
      'forks-gates.yml',
      'forks-council.yml',
      'forks-bot.yml',
      'target.yml',
      'org-required.yml'
    ]
    for (const name of readdirSync(join(ROOT, 'examples/workflows'))) {
      const text = readFileSync(join(ROOT, 'examples/workflows', name), 'utf8')
      if (layouts.includes(name)) expect(layoutViolations(text), name).toEqual([])
      else {
        const head = text.split('\n').slice(0, 4).join('\n')
        expect(head, name).toMatch(/^# Single-job mode, for a rubric without gates: /)
        expect(head, name).toContain('unless allow-gates-with-secrets: true')
      }
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

  it('opens with usage: what it does, a workflow, inputs, outputs, permissions, examples', () => {
    const prose = readme.replace(/^```[\s\S]*?^```/gm, '')
    const sections = [...prose.matchAll(/^## (.+)$/gm)].map(m => m[1])
    expect(sections.slice(0, 6)).toEqual([
      'Usage',
      'A rubric',
      'Inputs',
      'Outputs',
      'Permissions',
      'What it posts'
    ])
    expect(sections.indexOf('Examples')).toBeGreaterThan(sections.indexOf('Permissions'))
    // What contributors need comes last, after everything a user of the action reads.
    expect(sections.at(-1)).toBe('Development')
  })

  it('lists in Permissions every permission the workflows init writes grant', () => {
    const section = /^## Permissions\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? ''
    const texts = [initSplit, ...Object.values(initForks), targetWorkflow(PLACEHOLDER), initBot]
    const granted = new Set<string>()
    for (const text of texts) {
      const w = parse(text) as { jobs: Record<string, { permissions?: Record<string, string> }> }
      for (const job of Object.values(w.jobs))
        for (const [scope, level] of Object.entries(job.permissions ?? {}))
          granted.add(`${scope}: ${level}`)
    }
    expect(granted.size).toBeGreaterThan(3)
    for (const permission of granted) expect(section).toContain(`\`${permission}\``)
  })

  it('shows first the workflow init writes for a Node project: the split layout', () => {
    const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map(m => m[1])
    expect(blocks[0]).toBe(initSplit)
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

describe('docs/rubric.md', () => {
  it('shows exactly what validate prints for its example of an invalid rubric', () => {
    const doc = readFileSync(join(ROOT, 'docs/rubric.md'), 'utf8')
    const example =
      /four mistakes[\s\S]*?```markdown\n([\s\S]*?)```[\s\S]*?```text\n([\s\S]*?)```/.exec(doc)
    expect(example).not.toBeNull()
    const [, rubric = '', printed = ''] = example ?? []
    const result = parseRubric({ text: rubric, path: '.github/rubric.md' })
    expect(result.ok ? [] : result.problem.map(formatIssue)).toEqual(printed.trimEnd().split('\n'))
  })
})
