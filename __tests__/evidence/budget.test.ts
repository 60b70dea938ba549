import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildEvidence, type EvidenceInput } from '../../src/evidence/build.js'
import { classify } from '../../src/evidence/classify.js'
import { parseUnifiedDiff } from '../../src/evidence/diff.js'
import {
  TIER,
  exactEvidence,
  expectTrueReceipt,
  patchBytes,
  ruleEvidence,
  sentTokens,
  withoutBudgetDetails
} from './exact-evidence.js'
import { newFile } from './patch-text.js'

// The evidence budget against its oracles (exact-evidence.ts): the exact algorithm it replaced,
// which counted every patch, and the documented rule computed with every patch counted.

/** Paths of each kind, numbered so that they are unique. */
const PATHS: readonly ((i: number) => string)[] = [
  i => `src/f${i}.ts`,
  i => `src/f${i}.test.ts`,
  i => `docs/p${i}.md`,
  i => `conf/c${i}.yml`,
  i => `dist/b${i}.js`,
  i => `l${i}/yarn.lock`,
  i => `vendor/v${i}.js`,
  i => `gen/g${i}.ts`, // excluded in some runs
  i => `.env.${i}` // denylisted
]

// Built by concatenation so this file holds no complete secret-looking literal.
const AWS_KEY = 'AKIA' + 'ZZZZYYYYXXXXWWWW'

/** Lines whose bytes and tokens stand in very different ratios, secrets and markers included. */
const line = fc.oneof(
  fc.constantFrom(
    'const value = compute(1, "x")',
    `${' '.repeat(40)}x`,
    '='.repeat(60),
    '東京都庁舎の検索',
    '👩‍💻🏳️‍🌈',
    '0123456789012345',
    'aZ9qX7vB2mK8wQ4e',
    '',
    `const id = "${AWS_KEY}"`,
    `password = "${'hunter2' + 'hunter2'}"`,
    '// @generated'
  ),
  fc.string({ maxLength: 20 }).map(text => text.replace(/\n/g, ' '))
)

/** A modified file's section with one hunk per entry, lines alternately added and removed. */
function modifiedFile(path: string, hunks: readonly (readonly string[])[]): string {
  const out = [
    `diff --git a/${path} b/${path}`,
    'index 1111111..2222222 100644',
    `--- a/${path}`,
    `+++ b/${path}`
  ]
  hunks.forEach((lines, h) => {
    const at = 1 + h * 50
    out.push(
      `@@ -${at},${lines.length} +${at},${lines.length} @@`,
      ...lines.map((text, j) => `${j % 2 === 0 ? '+' : '-'}${text}`)
    )
  })
  return `${out.join('\n')}\n`
}

function binaryFile(path: string): string {
  return `diff --git a/${path} b/${path}\nindex 0000000..1111111\nBinary files a/${path} and b/${path} differ\n`
}

const section = fc.record({
  kind: fc.integer({ min: 0, max: PATHS.length - 1 }),
  shape: fc.constantFrom('added', 'modified', 'binary'),
  hunks: fc.array(fc.array(line, { maxLength: 25 }), { minLength: 1, maxLength: 3 })
})

/** Any set of changed files, budget and PR text. */
const anyInput: fc.Arbitrary<EvidenceInput> = fc
  .record({
    sections: fc.array(section, { maxLength: 20 }),
    budget: fc.oneof(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 5000 })),
    title: fc.string({ maxLength: 30 }),
    body: fc.string({ maxLength: 400 }),
    excludeGen: fc.boolean()
  })
  .map(({ sections, budget, title, body, excludeGen }) => {
    const diff = sections
      .map(({ kind, shape, hunks }, i) => {
        const path = (PATHS[kind] ?? PATHS[0])?.(i) ?? `f${i}`
        if (shape === 'binary') return binaryFile(path)
        if (shape === 'added') return newFile(path, hunks.flat())
        return modifiedFile(path, hunks)
      })
      .join('')
    return {
      files: parseUnifiedDiff(diff),
      pr: { title, body },
      exclude: { waived: excludeGen ? ['gen'] : [], unwaived: [] },
      maxTokens: budget
    }
  })

/** Same-length paths in each tier: source, docs, generated, lockfiles, vendored. */
const TIER_PATHS: readonly ((i: string) => string)[] = [
  i => `src/f${i}.ts`,
  i => `doc/f${i}.md`,
  i => `out/f${i}.js`,
  i => `l/f${i}.lock`,
  i => `vendor/f${i}.js`
]

/**
 * Files in which tokens grow with bytes within each tier: each tier's patches repeat one line of
 * its own (no secret, no marker) under paths of one length, so patches of a tier differ only in
 * how many times the line is repeated.
 */
const monotoneInput: fc.Arbitrary<EvidenceInput> = fc
  .record({
    units: fc.array(
      fc.constantFrom(
        'const value = compute(1, "x")',
        '    return a + b;',
        '})',
        '',
        '東京都庁舎の検索',
        '=====',
        'x'
      ),
      { minLength: 5, maxLength: 5 }
    ),
    files: fc.array(
      fc.record({ tier: fc.integer({ min: 0, max: 4 }), count: fc.integer({ min: 0, max: 40 }) }),
      { maxLength: 30 }
    ),
    budget: fc.integer({ min: 0, max: 4000 })
  })
  .map(({ units, files, budget }) => ({
    files: parseUnifiedDiff(
      files
        .map(({ tier, count }, i) =>
          newFile(
            (TIER_PATHS[tier] ?? TIER_PATHS[0])?.(String(i).padStart(2, '0')) ?? '',
            Array.from({ length: count }, () => units[tier] ?? '')
          )
        )
        .join('')
    ),
    pr: { title: 'Add search', body: 'Adds search.' },
    exclude: { waived: [], unwaived: [] },
    maxTokens: budget
  }))

/**
 * Whether ordering the reviewable files by their patch's bytes, as the budget does, gives the
 * order the exact algorithm used (by tokens as sent), both within tiers and by diff order on ties.
 */
function ordersAgree(input: EvidenceInput): boolean {
  const ruled = new Set(
    exactEvidence(input)
      .receipt.omitted.filter(o => o.reason !== 'budget')
      .map(o => o.path)
  )
  const candidates = input.files
    .map((file, index) => ({
      index,
      tier: TIER[classify(file)],
      tokens: sentTokens(file).tokens,
      bytes: patchBytes(file),
      path: file.path
    }))
    .filter(c => !ruled.has(c.path))
  const order = (key: 'tokens' | 'bytes'): number[] =>
    [...candidates]
      .sort((a, b) => a.tier - b.tier || a[key] - b[key] || a.index - b.index)
      .map(c => c.index)
  return order('tokens').join() === order('bytes').join()
}

describe('the evidence budget against the exact algorithm it replaced', () => {
  it('gives the same evidence whenever the exact algorithm reviewed every reviewable file', () => {
    let everything = 0
    fc.assert(
      fc.property(anyInput, input => {
        const exact = exactEvidence(input)
        if (exact.receipt.reviewed.length < exact.receipt.reviewable) return
        everything++
        expect(buildEvidence(input)).toEqual(exact)
      }),
      { numRuns: 300 }
    )
    // The property was not vacuous.
    expect(everything).toBeGreaterThan(30)
  })

  it('chooses, lists and shows the same files as before when bytes order them as tokens do', () => {
    fc.assert(
      fc.property(monotoneInput, input => {
        expect(ordersAgree(input)).toBe(true)
        expect(withoutBudgetDetails(buildEvidence(input))).toEqual(
          withoutBudgetDetails(exactEvidence(input))
        )
      }),
      { numRuns: 300 }
    )
    fc.assert(
      fc.property(anyInput, input => {
        if (!ordersAgree(input)) return
        expect(withoutBudgetDetails(buildEvidence(input))).toEqual(
          withoutBudgetDetails(exactEvidence(input))
        )
      }),
      { numRuns: 300 }
    )
  })

  it('follows the documented rule exactly, though it counts only what can still fit', () => {
    fc.assert(
      fc.property(anyInput, input => {
        expect(withoutBudgetDetails(buildEvidence(input))).toEqual(
          withoutBudgetDetails(ruleEvidence(input))
        )
      }),
      { numRuns: 300 }
    )
  })

  it('keeps a receipt whose every statement is true', () => {
    fc.assert(
      fc.property(fc.oneof(anyInput, monotoneInput), input => {
        const evidence = buildEvidence(input)
        expectTrueReceipt(input, evidence)
        // Within the budget, unless the title, description and file list alone exceed it.
        const { receipt } = evidence
        if (receipt.reviewed.length > 0) {
          expect(receipt.usedTokens).toBeLessThanOrEqual(receipt.budgetTokens)
        }
      }),
      { numRuns: 300 }
    )
  })

  it('differs from the exact algorithm where bytes and tokens order files apart, and says why', () => {
    // A whitespace-heavy patch is large in bytes but cheap in tokens; a dense one the reverse.
    const wide = newFile(
      'src/wide.ts',
      Array.from({ length: 30 }, () => `${' '.repeat(60)}x`)
    )
    const dense = newFile(
      'src/dense.ts',
      Array.from({ length: 12 }, () => 'aZ9qX7vB2mK8wQ4e')
    )
    const base: EvidenceInput = {
      files: parseUnifiedDiff(wide + dense),
      pr: { title: 't', body: '' },
      exclude: { waived: [], unwaived: [] },
      maxTokens: 0
    }
    const [wideFile, denseFile] = base.files
    if (!wideFile || !denseFile) throw new Error('two files expected')
    expect(patchBytes(wideFile)).toBeGreaterThan(patchBytes(denseFile))
    expect(sentTokens(wideFile).tokens).toBeLessThan(sentTokens(denseFile).tokens)

    // The smallest budget at which the exact algorithm showed the cheaper file (in tokens) alone.
    const budgets = Array.from({ length: 2000 }, (_, i) => i)
    const budget = budgets.find(
      b => exactEvidence({ ...base, maxTokens: b }).receipt.reviewed.length === 1
    )
    if (budget === undefined) throw new Error('no budget shows one file')
    const input = { ...base, maxTokens: budget }
    expect(exactEvidence(input).receipt.reviewed.map(r => r.path)).toEqual(['src/wide.ts'])

    // Now the smaller patch in bytes is tried first; it does not fit, and its tier stops there.
    const evidence = buildEvidence(input)
    expect(evidence.receipt.reviewed).toEqual([])
    expect(evidence.receipt.omitted).toEqual([
      {
        path: 'src/wide.ts',
        reason: 'budget',
        detail: 'not tried: src/dense.ts did not fit and is no larger',
        counts: true
      },
      {
        path: 'src/dense.ts',
        reason: 'budget',
        detail: expect.stringMatching(
          /^more than [\d,]+ tokens; [\d,]+ left in the budget$/
        ) as string,
        counts: true
      }
    ])
    expectTrueReceipt(input, evidence)
  })
})
