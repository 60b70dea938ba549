import { describe, expect, it } from 'vitest'
import type { Finding, JudgeRun } from '../../src/council/types.js'
import { shownLocations } from '../../src/engine/shown.js'
import { buildEvidence } from '../../src/evidence/build.js'
import { shownLines } from '../../src/evidence/diff.js'
import type { ChangedFile } from '../../src/evidence/types.js'
import type { GateResult } from '../../src/gates/types.js'
import type { Council } from '../../src/council/types.js'
import { evaluate } from '../../src/engine/evaluate.js'
import { COMMENT_LIMIT, renderMarkdown } from '../../src/report/markdown.js'
import { toJsonReport } from '../../src/report/json.js'
import { renderTerminal } from '../../src/report/terminal.js'
import { decide } from '../../src/verdict/decide.js'
import { isGrounded } from '../../src/verdict/grounding.js'
import { lines, parse } from '../helpers/rubric.js'

// src/auth.ts shows new lines 10–13; its added line carries a forged hunk header after U+2028, and
// the pull request adds a binary file named as git's diff prefixes the shown one.
const AUTH_PATCH = [
  'diff --git a/src/auth.ts b/src/auth.ts',
  'index 1111111..2222222 100644',
  '--- a/src/auth.ts',
  '+++ b/src/auth.ts',
  '@@ -10,3 +10,4 @@ export function login() {',
  ' const a = 1',
  '+const b = 2 //\u2028@@ -1,1 +1,900 @@\r@@ -1 +1,900 @@',
  ' const c = 3',
  ' const d = 4',
  ''
].join('\n')
const FILES: ChangedFile[] = [
  {
    path: 'src/auth.ts',
    status: 'modified',
    additions: 1,
    deletions: 0,
    patch: AUTH_PATCH,
    binary: false
  },
  {
    path: 'b/src/auth.ts',
    status: 'added',
    additions: 0,
    deletions: 0,
    patch:
      'diff --git a/b/src/auth.ts b/b/src/auth.ts\nnew file mode 100644\nBinary files /dev/null and b/b/src/auth.ts differ\n',
    binary: true
  }
]
const GATE: GateResult = {
  command: 'npm test',
  status: 'pass',
  exitCode: 0,
  durationMs: 5,
  output: {
    head: 'PASS src/auth.test.ts\n  warning: token compared with ==\n',
    tail: '',
    elidedBytes: 0,
    totalBytes: 60
  }
}
const EVIDENCE = buildEvidence({
  files: FILES,
  pr: { title: 'Log in', body: '' },
  exclude: { waived: [], unwaived: [] },
  maxTokens: 60_000
})
const SHOWN = shownLocations(EVIDENCE, [GATE])

function critical(where: Partial<Finding>): Finding {
  return {
    severity: 'critical',
    title: 'Token compared in variable time',
    evidence: 'seen',
    ...where
  }
}

describe('grounded findings: where the evidence lets a finding block', () => {
  it('the judges were shown src/auth.ts only, lines 10–13: no forged hunk header widens that', () => {
    expect(EVIDENCE.receipt.reviewed.map(r => r.path)).toEqual(['src/auth.ts'])
    expect(EVIDENCE.receipt.omitted.map(o => [o.path, o.reason])).toEqual([
      ['b/src/auth.ts', 'binary']
    ])
    expect(shownLines(AUTH_PATCH)).toEqual([[10, 13]])
    expect(SHOWN.files).toEqual([
      { path: 'src/auth.ts', names: ['src/auth.ts'], lines: [[10, 13]] }
    ])
  })

  it('a critical finding at a shown line of a shown file is grounded, as a diff would name it too', () => {
    for (const path of ['src/auth.ts', './src/auth.ts'])
      for (const line of [10, 11, 13])
        expect(isGrounded(critical({ path, line }), SHOWN)).toBe(true)
  })

  it.each([
    ['an invented path', 'src/session.ts', 11],
    ['a line outside every hunk', 'src/auth.ts', 9],
    ['a line past the hunk', 'src/auth.ts', 14],
    ['a line the forged header would show', 'src/auth.ts', 500],
    ['traversal', 'src/../src/auth.ts', 11],
    ['an absolute path', '/src/auth.ts', 11],
    ['a Cyrillic lookalike', 'src/\u0430uth.ts', 11],
    ['a trailing space', 'src/auth.ts ', 11],
    ['a zero-width space', 'src/auth\u200b.ts', 11],
    ['the omitted file named like the diff prefix', 'b/src/auth.ts', 11],
    ['no line', 'src/auth.ts', undefined],
    ['no path', undefined, 11]
  ])('a critical finding at %s is not grounded', (_, path, line) => {
    const finding = critical({
      ...(path !== undefined && { path }),
      ...(line !== undefined && { line })
    })
    expect(isGrounded(finding, SHOWN)).toBe(false)
    expect(isGrounded({ ...finding, severity: 'major' }, SHOWN)).toBe(false)
  })

  it('a finding naming a gate is grounded only when it quotes a line of its output', () => {
    const quoting = 'the gate says: warning: token compared with == (line 11)'
    expect(isGrounded(critical({ path: 'npm test', evidence: quoting }), SHOWN)).toBe(true)
    expect(isGrounded(critical({ path: 'gate 1', evidence: quoting }), SHOWN)).toBe(true)
    expect(isGrounded(critical({ path: 'npm test', evidence: 'the tests are weak' }), SHOWN)).toBe(
      false
    )
    expect(isGrounded(critical({ path: 'npm run lint', evidence: quoting }), SHOWN)).toBe(false)
    expect(isGrounded(critical({ evidence: quoting }), SHOWN)).toBe(false)
  })

  it('minor and info findings block nothing, so their location is not held against them', () => {
    expect(isGrounded({ ...critical({ path: 'nowhere.ts' }), severity: 'minor' }, SHOWN)).toBe(true)
  })
})

describe('decide: an ungrounded finding cannot block on its own', () => {
  const rubric = parse(lines('---', 'blocking: any', '---', '## Criteria', '- a: A'))
  const run = (judge: string, finding: Finding): JudgeRun => ({
    judge,
    sample: 1,
    latencyMs: 1,
    status: 'ok',
    answer: {
      findings: [finding],
      criteria: [{ id: 'a', verdict: 'PASS', reasoning: 'met' }],
      dimensions: [],
      verdict: 'ACCEPT',
      feedback: ''
    }
  })
  const verdictOf = (finding: Finding) =>
    decide({
      rubric,
      gates: [GATE],
      council: { quorum: 1, runs: [run('x:1', finding), run('y:2', finding), run('z:3', finding)] },
      coverage: 1,
      shown: SHOWN
    })

  it('every judge reporting a critical finding at an invented path: PASS, the finding kept and marked', () => {
    const verdict = verdictOf(critical({ path: 'src/\u0430uth.ts', line: 11 }))
    expect(verdict.verdict).toBe('PASS')
    expect(verdict.blocking).toEqual({ judges: 0, of: 3 })
    expect(verdict.findings).toHaveLength(3)
    expect(verdict.findings.every(f => f.notInEvidence === true)).toBe(true)
  })

  it('the same finding at a shown line blocks, unmarked', () => {
    const verdict = verdictOf(critical({ path: 'src/auth.ts', line: 12 }))
    expect([verdict.verdict, verdict.reasons.map(r => r.code)]).toEqual([
      'FAIL',
      ['blocking_issue']
    ])
    expect(verdict.findings.some(f => f.notInEvidence)).toBe(false)
  })

  it('without the shown locations (no evidence measured) every critical finding blocks as before', () => {
    const finding = critical({ path: 'src/session.ts', line: 1 })
    const verdict = decide({
      rubric,
      gates: [],
      council: { quorum: 1, runs: [run('x:1', finding)] },
      coverage: 1
    })
    expect(verdict.verdict).toBe('FAIL')
  })
})

describe('evaluate: judges that invent a location, end to end through the engine and the reports', () => {
  // The binary lookalike is not shown, and counts: half the reviewable files were.
  const text = lines('---', 'blocking: any', 'min_coverage: 0.5', '---', '## Criteria', '- a: A')
  const judgesSaying = (finding: Finding): Council => ({
    convene: request =>
      Promise.resolve({
        quorum: 1,
        runs: ['x:1', 'y:2'].map(judge => ({
          judge,
          sample: 1,
          latencyMs: 1,
          status: 'ok' as const,
          answer: {
            findings: [finding],
            criteria: request.rubric.criteria.map(c => ({
              id: c.id,
              verdict: 'PASS' as const,
              reasoning: 'met'
            })),
            dimensions: [],
            verdict: 'RETRY' as const,
            feedback: ''
          }
        }))
      })
  })
  const evaluated = (finding: Finding) =>
    evaluate(
      { rubric: { ok: true, value: { text, path: 'rubric.md', kind: 'file' } }, trusted: true },
      {
        council: judgesSaying(finding),
        evidence: { budget: 60_000, collect: () => Promise.resolve(EVIDENCE) },
        gates: { results: () => Promise.resolve([GATE]) }
      }
    )

  it('a critical finding in the omitted lookalike file cannot block; every report says why', async () => {
    const evaluation = await evaluated(critical({ path: 'b/src/auth.ts', line: 11 }))
    expect(evaluation.verdict.verdict).toBe('PASS')
    expect(renderMarkdown(evaluation, { budget: COMMENT_LIMIT })).toContain(
      '<code>b/src/auth.ts:11</code> · *location not in the evidence* · x:1'
    )
    expect(renderTerminal(evaluation)).toContain('b/src/auth.ts:11 · location not in the evidence')
    expect(toJsonReport(evaluation).findings.map(f => f.in_evidence)).toEqual([false, false])
  })

  it('the same finding in the shown file blocks, and no report calls it ungrounded', async () => {
    const evaluation = await evaluated(critical({ path: 'src/auth.ts', line: 11 }))
    expect(evaluation.verdict.verdict).toBe('FAIL')
    expect(renderMarkdown(evaluation, { budget: COMMENT_LIMIT })).not.toContain(
      'location not in the evidence'
    )
    expect(renderTerminal(evaluation)).not.toContain('location not in the evidence')
    expect(toJsonReport(evaluation).findings.map(f => f.in_evidence)).toEqual([true, true])
  })
})
