import { describe, expect, it } from 'vitest'
import { maskForRunner } from '../../src/action/mask.js'

describe("the runner's add-mask command", () => {
  it('escapes what the runner unescapes, so a secret with a line break cannot end the command and start another', () => {
    const written: string[] = []
    maskForRunner(['50%\r\n::warning::forged-line'], text => written.push(text))
    expect(written).toEqual(['::add-mask::50%25%0D%0A::warning::forged-line\n'])
  })

  it('tells each value once, whoever asks again', () => {
    const written: string[] = []
    const write = (text: string) => written.push(text)
    maskForRunner(['told-once-value', ''], write)
    maskForRunner(['told-once-value', 'another-value'], write)
    expect(written).toEqual(['::add-mask::told-once-value\n', '::add-mask::another-value\n'])
  })
})
