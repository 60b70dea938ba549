import type { Rubric } from './types.js'

/** "2 gates, 3 must-have, 2 nice-to-have, 5 dimensions, hash 45b0a0cdf746" */
export function describeRubric(rubric: Rubric): string {
  const must = rubric.criteria.filter(c => c.required).length
  const parts = [
    plural(rubric.gates.length, 'gate'),
    `${must} must-have`,
    `${rubric.criteria.length - must} nice-to-have`,
    plural(rubric.dimensions.length, 'dimension'),
    `hash ${rubric.hash}`
  ]
  return parts.join(', ')
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}
