import { expect } from 'vitest'
import { TIER, type EvidenceInput } from '../../src/evidence/build.js'
import { countTokens } from '../../src/evidence/tokens.js'
import type { Evidence } from '../../src/evidence/types.js'

/**
 * The evidence budget's documented invariants (docs/council.md#evidence), checked against what
 * `buildEvidence` returned for `input`. Nothing here recomputes the budget: each check is a
 * sentence of the documentation, read against the evidence and the input's own files.
 */

/** The size the docs say the budget orders files by: the UTF-8 bytes of the patch in the diff. */
export function patchBytes(file: { readonly patch?: string }): number {
  return Buffer.byteLength(file.patch ?? '')
}

const OVER = /^more than ([\d,]+) tokens; ([\d,]+) left in the budget$/
const AFTER = /^not tried: (.+) did not fit and is no larger$/
const UNLISTED = 'not tried: the file list is full'
const SPENT = 'not tried: the title, description and file list fill the budget'

const number = (text: string | undefined): number => Number((text ?? '').replace(/,/g, ''))

/** Every documented invariant of the budget, the receipt and coverage. */
export function expectBudgetInvariants(input: EvidenceInput, evidence: Evidence): void {
  expectEveryPathAccounted(input, evidence)
  expectWithinBudget(evidence)
  expectTierOrder(input, evidence)
  expectTrueBudgetDetails(input, evidence)
  expectCoverage(input, evidence)
}

/** Each changed file is reviewed or omitted exactly once, and listed or counted as unlisted. */
function expectEveryPathAccounted(input: EvidenceInput, evidence: Evidence): void {
  const { receipt } = evidence
  const paths = input.files.map(f => f.path)
  const accounted = [...receipt.reviewed.map(r => r.path), ...receipt.omitted.map(o => o.path)]
  expect([...accounted].sort()).toEqual([...paths].sort())
  expect(evidence.files.length + evidence.unlisted).toBe(input.files.length)
  const reviewed = new Set(receipt.reviewed.map(r => r.path))
  for (const file of evidence.files) {
    // Only a reviewed file keeps a patch: what was not shown is not reachable either.
    expect(file.patch !== undefined).toBe(reviewed.has(file.path))
  }
  const sent = receipt.reviewed.map(r => evidence.files.find(f => f.path === r.path)?.patch ?? '')
  expect(evidence.diff).toBe(sent.map(p => (p.endsWith('\n') ? p : `${p}\n`)).join(''))
  // Every changed path and every path a file was renamed or copied from, each once.
  const changed = input.files.flatMap(f =>
    f.previousPath === undefined ? [f.path] : [f.path, f.previousPath]
  )
  expect([...evidence.changed].sort()).toEqual([...new Set(changed)].sort())
}

/** Never over the budget, unless the title, description and file list alone exceed it. */
function expectWithinBudget(evidence: Evidence): void {
  const { receipt } = evidence
  if (receipt.reviewed.length > 0) {
    expect(receipt.usedTokens).toBeLessThanOrEqual(receipt.budgetTokens)
  }
  let patches = 0
  for (const r of receipt.reviewed) {
    const patch = evidence.files.find(f => f.path === r.path)?.patch ?? ''
    // A reviewed file costs at least its patch as sent (and its redaction note, if any).
    expect(r.tokens).toBeGreaterThanOrEqual(countTokens(patch))
    patches += r.tokens
  }
  expect(receipt.usedTokens).toBeGreaterThanOrEqual(
    countTokens(evidence.pr.title) + countTokens(evidence.pr.body) + patches
  )
}

/**
 * Shown tier by tier, in the diff's order within a tier (so a file keeps its place when a push
 * changes its size, and the prompt caches serve the diff up to it); within a tier, the files sent have smaller patches in
 * bytes (the diff's order breaking ties) than every listed file of that tier left out for the
 * budget, and at most one file of a tier was tried and did not fit.
 */
function expectTierOrder(input: EvidenceInput, evidence: Evidence): void {
  const { reviewed, omitted } = evidence.receipt
  for (let i = 1; i < reviewed.length; i++) {
    const a = reviewed[i - 1]
    const b = reviewed[i]
    if (!a || !b) continue
    expect(TIER[a.kind]).toBeLessThanOrEqual(TIER[b.kind])
    const at = (path: string): number => input.files.findIndex(f => f.path === path)
    if (TIER[a.kind] === TIER[b.kind]) expect(at(a.path)).toBeLessThan(at(b.path))
  }
  const position = (path: string): { tier: number; bytes: number; index: number } => {
    const index = input.files.findIndex(f => f.path === path)
    const kind = evidence.files.find(f => f.path === path)?.kind
    expect(kind).toBeDefined()
    return { tier: TIER[kind ?? 'binary'], bytes: patchBytes(input.files[index] ?? {}), index }
  }
  const listed = new Set(evidence.files.map(f => f.path))
  const leftOut = omitted
    .filter(o => o.reason === 'budget' && listed.has(o.path))
    .map(o => position(o.path))
  for (const r of reviewed) {
    const sent = position(r.path)
    for (const out of leftOut) {
      if (out.tier !== sent.tier) continue
      expect(sent.bytes < out.bytes || (sent.bytes === out.bytes && sent.index < out.index)).toBe(
        true
      )
    }
  }
  const tried = omitted.filter(o => OVER.test(o.detail)).map(o => position(o.path).tier)
  expect(new Set(tried).size).toBe(tried.length)
}

/** Each budget omission's detail says only what is true of the file. */
function expectTrueBudgetDetails(input: EvidenceInput, evidence: Evidence): void {
  const { receipt } = evidence
  const bytes = (path: string): number => patchBytes(input.files.find(f => f.path === path) ?? {})
  const left = Math.max(0, receipt.budgetTokens - receipt.usedTokens)
  const listed = new Map(evidence.files.map(f => [f.path, f]))
  for (const o of receipt.omitted) {
    if (o.reason !== 'budget') continue
    expect(o.counts).toBe(true)
    const over = OVER.exec(o.detail)
    const after = AFTER.exec(o.detail)
    if (over) {
      expect(number(over[2])).toBe(left)
      expect(number(over[1])).toBeGreaterThanOrEqual(left)
      expect(listed.has(o.path)).toBe(true)
    } else if (after) {
      const misfit = listed.get(after[1] ?? '')
      const file = listed.get(o.path)
      expect(misfit).toBeDefined()
      expect(file).toBeDefined()
      if (!misfit || !file) continue
      expect(receipt.omitted.find(m => m.path === misfit.path)?.detail).toMatch(OVER)
      expect(TIER[misfit.kind]).toBe(TIER[file.kind])
      expect(bytes(misfit.path)).toBeLessThanOrEqual(bytes(file.path))
    } else if (o.detail === UNLISTED) {
      expect(listed.has(o.path)).toBe(false)
    } else {
      expect(o.detail).toBe(SPENT)
      expect(receipt.usedTokens).toBeGreaterThan(receipt.budgetTokens)
    }
  }
}

/**
 * Coverage is the share of reviewable files shown. Only media and what the base rubric's
 * `exclude` waives do not count; every other file not shown does.
 */
function expectCoverage(input: EvidenceInput, evidence: Evidence): void {
  const { receipt } = evidence
  for (const o of receipt.omitted) {
    if (!o.counts) expect(['media', 'excluded']).toContain(o.reason)
    if (o.reason === 'excluded' && !o.counts) {
      expect(input.exclude.waived.some(glob => o.detail.includes(glob))).toBe(true)
    }
  }
  const reviewable = receipt.reviewed.length + receipt.omitted.filter(o => o.counts).length
  expect(receipt.reviewable).toBe(reviewable)
  expect(receipt.ratio).toBe(reviewable === 0 ? 1 : receipt.reviewed.length / reviewable)
}
