/**
 * `npm run simulate`: how often the verdict is right, wrong, undecided or flips, for judges that
 * make mistakes. Synthetic pull requests with a known truth are judged by synthetic judges; their
 * answers go through the real answer validation, the real extra-vote orchestration (which must-haves
 * need another vote, which voter casts it) and the real `decide()`. Deterministic: the same seeds give the same table. It prints the table, checks the
 * targets, and writes the table into docs/verdict.md between its markers.
 *
 * The model, in full:
 * - A pull request is good (every must-have met, dimension quality 8) or bad (one or two
 *   must-haves unmet, quality 6), one third each of the bad kinds, half the PRs good.
 * - A judge gets each must-have wrong with probability p, every sample on its own. Correlated
 *   judges also share, per PR and must-have, an error with probability ρ = 0.05: then every judge
 *   and sample gets that one wrong (as judges of one vendor share a bias); it stays for a re-run.
 * - A dimension score is the quality plus a normal error of σ = 5p, rounded, within 1–10.
 * - A judge recommends ACCEPT when it passes every must-have, else RETRY; it reports no finding.
 * - Reserves (`council.reserve`) are judges like the members, asked only for extra votes; the
 *   budget is the default `council.max_extra_votes`. "calls" counts every judge call of a PR.
 * - "Flip": the same PR judged twice (fresh judge errors, the same shared ones) gets two verdicts.
 * - Baselines: one judge's own recommendation (ACCEPT is PASS, else FAIL), and the majority of
 *   three judges' recommendations: neither is ever UNCLEAR.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { format, resolveConfig } from 'prettier'
import { validateAnswer } from '../src/council/judge-schema.js'
import type { Council, CouncilRequest, JudgeAnswer, JudgeRun } from '../src/council/types.js'
import { conveneCouncil } from '../src/engine/evaluate.js'
import type { Evidence } from '../src/evidence/types.js'
import { parseRubric } from '../src/rubric/parse.js'
import type { Rubric } from '../src/rubric/types.js'
import { decide } from '../src/verdict/decide.js'
import { groundingTable, simulateGrounding } from './simulate-grounding.js'
import type { VerdictKind } from '../src/verdict/types.js'

const ROOT = join(import.meta.dirname, '..')
const PULL_REQUESTS = 2000
const ERROR_RATES = [0.05, 0.1, 0.2, 0.3] as const
interface Size {
  readonly judges: number
  readonly samples: number
  /** Reserves, asked only for extra votes. */
  readonly reserves: number
}
const COUNCILS: readonly Size[] = [
  { judges: 1, samples: 1, reserves: 0 },
  { judges: 1, samples: 2, reserves: 0 },
  { judges: 2, samples: 1, reserves: 0 },
  // What `init` writes with an OpenAI and an Anthropic key: two members and one reserve.
  { judges: 2, samples: 1, reserves: 1 },
  { judges: 3, samples: 1, reserves: 0 },
  { judges: 3, samples: 1, reserves: 2 },
  { judges: 3, samples: 2, reserves: 0 },
  { judges: 5, samples: 1, reserves: 0 },
  { judges: 5, samples: 2, reserves: 0 }
]
const label = (size: Size): string =>
  `${size.judges} × ${size.samples}${size.reserves === 0 ? '' : ` + ${size.reserves} reserve${size.reserves === 1 ? '' : 's'}`}`
const MUST_HAVES = [3, 6] as const
const SHARED_ERROR = 0.05
const GOOD_QUALITY = 8
const BAD_QUALITY = 6

/** mulberry32: small, fast and seedable; plenty for a simulation. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

function gaussian(next: () => number): number {
  const u = Math.max(next(), Number.EPSILON)
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next())
}

interface PullRequest {
  /** Per must-have: met or not. */
  readonly met: readonly boolean[]
  readonly quality: number
  /** Per must-have: every judge gets it wrong (correlated judges only). */
  readonly shared: readonly boolean[]
}

const good = (pr: PullRequest): boolean => pr.met.every(Boolean)

function pullRequest(k: number, correlated: boolean, next: () => number): PullRequest {
  const kind = next()
  const unmet = kind < 0.5 ? 0 : kind < 0.75 ? 1 : 2
  const met = Array.from({ length: k }, (_, i) => i >= unmet)
  // Which must-haves are unmet should not matter: shuffle them.
  for (let i = met.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    const a = met[i] ?? true
    met[i] = met[j] ?? true
    met[j] = a
  }
  return {
    met,
    quality: unmet === 0 ? GOOD_QUALITY : BAD_QUALITY,
    shared: met.map(() => correlated && next() < SHARED_ERROR)
  }
}

/** One judge's answer in the wire format, through the real validation. */
function judgeAnswer(rubric: Rubric, pr: PullRequest, p: number, next: () => number): JudgeAnswer {
  const must = rubric.criteria.filter(c => c.required)
  const verdicts = must.map((c, i) => {
    const wrong = (pr.shared[i] ?? false) || next() < p
    return { id: c.id, reasoning: 'simulated', verdict: pr.met[i] !== wrong ? 'PASS' : 'FAIL' }
  })
  const wire = {
    findings: [],
    criteria: Object.fromEntries(verdicts.map(({ id, ...grade }) => [id, grade])),
    dimensions: Object.fromEntries(
      rubric.dimensions.map(d => [
        d.name,
        {
          reasoning: 'simulated',
          score: Math.min(10, Math.max(1, Math.round(pr.quality + gaussian(next) * 5 * p)))
        }
      ])
    ),
    verdict: verdicts.every(v => v.verdict === 'PASS') ? 'ACCEPT' : 'RETRY',
    feedback: ''
  }
  const validation = validateAnswer(wire, rubric)
  if (!validation.ok) throw new Error(`the simulated answer is invalid: ${validation.problem}`)
  return validation.value
}

function run(judge: string, sample: number, answer: JudgeAnswer): JudgeRun {
  return { judge, sample, latencyMs: 0, status: 'ok', answer }
}

/** A council of synthetic judges that answers at once, extra votes included. */
function syntheticCouncil(
  rubric: Rubric,
  pr: PullRequest,
  p: number,
  size: Size,
  next: () => number
): Council {
  const members = Array.from({ length: size.judges }, (_, i) => `sim:judge-${i + 1}`)
  const reserves = Array.from({ length: size.reserves }, (_, i) => `sim:reserve-${i + 1}`)
  return {
    convene: () =>
      Promise.resolve({
        runs: members.flatMap(judge =>
          Array.from({ length: size.samples }, (_, s) =>
            run(judge, s + 1, judgeAnswer(rubric, pr, p, next))
          )
        ),
        quorum: Math.floor((size.judges * size.samples) / 2) + 1
      }),
    reserves: () => reserves,
    extraVote: (_request, { judge }) =>
      Promise.resolve(run(judge, 1, judgeAnswer(rubric, pr, p, next)))
  }
}

const EVIDENCE: Evidence = {
  pr: { title: 'Simulated', body: '' },
  files: [],
  diff: '',
  receipt: {
    reviewed: [],
    omitted: [],
    redacted: [],
    reviewable: 1,
    ratio: 1,
    budgetTokens: 60_000,
    usedTokens: 0
  },
  unlisted: 0,
  changed: []
}

/** A verdict, and how many judge calls it took. */
interface Judged {
  readonly verdict: VerdictKind
  readonly calls: number
}

async function verdictOf(
  rubric: Rubric,
  pr: PullRequest,
  p: number,
  size: Size,
  next: () => number
): Promise<Judged> {
  const request: CouncilRequest = {
    rubric,
    gates: [],
    evidence: EVIDENCE,
    iteration: 1,
    earlier: []
  }
  const outcome = await conveneCouncil(syntheticCouncil(rubric, pr, p, size, next), request)
  const { verdict } = decide({ rubric, gates: [], council: outcome, coverage: 1 })
  return { verdict, calls: outcome.runs.length }
}

/** A baseline: `judges` judges' own recommendations, by majority; never UNCLEAR. */
function baseline(
  rubric: Rubric,
  pr: PullRequest,
  p: number,
  judges: number,
  next: () => number
): Judged {
  const accepts = Array.from({ length: judges }, () => judgeAnswer(rubric, pr, p, next)).filter(
    a => a.verdict === 'ACCEPT'
  ).length
  return { verdict: accepts * 2 > judges ? 'PASS' : 'FAIL', calls: judges }
}

interface Counts {
  good: number
  bad: number
  passGood: number
  failGood: number
  unclearGood: number
  passBad: number
  failBad: number
  unclearBad: number
  flips: number
  /** Judge calls, over every judgement (each PR is judged twice). */
  calls: number
  judgements: number
}

const empty = (): Counts => ({
  good: 0,
  bad: 0,
  passGood: 0,
  failGood: 0,
  unclearGood: 0,
  passBad: 0,
  failBad: 0,
  unclearBad: 0,
  flips: 0,
  calls: 0,
  judgements: 0
})

function count(counts: Counts, pr: PullRequest, firstJudged: Judged, secondJudged: Judged): void {
  const first = firstJudged.verdict
  const second = secondJudged.verdict
  counts.calls += firstJudged.calls + secondJudged.calls
  counts.judgements += 2
  if (good(pr)) {
    counts.good++
    if (first === 'PASS') counts.passGood++
    else if (first === 'FAIL') counts.failGood++
    else counts.unclearGood++
  } else {
    counts.bad++
    if (first === 'PASS') counts.passBad++
    else if (first === 'FAIL') counts.failBad++
    else counts.unclearBad++
  }
  if (first !== second) counts.flips++
}

interface Row {
  readonly k: number
  readonly judges: string
  readonly correlated: boolean
  readonly p: number
  readonly falsePass: number
  readonly falseFail: number
  readonly unclearGood: number
  readonly unclearBad: number
  readonly passGood: number
  readonly accuracy: number
  readonly flips: number
  /** Judge calls per pull request, and as a multiple of the first round's calls. */
  readonly calls: number
  readonly callsRatio: number
}

function row(
  k: number,
  judges: string,
  firstRound: number,
  correlated: boolean,
  p: number,
  c: Counts
): Row {
  const calls = c.calls / c.judgements
  const decided = c.passGood + c.failGood + c.passBad + c.failBad
  return {
    k,
    judges,
    correlated,
    p,
    falsePass: c.passBad / c.bad,
    falseFail: c.failGood / c.good,
    unclearGood: c.unclearGood / c.good,
    unclearBad: c.unclearBad / c.bad,
    passGood: c.passGood / c.good,
    accuracy: decided === 0 ? NaN : (c.passGood + c.failBad) / decided,
    flips: c.flips / (c.good + c.bad),
    calls,
    callsRatio: calls / firstRound
  }
}

function rubricWith(k: number): Rubric {
  const text = `## Criteria\n${Array.from({ length: k }, (_, i) => `- must-${i + 1}: Must-have ${i + 1}`).join('\n')}\n`
  const parsed = parseRubric({ text, path: 'simulated.md' })
  if (!parsed.ok) throw new Error(`the simulated rubric is invalid: ${parsed.problem[0]?.message}`)
  return parsed.value
}

/**
 * One row: the same pull requests for every council at this k, correlation and p (`prSeed`), each
 * judged twice with the council's own draws (`judgeSeed`).
 */
async function cell(
  k: number,
  correlated: boolean,
  prSeed: number,
  judgeSeed: number,
  judge: (pr: PullRequest, next: () => number) => Promise<Judged> | Judged
): Promise<Counts> {
  const prs = random(prSeed)
  const judging = random(judgeSeed)
  const counts = empty()
  for (let i = 0; i < PULL_REQUESTS; i++) {
    const pr = pullRequest(k, correlated, prs)
    count(counts, pr, await judge(pr, judging), await judge(pr, judging))
  }
  return counts
}

async function simulate(): Promise<Row[]> {
  const rows: Row[] = []
  let prSeed = 1
  let judgeSeed = 1_000_001
  for (const k of MUST_HAVES) {
    const rubric = rubricWith(k)
    for (const correlated of [false, true]) {
      for (const p of [0, ...ERROR_RATES]) {
        prSeed++
        for (const size of COUNCILS) {
          const counts = await cell(k, correlated, prSeed, judgeSeed++, (pr, next) =>
            verdictOf(rubric, pr, p, size, next)
          )
          rows.push(row(k, label(size), size.judges * size.samples, correlated, p, counts))
        }
        for (const judges of [1, 3]) {
          const counts = await cell(k, correlated, prSeed, judgeSeed++, (pr, next) =>
            baseline(rubric, pr, p, judges, next)
          )
          rows.push(
            row(
              k,
              judges === 1 ? 'one judge, own verdict' : 'majority of 3, no UNCLEAR',
              judges,
              correlated,
              p,
              counts
            )
          )
        }
      }
    }
  }
  return rows
}

const pct = (x: number): string => (Number.isNaN(x) ? '–' : `${(x * 100).toFixed(1)}%`)

function markdownTable(rows: readonly Row[]): string {
  const header = [
    'k',
    'judges',
    'judges err',
    'p',
    'false PASS',
    'false FAIL',
    'UNCLEAR (good)',
    'UNCLEAR (bad)',
    'PASS (good)',
    'accuracy (decided)',
    'flips',
    'calls per PR'
  ]
  const lines = [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map(
      r =>
        `| ${[
          r.k,
          r.judges,
          r.correlated ? 'correlated' : 'independent',
          r.p,
          pct(r.falsePass),
          pct(r.falseFail),
          pct(r.unclearGood),
          pct(r.unclearBad),
          pct(r.passGood),
          pct(r.accuracy),
          pct(r.flips),
          `${r.calls.toFixed(2)} (${r.callsRatio.toFixed(2)}×)`
        ].join(' | ')} |`
    )
  ]
  return lines.join('\n')
}

interface Check {
  readonly what: string
  readonly value: string
  readonly met: boolean
}

function checks(rows: readonly Row[]): Check[] {
  const find = (judges: string, p: number, k = 3, correlated = false): Row => {
    const found = rows.find(
      r => r.k === k && r.judges === judges && r.p === p && r.correlated === correlated
    )
    if (!found) throw new Error(`no row for ${judges} p=${p}`)
    return found
  }
  const three = find('3 × 1 + 2 reserves', 0.1)
  const at = 'k=3, p=0.1, 3 × 1 + 2 reserves'
  const out: Check[] = [
    {
      what: `${at}: false PASS ≤ 0.5%`,
      value: pct(three.falsePass),
      met: three.falsePass <= 0.005
    },
    {
      what: `${at}: good PRs FAIL ≤ 3%`,
      value: pct(three.falseFail),
      met: three.falseFail <= 0.03
    },
    {
      what: `${at}: UNCLEAR on good ≤ 3%`,
      value: pct(three.unclearGood),
      met: three.unclearGood <= 0.03
    },
    { what: `${at}: flips ≤ 5%`, value: pct(three.flips), met: three.flips <= 0.05 },
    {
      what: `${at}: calls ≤ 1.3 × members`,
      value: `${three.callsRatio.toFixed(2)}×`,
      met: three.callsRatio <= 1.3
    }
  ]
  // At every p and council size, no more false PASS than one judge deciding alone.
  const worse = rows.filter(r => {
    if (!/^\d/.test(r.judges)) return false
    const single = find('one judge, own verdict', r.p, r.k, r.correlated)
    return r.falsePass > single.falsePass
  })
  out.push({
    what: 'false PASS never above the single-judge baseline',
    value:
      worse.length === 0 ? 'never' : worse.map(r => `${r.judges} p=${r.p} k=${r.k}`).join(', '),
    met: worse.length === 0
  })
  // Sanity: independent judges that never err make no mistake, no UNCLEAR and no flip.
  const perfect = rows.filter(r => r.p === 0 && !r.correlated)
  const broken = perfect.filter(
    r => r.falsePass > 0 || r.falseFail > 0 || r.unclearGood > 0 || r.unclearBad > 0 || r.flips > 0
  )
  if (broken.length > 0)
    throw new Error(
      `p = 0 must give no error, no UNCLEAR and no flip: ${broken.map(r => r.judges).join(', ')}`
    )
  return out
}

const START = '<!-- simulate:start -->'
const END = '<!-- simulate:end -->'

const G_START = '<!-- simulate-grounding:start -->'
const G_END = '<!-- simulate-grounding:end -->'

/** `doc` with what lies from `start` to `end` (both kept in `block`) replaced by `block`. */
function between(doc: string, start: string, end: string, block: string): string {
  const from = doc.indexOf(start)
  const to = doc.indexOf(end)
  if (from < 0 || to < from) throw new Error(`docs/verdict.md has no ${start} … ${end} markers`)
  return `${doc.slice(0, from)}${block}${doc.slice(to + end.length)}`
}

async function main(): Promise<void> {
  const started = performance.now()
  const rows = await simulate()
  const results = checks(rows)
  const seconds = ((performance.now() - started) / 1000).toFixed(0)
  const shown = rows.filter(r => r.p > 0 || r.correlated)
  const summary = results.map(c => `| ${c.what} | ${c.value} | ${c.met ? '✓' : '✗'} |`).join('\n')
  const block = [
    START,
    '',
    `${PULL_REQUESTS.toLocaleString('en')} pull requests per row, each judged twice; \`npm run simulate\` reproduces it (deterministic seeds).`,
    '',
    '| target | value | |',
    '| --- | --- | --- |',
    summary,
    '',
    '<details><summary>Every row</summary>',
    '',
    markdownTable(shown),
    '',
    '</details>',
    '',
    END
  ].join('\n')
  console.log(markdownTable(shown))
  console.log('')
  for (const c of results) console.log(`${c.met ? '✓' : '✗'} ${c.what}: ${c.value}`)
  console.log(`\nSimulated in ${seconds} s.`)

  const grounding = groundingTable(simulateGrounding(random(42)))
  console.log(`\nGrounded findings (judges that invent locations):\n${grounding}`)

  const path = join(ROOT, 'docs/verdict.md')
  // Formatted as the repository formats Markdown, so that `prettier --check .` stays clean.
  const text = between(
    between(readFileSync(path, 'utf8'), START, END, block),
    G_START,
    G_END,
    `${G_START}\n\n${grounding}\n\n${G_END}`
  )
  const options = (await resolveConfig(path)) ?? {}
  writeFileSync(path, await format(text, { ...options, filepath: path }))
  console.log('Wrote the table into docs/verdict.md.')
  if (results.some(c => !c.met)) {
    console.error('A target is not met.')
    process.exitCode = 1
  }
}

await main()
