import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { evidenceCuts } from '../../src/council/breakpoints.js'
import { cacheTurns } from '../../src/council/cache-turns.js'
import { createCouncil } from '../../src/council/council.js'
import { judgeJsonSchema } from '../../src/council/judge-schema.js'
import { cacheMinimum } from '../../src/council/models.js'
import { estimateCost } from '../../src/council/pricing.js'
import { buildPrompt, type JudgePrompt } from '../../src/council/prompt.js'
import type { CouncilOutcome, SettledCheck } from '../../src/council/types.js'
import type { Evidence } from '../../src/evidence/types.js'
import { countTokens } from '../../src/evidence/tokens.js'
import { RANKING_EVIDENCE } from '../helpers/evidence.js'
import { wireAnswer } from '../helpers/judge-answers.js'
import { ANTHROPIC_MODELS } from '../helpers/providers/anthropic.js'
import {
  startProviderStandIn,
  type RecordedCall,
  type Reply,
  type StandIn
} from '../helpers/provider-standin.js'
import { list, record } from '../helpers/providers/schema.js'
import { lines, parse } from '../helpers/rubric.js'

const RUBRIC = parse(
  lines(
    '# Search',
    'Results stay ranked by relevance.',
    '## Criteria',
    '- tested: The change is tested',
    '- safe: Errors are handled'
  )
)
const SONNET = 'anthropic:claude-sonnet-4-6'
const KEY = 'sk-ant-test-0123456789abcdef'

/** A new file of `rows` lines, as git shows it; `edit` marks one line in the middle. */
function fileDiff(n: number, rows: number, edit = ''): string {
  const path = `src/m/mod${String(n)}.ts`
  const body = Array.from({ length: rows }, (_, i) => {
    const line = `+export const value${String(n)}_${String(i)} = score(${String(i)}, 'entry ${String(n)}.${String(i)}')`
    return i === Math.floor(rows / 2) && edit !== '' ? `${line} // ${edit}` : line
  })
  return [
    `diff --git a/${path} b/${path}`,
    'new file mode 100644',
    '--- /dev/null',
    `+++ b/${path}`,
    `@@ -0,0 +1,${String(rows)} @@`,
    ...body
  ].join('\n')
}

/** A pull request of 30 new files of about 250 tokens each (~7,500); `edits` revise some. */
function evidenceOf(edits: Readonly<Record<number, string>> = {}): Evidence {
  const diff = Array.from({ length: 30 }, (_, n) => fileDiff(n, 11, edits[n] ?? '')).join('\n')
  return { ...RANKING_EVIDENCE, diff }
}

let standIn: StandIn
beforeAll(async () => {
  standIn = await startProviderStandIn(undefined, { today: () => '2026-11-27' })
})
afterAll(async () => {
  await standIn.close()
})

async function convene(
  evidence: Evidence,
  options: { samples?: number; delayMs?: number; settled?: SettledCheck } = {}
): Promise<{ outcome: CouncilOutcome; calls: readonly RecordedCall[] }> {
  const before = standIn.calls.length
  const json = wireAnswer(judgeJsonSchema(RUBRIC), {})
  standIn.setScript((): Reply =>
    options.delayMs ? { delayMs: options.delayMs, then: { json } } : { json }
  )
  const council = createCouncil({
    env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: standIn.anthropicBaseUrl },
    models: [SONNET],
    samples: options.samples ?? 1,
    mask: text => text,
    retryBaseMs: 20,
    now: () => Date.parse('2026-11-27T12:00:00Z')
  })
  const outcome = await council.convene(
    { rubric: RUBRIC, gates: [], evidence, iteration: 1, earlier: [] },
    options.settled
  )
  return { outcome, calls: standIn.calls.slice(before) }
}

/** The user message's parts of an Anthropic request: each text, and whether it is marked. */
function parts(call: RecordedCall): { text: string; marked: boolean }[] {
  const message = list(record(call.body)?.messages)[0]
  return list(record(message)?.content).map(part => ({
    text: String(record(part)?.text),
    marked: record(part)?.cache_control !== undefined
  }))
}

/** The prompt this call was built from: its fence is the one in the request. */
function promptOf(call: RecordedCall, evidence: Evidence, sample: number): JudgePrompt {
  const fence = /<\/(DATA-[0-9a-f]{24})>/.exec(JSON.stringify(call.body))?.[1] ?? ''
  return buildPrompt({
    rubric: RUBRIC,
    gates: [],
    evidence,
    iteration: 1,
    earlier: [],
    seed: `${SONNET}#${String(sample)}`,
    fence
  })
}

describe('Anthropic caching inside the evidence', () => {
  it('samples: 3 on a 7,500-token pull request: breakpoints in the diff, the first call writes, the two behind it read (reads ≥ writes)', async () => {
    const evidence = evidenceOf()
    expect(countTokens(evidence.diff)).toBeGreaterThan(7000)
    expect(countTokens(evidence.diff)).toBeLessThan(8500)
    const { outcome, calls } = await convene(evidence, { samples: 3, delayMs: 200 })
    expect(calls).toHaveLength(3)
    for (const call of calls) {
      const marks = parts(call).filter(p => p.marked)
      // The rubric's and three in the diff: Anthropic's maximum, never more.
      expect(marks).toHaveLength(4)
    }
    const sum = (pick: (t: { cachedInput: number; cacheWrite: number }) => number): number =>
      outcome.runs.reduce((total, r) => total + (r.tokens ? pick(r.tokens) : 0), 0)
    const written = sum(t => t.cacheWrite)
    const read = sum(t => t.cachedInput)
    expect(written).toBeGreaterThan(3000)
    expect(read).toBeGreaterThanOrEqual(written)
    expect(outcome.runs.map(r => r.tokens?.cacheWrite ?? 0).filter(w => w > 0)).toHaveLength(1)
    // Cheaper than the same three calls at the plain input price.
    const uncached = outcome.runs.reduce(
      (total, r) =>
        total +
        (estimateCost('claude-sonnet-4-6', {
          input: r.tokens?.input ?? 0,
          cachedInput: 0,
          cacheWrite: 0,
          output: r.tokens?.output ?? 0
        }) ?? 0),
      0
    )
    const cost = outcome.runs.reduce((total, r) => total + (r.costUsd ?? 0), 0)
    expect(cost).toBeLessThan(uncached * 0.8)
  })

  it('the judges read the same text as before: the parts put together are the prompt, and only the marks are new', async () => {
    const evidence = evidenceOf()
    const { outcome, calls } = await convene(evidence)
    const [call] = calls
    if (call === undefined) throw new Error('no call')
    const prompt = promptOf(call, evidence, outcome.runs[0]?.sample ?? 1)
    const sent = parts(call)
    // Before: the rubric, the evidence, the run and the judge's order, in four parts.
    const before = [prompt.rubric, prompt.evidence, prompt.run, prompt.judge]
    expect(sent.map(p => p.text).join('')).toBe(before.join(''))
    expect(sent[0]).toEqual({ text: prompt.rubric, marked: true })
    expect(sent.slice(-2)).toEqual([
      { text: prompt.run, marked: false },
      { text: prompt.judge, marked: false }
    ])
    // The evidence is cut only at line ends of the diff, before this call's own fence; three of
    // its parts end with a breakpoint, the last part (with the fence) does not.
    const evidenceParts = sent.slice(1, -2)
    expect(evidenceParts.filter(p => p.marked)).toHaveLength(3)
    expect(evidenceParts.at(-1)?.marked).toBe(false)
    let at = 0
    for (const part of evidenceParts.slice(0, -1)) {
      at += part.text.length
      expect(prompt.evidence[at - 1]).toBe('\n')
      expect(at).toBeLessThan(prompt.sharedEvidence)
    }
    expect(record(list(record(call.body)?.system)[0])?.text).toBe(prompt.system)
  })

  it('a push that changes a late file reads what the last push wrote before it; one that changes the first file reads less', async () => {
    await convene(evidenceOf())
    const late = await convene(evidenceOf({ 27: 'revised in push 2' }))
    const early = await convene(evidenceOf({ 27: 'revised in push 2', 0: 'revised in push 3' }))
    const [lateRun] = late.outcome.runs
    const [earlyRun] = early.outcome.runs
    // The change near the end leaves the first breakpoints' prefixes as they were: read.
    expect(lateRun?.tokens?.cachedInput).toBeGreaterThan((lateRun?.tokens?.input ?? 0) * 0.5)
    // The change in the first file leaves nothing of the diff the same: the instructions and the
    // rubric are read, and the diff is written again.
    expect(earlyRun?.tokens?.cachedInput ?? 0).toBeLessThan((earlyRun?.tokens?.input ?? 0) * 0.2)
    expect(earlyRun?.tokens?.cacheWrite).toBeGreaterThan((earlyRun?.tokens?.input ?? 0) * 0.3)
  })

  it('a call cancelled while it waits for the first call of its model is never made', async () => {
    // The first answer settles the verdict: the two samples waiting behind it are cancelled.
    const settled: SettledCheck = inHand =>
      inHand.runs.length > 0 ? ['criterion_failed'] : undefined
    const { outcome, calls } = await convene(evidenceOf(), {
      samples: 3,
      delayMs: 300,
      settled
    })
    expect(calls).toHaveLength(1)
    expect(outcome.runs).toHaveLength(1)
    expect(outcome.cancelled?.map(c => c.requests)).toEqual([0, 0])
  })
})

describe('breakpoints in the evidence', () => {
  const prompt = (edits: Readonly<Record<number, string>> = {}, files = 30): JudgePrompt =>
    buildPrompt({
      rubric: RUBRIC,
      gates: [],
      evidence: {
        ...RANKING_EVIDENCE,
        diff: Array.from({ length: files }, (_, n) => fileDiff(n, 11, edits[n] ?? '')).join('\n')
      },
      iteration: 1,
      earlier: [],
      seed: 's',
      fence: 'DATA-000000000000000000000000'
    })
  const prefix = (p: JudgePrompt, cut: number): number =>
    countTokens(p.system) + countTokens(p.rubric) + countTokens(p.evidence.slice(0, cut))

  it('stay where they were when a later file changes; when the pull request grows, the cuts before stay', () => {
    const minimum = cacheMinimum('claude-sonnet-4-6')
    const first = evidenceCuts(prompt(), minimum)
    expect(first.filter(c => c.marked)).toHaveLength(3)
    expect(first.at(-1)?.marked).toBe(true)
    expect(evidenceCuts(prompt({ 29: 'revised' }), minimum)).toEqual(first)
    // Grown by a third: other rungs may be marked, but every cut of before is still a cut, where
    // the provider finds what the last push wrote there.
    const grown = evidenceCuts(prompt({}, 40), minimum).map(c => c.offset)
    for (const cut of first) expect(grown).toContain(cut.offset)
  })

  it('each marks a prefix of at least the model’s minimum, from the model table', () => {
    for (const model of ['claude-sonnet-4-6', 'claude-haiku-4-5', 'claude-sonnet-5']) {
      const minimum = cacheMinimum(model)
      // The table agrees with the service's (the stand-in's) minimum.
      expect(minimum).toBe(ANTHROPIC_MODELS[model]?.minCacheTokens)
      const p = prompt()
      // The council counts the prefix line by line, which is within 2% of counting it whole.
      for (const cut of evidenceCuts(p, minimum)) {
        expect(prefix(p, cut.offset)).toBeGreaterThanOrEqual(minimum * 0.98)
      }
    }
    // Haiku's 4,096 leaves room for fewer breakpoints in the same pull request than Sonnet's 1,024.
    const haiku = evidenceCuts(prompt(), cacheMinimum('claude-haiku-4-5'))
    expect(haiku.filter(c => c.marked).length).toBeLessThan(3)
    // A model the table does not know is taken at the highest minimum.
    expect(cacheMinimum('claude-future-9')).toBe(4096)
  })

  it('none in a pull request too small to be cached', () => {
    expect(evidenceCuts(prompt({}, 1), cacheMinimum('claude-sonnet-4-6'))).toEqual([])
  })
})

describe('cache turns', () => {
  it('a call behind the first waits for its answer; after a failed first call, the next one writes', async () => {
    const turn = cacheTurns(5_000)
    const first = await turn('m')
    let waited = false
    const second = turn('m').then(t => {
      waited = true
      return t
    })
    await new Promise(resolve => setTimeout(resolve, 50))
    expect(waited).toBe(false)
    first.settle(false)
    const next = await second
    // The first failed: the second is now the writer, and a third waits for it.
    let thirdGone = false
    const third = turn('m').then(() => (thirdGone = true))
    await new Promise(resolve => setTimeout(resolve, 50))
    expect(thirdGone).toBe(false)
    next.settle(true)
    await third
    expect(thirdGone).toBe(true)
  })

  it('waits at most the bound, and not at all once cancelled', async () => {
    const turn = cacheTurns(200)
    await turn('m')
    const started = Date.now()
    await turn('m')
    expect(Date.now() - started).toBeGreaterThanOrEqual(190)
    expect(Date.now() - started).toBeLessThan(2000)
    const stop = new AbortController()
    const waiting = turn('m', stop.signal)
    stop.abort()
    const at = Date.now()
    await waiting
    expect(Date.now() - at).toBeLessThan(100)
  })
})
