import { describe, expect, it } from 'vitest'
import { shownLines } from '../../src/evidence/diff.js'
import type { Evidence } from '../../src/evidence/types.js'
import { annotationsOf } from '../../src/publish/annotations.js'
import { evaluationOf, gateResult, judgeRun, SEARCH_RUBRIC } from '../helpers/evaluation.js'
import { RANKING_EVIDENCE } from '../helpers/evidence.js'

const PATCH = [
  'diff --git a/src/rank.ts b/src/rank.ts',
  'index 1111111..2222222 100644',
  '--- a/src/rank.ts',
  '+++ b/src/rank.ts',
  '@@ -10,3 +10,4 @@ export function rank() {',
  ' a',
  '+b',
  ' c',
  ' d',
  '@@ -40 +41 @@',
  '-x',
  '+y',
  ''
].join('\n')

const DELETED_PATCH =
  'diff --git a/src/old.ts b/src/old.ts\ndeleted file mode 100644\n--- a/src/old.ts\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-a\n-b\n-c\n'

const EVIDENCE: Evidence = {
  ...RANKING_EVIDENCE,
  files: [
    ...RANKING_EVIDENCE.files.map(f => ({ ...f, status: 'modified' as const, patch: PATCH })),
    {
      path: 'src/old.ts',
      status: 'deleted',
      additions: 0,
      deletions: 3,
      binary: false,
      kind: 'source',
      patch: DELETED_PATCH
    },
    {
      path: 'src/big.ts',
      status: 'added',
      additions: 900,
      deletions: 0,
      binary: false,
      kind: 'source'
    }
  ]
}

function annotated(findings: readonly { path: string; line: number }[]) {
  const run = judgeRun(SEARCH_RUBRIC, {
    judge: 'openai:gpt-5.4-mini',
    findings: findings.map(f => ({
      severity: 'major',
      title: 'A problem',
      evidence: 'here',
      ...f
    }))
  })
  const evaluation = {
    ...evaluationOf(SEARCH_RUBRIC, [gateResult('true', 'pass')], { runs: [run], quorum: 1 }),
    evidence: EVIDENCE
  }
  return annotationsOf(evaluation).map(a => `${a.path}:${a.start_line}`)
}

describe('check-run annotations from judges’ findings', () => {
  it('reads the lines each hunk shows of the new file', () => {
    expect(shownLines(PATCH)).toEqual([
      [10, 13],
      [41, 41]
    ])
    expect(shownLines(DELETED_PATCH)).toEqual([])
  })

  it('keeps a finding on a changed file at a line its patch shows', () => {
    expect(
      annotated([
        { path: 'src/rank.ts', line: 11 },
        { path: 'src/rank.ts', line: 41 }
      ])
    ).toEqual(['src/rank.ts:11', 'src/rank.ts:41'])
    // The diff's own prefixes, as a judge may copy them from a header.
    expect(
      annotated([
        { path: './src/rank.ts', line: 13 },
        { path: 'b/src/rank.ts', line: 10 }
      ])
    ).toEqual(['src/rank.ts:13', 'src/rank.ts:10'])
  })

  it('drops paths outside the change, lines that do not exist, and files the judges did not see', () => {
    expect(
      annotated([
        { path: '../../etc/passwd', line: 1 },
        { path: '.github/workflows/ci.yml', line: 3 },
        { path: 'src/rank.ts', line: 999_999_999 },
        { path: 'src/rank.ts', line: 14 },
        { path: 'src/rank.ts', line: -1 },
        { path: 'src/old.ts', line: 2 },
        { path: 'src/big.ts', line: 1 }
      ])
    ).toEqual([])
  })
})
