import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { JudgeRun } from '../../src/council/types.js'
import type { CoverageReceipt } from '../../src/evidence/types.js'
import { DEFAULT_CHECK_NAME, renderComment } from '../../src/publish/memory.js'
import { SUMMARY_BUDGET_BYTES } from '../../src/publish/plan.js'
import { COMMENT_LIMIT, renderMarkdown } from '../../src/report/markdown.js'
import { renderTerminal } from '../../src/report/terminal.js'
import { toJsonReport } from '../../src/report/json.js'
import { invalidVerdict } from '../../src/verdict/decide.js'
import { evaluationOf, gateResult, judgeRun, SEARCH_RUBRIC } from '../helpers/evaluation.js'
import { RANKING_EVIDENCE } from '../helpers/evidence.js'
import { lines, parse } from '../helpers/rubric.js'
import { cmarkGfm } from '../helpers/render-github.js'
import { manyCriteria } from '../helpers/sample-evaluations.js'

const PASSING_GATES = [
  gateResult('pytest tests/test_search.py', 'pass', '12 passed in 0.4s\n'),
  gateResult('ruff check src/search/', 'pass')
]
const JUDGES = ['openai:gpt-5.4-mini', 'anthropic:claude-sonnet-4-6', 'google:gemini-3.5-flash']

function council(specs: Parameters<typeof judgeRun>[1][], failed: JudgeRun[] = []) {
  return { runs: [...specs.map(s => judgeRun(SEARCH_RUBRIC, s)), ...failed], quorum: 2 }
}

/**
 * Structure a reader relies on: every fence closed, and outside fences (where HTML is live) every
 * <details> closed.
 */
function assertWellFormed(markdown: string): void {
  let open: string | undefined
  const outside: string[] = []
  for (const line of markdown.split('\n')) {
    const fence = /^(`{3,})/.exec(line)?.[1]
    if (open === undefined) {
      if (fence) open = fence
      else outside.push(line)
    } else if (fence && fence.length >= open.length && line.trim() === fence) {
      open = undefined
    }
  }
  expect(open).toBeUndefined()
  const live = outside.join('\n')
  expect(live.split('<details>').length).toBe(live.split('</details>').length)
}

describe('the Markdown report, per verdict', () => {
  const cases = {
    pass: evaluationOf(SEARCH_RUBRIC, PASSING_GATES, council(JUDGES.map(judge => ({ judge })))),
    'fail-gate': evaluationOf(
      SEARCH_RUBRIC,
      [
        gateResult(
          'pytest tests/test_search.py',
          'fail',
          'FAILED tests/test_search.py::test_empty_query - KeyError\n1 failed, 11 passed'
        ),
        gateResult('ruff check src/search/', 'timeout')
      ],
      council(JUDGES.map(judge => ({ judge })))
    ),
    'fail-criterion': evaluationOf(
      SEARCH_RUBRIC,
      PASSING_GATES,
      council([
        {
          judge: JUDGES[0] ?? '',
          fail: ['edge-cases'],
          findings: [
            {
              severity: 'major',
              title: 'Empty query raises KeyError',
              path: 'src/search/api.py',
              line: 42,
              evidence: 'query["q"] is read without a default'
            }
          ]
        },
        { judge: JUDGES[1] ?? '', fail: ['edge-cases'], relevance: 6 },
        { judge: JUDGES[2] ?? '' }
      ])
    ),
    'unclear-split': evaluationOf(
      SEARCH_RUBRIC,
      PASSING_GATES,
      council([{ judge: JUDGES[0] ?? '', fail: ['errors'] }, { judge: JUDGES[1] ?? '' }])
    ),
    'unclear-unavailable': evaluationOf(
      SEARCH_RUBRIC,
      PASSING_GATES,
      council(
        [{ judge: JUDGES[0] ?? '' }],
        [
          {
            judge: JUDGES[1] ?? '',
            sample: 1,
            latencyMs: 30_000,
            status: 'failed',
            failure: 'timeout',
            message: 'no answer within 30 s'
          },
          {
            judge: JUDGES[2] ?? '',
            sample: 1,
            latencyMs: 400,
            status: 'failed',
            failure: 'rate_limited',
            message: '429 Too Many Requests after 3 retries'
          }
        ]
      )
    ),
    'unclear-invalid-rubric': {
      verdict: invalidVerdict('invalid_rubric', 1),
      rubric: {
        path: '.github/rubric.md',
        source: 'file' as const,
        problems: [
          {
            file: '.github/rubric.md',
            line: 3,
            column: 1,
            rule: 'unknown-key' as const,
            message: 'unknown key "tresholds" in the front matter; did you mean "thresholds"?'
          }
        ],
        counts: { gates: 0, must: 0, nice: 0 }
      },
      gates: [],
      iteration: 1
    }
  }

  it.each(Object.entries(cases))('%s', async (name, evaluation) => {
    // As a pull request reads it (comment, check run, job summary): with the next step.
    const markdown = renderMarkdown(evaluation, { budget: COMMENT_LIMIT, nextStep: 'action' })
    assertWellFormed(markdown)
    await expect(markdown).toMatchFileSnapshot(`../__snapshots__/report-${name}.md`)
    await expect(renderTerminal(evaluation)).toMatchFileSnapshot(
      `../__snapshots__/terminal-${name}.txt`
    )
  })

  it('gets the headline and reasons right for each', () => {
    const headline = (name: keyof typeof cases): string =>
      renderMarkdown(cases[name], { budget: COMMENT_LIMIT }).split('\n')[0] ?? ''
    expect(headline('pass')).toBe('### ✅ Rubric Council: PASS')
    expect(headline('fail-gate')).toBe('### ❌ Rubric Council: FAIL')
    expect(headline('unclear-split')).toBe('### ⚠️ Rubric Council: UNCLEAR')
    expect(renderMarkdown(cases.pass, { budget: COMMENT_LIMIT })).toContain(
      '**gates 2/2 · must 3/3 · nice 1/1 · score 0.85 · confidence 1 · judges 3/3**'
    )
    expect(renderMarkdown(cases['fail-criterion'], { budget: COMMENT_LIMIT })).toContain(
      '- **criterion_failed**: must-have criterion failed by a majority of judges: edge-cases'
    )
  })

  it('keeps the JSON report complete and in snake_case', () => {
    const json = toJsonReport(cases['fail-criterion'])
    expect(json).toMatchObject({
      schema: 'rubric-council/report@1',
      verdict: 'FAIL',
      exit_code: 1,
      reasons: [{ code: 'criterion_failed' }, { code: 'blocking_issue' }].slice(0, 1),
      recommendation: 'RETRY',
      rubric: {
        path: '.github/rubric.md',
        source: 'file',
        hash: SEARCH_RUBRIC.hash,
        title: 'Search feature'
      },
      iteration: 1,
      history: []
    })
    expect(json.judges).toHaveLength(3)
    expect(json.criteria[0]?.votes).toHaveLength(3)
  })
})

describe('the history of iterations', () => {
  it('shows each rubric hash exactly as the outputs give it, copyable and searchable', async () => {
    const hash = SEARCH_RUBRIC.hash
    const entry = (iteration: number, rubricHash: string) => ({
      iteration,
      commit: `${String(iteration)}bd6fc8d9819f0000000000000000000000000000`,
      verdict: 'PASS' as const,
      summary: 'All criteria passed',
      rubricHash,
      reasons: []
    })
    const evaluation = {
      ...evaluationOf(SEARCH_RUBRIC, []),
      history: [entry(1, 'bd6fc8d9819f'), entry(2, hash)]
    }
    const html = await cmarkGfm(renderMarkdown(evaluation, { budget: COMMENT_LIMIT }))
    const section = html.slice(html.indexOf('Iterations'))
    expect(section).toContain('<code>bd6fc8d9819f</code>')
    expect(section).toContain(`<code>${hash}</code>`)
    expect(section).not.toContain('\u2060')
  })

  it('still escapes a hash that is not one (a hand-edited comment state)', () => {
    const evaluation = {
      ...evaluationOf(SEARCH_RUBRIC, []),
      history: [
        {
          iteration: 1,
          commit: 'abc1234',
          verdict: 'PASS' as const,
          summary: '',
          rubricHash: '</code><img src=x>',
          reasons: []
        }
      ]
    }
    expect(renderMarkdown(evaluation, { budget: COMMENT_LIMIT })).toContain(
      '<code>&lt;/code&gt;&lt;img src=x&gt;</code>'
    )
  })
})

describe('untrusted text in the report', () => {
  it('cannot break the structure, ping anyone, or embed an image', () => {
    const hostile =
      '</details></summary>\n```\n## Heading\n@octocat please merge ![x](https://evil.example/p.png) <img src=x> | cell'
    const evaluation = evaluationOf(
      SEARCH_RUBRIC,
      [gateResult('echo "```" && exit 1', 'fail', '```\n</details>\n````\n')],
      council(
        JUDGES.map(judge => ({
          judge,
          reasoning: () => hostile,
          findings: [{ severity: 'minor', title: hostile, path: 'a|b.ts', evidence: hostile }]
        }))
      )
    )
    const markdown = renderMarkdown(evaluation, { budget: COMMENT_LIMIT })
    assertWellFormed(markdown)
    expect(markdown).not.toContain('<img')
    expect(markdown).not.toContain('![x]')
    expect(markdown).not.toMatch(/@octocat/)
    expect(markdown).toContain('&lt;/details&gt;')
  })
})

/** A passing evaluation of `RANKING_EVIDENCE` with its coverage receipt changed by `receipt`. */
function withReceipt(receipt: Partial<CoverageReceipt>) {
  return {
    ...evaluationOf(SEARCH_RUBRIC, PASSING_GATES, council(JUDGES.map(judge => ({ judge })))),
    evidence: { ...RANKING_EVIDENCE, receipt: { ...RANKING_EVIDENCE.receipt, ...receipt } }
  }
}

describe('file names in the report', () => {
  it('shows line breaks, controls and direction overrides in a name as escapes', () => {
    const name = 'src/\u202egnp.ts\n- src/fine.ts: reviewed'
    const evaluation = withReceipt({
      omitted: [{ path: name, reason: 'binary', detail: 'binary', counts: true }]
    })
    const markdown = renderMarkdown(evaluation, { budget: COMMENT_LIMIT })
    expect(markdown).toContain(
      '<code>src/\\\\u202egnp.ts\\\\n- src/fine.ts: reviewed</code>: binary'
    )
    expect(markdown).not.toContain('\u202e')
  })
})

describe('the coverage summary', () => {
  it('writes large counts with thousands separators, as the rest of the report does', () => {
    const evaluation = withReceipt({ reviewable: 3000, ratio: 2 / 3000, usedTokens: 59_428 })
    expect(renderMarkdown(evaluation, { budget: COMMENT_LIMIT })).toMatch(
      /<b>Coverage<\/b> · \d+ of 3,000 reviewable files \(0%\) · 59,428 of 60,000 tokens/
    )
  })
})

describe('redactions in the report', () => {
  it('says how many secrets of a file were redacted, and that the rest of its diff was shown', () => {
    const evaluation = withReceipt({
      redacted: [{ path: 'src/rank.ts', secrets: 2, kinds: ['AWS access key', 'JWT'] }]
    })
    expect(renderMarkdown(evaluation, { budget: COMMENT_LIMIT })).toContain(
      '- <code>src/rank.ts</code>: shown, 2 secrets redacted (AWS access key, JWT); the rest of its diff was shown\n'
    )
    expect(toJsonReport(evaluation)).toMatchObject({
      coverage: {
        redacted: [{ path: 'src/rank.ts', secrets: 2, kinds: ['AWS access key', 'JWT'] }]
      }
    })
  })
})

describe('secret files in the report', () => {
  it('says a secret file was shown, with every value that looked like a credential redacted', () => {
    const redaction = {
      path: '.env',
      secrets: 2,
      kinds: ['password in URL', 'high-entropy secret'],
      secretFile: '.env'
    }
    const evaluation = withReceipt({ omitted: [], redacted: [redaction] })
    const markdown = renderMarkdown(evaluation, { budget: COMMENT_LIMIT })
    expect(markdown).toContain(
      'Every changed file was shown to the judges, with secrets redacted:\n\n' +
        '- <code>.env</code>: shown, 2 secrets redacted (password in URL, high-entropy secret), every value that looked like a credential, as a secret file (<code>.env</code>); the rest of its diff was shown\n'
    )
    expect(toJsonReport(evaluation)).toMatchObject({
      coverage: { omitted: [], redacted: [redaction] }
    })
  })
})

describe('the length budget', () => {
  /** A report of `count` criteria, each judge writing `size` characters of reasoning per item. */
  function bigEvaluation(
    count: number,
    size: number,
    phrase = 'The change handles this case & <that> one. '
  ) {
    const rubric = parse(
      lines(
        '## Gates',
        '- `make test`',
        '## Criteria',
        ...Array.from({ length: count }, (_, i) => `- c${i}: Criterion number ${i} holds`)
      )
    )
    const reasoning = (id: string): string =>
      `${id}: ${phrase.repeat(Math.ceil(size / phrase.length))}`.slice(0, size)
    const runs = JUDGES.map((judge, i) =>
      judgeRun(rubric, { judge, reasoning, fail: i < 2 ? ['c3'] : [] })
    )
    return evaluationOf(rubric, [gateResult('make test', 'fail', 'x'.repeat(size * 3))], {
      runs,
      quorum: 2
    })
  }

  it('never exceeds the budget, from 1 to 200 criteria with reasonings up to 10,000 characters', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 300, max: COMMENT_LIMIT }),
        (count, size, budget) => {
          const markdown = renderMarkdown(bigEvaluation(count, size), { budget })
          expect(markdown.length).toBeLessThanOrEqual(budget)
          assertWellFormed(markdown)
          expect(markdown.startsWith('### ❌ Rubric Council: FAIL')).toBe(true)
        }
      ),
      { numRuns: 40 }
    )
  })

  it('at the largest size, shortens the longest texts first and says what it cut', () => {
    const markdown = renderMarkdown(bigEvaluation(200, 10_000), { budget: COMMENT_LIMIT })
    expect(markdown.length).toBeLessThanOrEqual(COMMENT_LIMIT)
    expect(markdown).toContain('This report was shortened to fit.')
    // The reasons keep their words.
    expect(markdown).toContain(
      '- **gate_failed**: 1 of 1 gate did not pass: "make test" (exit 1)\n'
    )
    expect(markdown).toMatch(/The judges' reasoning on \d+ criteria is not shown here/)
    // Every criterion keeps its line; the failing one and the failing gate keep their details.
    for (let i = 0; i < 200; i++) expect(markdown).toContain(`<b>c${i}</b> · `)
    expect(markdown).toContain('<summary>❌ <b>c3</b> · FAIL')
    expect(markdown).toContain('<summary>❌ <code>make test</code> · output</summary>')
  })

  it('cuts long texts but keeps every criterion when that is enough', () => {
    const markdown = renderMarkdown(bigEvaluation(5, 10_000), { budget: COMMENT_LIMIT })
    expect(markdown.length).toBeLessThanOrEqual(COMMENT_LIMIT)
    expect(markdown).toMatch(/characters cut\)\*/)
    expect(markdown).not.toMatch(/not shown here/)
    for (let i = 0; i < 5; i++) expect(markdown).toContain(`<b>c${i}</b>`)
  })

  it('renders the whole report untouched when it fits', () => {
    const evaluation = bigEvaluation(3, 100)
    const full = renderMarkdown(evaluation, { budget: 1_000_000 })
    expect(renderMarkdown(evaluation, { budget: full.length })).toBe(full)
    expect(full).not.toContain('shortened')
  })

  it('budgets the job summary in UTF-8 bytes: a 40-criterion ASCII report is no longer cut at 340,000 characters', () => {
    const evaluation = bigEvaluation(40, 5_000)
    const full = renderMarkdown(evaluation, { budget: Infinity })
    expect(full.length).toBeGreaterThan(500_000)
    expect(Buffer.byteLength(full)).toBeLessThanOrEqual(SUMMARY_BUDGET_BYTES)
    const summary = renderMarkdown(evaluation, { budget: SUMMARY_BUDGET_BYTES, unit: 'bytes' })
    expect(summary).toBe(full)
    expect(summary).not.toContain('shortened')
  })

  it('keeps a report of mostly 3-byte characters whole when its bytes fit, and cuts it to the bytes when not', () => {
    const phrase = '変更はこの場合を正しく扱っている。'
    const fits = bigEvaluation(40, 2_500, phrase)
    const full = renderMarkdown(fits, { budget: Infinity })
    // More characters than the old 340,000-character budget's third of a MiB would allow in bytes.
    expect(Buffer.byteLength(full)).toBeGreaterThan(340_000 * 2)
    expect(Buffer.byteLength(full)).toBeLessThanOrEqual(SUMMARY_BUDGET_BYTES)
    expect(renderMarkdown(fits, { budget: SUMMARY_BUDGET_BYTES, unit: 'bytes' })).toBe(full)

    const tooBig = renderMarkdown(bigEvaluation(40, 5_000, phrase), {
      budget: SUMMARY_BUDGET_BYTES,
      unit: 'bytes'
    })
    expect(Buffer.byteLength(tooBig)).toBeLessThanOrEqual(SUMMARY_BUDGET_BYTES)
    // Cut to what fits, not to a third of it.
    expect(Buffer.byteLength(tooBig)).toBeGreaterThan(SUMMARY_BUDGET_BYTES * 0.9)
    expect(tooBig).toContain('This report was shortened to fit.')
    assertWellFormed(tooBig)
  })

  it('keeps the PR comment and check-run budgets in characters', () => {
    const evaluation = bigEvaluation(40, 2_500, '変更はこの場合を正しく扱っている。')
    const comment = renderMarkdown(evaluation, { budget: COMMENT_LIMIT })
    expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT)
    // In characters, so well over 65,536 bytes of 3-byte text.
    expect(Buffer.byteLength(comment)).toBeGreaterThan(COMMENT_LIMIT * 2)
  })

  it('never exceeds a byte budget, whatever Unicode the judges write', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 3_000 }),
        fc.integer({ min: 300, max: 200_000 }),
        (count, phrase, size, budget) => {
          const evaluation = bigEvaluation(count, size, phrase)
          const markdown = renderMarkdown(evaluation, { budget, unit: 'bytes' })
          expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(budget)
          assertWellFormed(markdown)
          const full = renderMarkdown(evaluation, { budget: Infinity })
          if (Buffer.byteLength(full) <= budget) expect(markdown).toBe(full)
        }
      ),
      { numRuns: 40 }
    )
  })

  it('falls back to the headline when even that barely fits', () => {
    const markdown = renderMarkdown(bigEvaluation(10, 100), { budget: 60 })
    expect(markdown.length).toBeLessThanOrEqual(60)
    expect(markdown.startsWith('### ❌ Rubric Council: FAIL')).toBe(true)
  })
})

describe('every criterion keeps its line', () => {
  const ids = (count: number): string[] => Array.from({ length: count }, (_, i) => `c${i + 1}`)
  /** Each criterion's line as the comment shows it, open or not: id, status and votes. */
  const line = (id: string, failing: readonly string[]): string =>
    failing.includes(id) ? `<b>${id}</b> · FAIL (1/3 PASS) — ` : `<b>${id}</b> · PASS (3/3 PASS) — `

  // The rubric schema sets no limit on the number of criteria, so the 100 is the target.
  it.each([40, 100])(
    'names each of %i must-haves with its status and votes, with 4,000 characters of reasoning from 3 judges',
    async count => {
      const failing = [`c${count - 1}`, `c${count}`]
      const evaluation = manyCriteria(count, { reasoning: 4_000, fail: failing })
      const comment = renderComment(evaluation, DEFAULT_CHECK_NAME)
      expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT)
      assertWellFormed(comment)
      const html = await cmarkGfm(comment)
      for (const id of ids(count)) {
        expect(comment).toContain(line(id, failing))
        expect(html).toContain(line(id, failing))
      }
      // Reasoning is cut before details go, and the failing criteria keep theirs longest.
      expect(comment).toMatch(/characters cut\)\*/)
      for (const id of failing) expect(comment).toContain(`<summary>❌ <b>${id}</b> · FAIL`)
      expect(comment).toContain('**Next:** ')
    }
  )

  it('cannot be pushed out by judges that write at length or files with long names', async () => {
    // What a pull request can make large: the judges' reasoning (its content, quoted back) and
    // the paths of the files it adds, which findings and the coverage receipt name.
    const path = (i: number): string => `src/${'deeply/nested/'.repeat(60)}file-${i}.ts`
    const findings = Array.from({ length: 300 }, (_, i) => ({
      severity: 'minor' as const,
      title: `Odd name ${path(i)}`,
      path: path(i),
      evidence: 'x'.repeat(2_000)
    }))
    const base = manyCriteria(100, { reasoning: 60_000, fail: ['c100'], findings })
    const evaluation = {
      ...base,
      evidence: {
        ...RANKING_EVIDENCE,
        receipt: {
          ...RANKING_EVIDENCE.receipt,
          omitted: Array.from({ length: 3_000 }, (_, i) => ({
            path: path(i),
            reason: 'budget' as const,
            detail: 'not tried: the budget was spent',
            counts: true
          }))
        }
      }
    }
    const comment = renderComment(evaluation, DEFAULT_CHECK_NAME)
    expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT)
    const html = await cmarkGfm(comment)
    expect(html).toContain('❌ <b>c100</b> · FAIL (1/3 PASS) — ')
    for (const id of ids(99)) expect(html).toContain(line(id, []))
  })

  it('lists the lines in the fallback too, failing must-haves first, cut at the end of a line', () => {
    const evaluation = manyCriteria(100, { reasoning: 100, fail: ['c100'] })
    const markdown = renderMarkdown(evaluation, { budget: 3_000 })
    expect(markdown.length).toBeLessThanOrEqual(3_000)
    expect(markdown).toContain('The report is too long to show here')
    expect(markdown).toContain(`<p>❌ ${line('c100', ['c100'])}`)
    expect(markdown.indexOf('<b>c100</b>')).toBeLessThan(markdown.indexOf('<b>c1</b>'))
    expect(markdown.endsWith('</p>\n\n')).toBe(true)
  })
})

describe('a must-have that took extra votes', () => {
  it('says how the judges voted, who cast each extra vote and what it said, and lists every vote', () => {
    const reserve: JudgeRun = {
      ...judgeRun(SEARCH_RUBRIC, {
        judge: 'openai:gpt-5.4',
        fail: ['edge-cases'],
        reasoning: () => 'An empty query still raises KeyError.'
      }),
      extra: { criteria: ['edge-cases'], reserve: true }
    }
    const evaluation = evaluationOf(SEARCH_RUBRIC, PASSING_GATES, {
      runs: [
        judgeRun(SEARCH_RUBRIC, { judge: 'openai:gpt-5.4-mini', fail: ['edge-cases'] }),
        judgeRun(SEARCH_RUBRIC, { judge: 'anthropic:claude-sonnet-4-6' }),
        reserve
      ],
      quorum: 2
    })
    const markdown = renderMarkdown(evaluation, { budget: COMMENT_LIMIT })
    expect(markdown).toContain(
      '⚖️ **edge-cases** took extra votes: the judges voted 1 PASS, 1 FAIL; then openai:gpt-5.4 (reserve) said FAIL: FAIL by 1 PASS, 2 FAIL.'
    )
    expect(markdown).toContain('<b>edge-cases</b> · FAIL (1/3 PASS, extra vote FAIL)')
    expect(markdown).toContain(
      '- **openai:gpt-5.4 (reserve)** · FAIL: An empty query still raises KeyError.'
    )
    // The Judges table names the extra call and the must-have it was asked for.
    expect(markdown).toMatch(/\| openai:gpt-5\.4 \(reserve on edge-cases\) \| 1 \| ✅ ACCEPT \|/)
    expect(renderTerminal(evaluation)).toMatch(/edge-cases +FAIL 1\/3, extra vote FAIL/)
    const json = toJsonReport(evaluation)
    expect(json.criteria.find(c => c.id === 'edge-cases')).toMatchObject({
      judges: { pass: 1, fail: 2, abstain: 0 },
      extra_votes: [{ judge: 'openai:gpt-5.4 (reserve)', verdict: 'FAIL' }]
    })
    // Where the extra vote did not count (it was not asked for), it is not listed.
    expect(json.criteria.find(c => c.id !== 'edge-cases')?.extra_votes).toEqual([])
    assertWellFormed(markdown)
  })
})

describe('a call cancelled once the verdict was settled', () => {
  const settled = {
    ...council([
      { judge: JUDGES[0] ?? '', fail: ['edge-cases'] },
      { judge: JUDGES[1] ?? '', fail: ['edge-cases'] }
    ]),
    cancelled: [
      {
        judge: JUDGES[2] ?? '',
        sample: 1,
        settledBy: ['criterion_failed'],
        latencyMs: 1200,
        requests: 1,
        tokens: { input: 1000, cachedInput: 0, cacheWrite: 0, output: 0 },
        costUsd: 0.001
      }
    ]
  }
  const evaluation = evaluationOf(SEARCH_RUBRIC, PASSING_GATES, settled)

  it('is named, as cancelled and why, in the comment, the terminal and the JSON report; its spend counts', () => {
    const markdown = renderMarkdown(evaluation, { budget: COMMENT_LIMIT })
    expect(markdown).toContain('<b>Judges</b> · 2 of 3 answered · quorum 2')
    expect(markdown).toContain('| google:gemini-3.5-flash | 1 | ⏹️ cancelled | 1.2 s |')
    expect(markdown).toContain(
      '- **google:gemini-3.5-flash** (sample 1): cancelled, not failed: the answers in hand already decided the verdict (`criterion_failed`)'
    )
    const terminal = renderTerminal(evaluation)
    expect(terminal.split('\n')[0]).toContain('judges 2/2 (1 cancelled, the verdict settled)')
    expect(terminal).toContain('google:gemini-3.5-flash (sample 1): cancelled, not failed')
    const json = toJsonReport(evaluation)
    expect(json.judges.map(j => [j.judge, j.status])).toEqual([
      [JUDGES[0], 'ok'],
      [JUDGES[1], 'ok'],
      [JUDGES[2], 'cancelled']
    ])
    expect(json.judges[2]).toMatchObject({ failure: null, requests: 1, cost_usd: 0.001 })
    // Not a failure: the verdict is the judges' FAIL, not a shortfall of the quorum.
    expect(evaluation.verdict.reasons.map(r => r.code)).toEqual(['criterion_failed'])
  })
})

describe('what the prompt caches read and wrote', () => {
  // One Anthropic member, three samples: the first wrote the shared prefix, the two behind it read it.
  const [writer, ...readers] = council([
    { judge: 'anthropic:claude-sonnet-4-6' },
    { judge: 'anthropic:claude-sonnet-4-6' },
    { judge: 'anthropic:claude-sonnet-4-6' }
  ]).runs.map((run, i) => ({ ...run, sample: i + 1 }))
  if (writer === undefined) throw new Error('no run')
  const runs: JudgeRun[] = [
    {
      ...writer,
      tokens: { input: 9000, cachedInput: 0, cacheWrite: 8192, output: 600 },
      costUsd: 0.0448,
      cacheCostUsd: { read: 0, write: 0.03072 }
    },
    ...readers.map(run => ({
      ...run,
      tokens: { input: 9000, cachedInput: 8192, cacheWrite: 0, output: 600 },
      costUsd: 0.0139,
      cacheCostUsd: { read: 0.0024576, write: 0 }
    }))
  ]
  const evaluation = evaluationOf(SEARCH_RUBRIC, PASSING_GATES, { runs, quorum: 2 })

  it('shows each call’s cache reads and writes with their dollars, in the comment, the terminal and the JSON report', () => {
    const markdown = renderMarkdown(evaluation, { budget: COMMENT_LIMIT })
    expect(markdown).toContain(
      '| judge | sample | answer | latency | tokens | prompt cache | cost |'
    )
    expect(markdown).toContain('| written 8,192 ($0.0307) | $0.0448 |')
    expect(markdown).toContain('| read 8,192 ($0.0025) | $0.0139 |')
    expect(renderTerminal(evaluation)).toContain(
      'prompt cache: anthropic:claude-sonnet-4-6 read 16,384 ($0.0049), written 8,192 ($0.0307)\n'
    )
    const json = toJsonReport(evaluation)
    expect(json.judges.map(j => j.cache_cost_usd)).toEqual([
      { read: 0, write: 0.03072 },
      { read: 0.0024576, write: 0 },
      { read: 0.0024576, write: 0 }
    ])
  })

  it('has no prompt-cache column when no call read or wrote a cache', () => {
    const none = evaluationOf(SEARCH_RUBRIC, PASSING_GATES, {
      runs: runs.map(run => ({
        ...run,
        tokens: { input: 9000, cachedInput: 0, cacheWrite: 0, output: 600 }
      })),
      quorum: 2
    })
    const markdown = renderMarkdown(none, { budget: COMMENT_LIMIT })
    expect(markdown).toContain('| judge | sample | answer | latency | tokens | cost |')
    expect(renderTerminal(none)).not.toContain('prompt cache')
  })
})
