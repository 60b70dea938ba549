import { BUILT_IN_DIMENSIONS, GENERIC_ANCHORS } from './defaults.js'
import type { AtPath } from './errors.js'
import type { CheckedFrontMatter } from './front-matter.js'
import { own } from './own.js'
import type { Dimension } from './types.js'

/** The rubric's dimensions: the built-in ones, or those the front matter names, weights normalised. */

export function buildDimensions(
  raw: CheckedFrontMatter['values']['dimensions'],
  hasCriteria: boolean,
  atPath: AtPath,
  failed: (...fields: string[]) => boolean
): Dimension[] {
  let entries: { name: string; weight: number; description: string; builtIn: boolean }[]
  if (raw === false || (raw === undefined && !hasCriteria)) return []
  if (raw === undefined || raw === true || raw === 'default') {
    entries = Object.entries(BUILT_IN_DIMENSIONS).map(([name, d]) => ({
      name,
      ...d,
      builtIn: true
    }))
  } else {
    entries = []
    if (Object.keys(raw).length === 0) {
      atPath(
        ['dimensions'],
        'dimension',
        'dimensions is an empty map; write dimensions: false to turn them off'
      )
    }
    for (const [name, value] of Object.entries(raw)) {
      const builtIn = own(BUILT_IN_DIMENSIONS, name)
      const given = typeof value === 'number' ? { weight: value } : value
      const weight = given.weight ?? builtIn?.weight
      const description = given.description ?? builtIn?.description
      if (description === undefined) {
        if (failed(`dimensions.${name}.description`)) continue
        atPath(
          ['dimensions', name],
          'dimension',
          `dimension "${name}" is not built in, so it needs a description: { weight: 10, description: "…" } ` +
            `(built in: ${Object.keys(BUILT_IN_DIMENSIONS).join(', ')})`,
          'key'
        )
        continue
      }
      if (weight === undefined) {
        if (failed(`dimensions.${name}.weight`)) continue
        atPath(['dimensions', name], 'weight', `dimension "${name}" needs a weight`, 'key')
        continue
      }
      entries.push({ name, weight, description, builtIn: builtIn !== undefined })
    }
  }
  const total = entries.reduce((sum, e) => sum + e.weight, 0)
  return entries.map(({ name, weight, description }) => ({
    name,
    description,
    weight,
    normalisedWeight: weight / total,
    anchors: own(BUILT_IN_DIMENSIONS, name)?.anchors ?? GENERIC_ANCHORS
  }))
}
