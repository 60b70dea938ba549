import type { Criterion, Rubric } from './types.js'

export interface RubricChange {
  readonly text: string
  /** The change lowers the bar: a must-have or gate removed or demoted, a threshold lowered. */
  readonly weakens: boolean
}

export interface RubricDiff {
  readonly changes: readonly RubricChange[]
  readonly weakened: boolean
}

/**
 * What a pull request changed in the rubric that grades it, in words a reviewer can
 * check: criteria added, removed or reworded, required or weight changed, thresholds, gates and
 * models. Pure; the order follows the rubric.
 */
export function diffRubrics(base: Rubric, head: Rubric): RubricDiff {
  const changes: RubricChange[] = []
  const add = (text: string, weakens = false): void => {
    changes.push({ text, weakens })
  }

  const before = new Map(base.criteria.map(c => [c.id, c]))
  const after = new Map(head.criteria.map(c => [c.id, c]))
  for (const c of base.criteria) {
    if (!after.has(c.id)) add(`${kind(c)} "${c.id}" removed`, c.required)
  }
  for (const c of head.criteria) {
    const old = before.get(c.id)
    if (!old) {
      add(`${kind(c)} "${c.id}" added`)
      continue
    }
    if (old.description !== c.description)
      add(`criterion "${c.id}" reworded: "${old.description}" → "${c.description}"`)
    if (old.required !== c.required) {
      add(
        `criterion "${c.id}" ${c.required ? 'promoted to must-have' : 'demoted to nice-to-have'}`,
        !c.required
      )
    }
    // A demotion or promotion moves the default weight with it; that is not a change of its own.
    const defaults = old.weight === (old.required ? 1 : 0) && c.weight === (c.required ? 1 : 0)
    if (old.weight !== c.weight && !(old.required !== c.required && defaults)) {
      add(`criterion "${c.id}" weight ${old.weight} → ${c.weight}`)
    }
    if (old.requiredMinScore !== c.requiredMinScore) {
      const lowered =
        old.requiredMinScore !== undefined && (c.requiredMinScore ?? -1) < old.requiredMinScore
      add(
        `criterion "${c.id}" required_min_score ${show(old.requiredMinScore)} → ${show(c.requiredMinScore)}`,
        lowered
      )
    }
    if (bands(old) !== bands(c)) add(`criterion "${c.id}" score ranges changed`)
  }

  const oldGates = new Set(base.gates.map(g => g.command))
  const newGates = new Set(head.gates.map(g => g.command))
  for (const g of oldGates) if (!newGates.has(g)) add(`gate \`${g}\` removed`, true)
  for (const g of newGates) if (!oldGates.has(g)) add(`gate \`${g}\` added`)

  for (const key of ['pass', 'fail', 'confidence'] as const) {
    const from = base.thresholds[key]
    const to = head.thresholds[key]
    if (from !== to) add(`thresholds.${key} ${from} → ${to}`, to < from)
  }
  if (base.minCoverage !== head.minCoverage) {
    add(
      `min_coverage ${base.minCoverage} → ${head.minCoverage}`,
      head.minCoverage < base.minCoverage
    )
  }
  if (base.blocking !== head.blocking) {
    add(`blocking ${base.blocking} → ${head.blocking}`, head.blocking === 'majority')
  }
  if (base.accuracyCeiling !== head.accuracyCeiling) {
    add(`accuracy ceiling turned ${head.accuracyCeiling ? 'on' : 'off'}`, !head.accuracyCeiling)
  }
  const oldDimensions = base.dimensions.map(d => `${d.name}:${d.weight}`).join(', ')
  const newDimensions = head.dimensions.map(d => `${d.name}:${d.weight}`).join(', ')
  if (oldDimensions !== newDimensions) {
    add(
      `dimensions ${oldDimensions || 'none'} → ${newDimensions || 'none'}`,
      head.dimensions.length < base.dimensions.length
    )
  }
  const oldModels = base.council.models.join(', ')
  const newModels = head.council.models.join(', ')
  if (oldModels !== newModels)
    add(`council.models ${oldModels || '(default)'} → ${newModels || '(default)'}`)
  if (base.council.quorum !== head.council.quorum) {
    const lowered =
      base.council.quorum !== undefined && (head.council.quorum ?? 0) < base.council.quorum
    add(`council.quorum ${show(base.council.quorum)} → ${show(head.council.quorum)}`, lowered)
  }
  if (base.council.samples !== head.council.samples) {
    add(`council.samples ${show(base.council.samples)} → ${show(head.council.samples)}`)
  }
  const oldFocus = base.focus.map(f => f.area).join(', ')
  const newFocus = head.focus.map(f => f.area).join(', ')
  if (oldFocus !== newFocus) {
    add(
      `focus ${oldFocus || 'none'} → ${newFocus || 'none'}`,
      head.focus.length < base.focus.length
    )
  }
  const oldExclude = base.exclude.join(', ')
  const newExclude = head.exclude.join(', ')
  if (oldExclude !== newExclude) {
    // Excluding more files shows the judges less of the change.
    add(
      `exclude ${oldExclude || 'none'} → ${newExclude || 'none'}`,
      head.exclude.some(g => !base.exclude.includes(g))
    )
  }
  if (changes.length === 0 && base.hash !== head.hash)
    add('wording or notes changed; no rule changed')
  return { changes, weakened: changes.some(c => c.weakens) }
}

function kind(c: Criterion): string {
  return c.required ? 'must-have' : 'nice-to-have'
}

function bands(c: Criterion): string {
  return JSON.stringify(c.scoreRanges ?? null)
}

function show(value: number | undefined): string {
  return value === undefined ? 'none' : String(value)
}
