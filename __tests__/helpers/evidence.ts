import type { Evidence } from '../../src/evidence/types.js'

/** The evidence of a small pull request: one new source file, shown in full. */
export const RANKING_EVIDENCE: Evidence = {
  pr: { title: 'Add ranking', body: 'Ranks results by intent.' },
  files: [
    {
      path: 'src/rank.ts',
      status: 'added',
      additions: 10,
      deletions: 0,
      binary: false,
      kind: 'source'
    }
  ],
  diff: 'diff --git a/src/rank.ts b/src/rank.ts\n+export const rank = (xs: number[]) => xs.sort()',
  receipt: {
    reviewed: [{ path: 'src/rank.ts', kind: 'source', tokens: 30 }],
    omitted: [],
    redacted: [],
    reviewable: 1,
    ratio: 1,
    budgetTokens: 60_000,
    usedTokens: 50
  },
  unlisted: 0,
  changed: ['src/rank.ts']
}
