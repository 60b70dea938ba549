import { lifecycle, retirementNote } from '../council/models.js'
import { unknownModel } from '../council/members.js'
import type { Rubric } from '../rubric/types.js'
import { isRecord } from '../util/is-record.js'
import { parseYaml, type Position, type YamlSource } from '../rubric/yaml-source.js'

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

/** One finding about a member: a retired model is an error, the rest warnings. */
interface ModelFinding {
  readonly severity: 'error' | 'warning'
  readonly message: string
  readonly rule: string
}

/**
 * What is worth saying about a member on `today` (epoch ms): retired (an error: the provider
 * refuses it, and the judge is not asked), retiring within 30 days (a warning), or unknown to
 * this version (a warning).
 */
function modelFinding(id: string, today: number): ModelFinding | undefined {
  const note = retirementNote(id, today)
  if (note !== undefined) {
    return lifecycle(id, today).state === 'retired'
      ? { severity: 'error', message: note, rule: 'retired-model' }
      : { severity: 'warning', message: note, rule: 'retiring-model' }
  }
  const unknown = unknownModelMessage(id)
  return unknown === undefined
    ? undefined
    : { severity: 'warning', message: unknown, rule: 'unknown-model' }
}

/** The lines to print about the members, and how many of them are errors (retired models). */
export interface ModelLines {
  readonly lines: readonly string[]
  readonly errors: number
}

function collect(findings: readonly (string | undefined)[], errors: number): ModelLines {
  return { lines: findings.flatMap(f => (f === undefined ? [] : [f])), errors }
}

/**
 * The findings about the rubric's `council.models` and `council.reserve` on `today`, as
 * `file:line:col: severity: council.models: message [rule]` lines (the problem matcher reads them
 * as annotations).
 */
export function rubricModelLines(rubric: Rubric, today: number): ModelLines {
  const yaml = rubricYaml(rubric)
  let errors = 0
  const lines = (['models', 'reserve'] as const).flatMap(key =>
    rubric.council[key].map((id, i) => {
      const finding = modelFinding(id, today)
      if (finding === undefined) return undefined
      if (finding.severity === 'error') errors++
      return `${where(rubric, yaml?.locate(['council', key, i], 'value'))}: ${finding.severity}: council.${key}: ${finding.message} [${finding.rule}]`
    })
  )
  return collect(lines, errors)
}

/**
 * Warnings about keys a rubric still may use under an old name: `council.tie_breaks`, read as
 * `council.max_extra_votes`.
 */
export function rubricDeprecationLines(rubric: Rubric): readonly string[] {
  const yaml = rubricYaml(rubric)
  const council = isRecord(yaml?.data) ? yaml.data.council : undefined
  const value = isRecord(council) ? council.tie_breaks : undefined
  if (typeof value !== 'number') return []
  const at = yaml?.locate(['council', 'tie_breaks'], 'key')
  return [
    `${where(rubric, at)}: warning: council.tie_breaks is deprecated; write council.max_extra_votes: ${value} (extra votes come only from a member or reserve that has not voted yet: docs/verdict.md) [deprecated-key]`
  ]
}

function where(rubric: Rubric, at: Position | undefined): string {
  return at === undefined ? rubric.source.path : `${rubric.source.path}:${at.line}:${at.column}`
}

/** The findings about the models `--models` names on `today`, one line each. */
export function optionModelLines(models: readonly string[], today: number): ModelLines {
  let errors = 0
  const lines = models.map(id => {
    const finding = modelFinding(id, today)
    if (finding === undefined) return undefined
    if (finding.severity === 'error') errors++
    return `rubric-council: ${finding.severity}: --models: ${finding.message}`
  })
  return collect(lines, errors)
}

/**
 * The rubric's YAML (a `.yml` rubric) or front matter, whose lines are the file's (the front
 * matter starts on line 1, after `---`); none for a rubric that is no file.
 */
function rubricYaml(rubric: Rubric): YamlSource | undefined {
  if (rubric.source.kind !== 'file') return undefined
  const text = rubric.text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n')
  let yaml = text
  if (!/\.ya?ml$/i.test(rubric.source.path)) {
    const open = /^---[^\n]*/.exec(text)
    if (open === null) return undefined
    const close = /\n---[ \t]*(?:\n|$)/g
    close.lastIndex = open[0].length
    const closing = close.exec(text)
    yaml = text.slice(open[0].length, closing?.index ?? text.length)
  }
  return parseYaml(yaml)
}
