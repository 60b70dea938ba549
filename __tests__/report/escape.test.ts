import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cmarkGfm } from '../helpers/render-github.js'
import {
  code,
  escapeCell,
  escapeHtml,
  escapeInline,
  escapeMarkdown,
  escapeSummary
} from '../../src/report/escape.js'

/** Text a judge, a gate or a file name could hold: mostly plain, with what escaping is about. */
const hostile = fc.string({
  unit: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('a', 'Z', '0', ' ', '.', '/', '-') },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        ...'&<>\\`*_[]|~@\n\r\t'.split(''),
        '</details>',
        '@octocat',
        '![x](http://a/b.png)',
        'é',
        '😀'
      )
    }
  ),
  maxLength: 40
})

describe('escaping untrusted text for Markdown', () => {
  it('leaves nothing that can open a tag, an entity, emphasis, a link, a table cell or a mention', () => {
    fc.assert(
      fc.property(hostile, text => {
        const inline = escapeInline(text)
        expect(inline).not.toMatch(/<(?!br>)/)
        expect(inline.replace(/&(amp|lt|gt);/g, '')).not.toContain('&')
        // Every Markdown character left is escaped by a backslash that is not itself escaped.
        expect(inline.replace(/\\[\\`*_[\]|~]/g, '')).not.toMatch(/[\\`*_[\]|~]/)
        expect(inline).not.toMatch(/@\w/)
        expect(inline).not.toContain('\n')
        expect(code(text)).toMatch(/^<code>[^<]*(?:<br>[^<]*)*<\/code>$/)
      }),
      { numRuns: 2000 }
    )
  })

  it('keeps a <summary> one line of text: no Markdown block of the attacker’s under the real heading', async () => {
    // A rubric title (the pull request's own rubric may be judged) with a fake verdict in it.
    const title = 'Team\n\n### ✅ Rubric Council: PASS\n\n**Accepted by @octocat**\n\n- [x] ok'
    const html = await cmarkGfm(
      `<details>\n<summary><b>Rubric</b> · ${escapeSummary(title)}</summary>\n\nfacts\n\n</details>\n`
    )
    expect(html).not.toMatch(/<h3|<strong|<li|<input/)
    expect(html).toContain('### ✅ Rubric Council: PASS')
    fc.assert(
      fc.property(hostile, text => {
        const summary = escapeSummary(text)
        expect(summary).not.toMatch(/[\n\r<>]|@\w/)
      }),
      { numRuns: 2000 }
    )
  })

  it('returns plain text as it is, and escapes the rest in full', () => {
    expect(escapeInline('src/m0/mod12.ts')).toBe('src/m0/mod12.ts')
    expect(escapeMarkdown('  412 tokens; 12 left in the budget \r\n')).toBe(
      '412 tokens; 12 left in the budget'
    )
    expect(escapeHtml('a < b')).toBe('a &lt; b')
    expect(escapeInline('a_b @team *x*\nnext')).toBe('a\\_b @\u200dteam \\*x\\*<br>next')
    expect(escapeMarkdown('one\r\ntwo\rthree')).toBe('one<br>two<br>three')
    expect(escapeCell('one\n  two')).toBe('one two')
    expect(code('<b>|x|</b>')).toBe('<code>&lt;b&gt;\\|x\\|&lt;/b&gt;</code>')
  })
})

describe('links in untrusted text', () => {
  /** What a judge might write to send a reader elsewhere, or to leave a trace on another issue. */
  const LINKS = [
    'see https://evil.example/phish and http://x.example',
    'www.evil.example/login',
    'closes #1, fixes acme/widgets#12 and GH-7',
    'reverts 4f9a2c7e1b8d3a6f0c1d2e3f4a5b6c7d8e9f0a1b and a1b2c3d',
    'mail admin@evil.example',
    'xmpp:bot@evil.example ftp://files.example'
  ]
  /**
   * GitHub's references as its renderer finds them after cmark-gfm: an issue or pull request
   * (`#12`, `org/repo#12`, `GH-12`) and a commit id of 7 to 40 hex digits, each as a whole word.
   */
  const REFERENCE = /(?:^|[^\w])(?:#\d|GH-\d)|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/i

  it.each(LINKS)('%s: renders no link and no reference, and reads the same', async text => {
    const html = await cmarkGfm(escapeMarkdown(text))
    expect(html).not.toContain('<a ')
    expect(html).not.toMatch(REFERENCE)
    expect(escapeMarkdown(text).replaceAll('\u2060', '').replaceAll('@\u200d', '@')).toBe(
      text.replaceAll('_', '\\_')
    )
  })

  it('holds in <summary> text too, where Markdown is not parsed but GitHub still links references', () => {
    for (const text of LINKS) expect(escapeHtml(text)).not.toMatch(REFERENCE)
  })

  it('leaves text without links as it is', () => {
    expect(escapeInline('a 2,000-token diff in 12 files; 3 of 4 judges agree')).toBe(
      'a 2,000-token diff in 12 files; 3 of 4 judges agree'
    )
  })
})
