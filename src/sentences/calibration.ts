import type { Measured, Shortfall, Staleness, Standing } from '../verdict/calibration.js'

// What the reports say of a must-have under `calibration: required`: whether it blocks, why not.

/** A share as the record's figures are compared: two decimals ("0.62"); "n/a" when not measured. */
function share(value: number | null): string {
  return value === null ? 'n/a' : value.toFixed(2)
}

function casesOf(measured: Measured | undefined): string {
  const n = measured === undefined ? 0 : measured.cases.pass + measured.cases.fail
  return `${n} case${n === 1 ? '' : 's'}`
}

function shortfallText(shortfall: Shortfall, measured: Measured | undefined): string {
  const on = `on ${casesOf(measured)}`
  switch (shortfall.code) {
    case 'precision':
      return shortfall.value === null
        ? `precision not measured ${on}`
        : `precision ${share(shortfall.value)} < ${share(shortfall.min)} ${on}`
    case 'flip':
      return shortfall.value === null
        ? `flip not measured ${on}`
        : `flip ${share(shortfall.value)} > ${share(shortfall.max)} ${on}`
    case 'few_cases':
      return `${measured?.cases.pass ?? 0} cases labelled PASS and ${measured?.cases.fail ?? 0} labelled FAIL, fewer than ${shortfall.min} of each`
    case 'recorded':
      return shortfall.reason
  }
}

const STALE: Readonly<Record<Staleness, string>> = {
  text: "the criterion's text changed",
  council: 'the council changed',
  prompt: 'the prompt changed',
  evidence: 'the order of the files shown changed (evidence-order)'
}

/**
 * Why a must-have advises instead of blocking ("advisory: precision 0.62 < 0.90 on 18 cases"), or
 * that it blocks ("blocks: calibrated").
 */
export function standingSentence(standing: Standing): string {
  if (standing.blocks) return 'blocks: calibrated'
  const { cause } = standing
  switch (cause.code) {
    case 'advise':
      return `advisory: ${shortfallText(cause.shortfall, standing.measured)}`
    case 'not_calibrated':
      return 'advisory: not calibrated'
    case 'record_broken':
      return `advisory: not calibrated, the calibration record ${cause.path} is not valid: ${cause.problems[0] ?? 'unreadable'}`
    case 'stale':
      return `advisory: calibration stale, ${STALE[cause.changed]}`
  }
}

/**
 * What the record measured: "precision 0.95, flip 0.05, 20 cases (10 PASS, 10 FAIL), recorded
 * 2026-12-01", less what the shortfall `said` already (its figure and the number of cases).
 */
function measuredSentence(measured: Measured, said: Shortfall['code'] | undefined): string {
  const { pass, fail } = measured.cases
  const counted = said === 'precision' || said === 'flip'
  return [
    said !== 'precision' && `precision ${share(measured.precision)}`,
    said !== 'flip' && `flip ${share(measured.flip)}`,
    counted ? `${pass} PASS and ${fail} FAIL` : `${casesOf(measured)} (${pass} PASS, ${fail} FAIL)`,
    `recorded ${measured.recorded.slice(0, 10)}`
  ]
    .filter(part => part !== false)
    .join(', ')
}

/** The standing and the figures behind it, as one line. */
export function calibrationLine(standing: Standing): string {
  if (standing.measured === undefined) return standingSentence(standing)
  const said =
    !standing.blocks && standing.cause.code === 'advise' ? standing.cause.shortfall.code : undefined
  return `${standingSentence(standing)} (${measuredSentence(standing.measured, said)})`
}

/** The check run's count: "Advisory must-haves: 1 of 3 (calibration: required)". */
export function advisoryCount(advisory: number, must: number): string {
  return `Advisory must-haves: ${advisory} of ${must} (calibration: required)`
}
