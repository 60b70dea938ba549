import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  closeBrowser,
  cmarkGfm,
  githubPage,
  openInBrowser,
  renderGfm,
  sanitizeLikeGitHub,
  startBrowser
} from './helpers/render-github.js'
import {
  manyCriteria,
  postedComment,
  sampleEvaluations,
  type Sample
} from './helpers/sample-evaluations.js'

/*
 * The report as a reviewer meets it on a pull request: rendered by GitHub's Markdown engine,
 * shown in a browser, read and clicked. String checks on the Markdown cannot catch a table that
 * does not render, an escape that shows as a backslash, or a section that is open by default.
 */

const ICON = { PASS: '✅', FAIL: '❌', UNCLEAR: '⚠️' } as const

// The first start on a machine unpacks Chromium from its npm package: seconds, more when busy.
beforeAll(startBrowser, 180_000)
afterAll(closeBrowser)

/** Runs `look` on a fresh tab showing the sample's comment, closing the tab afterwards. */
async function inBrowser(html: string, look: (page: Page) => Promise<void>): Promise<void> {
  const view = await openInBrowser(githubPage(html))
  try {
    await look(view.page)
  } finally {
    await view.close()
  }
}

/** The `<details>` whose own `<summary>` names `title` in bold or as code, exactly. */
function section(page: Page, title: string): Locator {
  return page
    .locator('details')
    .filter({
      has: page.locator(':scope > summary > :is(b, code)').getByText(title, { exact: true })
    })
    .first()
}

/** Whether a `<details>` is open: the browser keeps its `open` attribute in step with clicks. */
const isOpen = async (details: Locator): Promise<boolean> =>
  (await details.getAttribute('open')) !== null

/** Opens every section the way a reader would: outer summaries first, so inner ones show. */
async function openEverything(page: Page): Promise<void> {
  const summaries = page.locator('details > summary')
  const count = await summaries.count()
  for (let i = 0; i < count; i++) {
    const summary = summaries.nth(i)
    if (!(await isOpen(summary.locator('xpath=..')))) await summary.click()
  }
}

describe.each(sampleEvaluations().map(s => [s.name, s] as const))(
  'the %s comment, as rendered by GitHub',
  (_name, sample: Sample) => {
    let html = ''
    let markdown = ''
    // Judges that timed out or failed have no column in the dimensions table.
    const answered = (sample.evaluation.council?.runs ?? [])
      .filter(r => r.status === 'ok')
      .map(r => r.judge)

    beforeAll(async () => {
      // The comment as the action posts it, which the README's pictures show too.
      markdown = postedComment(sample.evaluation)
      html = await renderGfm(markdown)
    })

    it('uses nothing that GitHub would strip', async () => {
      expect(sanitizeLikeGitHub(await cmarkGfm(markdown))).toBe(html)
    })

    it('shows the verdict in the headline', async () => {
      expect(sample.evaluation.verdict.verdict).toBe(sample.verdict)
      await inBrowser(html, async page => {
        const headline = page.getByRole('heading', { level: 3 })
        await expect(headline.isVisible()).resolves.toBe(true)
        expect((await headline.innerText()).trim()).toBe(
          `${ICON[sample.verdict]} Rubric Council: ${sample.verdict}`
        )
      })
    })

    it('starts with every section closed and its content hidden', async () => {
      await inBrowser(html, async page => {
        const details = await page.locator('details').all()
        expect(details.length).toBeGreaterThanOrEqual(6)
        for (const d of details) {
          expect(await isOpen(d)).toBe(false)
          for (const content of await d.locator(':scope > :not(summary)').all()) {
            expect(await content.isVisible()).toBe(false)
          }
        }
        // The top-level summaries are what a reader sees and clicks.
        for (const title of ['Gates', 'Dimensions', 'Judges', 'Rubric']) {
          expect(await section(page, title).locator(':scope > summary').isVisible()).toBe(true)
        }
      })
    })

    it(`opens ${sample.focus} to show each judge's reasoning`, async () => {
      const criterion = sample.evaluation.verdict.criteria.find(c => c.id === sample.focus)
      const votes = criterion?.votes ?? []
      expect(votes.length).toBeGreaterThanOrEqual(2)
      await inBrowser(html, async page => {
        const details = section(page, sample.focus)
        // One list item per judge, naming the judge and giving the reasoning in full.
        const items = votes.map(vote =>
          details
            .locator(':scope > ul > li')
            .filter({ hasText: vote.judge })
            .filter({ hasText: vote.reasoning })
        )
        for (const item of items) expect(await item.isVisible()).toBe(false)
        await details.locator(':scope > summary').click()
        expect(await isOpen(details)).toBe(true)
        for (const item of items) expect(await item.isVisible()).toBe(true)
      })
    })

    it('renders the gates, dimensions and judges as tables', async () => {
      const tables = {
        Gates: ['', 'gate', 'result', 'time'],
        Dimensions: ['dimension', 'weight', 'median', ...answered],
        Judges: ['judge', 'sample', 'answer', 'latency', 'tokens', 'prompt cache', 'cost']
      }
      await inBrowser(html, async page => {
        for (const [title, header] of Object.entries(tables)) {
          const details = section(page, title)
          await details.locator(':scope > summary').click()
          const table = details.locator(':scope > table')
          expect(await table.isVisible()).toBe(true)
          expect((await table.locator('thead th').allInnerTexts()).map(t => t.trim())).toEqual(
            header
          )
          expect(await table.locator('tbody tr').count()).toBeGreaterThan(0)
        }
      })
    })

    it('shows no raw Markdown or HTML as text, even with everything open', async () => {
      await inBrowser(html, async page => {
        await openEverything(page)
        for (const d of await page.locator('details').all()) expect(await isOpen(d)).toBe(true)
        const text = await page.locator('.comment-body').innerText()
        expect(text).toContain(`Rubric Council: ${sample.verdict}`)
        expect(text).not.toContain('**')
        expect(text).not.toMatch(/\|\s*-{3,}/)
        expect(text).not.toMatch(/<\/?(details|summary|b|code|br|sub)>/)
        expect(text).not.toMatch(/^#{1,6} /m)
        expect(text).not.toContain('```')
        // Entities shown as text would mean escaping twice; a backslash, an escape left behind.
        expect(text).not.toMatch(/&(lt|gt|amp|quot);/)
        expect(text).not.toMatch(/\\[\\`*_[\]|~<>#]/)
      })
    })
  }
)

describe('the FAIL comment', () => {
  const fail = sampleEvaluations().find(s => s.verdict === 'FAIL')

  it("opens the failing gate's output from inside the gates section", async () => {
    if (!fail) throw new Error('no FAIL sample')
    const html = await renderGfm(postedComment(fail.evaluation))
    await inBrowser(html, async page => {
      const output = section(page, 'pytest tests/test_search.py')
      await expect(output.locator(':scope > summary').isVisible()).resolves.toBe(false)
      await section(page, 'Gates').locator(':scope > summary').click()
      await output.locator(':scope > summary').click()
      const log = output.locator('pre')
      expect(await log.isVisible()).toBe(true)
      expect(await log.innerText()).toContain('1 failed, 23 passed')
    })
  })
})

describe('a comment of 100 must-haves with 4,000 characters of reasoning from each of 3 judges', () => {
  it("shows every criterion's line, its status and votes, before anything is opened", async () => {
    const markdown = postedComment(manyCriteria(100, { reasoning: 4_000, fail: ['c100'] }))
    const html = await renderGfm(markdown)
    expect(sanitizeLikeGitHub(await cmarkGfm(markdown))).toBe(html)
    await inBrowser(html, async page => {
      // A criterion's line is its details' summary, or a paragraph once its details had to go.
      const texts = await page
        .locator('.comment-body > p:visible, .comment-body > details > summary:visible')
        .allInnerTexts()
      const shown = new Map(
        texts.flatMap(text => {
          const id = /^\S+ (c\d+) · /u.exec(text.trim())?.[1]
          return id === undefined ? [] : [[id, text.trim()] as const]
        })
      )
      for (let i = 1; i < 100; i++) expect(shown.get(`c${i}`)).toMatch(/ · PASS \(3\/3 PASS\) — /)
      expect(shown.get('c100')).toMatch(/^❌ c100 · FAIL \(1\/3 PASS\) — /)
    })
  })
})

describe('the GitHub stand-in', () => {
  it("keeps the report's tags and removes what GitHub's sanitiser would", async () => {
    const html = await renderGfm(
      [
        '<details>\n<summary><b>x</b> <code>y</code></summary>\n',
        '<script>alert(1)</script>\n',
        'a<br><sub>s</sub> <img src="p.png" onerror="alert(1)" style="color: red">',
        '[link](javascript:alert(1)) <object data="x"></object>\n',
        '</details>\n'
      ].join('\n')
    )
    expect(html).toContain('<details>\n<summary><b>x</b> <code>y</code></summary>')
    expect(html).toContain('<br><sub>s</sub>')
    expect(html).toContain('&lt;script>')
    expect(html).not.toMatch(/<script|<object|onerror|style=|javascript:/)
    expect(html).toContain('<img src="p.png">')
    expect(html).toContain('<a>link</a>')
  })
})
