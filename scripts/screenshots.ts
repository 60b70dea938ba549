/**
 * Pictures of the PR comment for the docs, rendered exactly as `__tests__/rendered-comment.test.ts`
 * checks it: GitHub's Markdown engine, a GitHub-like page, Chromium. Run with
 * `npx tsx scripts/screenshots.ts`; it writes docs/images/comment-{pass,fail,unclear}.png.
 */
import { mkdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import {
  closeBrowser,
  githubPage,
  openInBrowser,
  renderGfm
} from '../__tests__/helpers/render-github.js'
import { sampleEvaluations } from '../__tests__/helpers/sample-evaluations.js'
import { COMMENT_LIMIT, renderMarkdown } from '../src/report/markdown.js'

const OUT = fileURLToPath(new URL('../docs/images/', import.meta.url))

async function main(): Promise<void> {
  await mkdir(OUT, { recursive: true })
  try {
    for (const sample of sampleEvaluations()) {
      const html = await renderGfm(renderMarkdown(sample.evaluation, { budget: COMMENT_LIMIT }))
      const view = await openInBrowser(githubPage(html))
      const { page } = view
      try {
        // A failing report is read by opening what failed: show one criterion as a reader would.
        if (sample.verdict === 'FAIL') {
          await page
            .locator('details > summary > b')
            .getByText(sample.focus, { exact: true })
            .click()
        }
        const path = `${OUT}comment-${sample.name}.png`
        await page.locator('.timeline').screenshot({ path, animations: 'disabled' })
        console.log(`wrote ${path}`)
      } finally {
        await view.close()
      }
    }
  } finally {
    await closeBrowser()
  }
}

await main()
