import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DEFAULT_THRESHOLDS,
  measureCalibration,
  type CalibrationRun
} from '../../src/calibrate/measure.js'
import {
  bar,
  renderCalibrationHtml,
  renderCalibrationMarkdown
} from '../../src/calibrate/render.js'
import { closeBrowser, openInBrowser, startBrowser } from '../helpers/render-github.js'

/** Eight cases, two runs each: `sound` always right, `shaky` wrong on the first run of every case. */
function report(interrupted = false) {
  const expected = ['FAIL', 'FAIL', 'FAIL', 'FAIL', 'PASS', 'PASS', 'PASS', 'PASS'] as const
  const flip = (s: 'PASS' | 'FAIL') => (s === 'PASS' ? 'FAIL' : 'PASS')
  const runs: CalibrationRun[] = expected.flatMap((s, i) =>
    [1, 2].map(repeat => ({
      case: i,
      repeat,
      verdict: s,
      criteria: [
        { id: 'sound', status: s, votes: [s, s] },
        { id: 'shaky', status: repeat === 1 ? flip(s) : s, votes: [s, flip(s)] }
      ],
      tokens: { input: 1000, output: 50 },
      dollars: 0.002,
      unpriced: 0
    }))
  )
  return measureCalibration({
    set: '.github/rubric-calibration.yml',
    rubric: '.github/rubric.md',
    evidenceOrder: 'diff',
    cases: expected.map((s, i) => ({
      name: `#${i + 10} <b>change</b>`,
      line: i + 2,
      column: 5,
      refs: { kind: 'range', base: 'a', head: 'b' },
      base: 'a',
      head: 'b',
      expect: s,
      criteria: { sound: s, shaky: s }
    })),
    criteria: [
      { id: 'sound', required: true },
      { id: 'shaky', required: true }
    ],
    repeat: 2,
    runs: interrupted ? runs.slice(0, 5) : runs,
    interrupted,
    thresholds: { ...DEFAULT_THRESHOLDS, minLabelled: 4 }
  })
}

describe('the Markdown calibration report', () => {
  it('draws each criterion’s precision, recall and flip as bars, with its recommendation and reason', () => {
    const markdown = renderCalibrationMarkdown(report())
    expect(markdown).toContain(
      [
        '#### <code>sound</code>: block',
        '',
        '```text',
        `precision ${'█'.repeat(20)} 100%  needs ≥ 90%`,
        `recall    ${'█'.repeat(20)} 100%`,
        `flip      ${'░'.repeat(20)}   0%  needs ≤ 10%`,
        '```',
        '',
        'Precision 100%, flip 0%, on 4 cases labelled PASS and 4 labelled FAIL.'
      ].join('\n')
    )
    expect(markdown).toContain(`precision ${'█'.repeat(10)}${'░'.repeat(10)}  50%  needs ≥ 90%`)
    expect(markdown).toContain('| <code>shaky</code> | advise | 4 / 4 | 50% | 50% | 100% | 50% |')
    // Names from the set are text, never markup.
    expect(markdown).toContain('&lt;b&gt;change&lt;/b&gt;')
    expect(markdown).toContain('16 of 16 runs (8 cases × 2) completed.')
  })

  it('says when it was interrupted, and how many runs it holds', () => {
    expect(renderCalibrationMarkdown(report(true))).toContain(
      'Interrupted: 5 of 16 runs (8 cases × 2) completed; 11 not run. The figures are of the completed runs only.'
    )
  })

  it('shows a figure that was not measured as dots, never as an empty bar', () => {
    expect(bar(null)).toBe('·'.repeat(20))
    expect(bar(0)).toBe('░'.repeat(20))
  })
})

describe('the HTML calibration report, in a browser without a network', () => {
  beforeAll(() => startBrowser(), 120_000)
  afterAll(() => closeBrowser())

  it('shows the verdicts and a chart per criterion, with nothing fetched', async () => {
    const html = renderCalibrationHtml(report())
    expect(html).not.toMatch(/(src|href)=["']?https?:/)
    const view = await openInBrowser(html)
    try {
      const { page } = view
      expect(await page.locator('h1').innerText()).toBe('Calibration of .github/rubric.md')
      expect(await page.locator('table').first().innerText()).toMatch(
        /accuracy\s+false PASS\s+false FAIL\s+UNCLEAR\s+flip\s+100%\s+0%\s+0%\s+0%\s+0%/
      )
      const sections = page.locator('section.criterion')
      expect(await sections.count()).toBe(2)
      expect(await sections.nth(0).locator('h3').innerText()).toBe('sound: block')
      expect(await sections.nth(1).locator('h3').innerText()).toBe('shaky: advise')
      expect(await sections.nth(1).locator('svg').getAttribute('aria-label')).toBe(
        'shaky: precision 50%, recall 50%, flip 100%'
      )
      // The bars are drawn to scale: shaky's precision bar half the width of sound's.
      const bars = page.locator('section.criterion svg rect[fill="#0969da"]')
      const soundPrecision = (await bars.nth(0).boundingBox())?.width ?? 0
      const shakyPrecision = (await bars.nth(3).boundingBox())?.width ?? 0
      expect(soundPrecision).toBeGreaterThan(100)
      expect(shakyPrecision).toBeCloseTo(soundPrecision / 2, 0)
      // The name is shown as text (a word joiner keeps "#10" from reading as a reference).
      expect((await page.locator('body').innerText()).replace(/\u2060/g, '')).toContain(
        '#10 <b>change</b>'
      )
    } finally {
      await view.close()
    }
  }, 60_000)
})
