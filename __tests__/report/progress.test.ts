import { describe, expect, it } from 'vitest'
import { judgeLine } from '../../src/report/progress.js'

describe('the judge line in the job log', () => {
  it('stays one line whatever a failure quotes, so no workflow command can start in it', () => {
    const line = judgeLine({
      judge: 'openai:gpt-5.4-mini',
      sample: 1,
      latencyMs: 1200,
      requests: 3,
      status: 'failed',
      failure: 'invalid_output',
      message:
        'unknown criterion "x\n::add-mask::ghs_token\r\n::warning::approved\u2028::error::y" (after 3 tries)'
    })
    expect(line.split(/\r?\n|\r/)).toHaveLength(1)
    expect(line).not.toMatch(/[\r\n\u2028\u2029]/)
    expect(line).toBe(
      '✗ openai:gpt-5.4-mini #1: invalid_output after 1.2 s · 3 requests: unknown criterion "x\\n::add-mask::ghs_token\\r\\n::warning::approved\\u2028::error::y" (after 3 tries)'
    )
  })
})
