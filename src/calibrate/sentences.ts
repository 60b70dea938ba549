/** Why a criterion may not block yet, or why it may: the facts, no words. */
export type RecommendationFact =
  | { readonly code: 'no_fail_labelled' }
  | { readonly code: 'no_fail_predicted'; readonly runs: number }
  | { readonly code: 'low_precision'; readonly precision: number; readonly min: number }
  | { readonly code: 'flip_unmeasured'; readonly repeat: number }
  | { readonly code: 'high_flip'; readonly flip: number; readonly max: number }
  | {
      readonly code: 'few_labelled'
      readonly pass: number
      readonly fail: number
      readonly min: number
    }
  | {
      readonly code: 'measured'
      readonly precision: number
      readonly flip: number
      readonly pass: number
      readonly fail: number
    }

/** A share as a whole percentage; "not measured" is never a number. */
export function percent(value: number | null): string {
  return value === null ? 'n/a' : `${Math.round(value * 100)}%`
}

/** The words of each fact: the reason a calibration report gives for its recommendation. */
export function recommendationSentence(fact: RecommendationFact): string {
  switch (fact.code) {
    case 'no_fail_labelled':
      return 'no case is labelled FAIL for it, so its FAILs cannot be checked'
    case 'no_fail_predicted':
      return `the judges never answered FAIL in ${fact.runs} labelled runs: precision is not measured, not perfect`
    case 'low_precision':
      return `precision ${percent(fact.precision)} is below ${percent(fact.min)}: a FAIL is wrong too often to block`
    case 'flip_unmeasured':
      return `flip is not measured with --repeat ${fact.repeat}: repeat each case at least twice`
    case 'high_flip':
      return `flip ${percent(fact.flip)} is above ${percent(fact.max)}: the same pull request gets different answers`
    case 'few_labelled':
      return `${fact.pass} cases labelled PASS and ${fact.fail} labelled FAIL; at least ${fact.min} of each are needed`
    case 'measured':
      return `precision ${percent(fact.precision)}, flip ${percent(fact.flip)}, on ${fact.pass} cases labelled PASS and ${fact.fail} labelled FAIL`
  }
}

/** The recommendation's reason: every condition not met, or the figures that meet them all. */
export function recommendationReason(facts: readonly RecommendationFact[]): string {
  const [first, ...rest] = facts.map(recommendationSentence)
  const text = [first, ...rest].join('; ')
  return text.charAt(0).toUpperCase() + text.slice(1)
}
