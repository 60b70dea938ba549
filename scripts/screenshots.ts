/**
 * Pictures of the PR comment for the docs: the comment the action posts (`commentMarkdown`),
 * rendered exactly as `__tests__/rendered-comment.test.ts` checks it: GitHub's Markdown engine, a
 * GitHub-like page, Chromium. Run with `npx tsx scripts/screenshots.ts`; it writes
 * docs/images/comment-{pass,fail,unclear}.png.
 */
import { mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  closeBrowser,
  githubPage,
  openInBrowser,
  renderGfm
} from '../__tests__/helpers/render-github.js'
import {
  postedComment,
  sampleEvaluations,
  type Sample
} from '../__tests__/helpers/sample-evaluations.js'

const OUT = fileURLToPath(new URL('../docs/images/', import.meta.url))

/**
 * A picture's Markdown: the sticky comment as the action posts it, "Next:" line, iterations and
 * hidden state included (__tests__/action/pictures.test.ts holds the two together).
 */
export function commentMarkdown(sample: Sample): string {
  return postedComment(sample.evaluation)
}

async function main(): Promise<void> {
  await mkdir(OUT, { recursive: true })
  try {
    for (const sample of sampleEvaluations()) {
      const html = await renderGfm(commentMarkdown(sample))
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

// Imported by the test that compares its Markdown with the posted comment: only run, it draws.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main()
}
