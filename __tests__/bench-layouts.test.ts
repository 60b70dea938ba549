import { describe, expect, it } from 'vitest'
import type { RecordedCall } from './helpers/provider-standin.js'
import { replayLayouts } from '../scripts/bench/layouts.js'

/**
 * The lifecycle bench's layout replay (scripts/bench/layouts.ts): what each layout puts in front of
 * the next push, and what the stand-ins' OpenAI cache then bills, on a pull request of three files
 * whose first file pushes 2 and 3 edit.
 */

const file = (name: string, body: string): string =>
  `diff --git a/${name} b/${name}\n--- a/${name}\n+++ b/${name}\n${body}`
const lines = (tag: string): string =>
  Array.from({ length: 200 }, (_, i) => `+export const ${tag}${String(i)} = ${String(i)}\n`).join(
    ''
  )

const HEAD = `# Rubric\n${'Grade the change against each criterion. '.repeat(110)}\n`

function call(diff: string): RecordedCall {
  const text = `${HEAD}<data name="diff">\n${diff}\n</DATA-0123abcd>\nIteration 1.`
  return {
    protocol: 'openai-responses',
    service: 'openai',
    model: 'gpt-5.4-mini',
    apiKey: 'sk-test',
    headers: {},
    body: { model: 'gpt-5.4-mini', input: [{ role: 'user', content: text }] },
    text,
    schema: undefined,
    receivedAt: 0,
    sent: { bytes: 0 }
  }
}

const a1 = file('a.ts', lines('a'))
const a2 = file('a.ts', lines('a').replace('a100 = 100', 'a100 = 101'))
const b = file('b.ts', lines('b'))
const c = file('c.ts', lines('c'))
const a3 = file('a.ts', lines('a').replace('a100 = 100', 'a100 = 102'))
const pushes = [[call(a1 + b + c)], [call(a2 + b + c)], [call(a3 + b + c)]]
const BEFORE_DIFF = HEAD.length + '<data name="diff">\n'.length

describe('layouts replayed through the stand-ins cache rules', () => {
  const figure = replayLayouts(pushes, () => 50)
  const cached = (layout: string): number =>
    figure.layouts.find(l => l.layout === layout)?.providers[0]?.cached ?? NaN
  const input = (layout: string): number =>
    figure.layouts.find(l => l.layout === layout)?.providers[0]?.input ?? NaN

  it("today's order caches each later push only up to the edit in the first file", () => {
    const upToEdit = Math.floor((BEFORE_DIFF + a1.indexOf('a100 = 100')) / 4)
    expect(cached('today')).toBeLessThanOrEqual(2 * upToEdit)
    expect(cached('today')).toBeGreaterThan(2 * (upToEdit - 128))
  })

  it('append-only reads each previous diff whole and sends the stale file beside the new one', () => {
    // Push 3 reads push 2's whole diff, push 2 push 1's: more than today's order, up to the edit.
    const previous = Math.floor((BEFORE_DIFF + (a1 + b + c + a2).length) / 4)
    expect(cached('append-only')).toBeGreaterThan(previous - 128)
    expect(cached('append-only')).toBeGreaterThan(cached('today'))
    expect(input('append-only') - input('today')).toBeGreaterThanOrEqual(
      Math.floor((a2.length + 2 * a3.length) / 4)
    )
  })

  it('the ceiling is what lies before the diff and the untouched files, over the pushes', () => {
    const total = pushes.reduce((sum, [p]) => sum + Math.ceil((p?.text.length ?? 0) / 4), 0)
    const kept = Math.floor((BEFORE_DIFF + (b + c).length) / 4)
    expect(figure.ceiling).toBeCloseTo((2 * kept) / total, 6)
  })

  it('a diff split over several strings of the request (breakpoints inside it) is not replayed, and said so', () => {
    const split = call(a1 + b + c)
    const text = split.text
    const cut = text.indexOf('diff --git a/b.ts')
    const parts = {
      ...split,
      body: {
        input: [
          { role: 'user', content: [{ text: text.slice(0, cut) }, { text: text.slice(cut) }] }
        ]
      }
    }
    const replayed = replayLayouts([[parts], [call(a2 + b + c)]], () => 50)
    expect(replayed.notReplayed).toEqual([split.service])
    // Its second push, one string, could be replayed, but half a provider's pushes is no figure.
    for (const layout of replayed.layouts) expect(layout.providers).toEqual([])
  })
})
