import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { markdownToHTML, type Options } from 'comrak'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { unpackedChromium } from './chromium.js'

/**
 * A PR comment as people see it: GitHub's Markdown renderer (cmark-gfm), what GitHub's sanitiser
 * keeps, a page styled like a comment, and a real browser to look at it with. Both come from npm
 * packages (devDependencies), so `npm ci` is all the tests need.
 */

/**
 * cmark-gfm as the npm package `comrak` has it: comrak is a port of cmark-gfm to Rust, here
 * compiled to WebAssembly, and it renders the report's comments byte for byte as cmark-gfm
 * 0.29.0.gfm.6 does (CONTRIBUTING.md says what was compared).
 *
 * The options are the ones GitHub renders comments with, cmark-gfm's
 * `--unsafe --hardbreaks -e table -e strikethrough -e autolink -e tagfilter -e tasklist`:
 *
 * - The five GFM extensions GitHub enables.
 * - `unsafe`: cmark's default "safe" mode replaces every raw HTML tag with
 *   `<!-- raw HTML omitted -->`, which would delete the report's `<details>`, `<summary>`, `<b>`,
 *   `<code>`, `<br>` and `<sub>`. GitHub instead lets raw HTML through and relies on `tagfilter`
 *   (which turns `<script>`, `<style>`, `<iframe>`, `<textarea>`, `<title>`, `<xmp>`,
 *   `<noembed>`, `<noframes>` and `<plaintext>` into literal text, GFM spec §6.11) and then on its
 *   HTML sanitiser, which `sanitizeLikeGitHub` stands in for.
 * - `hardbreaks`: in issue and PR comments (unlike README files) GitHub renders a single newline
 *   inside a paragraph as a line break (jgm/pandoc#3594 describes the two modes).
 */
const GITHUB_OPTIONS: Options = {
  extension: { table: true, strikethrough: true, autolink: true, tagfilter: true, tasklist: true },
  render: { unsafe: true, hardbreaks: true }
}

/** cmark-gfm's HTML for `markdown`, before sanitising. */
export function cmarkGfm(markdown: string): Promise<string> {
  return Promise.resolve(markdownToHTML(markdown, GITHUB_OPTIONS))
}

/** Elements GitHub's sanitiser removes with their content (not all are covered by tagfilter). */
const DROPPED_ELEMENTS = ['script', 'style', 'iframe', 'object', 'embed', 'frame', 'frameset']

/**
 * What GitHub's sanitiser would remove from cmark-gfm's output, for the parts that matter to a
 * report: dangerous elements, event-handler (`on…`) and `style` attributes, and `javascript:`,
 * `vbscript:` and `data:` URLs. It is a stand-in, not GitHub's allow-list: regular expressions
 * suffice because the input is cmark-gfm's own well-formed output, never a browser's tag soup.
 */
export function sanitizeLikeGitHub(html: string): string {
  const elements = DROPPED_ELEMENTS.join('|')
  return html
    .replace(new RegExp(`<(${elements})\\b[^>]*>[\\s\\S]*?</\\1\\s*>`, 'gi'), '')
    .replace(new RegExp(`</?(?:${elements})\\b[^>]*>`, 'gi'), '')
    .replace(/<[a-zA-Z][^>]*>/g, tag =>
      tag
        .replace(/\s+(?:on[a-z]+|style)\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+)/gi, '')
        .replace(
          /\s+(?:href|src|action|formaction)\s*=\s*(["']?)\s*(?:javascript|vbscript|data):[^"'>\s]*\1/gi,
          ''
        )
    )
}

/** `markdown` as GitHub renders it in a comment: cmark-gfm with GitHub's options, then sanitised. */
export async function renderGfm(markdown: string): Promise<string> {
  return sanitizeLikeGitHub(await cmarkGfm(markdown))
}

/** The width GitHub gives a comment body on a wide screen, roughly. */
export const COMMENT_WIDTH = 900

/*
 * This machine, like many CI machines, has no colour-emoji font, so the report's status icons
 * would be empty boxes. GitHub itself swaps emoji for images where the platform lacks them
 * (`<g-emoji>`); this does the same with small inline pictures, keeping the character in the text
 * (transparent) so that what a test reads is still the report's own text.
 */
const EMOJI: readonly (readonly [RegExp, string, string])[] = [
  [
    /✅/u,
    'check',
    rounded(
      '#1f883d',
      "<path d='M9 18.5l6 6 12-13' stroke='#fff' stroke-width='4.5' fill='none' stroke-linecap='round' stroke-linejoin='round'/>"
    )
  ],
  [
    /❌/u,
    'cross',
    "<path d='M8 8l20 20M28 8L8 28' stroke='#d1242f' stroke-width='6' stroke-linecap='round'/>"
  ],
  [
    /⚠\uFE0F?/u,
    'warning',
    "<path d='M18 3L34 32H2z' fill='#f2c12e' stroke='#f2c12e' stroke-width='3' stroke-linejoin='round'/><path d='M18 13v9' stroke='#24292f' stroke-width='3.5' stroke-linecap='round'/><circle cx='18' cy='27.5' r='2' fill='#24292f'/>"
  ],
  [/🔴/u, 'red', "<circle cx='18' cy='18' r='15' fill='#d1242f'/>"],
  [/🟠/u, 'orange', "<circle cx='18' cy='18' r='15' fill='#f08c00'/>"],
  [/🟡/u, 'yellow', "<circle cx='18' cy='18' r='15' fill='#f2c12e'/>"],
  [/🔵/u, 'blue', "<circle cx='18' cy='18' r='15' fill='#2f81f7'/>"],
  [
    /🔢/u,
    'numbers',
    rounded(
      '#2f81f7',
      "<text x='18' y='23' font-size='13' font-family='sans-serif' font-weight='bold' fill='#fff' text-anchor='middle'>1234</text>"
    )
  ],
  [/➖/u, 'minus', "<path d='M7 18h22' stroke='#59636e' stroke-width='5' stroke-linecap='round'/>"]
]

function rounded(fill: string, inner: string): string {
  return `<rect x='2' y='2' width='32' height='32' rx='7' fill='${fill}'/>${inner}`
}

const EMOJI_PATTERN = new RegExp(EMOJI.map(([re]) => re.source).join('|'), 'gu')

function emojiCss(): string {
  return EMOJI.map(([, name, body]) => {
    const svg = `<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 36 36'>${body}</svg>`
    return `.emoji-${name} { background-image: url("data:image/svg+xml,${encodeURIComponent(svg)}"); }`
  }).join('\n')
}

/** Wraps known emoji in text (never inside tags) so the CSS above can draw them. */
function markEmoji(html: string): string {
  return html
    .split(/(<[^>]*>)/)
    .map(part =>
      part.startsWith('<')
        ? part
        : part.replace(EMOJI_PATTERN, char => {
            const name = EMOJI.find(([re]) => re.test(char))?.[1] ?? 'unknown'
            return `<span class="emoji emoji-${name}">${char}</span>`
          })
    )
    .join('')
}

/*
 * GitHub-like look, written for this harness: the values (14 px system sans, 1.5 line height,
 * grey borders, striped tables, tinted code) follow what a GitHub comment looks like, not its CSS.
 */
const CSS = `
* { box-sizing: border-box; }
html { background: #fff; }
body {
  margin: 0; padding: 0; color: #1f2328; background: #fff;
  font: 14px/1.5 -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif;
}
.timeline {
  display: flex; gap: 16px; align-items: flex-start; width: ${COMMENT_WIDTH}px;
  padding: 12px; background: #fff;
}
.avatar {
  flex: none; width: 40px; height: 40px; border-radius: 6px; background: #2f81f7;
  display: flex; align-items: center; justify-content: center;
  box-shadow: 0 0 0 1px rgba(31, 35, 40, 0.15);
}
.comment { flex: 1; min-width: 0; border: 1px solid #d1d9e0; border-radius: 6px; background: #fff; position: relative; }
.comment::before, .comment::after {
  content: ""; position: absolute; top: 11px; right: 100%; border: 8px solid transparent;
}
.comment::before { border-right-color: #d1d9e0; }
.comment::after { margin-right: -1px; border-right-color: #f6f8fa; }
.comment-header {
  display: flex; align-items: center; gap: 4px; padding: 8px 16px; color: #59636e;
  background: #f6f8fa; border-bottom: 1px solid #d1d9e0; border-radius: 6px 6px 0 0;
}
.comment-header .author { color: #1f2328; font-weight: 600; }
.comment-header .label {
  padding: 0 7px; font-size: 12px; font-weight: 500; line-height: 18px;
  border: 1px solid #d1d9e0; border-radius: 2em;
}
.comment-body { padding: 16px; overflow-wrap: break-word; }
.comment-body > :first-child { margin-top: 0 !important; }
.comment-body > :last-child { margin-bottom: 0 !important; }
.comment-body p, .comment-body ul, .comment-body ol, .comment-body table, .comment-body pre,
.comment-body blockquote, .comment-body details { margin: 0 0 16px; }
.comment-body h1, .comment-body h2, .comment-body h3, .comment-body h4 {
  margin: 24px 0 16px; font-weight: 600; line-height: 1.25;
}
.comment-body h3 { font-size: 1.25em; }
.comment-body h4 { font-size: 1em; }
.comment-body ul, .comment-body ol { padding-left: 2em; }
.comment-body li + li { margin-top: 0.25em; }
.comment-body a { color: #0969da; text-decoration: none; }
.comment-body code, .comment-body pre {
  font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
  font-size: 85%;
}
.comment-body code { padding: 0.2em 0.4em; border-radius: 6px; background: rgba(129, 139, 151, 0.15); }
.comment-body pre {
  padding: 16px; overflow: auto; line-height: 1.45; background: #f6f8fa; border-radius: 6px;
}
.comment-body pre code { padding: 0; font-size: 100%; background: transparent; }
.comment-body table {
  display: block; width: max-content; max-width: 100%; overflow: auto; border-collapse: collapse;
  border-spacing: 0;
}
.comment-body th, .comment-body td { padding: 6px 13px; border: 1px solid #d1d9e0; }
.comment-body th { font-weight: 600; }
.comment-body tr { background: #fff; border-top: 1px solid #d1d9e0; }
.comment-body tr:nth-child(2n) { background: #f6f8fa; }
.comment-body summary { cursor: pointer; }
.comment-body blockquote { padding: 0 1em; color: #59636e; border-left: 0.25em solid #d1d9e0; }
.comment-body sub { font-size: 75%; color: #59636e; }
.emoji {
  display: inline-block; width: 1.2em; height: 1.2em; overflow: hidden; vertical-align: -0.2em;
  color: transparent; background: center / contain no-repeat;
}
`

/** A standalone page showing `html` as the body of a bot's PR comment; it loads nothing. */
export function githubPage(html: string): string {
  const logo =
    "<svg width='22' height='22' viewBox='0 0 16 16' aria-hidden='true'><path fill='#fff' d='M5 3.5v9l7-4.5z'/></svg>"
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>github-actions bot commented</title>
<style>${CSS}
${emojiCss()}</style>
</head>
<body>
<div class="timeline">
  <div class="avatar">${logo}</div>
  <div class="comment">
    <div class="comment-header">
      <span class="author">github-actions</span>
      <span class="label">bot</span>
      <span>commented now</span>
    </div>
    <div class="comment-body">
${markEmoji(html)}
    </div>
  </div>
</div>
</body>
</html>
`
}

/** Flags for a headless Chromium on a machine with no network but the package registry's. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
]

interface Browser {
  readonly context: BrowserContext
  readonly userDataDir: string
}

/** One browser per process (a test file, the screenshot script): starting one takes most of a second. */
let browser: Promise<Browser> | undefined

async function launch(): Promise<Browser> {
  const { executablePath, env } = await unpackedChromium()
  const userDataDir = await mkdtemp(join(tmpdir(), 'rubric-council-chromium-'))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    env,
    args: CHROMIUM_ARGS,
    viewport: { width: COMMENT_WIDTH, height: 800 },
    // Crisp screenshots; tests do not notice the difference.
    deviceScaleFactor: 2,
    // The page is self-contained: anything it tried to fetch would be a mistake.
    offline: true
  })
  return { context, userDataDir }
}

/**
 * Starts the shared browser if it is not running yet. The first start on a machine also unpacks
 * Chromium (./chromium.ts), which on a busy machine can take longer than a test may: call this in
 * `beforeAll` with a long timeout.
 */
export async function startBrowser(): Promise<void> {
  browser ??= launch()
  await browser
}

/** Opens `html` in a new tab of the shared browser; `close()` closes the tab only. */
export async function openInBrowser(html: string): Promise<{ page: Page; close(): Promise<void> }> {
  browser ??= launch()
  const { context } = await browser
  const page = await context.newPage()
  // A missing element should fail with Playwright's message, well before the test's own timeout.
  page.setDefaultTimeout(5_000)
  await page.setContent(html, { waitUntil: 'load' })
  // A string, not a function: this project type-checks without the DOM library.
  await page.evaluate('document.fonts.ready.then(() => undefined)')
  return { page, close: () => page.close() }
}

/** Closes the shared browser and removes its profile; call once, when done (`afterAll`). */
export async function closeBrowser(): Promise<void> {
  const current = browser
  browser = undefined
  if (!current) return
  const { context, userDataDir } = await current
  await context.close()
  await rm(userDataDir, { recursive: true, force: true })
}
