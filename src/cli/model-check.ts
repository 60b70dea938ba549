import { unknownModel } from '../council/providers.js'
import type { Rubric } from '../rubric/types.js'
import { parseYaml, type Position } from '../rubric/yaml-source.js'

/**
 * Why a model id is worth a second look: the model is not one this version knows, and the known
 * one it most likely meant. A warning, not an error: new models appear before the table knows
 * them, and the provider is the judge of its own model names.
 */
function unknownModelMessage(id: string): string | undefined {
  const unknown = unknownModel(id)
  if (unknown === undefined) return undefined
  const meant = unknown.suggestion === undefined ? '' : `; did you mean "${unknown.suggestion}"?`
  return `unknown model "${id}"${meant} (a model newer than this version of rubric-council is fine; a misspelt one fails when the judges are asked)`
}

/**
 * The warnings about the rubric's `council.models`, as `file:line:col: warning: message [rule]`
 * lines (the problem matcher reads them as annotations).
 */
export function rubricModelWarnings(rubric: Rubric): string[] {
  const locate = modelLocator(rubric)
  return rubric.council.models.flatMap((id, i) => {
    const message = unknownModelMessage(id)
    if (message === undefined) return []
    const at = locate(i)
    const where = at === undefined ? '' : `:${at.line}:${at.column}`
    return [`${rubric.source.path}${where}: warning: council.models: ${message} [unknown-model]`]
  })
}

/** The warnings about the models `--models` names, one line each. */
export function optionModelWarnings(models: readonly string[]): string[] {
  return models.flatMap(id => {
    const message = unknownModelMessage(id)
    return message === undefined ? [] : [`rubric-council: warning: --models: ${message}`]
  })
}

/**
 * Where `council.models[i]` stands in the rubric's file: its YAML (a `.yml` rubric) or front
 * matter, whose lines are the file's (the front matter starts on line 1, after `---`).
 */
function modelLocator(rubric: Rubric): (index: number) => Position | undefined {
  if (rubric.source.kind !== 'file') return () => undefined
  const text = rubric.text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n')
  let yaml = text
  if (!/\.ya?ml$/i.test(rubric.source.path)) {
    const open = /^---[^\n]*/.exec(text)
    if (open === null) return () => undefined
    const close = /\n---[ \t]*(?:\n|$)/g
    close.lastIndex = open[0].length
    const closing = close.exec(text)
    yaml = text.slice(open[0].length, closing?.index ?? text.length)
  }
  const { locate } = parseYaml(yaml)
  return index => locate(['council', 'models', index], 'value')
}
