import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { languageModel } from '../../src/council/judge-model.js'
import { parseModelId } from '../../src/rubric/model-id.js'

/**
 * The providers' SDKs are loaded by `import()` when a judge is called, not at start. A dynamic
 * import is a way to run code from a path: none may take a value a rubric, an input or a pull
 * request gives. The names come from the provider table's modules, as literals.
 */

const SRC = join(import.meta.dirname, '..', '..', 'src')

describe('the providers’ SDKs, loaded when a judge is called', () => {
  it('are imported by fixed names only: every import() in src/ takes a string literal', () => {
    const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter(f =>
      f.endsWith('.ts')
    )
    const dynamic: string[] = []
    for (const file of files) {
      const text = readFileSync(join(SRC, file), 'utf8')
      for (const m of text.matchAll(/\bimport\(\s*([^)]*)\)/g))
        dynamic.push(`${file}: ${m[1] ?? ''}`)
    }
    // The SDKs (and the AI SDK itself) are among them: the check sees the lazy imports.
    expect(dynamic.some(d => d.endsWith("'@ai-sdk/anthropic'"))).toBe(true)
    expect(dynamic.some(d => d.endsWith("'ai'"))).toBe(true)
    expect(dynamic.filter(d => !/: '[^'`$]+'$/.test(d))).toEqual([])
  })

  it('refuses a provider outside the table, however it is named, before anything is loaded', () => {
    for (const text of [
      '../../../tmp/evil.js:model',
      'file:///tmp/evil.js:model',
      'node:child_process:model',
      '__proto__:model',
      'constructor:model',
      'toString:model',
      '@ai-sdk/anthropic:model'
    ]) {
      const id = parseModelId(text)
      expect(id.ok, text).toBe(false)
      expect(id.ok ? '' : id.problem).toContain('unknown provider')
    }
  })

  it('forms a judge’s model without loading its SDK; the loader loads it when the judge is called', async () => {
    const id = parseModelId('anthropic:claude-sonnet-4-6')
    if (!id.ok) throw new Error(id.problem)
    const missing = languageModel(id.value, {}, fetch)
    expect(missing).toEqual({ ok: false, problem: 'ANTHROPIC_API_KEY is not set' })
    const formed = languageModel(id.value, { ANTHROPIC_API_KEY: 'sk-ant-test' }, fetch)
    if (!formed.ok) throw new Error(formed.problem)
    expect(typeof formed.value).toBe('function')
    const model = await formed.value()
    expect(typeof model === 'object' && model.modelId).toBe('claude-sonnet-4-6')
  })
})
