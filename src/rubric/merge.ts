import { criterionChanges, diffRubrics, type RubricChange } from './diff.js'
import type { FrontMatter } from './schema.js'
import type { Dimension, Rubric } from './types.js'

/** The keys the extending file's front matter sets: a setting it leaves out is inherited. */
export type SetKeys = Omit<Partial<FrontMatter>, 'criteria'>

type Merge<K extends keyof Rubric> = (
  inherited: Rubric,
  local: Rubric,
  set: SetKeys
) => Rubric[K] | undefined

/**
 * How each field of an inherited rubric and the file that extends it add up: one entry for every
 * field, so a field added to the rubric cannot be left out of the merge. Lists add up, the
 * extending file's item replacing an inherited one with the same id (criteria), command (gates) or
 * name (dimensions); a setting is the extending file's when it sets it, else the inherited one.
 */
const MERGE: { readonly [K in keyof Required<Rubric>]: Merge<K> } = {
  criteria: (inherited, local) =>
    byKey(inherited.criteria, local.criteria, c => c.id.toLowerCase()),
  gates: (inherited, local) => byKey(inherited.gates, local.gates, g => g.command),
  gateOptions: (inherited, local, set) => {
    const gates = set.gates === undefined || Array.isArray(set.gates) ? {} : set.gates
    return {
      timeout:
        gates.timeout === undefined ? inherited.gateOptions.timeout : local.gateOptions.timeout,
      parallel:
        gates.parallel === undefined ? inherited.gateOptions.parallel : local.gateOptions.parallel,
      workingDirectory:
        gates.working_directory === undefined
          ? inherited.gateOptions.workingDirectory
          : local.gateOptions.workingDirectory
    }
  },
  dimensions: (inherited, local, set) => {
    if (set.dimensions === undefined)
      return inherited.dimensions.length > 0 ? inherited.dimensions : local.dimensions
    if (set.dimensions === false) return []
    return normalised(byKey(inherited.dimensions, local.dimensions, d => d.name))
  },
  // Computed from the merged dimensions below.
  accuracyCeiling: () => undefined,
  thresholds: (inherited, local, set) => ({
    pass: set.thresholds?.pass === undefined ? inherited.thresholds.pass : local.thresholds.pass,
    fail: set.thresholds?.fail === undefined ? inherited.thresholds.fail : local.thresholds.fail,
    confidence:
      set.thresholds?.confidence === undefined
        ? inherited.thresholds.confidence
        : local.thresholds.confidence
  }),
  council: (inherited, local, set) => {
    const council = set.council ?? {}
    const from = <K extends keyof Rubric['council']>(
      key: K,
      given: unknown
    ): Partial<Pick<Rubric['council'], K>> => {
      const value = given === undefined ? inherited.council[key] : local.council[key]
      return value === undefined ? {} : ({ [key]: value } as Pick<Rubric['council'], K>)
    }
    return {
      models: council.models === undefined ? inherited.council.models : local.council.models,
      ...from('reasoning', council.reasoning),
      // Each judge's own effort, by name: the local file's win; a judge no longer asked is never
      // looked up.
      ...((inherited.council.memberReasoning ?? local.council.memberReasoning) && {
        memberReasoning: { ...inherited.council.memberReasoning, ...local.council.memberReasoning }
      }),
      ...((inherited.council.memberSettings ?? local.council.memberSettings) && {
        memberSettings: { ...inherited.council.memberSettings, ...local.council.memberSettings }
      }),
      ...from('samples', council.samples),
      ...from('quorum', council.quorum),
      ...from('timeout', council.timeout),
      reserve: council.reserve === undefined ? inherited.council.reserve : local.council.reserve,
      // `tie_breaks` is the budget's deprecated name.
      maxExtraVotes:
        council.max_extra_votes === undefined && council.tie_breaks === undefined
          ? inherited.council.maxExtraVotes
          : local.council.maxExtraVotes
    }
  },
  blocking: (inherited, local, set) =>
    set.blocking === undefined ? inherited.blocking : local.blocking,
  calibration: (inherited, local, set) =>
    set.calibration === undefined ? inherited.calibration : local.calibration,
  scoreWeights: (inherited, local, set) => ({
    dimensions:
      set.score_weights?.dimensions === undefined
        ? inherited.scoreWeights.dimensions
        : local.scoreWeights.dimensions,
    criteria:
      set.score_weights?.criteria === undefined
        ? inherited.scoreWeights.criteria
        : local.scoreWeights.criteria
  }),
  minCoverage: (inherited, local, set) =>
    set.min_coverage === undefined ? inherited.minCoverage : local.minCoverage,
  focus: (inherited, local) => byKey(inherited.focus, local.focus, f => f.area),
  exclude: (inherited, local) => [...new Set([...inherited.exclude, ...local.exclude])],
  notes: (inherited, local) => joined(inherited.notes, local.notes),
  preamble: (inherited, local) => joined(inherited.preamble, local.preamble),
  title: (inherited, local) => local.title ?? inherited.title,
  source: (_, local) => local.source,
  text: (_, local) => local.text,
  // The caller's: both depend on every rubric merged, not on these two alone.
  hash: (_, local) => local.hash,
  extends: (_, local) => local.extends,
  // Which rubric of the repository this is, and what it is about, are the repository's.
  name: (_, local) => local.name,
  scope: (_, local) => local.scope,
  inherited: () => undefined
}

/**
 * The rubric `local` makes of the one it extends (`inherited`): every field by `MERGE`. `set` is
 * the local front matter, to tell a setting it gives from a default.
 */
export function mergeRubrics(inherited: Rubric, local: Rubric, set: SetKeys): Rubric {
  const merged = Object.fromEntries(
    Object.entries(MERGE).flatMap(([key, merge]) => {
      const value = (merge as Merge<keyof Rubric>)(inherited, local, set)
      return value === undefined ? [] : [[key, value]]
    })
  ) as unknown as Rubric
  const hasAccuracy = merged.dimensions.some(d => d.name === 'accuracy')
  const ceiling =
    set.accuracy_ceiling ??
    (inherited.dimensions.some(d => d.name === 'accuracy') ? inherited.accuracyCeiling : true)
  return { ...merged, accuracyCeiling: hasAccuracy && ceiling }
}

/**
 * Every inherited rule the merged rubric no longer has as inherited, in the words of the rubric
 * diff: items the extending file replaced, settings it set. Its own additions are not overrides.
 * Any change to an inherited must-have weakens: the owner of the inherited rubric made it binding.
 */
export function overridesOf(inherited: Rubric, merged: Rubric): RubricChange[] {
  const mine = new Map(merged.criteria.map(c => [c.id.toLowerCase(), c]))
  const criteria = inherited.criteria.flatMap(c => {
    const now = mine.get(c.id.toLowerCase())
    if (now === undefined) return []
    return criterionChanges(c, now).map(change => ({
      text: change.text,
      weakens: change.weakens || c.required
    }))
  })
  const commands = new Set(inherited.gates.map(g => g.command))
  const names = new Set(inherited.dimensions.map(d => d.name))
  const areas = new Set(inherited.focus.map(f => f.area))
  const rest = diffRubrics(
    { ...inherited, criteria: [] },
    {
      ...merged,
      criteria: [],
      gates: merged.gates.filter(g => commands.has(g.command)),
      dimensions: merged.dimensions.filter(d => names.has(d.name)),
      focus: merged.focus.filter(f => areas.has(f.area)),
      hash: inherited.hash,
      extends: inherited.extends
    }
  )
  return [...criteria, ...rest.changes]
}

/** `inherited`'s items in order, each replaced by `local`'s of the same key, then `local`'s others. */
function byKey<T>(inherited: readonly T[], local: readonly T[], key: (item: T) => string): T[] {
  const replacing = new Map(local.map(item => [key(item), item]))
  const kept = inherited.map(item => replacing.get(key(item)) ?? item)
  const known = new Set(inherited.map(key))
  return [...kept, ...local.filter(item => !known.has(key(item)))]
}

function normalised(dimensions: readonly Dimension[]): Dimension[] {
  const total = dimensions.reduce((sum, d) => sum + d.weight, 0)
  return dimensions.map(d => ({ ...d, normalisedWeight: d.weight / total }))
}

function joined(...parts: string[]): string {
  return parts.filter(part => part !== '').join('\n\n')
}
