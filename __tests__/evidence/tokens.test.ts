import fc from 'fast-check'
import { encode, countTokens as referenceCount } from 'gpt-tokenizer/encoding/o200k_base'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { countTokens, countTokensUpTo, truncateToTokens } from '../../src/evidence/tokens.js'
import { compactVocabulary, tiktokenSource, VOCABULARY_PATH } from '../../scripts/vocabulary.js'

// gpt-tokenizer, a dev dependency, is the reference: our counter must agree with it token for token.
const AS_TEXT = { disallowedSpecial: new Set<string>() }
const reference = (text: string): number => referenceCount(text, AS_TEXT)
// gpt-tokenizer's own decode mangles a character split across tokens, so the reference cut
// joins the tokens' bytes from the published vocabulary and decodes them once.
const tokenBytes = tiktokenSource()
  .split('\n')
  .filter(line => line !== '')
  .map(line => Buffer.from(line.split(' ')[0] ?? '', 'base64'))
const referenceTruncate = (text: string, max: number): string =>
  new TextDecoder()
    .decode(
      Buffer.concat(
        encode(text, AS_TEXT)
          .slice(0, Math.max(0, max))
          .map(t => tokenBytes[t] ?? Buffer.alloc(0))
      )
    )
    .replace(/\uFFFD+$/, '')

/** Code-like text: identifiers, numbers, operators, indentation, line ends, contractions, emoji. */
const codeLike = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'const',
        ' x',
        'getHTTPResponse',
        'snake_case',
        ' = ',
        '=>',
        '{',
        '}\n',
        '\r\n',
        '\t',
        '    ',
        "'s",
        "'LL",
        "IT'S",
        "we'Re",
        "'D",
        " don't",
        '1234567',
        '3.14',
        '// TODO',
        '/* */',
        '+',
        '-',
        '@@ -1,2 +1,3 @@',
        '<|endoftext|>',
        '<|fim_prefix|>',
        'Ünïcödé',
        'Straße',
        '東京都',
        'मैं',
        '👩‍💻',
        '🏳️‍🌈',
        '\u0301',
        '  \n\n  ',
        '\u00A0',
        'ß',
        'İ',
        'ǅ',
        '\u200B'
      ),
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc.string({ maxLength: 12 })
    ),
    { maxLength: 60 }
  )
  .map(parts => parts.join(''))

describe('countTokens (o200k_base)', () => {
  it('agrees with gpt-tokenizer on arbitrary Unicode, including lone surrogates', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), text => {
        expect(countTokens(text)).toBe(reference(text))
      }),
      { numRuns: 1500 }
    )
  })

  it('agrees with gpt-tokenizer on code-like text', () => {
    fc.assert(
      fc.property(codeLike, text => {
        expect(countTokens(text)).toBe(reference(text))
      }),
      { numRuns: 1500 }
    )
  })

  it('agrees with gpt-tokenizer on every file of this repository', () => {
    const files = execFileSync(
      'git',
      ['ls-files', '--', '*.ts', '*.md', '*.yml', '*.json', '*.mjs'],
      {
        encoding: 'utf8'
      }
    )
      .split('\n')
      .filter(path => path !== '')
    expect(files.length).toBeGreaterThan(100)
    for (const path of files) {
      const text = readFileSync(path, 'utf8')
      expect({ path, tokens: countTokens(text) }).toEqual({ path, tokens: reference(text) })
    }
  })

  it('counts long unbroken pieces exactly (thousands of merges in one piece)', () => {
    const random = fc.sample(fc.constantFrom('a', 'e', 'é', 'n', 'q', 'r', 's', 't', 'z'), {
      numRuns: 20_000,
      seed: 7
    })
    for (const text of [
      'a'.repeat(5000),
      random.join(''),
      'ab'.repeat(3000),
      '9'.repeat(4000),
      ' '.repeat(3000)
    ]) {
      expect(countTokens(text)).toBe(reference(text))
    }
  })

  it('counts special tokens as the characters they are', () => {
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1)
    expect(countTokens('')).toBe(0)
    expect(countTokens('hello world')).toBe(2)
  })
})

describe('countTokensUpTo', () => {
  it('is the exact count when it is at most the limit, and above the limit otherwise', () => {
    fc.assert(
      fc.property(codeLike, fc.integer({ min: -2, max: 60 }), (text, limit) => {
        const exact = reference(text)
        const counted = countTokensUpTo(text, limit)
        if (exact <= limit) expect(counted).toBe(exact)
        else {
          expect(counted).toBeGreaterThan(limit)
          expect(counted).toBeLessThanOrEqual(exact)
        }
      }),
      { numRuns: 1500 }
    )
  })

  it('tells a text over the limit from one within it, for texts far larger than the limit', () => {
    const text = 'export const value = compute(1, "x")\n'.repeat(50_000)
    expect(countTokensUpTo(text, 100)).toBeGreaterThan(100)
    expect(countTokensUpTo(text, 100)).toBeLessThan(120)
    expect(countTokensUpTo(text, Infinity)).toBe(countTokens(text))
  })
})

describe('truncateToTokens', () => {
  it('keeps the first max tokens, as decoding them would', () => {
    fc.assert(
      fc.property(codeLike, fc.integer({ min: 0, max: 40 }), (raw, max) => {
        const text = raw.replace(/\uFFFD/g, '') // a kept U+FFFD would be stripped by the reference
        const cut = truncateToTokens(text, max)
        expect(cut).toBe(referenceTruncate(text, max))
        expect(countTokens(cut)).toBeLessThanOrEqual(max)
        expect(text.startsWith(cut)).toBe(true)
      }),
      { numRuns: 1500 }
    )
  })

  it('leaves out a character the cut goes through', () => {
    // '東京都' is more than one token: a cut inside a character must not leave half of it.
    const text = 'x 東京都庁舎'
    for (let max = 0; max <= countTokens(text); max++) {
      const cut = truncateToTokens(text, max)
      expect(text.startsWith(cut)).toBe(true)
      expect(cut).not.toContain('\uFFFD')
    }
    expect(truncateToTokens(text, 1000)).toBe(text)
  })
})

describe('the vocabulary file', () => {
  it('is up to date with o200k_base.tiktoken (npm run vocabulary rewrites it)', () => {
    expect(Buffer.compare(readFileSync(VOCABULARY_PATH), compactVocabulary(tiktokenSource()))).toBe(
      0
    )
  })
})
