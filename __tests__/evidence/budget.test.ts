import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildEvidence, TIER, type EvidenceInput } from '../../src/evidence/build.js'
import type { FileKind } from '../../src/evidence/types.js'
import { expectBudgetInvariants, patchBytes } from './budget-invariants.js'
import { changedFiles, newFile } from './patch-text.js'

// The evidence budget held to its documented invariants (docs/council.md#evidence) over any set
// of changed files: never over budget, every changed path accounted for, tier order.

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
      files: changedFiles(diff),
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
    files: changedFiles(
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

const anyEvidenceInput = fc.oneof(anyInput, monotoneInput)

describe('the evidence budget, over any change', () => {
  it('keeps every documented invariant', () => {
    let partial = 0
    fc.assert(
      fc.property(anyEvidenceInput, input => {
        const evidence = buildEvidence(input)
        expectBudgetInvariants(input, evidence)
        if (evidence.receipt.omitted.some(o => o.reason === 'budget')) partial++
      }),
      { numRuns: 400 }
    )
    // Not vacuous: many runs had to leave files out for the budget.
    expect(partial).toBeGreaterThan(40)
  })

  it('shows every text file it may send when the budget holds them all', () => {
    fc.assert(
      fc.property(anyEvidenceInput, generated => {
        const input = { ...generated, maxTokens: 1_000_000 }
        const evidence = buildEvidence(input)
        expectBudgetInvariants(input, evidence)
        const notSent = evidence.receipt.omitted.filter(o => o.reason === 'budget')
        expect(notSent).toEqual([])
        expect(evidence.unlisted).toBe(0)
        // Binary files and the excluded ones are the only files not shown.
        const binary = new Set(input.files.filter(f => f.binary).map(f => f.path))
        for (const o of evidence.receipt.omitted) {
          expect(binary.has(o.path) || o.reason === 'excluded').toBe(true)
        }
      }),
      { numRuns: 150 }
    )
  })

  it('never shows a file of a tier before a smaller one of that tier', () => {
    fc.assert(
      fc.property(monotoneInput, input => {
        const evidence = buildEvidence(input)
        const shown = new Set(evidence.receipt.reviewed.map(r => r.path))
        const kindOf = new Map(evidence.files.map(f => [f.path, f.kind]))
        for (const a of input.files) {
          for (const b of input.files) {
            if (!shown.has(b.path) || shown.has(a.path) || !kindOf.has(a.path)) continue
            if (kindOf.get(a.path) !== kindOf.get(b.path)) continue
            // A file of the same kind left out while `b` was shown is no smaller than `b`.
            expect(patchBytes(a)).toBeGreaterThanOrEqual(patchBytes(b))
          }
        }
      }),
      { numRuns: 300 }
    )
  })

  it('orders a tier by bytes: a larger patch is not tried once a smaller one did not fit', () => {
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
      files: changedFiles(wide + dense),
      pr: { title: 't', body: '' },
      exclude: { waived: [], unwaived: [] },
      maxTokens: 1_000_000
    }
    const [wideFile, denseFile] = base.files
    if (!wideFile || !denseFile) throw new Error('two files expected')
    expect(patchBytes(wideFile)).toBeGreaterThan(patchBytes(denseFile))
    const tokens = new Map(
      buildEvidence(base).receipt.reviewed.map(r => [r.path, r.tokens] as const)
    )
    const wideTokens = tokens.get('src/wide.ts') ?? 0
    expect(wideTokens).toBeLessThan(tokens.get('src/dense.ts') ?? 0)

    // A budget with room for the cheaper file in tokens, but not for the smaller one in bytes,
    // which is tried first: its tier stops there, and the receipt says why.
    const input = Array.from({ length: 2000 }, (_, b) => ({ ...base, maxTokens: b })).find(i => {
      const { receipt } = buildEvidence(i)
      return (
        receipt.reviewed.length === 0 && receipt.budgetTokens - receipt.usedTokens >= wideTokens
      )
    })
    if (input === undefined) throw new Error('no budget leaves room for the wide file alone')
    const evidence = buildEvidence(input)
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
    expectBudgetInvariants(input, evidence)
  })
})

describe("the budget's tiers", () => {
  it('are in the order docs/council.md gives', () => {
    // The docs' word for each kind the budget sends; the order is TIER's.
    const words: Readonly<Record<Exclude<FileKind, 'media' | 'binary'>, string>> = {
      source: 'source',
      test: 'tests',
      config: 'configuration',
      docs: 'docs',
      generated: 'generated files',
      lockfile: 'lockfiles',
      vendored: 'vendored code'
    }
    const tiers = new Map<number, string[]>()
    for (const [kind, word] of Object.entries(words)) {
      const tier = TIER[kind as keyof typeof words]
      tiers.set(tier, [...(tiers.get(tier) ?? []), word])
    }
    const order = [...tiers]
      .sort(([a], [b]) => a - b)
      .map(([, kinds]) => kinds.join(' and '))
      .join(', then ')
    const docs = readFileSync(join(import.meta.dirname, '../../docs/council.md'), 'utf8')
    const said = /Whole files are included tier by tier: ([^.]+)\./.exec(docs.replace(/\s+/g, ' '))
    expect(said?.[1]).toBe(order)
  })
})
