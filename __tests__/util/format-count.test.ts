import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatCount } from '../../src/util/format-count.js'

describe('formatCount', () => {
  it('writes whole numbers as en-US does', () => {
    expect(formatCount(0)).toBe('0')
    expect(formatCount(999)).toBe('999')
    expect(formatCount(1000)).toBe('1,000')
    expect(formatCount(65_536)).toBe('65,536')
    expect(formatCount(-1_234_567)).toBe('-1,234,567')
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), n => {
        expect(formatCount(n)).toBe(n.toLocaleString('en-US'))
      })
    )
  })
})
