import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCouncil } from '../../src/council/council.js'
import { judgeJsonSchema } from '../../src/council/judge-schema.js'
import { waitingLine, watchCalls } from '../../src/council/waiting.js'
import { fastTicker } from '../helpers/fast-ticker.js'
import { handTicker } from '../helpers/hand-ticker.js'
import { RANKING_EVIDENCE } from '../helpers/evidence.js'
import { wireAnswer } from '../helpers/judge-answers.js'
import { startProviderStandIn, type StandIn } from '../helpers/provider-standin.js'
import { lines, parse } from '../helpers/rubric.js'

const A = { judge: 'openai:gpt-5.4-mini', sample: 1 }
const B = { judge: 'anthropic:claude-sonnet-4-6', sample: 1 }

describe('the waiting lines', () => {
  it('say how many calls are done, whom the council still waits for, and for how long', () => {
    expect(waitingLine([A, B], [B], 30)).toBe(
      'Judges: 1 of 2 done; still waiting on anthropic:claude-sonnet-4-6 (30 s)'
    )
    expect(waitingLine([A, { ...A, sample: 2 }, B], [{ ...A, sample: 2 }, B], 15)).toBe(
      'Judges: 1 of 3 done; still waiting on openai:gpt-5.4-mini #2, anthropic:claude-sonnet-4-6 (15 s)'
    )
  })

  it('come every 15 s while a call is pending, and stop with the last one', () => {
    const ticker = handTicker()
    let now = 1_000_000
    const said: string[] = []
    const watch = watchCalls([A, B], line => said.push(line), { ticker, now: () => now })
    now += 15_000
    ticker.tick()
    watch.ended(A)
    now += 15_000
    ticker.tick()
    expect(said).toEqual([
      'Judges: 0 of 2 done; still waiting on openai:gpt-5.4-mini, anthropic:claude-sonnet-4-6 (15 s)',
      'Judges: 1 of 2 done; still waiting on anthropic:claude-sonnet-4-6 (30 s)'
    ])
    watch.ended(B)
    expect(ticker.running()).toEqual([])
    ticker.tick()
    expect(said).toHaveLength(2)
  })
})

describe('the council, while a judge is slow to answer', () => {
  let standIn: StandIn
  beforeAll(async () => {
    standIn = await startProviderStandIn()
  })
  afterAll(async () => {
    await standIn.close()
  })

  const rubric = parse(lines('## Criteria', '- tested: The change is tested'))

  it('names the judge still asked in the log, and leaves no timer running once all answered', async () => {
    const json = wireAnswer(judgeJsonSchema(rubric), {})
    // Anthropic's judge answers 400 ms after OpenAI's; the interval of 15 s is played by one of 20 ms.
    standIn.setScript(call =>
      call.protocol.startsWith('anthropic') ? { delayMs: 400, then: { json } } : { json }
    )
    const fast = fastTicker()
    const log: string[] = []
    const council = createCouncil({
      env: {
        OPENAI_API_KEY: 'sk-test-openai-0123456789abcdef',
        OPENAI_BASE_URL: standIn.openaiBaseUrl,
        ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdef',
        ANTHROPIC_BASE_URL: standIn.anthropicBaseUrl
      },
      models: ['openai:gpt-5.4-nano', 'anthropic:claude-sonnet-4-6'],
      mask: text => text,
      ticker: fast,
      progress: {
        started: () => undefined,
        finished: run => log.push(`finished ${run.judge} ${run.status}`),
        waiting: line => log.push(line)
      }
    })
    const outcome = await council.convene({
      rubric,
      gates: [],
      evidence: RANKING_EVIDENCE,
      iteration: 1,
      earlier: []
    })
    expect(outcome.runs.map(r => r.status)).toEqual(['ok', 'ok'])
    const waiting = log.filter(l => l.startsWith('Judges:'))
    expect(waiting.length).toBeGreaterThan(3)
    expect(waiting.at(-1)).toMatch(
      /^Judges: 1 of 2 done; still waiting on anthropic:claude-sonnet-4-6 \(\d+ s\)$/
    )
    // None after the last call ended, and no interval left to keep the process alive.
    expect(log.at(-1)).toBe('finished anthropic:claude-sonnet-4-6 ok')
    expect(fast.running()).toBe(0)
    await new Promise(resolve => setTimeout(resolve, 100))
    expect(log.at(-1)).toBe('finished anthropic:claude-sonnet-4-6 ok')
  })
})
