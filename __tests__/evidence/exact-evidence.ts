import { expect } from 'vitest'
import {
  LIST_SHARE,
  buildEvidence,
  changedPaths,
  fileListLine,
  listedFile,
  redactFile,
  redactionLine,
  reviewableCount,
  ruledOut,
  unlistedLine,
  type EvidenceInput,
  type ListedFile
} from '../../src/evidence/build.js'
import { classify } from '../../src/evidence/classify.js'
import { countTokens } from '../../src/evidence/tokens.js'
import type {
  ChangedFile,
  Evidence,
  FileKind,
  Omission,
  Redaction
} from '../../src/evidence/types.js'
import { formatCount } from '../../src/util/format-count.js'

/**
 * The oracles of the evidence budget's property tests (budget.test.ts): the exact algorithm that
 * `buildEvidence` used before the budget stopped counting every patch (commit a8fd2a2), kept here
 * as it was, and the documented rule computed the slow way, every patch redacted and counted.
 */

/** The budget's tiers, as docs/council.md lists them. */
export const TIER: Readonly<Record<FileKind, number>> = {
  source: 0,
  test: 0,
  config: 1,
  docs: 1,
  generated: 2,
  lockfile: 3,
  vendored: 4,
  media: 5,
  binary: 5
}

/** The tokens a file's patch costs when it is sent: redacted, with its redaction note. */
export function sentTokens(file: ChangedFile): { tokens: number; redaction?: Redaction } {
  const { patch, redaction } = redactFile(file)
  if (redaction === undefined) return { tokens: countTokens(patch) }
  return { tokens: countTokens(patch) + countTokens(redactionLine(redaction)), redaction }
}

/** The size the budget orders files by: the UTF-8 bytes of the patch in the diff. */
export function patchBytes(file: ChangedFile): number {
  return Buffer.byteLength(file.patch ?? '')
}

function withPatch(file: ListedFile, patch: string | undefined): ListedFile {
  return {
    path: file.path,
    ...(file.previousPath === undefined ? {} : { previousPath: file.previousPath }),
    status: file.status,
    additions: file.additions,
    deletions: file.deletions,
    ...(patch === undefined ? {} : { patch }),
    binary: file.binary,
    kind: file.kind
  }
}

interface Candidate {
  readonly index: number
  readonly file: ListedFile
  readonly patch: string
  readonly tokens: number
  readonly bytes: number
  readonly redaction: Redaction | undefined
}

/**
 * Both algorithms, every patch redacted and counted. `before`: the algorithm before this change,
 * as it was: files ordered by their exact tokens within a tier, every listed file tried.
 * `rule`: the documented rule: ordered by the patch's bytes, each tier taken until a file does not
 * fit. Budget omissions get the old detail (`N tokens; M left in the budget`) in both.
 */
function evidenceBy(input: EvidenceInput, algorithm: 'before' | 'rule'): Evidence {
  const budget = Number.isFinite(input.maxTokens) ? Math.max(0, Math.floor(input.maxTokens)) : 0
  // The title and body are not what changed: taken from buildEvidence with no files.
  const { title, body } = buildEvidence({ ...input, files: [] }).pr

  // What is ruled out before the budget is not what this oracle is about: the same rules.
  const media = input.media ?? new Map<string, string>()
  const listed: ListedFile[] = input.files.map(file => listedFile(file, media))
  const omitted: { index: number; omission: Omission }[] = []
  const candidates: Candidate[] = []
  listed.forEach((file, index) => {
    const omission = ruledOut(file, input.exclude, media)
    if (omission !== undefined) {
      omitted.push({ index, omission })
      return
    }
    const { patch, redaction } = redactFile(file)
    candidates.push({
      index,
      file,
      patch,
      tokens: countTokens(patch) + (redaction ? countTokens(redactionLine(redaction)) : 0),
      bytes: patchBytes(file),
      redaction
    })
  })
  const byPriority = (a: Candidate, b: Candidate): number =>
    TIER[a.file.kind] - TIER[b.file.kind] ||
    (algorithm === 'before' ? a.tokens - b.tokens : a.bytes - b.bytes) ||
    a.index - b.index

  const byImportance = [
    ...[...candidates].sort(byPriority).map(c => c.index),
    ...omitted.map(o => o.index)
  ]
  const listBudget = Math.floor(budget * LIST_SHARE)
  const inList = new Set<number>()
  let listTokens = 0
  for (const index of byImportance) {
    const file = listed[index]
    if (!file) continue
    const cost = countTokens(fileListLine(file, 'denylisted'))
    if (listTokens + cost > listBudget) break
    inList.add(index)
    listTokens += cost
  }
  const unlisted = listed.length - inList.size
  const fixed =
    countTokens(title) +
    countTokens(body) +
    listTokens +
    (unlisted > 0 ? countTokens(unlistedLine(unlisted)) : 0)
  let used = fixed
  const included: Candidate[] = []
  const leftOut: Candidate[] = []
  const stopped = new Set<number>()
  for (const candidate of [...candidates].sort(byPriority)) {
    const tier = TIER[candidate.file.kind]
    const fits = inList.has(candidate.index) && used + candidate.tokens <= budget
    if (fits && !stopped.has(tier)) {
      included.push(candidate)
      used += candidate.tokens
    } else {
      leftOut.push(candidate)
      if (algorithm === 'rule' && inList.has(candidate.index)) stopped.add(tier)
    }
  }
  const left = Math.max(0, budget - used)
  for (const { index, file, tokens } of leftOut) {
    omitted.push({
      index,
      omission: {
        path: file.path,
        reason: 'budget',
        detail: `${formatCount(tokens)} tokens; ${formatCount(left)} left in the budget`,
        counts: true
      }
    })
  }
  // The rule shows what it took as the old algorithm did: tier by tier, fewest tokens first.
  const shown = [...included].sort(
    (a, b) => TIER[a.file.kind] - TIER[b.file.kind] || a.tokens - b.tokens || a.index - b.index
  )
  const sentPatches = new Map(shown.map(c => [c.index, c.patch]))
  const reviewable = reviewableCount(candidates.length, omitted)
  return {
    pr: { title, body },
    files: listed.flatMap((file, index) =>
      inList.has(index) ? [withPatch(file, sentPatches.get(index))] : []
    ),
    unlisted,
    changed: changedPaths(input.files),
    diff: shown.map(c => (c.patch.endsWith('\n') ? c.patch : `${c.patch}\n`)).join(''),
    receipt: {
      reviewed: shown.map(c => ({ path: c.file.path, kind: c.file.kind, tokens: c.tokens })),
      omitted: omitted.sort((a, b) => a.index - b.index).map(o => o.omission),
      redacted: shown.flatMap(c => (c.redaction === undefined ? [] : [c.redaction])),
      reviewable,
      ratio: reviewable === 0 ? 1 : included.length / reviewable,
      budgetTokens: budget,
      usedTokens: used
    }
  }
}

/** The evidence as the exact algorithm chose it before: every candidate patch counted. */
export function exactEvidence(input: EvidenceInput): Evidence {
  return evidenceBy(input, 'before')
}

/** The documented rule, computed with every patch redacted and counted. */
export function ruleEvidence(input: EvidenceInput): Evidence {
  return evidenceBy(input, 'rule')
}

/** The evidence with the details of budget omissions blanked: what two algorithms may word apart. */
export function withoutBudgetDetails(evidence: Evidence): Evidence {
  return {
    ...evidence,
    receipt: {
      ...evidence.receipt,
      omitted: evidence.receipt.omitted.map(o => (o.reason === 'budget' ? { ...o, detail: '' } : o))
    }
  }
}

const OVER = /^more than ([\d,]+) tokens; ([\d,]+) left in the budget$/
const AFTER = /^not tried: (.+) did not fit and is no larger$/
const UNLISTED = 'not tried: the file list is full'
const SPENT = 'not tried: the title, description and file list fill the budget'

const number = (text: string | undefined): number => Number((text ?? '').replace(/,/g, ''))

/**
 * Every statement of the receipt is true of the files: each file is reviewed or omitted exactly
 * once, a reviewed file's tokens are what its redacted patch and note cost, and each budget
 * omission's detail holds when checked against exact counts.
 */
export function expectTrueReceipt(input: EvidenceInput, evidence: Evidence): void {
  const { receipt } = evidence
  const byPath = new Map(input.files.map(f => [f.path, { ...f, kind: classify(f) }]))
  const accounted = [...receipt.reviewed.map(r => r.path), ...receipt.omitted.map(o => o.path)]
  expect([...accounted].sort()).toEqual(input.files.map(f => f.path).sort())
  for (const r of receipt.reviewed) {
    const file = byPath.get(r.path)
    expect(file).toBeDefined()
    if (file) expect(r.tokens).toBe(sentTokens(file).tokens)
  }
  const left = Math.max(0, receipt.budgetTokens - receipt.usedTokens)
  const listed = new Set(evidence.files.map(f => f.path))
  for (const o of receipt.omitted) {
    if (o.reason !== 'budget') continue
    const file = byPath.get(o.path)
    expect(file).toBeDefined()
    if (!file) continue
    const over = OVER.exec(o.detail)
    const after = AFTER.exec(o.detail)
    if (over) {
      const limit = number(over[1])
      expect(number(over[2])).toBe(left)
      expect(limit).toBeGreaterThanOrEqual(left)
      expect(sentTokens(file).tokens).toBeGreaterThan(limit)
      expect(listed.has(o.path)).toBe(true)
    } else if (after) {
      const misfit = byPath.get(after[1] ?? '')
      expect(misfit).toBeDefined()
      if (!misfit) continue
      expect(receipt.omitted.find(m => m.path === misfit.path)?.detail).toMatch(OVER)
      expect(TIER[misfit.kind]).toBe(TIER[file.kind])
      expect(patchBytes(misfit)).toBeLessThanOrEqual(patchBytes(file))
      expect(listed.has(o.path)).toBe(true)
    } else if (o.detail === UNLISTED) {
      expect(listed.has(o.path)).toBe(false)
    } else {
      expect(o.detail).toBe(SPENT)
      expect(receipt.usedTokens).toBeGreaterThan(receipt.budgetTokens)
    }
  }
}
