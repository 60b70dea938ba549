import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  code,
  escapeCell,
  escapeHtml,
  escapeInline,
  escapeMarkdown
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
