import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readState } from '../../src/publish/memory.js'
import { renderRubricsComment, worstFirst, type RubricOutcome } from '../../src/publish/rubrics.js'
import { COMMENT_LIMIT } from '../../src/report/markdown.js'
import {
  closeBrowser,
  cmarkGfm,
  githubPage,
  openInBrowser,
  renderGfm,
  sanitizeLikeGitHub,
  startBrowser
} from '../helpers/render-github.js'
import { sampleEvaluations } from '../helpers/sample-evaluations.js'

/**
 * The comment of a pull request judged by several rubrics (docs/rubric.md#several-rubrics), as a
 * reviewer meets it: GitHub's Markdown engine, then a browser. The worst verdict comes first and is
 * open; the others are a click away; a rubric that did not apply is a row of the table.
 */

const samples = new Map(sampleEvaluations().map(s => [s.name, s.evaluation]))
const outcome = (name: string, sample: 'pass' | 'fail' | 'unclear'): RubricOutcome => {
  const evaluation = samples.get(sample)
  if (evaluation === undefined) throw new Error(`no sample ${sample}`)
  return {
    name,
    checkName: `rubric-council / ${name}`,
    path: `.github/rubrics/${name}.md`,
    evaluation
  }
}
const OUTCOMES: RubricOutcome[] = [
  outcome('api', 'pass'),
  {
    name: 'docs',
    checkName: 'rubric-council / docs',
    path: '.github/rubrics/docs.md',
    notApplicable: 'not applicable: no changed file matches paths docs/**'
  },
  outcome('payments', 'fail'),
  outcome('search', 'unclear')
]

let markdown = ''
let html = ''
beforeAll(async () => {
  await startBrowser()
  markdown = renderRubricsComment(OUTCOMES, 'rubric-council', { history: [] })
  html = await renderGfm(markdown)
}, 180_000)
afterAll(closeBrowser)

describe('the comment of several rubrics, as rendered by GitHub', () => {
  it('fits a comment, uses nothing GitHub would strip, and keeps its state', async () => {
    expect(markdown.length).toBeLessThanOrEqual(COMMENT_LIMIT)
    expect(sanitizeLikeGitHub(await cmarkGfm(markdown))).toBe(html)
    expect(readState(markdown)).toEqual({ history: [] })
  })

  it('orders the rubrics worst first: FAIL, UNCLEAR, PASS, then those that did not apply', () => {
    expect(worstFirst(OUTCOMES).map(o => o.name)).toEqual(['payments', 'search', 'api', 'docs'])
  })

  it('shows the worst verdict, a table of every rubric, and the failing rubric open', async () => {
    const view = await openInBrowser(githubPage(html))
    try {
      const { page } = view
      expect(await page.locator('h3').first().innerText()).toBe('❌ Rubric Council: FAIL')
      const rows = await page.locator('table').first().locator('tbody tr').allInnerTexts()
      expect(rows.map(r => r.split('\t').slice(0, 2).join(' | '))).toEqual([
        'rubric-council / payments | ❌ FAIL',
        'rubric-council / search | ⚠️ UNCLEAR',
        'rubric-council / api | ✅ PASS',
        'rubric-council / docs | ➖ not applicable'
      ])
      // Each rubric's section, in the table's order (the reports inside have sections of their own).
      const summaries = await page.locator('details > summary:has(> b)').allInnerTexts()
      expect(summaries.filter(t => /^(payments|search|api|docs): /.test(t))).toEqual([
        'payments: ❌ FAIL',
        'search: ⚠️ UNCLEAR',
        'api: ✅ PASS'
      ])
      const payments = page.locator('details', {
        has: page.locator(':scope > summary', { hasText: 'payments: ❌ FAIL' })
      })
      const api = page.locator('details', {
        has: page.locator(':scope > summary', { hasText: 'api: ✅ PASS' })
      })
      expect(await payments.first().getAttribute('open')).not.toBeNull()
      expect(await api.first().getAttribute('open')).toBeNull()
      // The failing rubric's own report is readable inside its section.
      expect(await payments.first().innerText()).toContain('Must-have criteria')
    } finally {
      await view.close()
    }
  })
})
