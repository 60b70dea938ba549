import type { LedgerPull, ProposedCase } from './propose.js'
import type { CalibrationRecord } from './record.js'
import type { RunProgress } from './run.js'

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
  | { readonly code: 'ungraded'; readonly runs: number }
  | { readonly code: 'flip_partial'; readonly measured: number; readonly cases: number }
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

/**
 * `value` beside the threshold it missed, each as a percentage, with a decimal where whole ones
 * would read the same ("89.7% is below 90%", never "90% is below 90%").
 */
function against(value: number, threshold: number): [string, string] {
  if (percent(value) !== percent(threshold)) return [percent(value), percent(threshold)]
  const tenth = (share: number): string => `${String(Math.round(share * 1000) / 10)}%`
  return [tenth(value), tenth(threshold)]
}

/** The words of each fact: the reason a calibration report gives for its recommendation. */
export function recommendationSentence(fact: RecommendationFact): string {
  switch (fact.code) {
    case 'no_fail_labelled':
      return 'no case is labelled FAIL for it, so its FAILs cannot be checked'
    case 'no_fail_predicted':
      return `the judges never answered FAIL in ${fact.runs} labelled runs: precision is not measured, not perfect`
    case 'low_precision': {
      const [precision, min] = against(fact.precision, fact.min)
      return `precision ${precision} is below ${min}: a FAIL is wrong too often to block`
    }
    case 'flip_unmeasured':
      return `flip is not measured with --repeat ${fact.repeat}: repeat each case at least twice`
    case 'high_flip': {
      const [flip, max] = against(fact.flip, fact.max)
      return `flip ${flip} is above ${max}: the same pull request gets different answers`
    }
    case 'ungraded':
      return `${fact.runs} runs ended without the judges grading it (each run's line says why): those runs measure nothing`
    case 'flip_partial':
      return `flip is measured on ${fact.measured} of ${fact.cases} cases: every case needs at least two completed runs`
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

/**
 * A completed run's progress line: `[3/12] case 1/4 "name", run 1/3: PASS (expected PASS), 2.1 s`,
 * then `why`, what an UNCLEAR run's first reason says.
 */
export function runLine(run: RunProgress, why: string): string {
  return `[${run.done}/${run.planned}] case ${run.index + 1}/${run.cases} "${run.case.name}", run ${run.repeat}/${run.repeats}: ${run.evaluation.verdict.verdict} (expected ${run.case.expect}), ${run.seconds.toFixed(1)} s${why}`
}

/** On stderr once the record is written: where, and what it recommends. */
export function recordWritten(path: string, record: CalibrationRecord): string {
  const blocking = record.criteria.filter(c => c.recommendation === 'block').map(c => c.id)
  const which = blocking.length === 0 ? 'none may block' : `may block: ${blocking.join(', ')}`
  return `rubric-council: wrote the calibration record ${path}: ${record.criteria.length} criteria, ${which}`
}

/** Why `--record` wrote nothing: what was measured cannot stand for the criteria. */
export function recordNotWritten(why: 'interrupted' | 'unjudged'): string {
  return why === 'interrupted'
    ? 'rubric-council: the calibration record is not written: an interrupted calibration measured only some runs'
    : 'rubric-council: the calibration record is not written: no judge answered'
}

/** On stderr when the set has proposed cases nobody confirmed: they are not measured. */
export function unconfirmedLeftOut(setPath: string, cases: readonly { line: number }[]): string {
  const lines = cases.map(c => c.line).join(', ')
  return `rubric-council: ${setPath}: left out ${cases.length} unconfirmed case${cases.length === 1 ? '' : 's'} (line${cases.length === 1 ? '' : 's'} ${lines}): check each one's labels, then set its confirmed: true`
}

/** On stderr when `--propose` read nothing of GitHub: `why`, and what the set lacks for it. */
export function ledgerNotRead(why: string): string {
  return `rubric-council: not read from GitHub: ${why}; the set has the history's cases only, without the waivers, acceptances and reverted merges of the closed pull requests`
}

/**
 * What `--propose` wrote: how many cases, what it read of the closed pull requests on GitHub
 * (`ledger`; undefined when nothing could be read), and that none counts yet.
 */
export function proposedLine(
  path: string,
  cases: readonly ProposedCase[],
  ledger: readonly LedgerPull[] | undefined
): string {
  const fails = cases.filter(c => c.expect === 'FAIL').length
  const waivers = ledger?.reduce((sum, pull) => sum + pull.waivers.length, 0)
  const acceptances = ledger?.filter(pull => pull.acceptance !== undefined).length
  const read =
    ledger === undefined
      ? ''
      : ` Read ${ledger.length} closed pull requests on GitHub: ${waivers} waivers, ${acceptances} acceptances.`
  return `wrote ${path}: ${cases.length} proposed cases, ${cases.length - fails} expect PASS and ${fails} FAIL (reverted later).${read} None counts until you check its labels and set confirmed: true; then run rubric-council calibrate.`
}

/**
 * None of the closed pull requests read has the action's comment for `checkName`: the workflow may
 * give the action another check-name, or post as another account.
 */
export function noLedgerComment(pulls: number, checkName: string, author: string): string {
  return `none of the ${pulls} closed pull requests read has Rubric Council's comment for check "${checkName}" by ${author}: no waiver or acceptance was read. If the workflow sets check-name, pass it as --check-name; if it gives the action a GitHub App's token, pass the app's account (<app-slug>[bot]) as --comment-author`
}

/** A `--comment-author` that is no GitHub account's login. */
export function notALogin(login: string): string {
  return `--comment-author ${JSON.stringify(login)} is not a GitHub login (letters, digits and single hyphens, at most 39, not starting or ending with a hyphen; an app's account ends in [bot])`
}
