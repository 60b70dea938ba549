/**
 * The benchmark: `npm run bench`. Runs the bundled action (`dist/index.js`) as the runner does, on
 * real git repositories and real webhook payloads, against the GitHub and provider stand-ins of
 * the test suite, and prints what it measured; it also writes the figures to
 * docs/performance.json. A measurement, not a test: it exits 0 whether or not the targets are met,
 * and says which are not. What each figure means is in docs/performance.md.
 *
 * The full bench also writes what it printed into docs/performance.md (`writeDocsBlock`).
 *
 * `npm run bench -- lifecycle` runs the lifecycle figure alone (a pull request's five pushes,
 * before and after issue 24, on three edit patterns, replayed under three layouts) and prints it,
 * without writing docs/performance.json; `npm run bench -- monorepo` the monorepo figure (10
 * rubrics scoped by paths, a pull request that touches one, against one rubric), the same way;
 * both write their section of docs/performance.md. `-- requests` (figure 3) and `-- caching`
 * (figure 2b) print theirs only.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { dirname, join } from 'node:path'
import { format, resolveConfig } from 'prettier'
import type { Repository } from '../__tests__/helpers/action-run.js'
import {
  evaluationOf,
  gateResult,
  judgeRun,
  SEARCH_RUBRIC
} from '../__tests__/helpers/evaluation.js'
import { parse } from '../__tests__/helpers/rubric.js'
import { estimateCost } from '../src/council/pricing.js'
import { countTokens } from '../src/evidence/tokens.js'
import { SUMMARY_BUDGET_BYTES } from '../src/publish/plan.js'
import type { Evaluation } from '../src/engine/evaluation.js'
import { COMMENT_LIMIT, renderMarkdown } from '../src/report/markdown.js'
import {
  measureBareNode,
  ROOT,
  rssSource,
  runChecked,
  snapshotBundle,
  type ActionMeasured,
  type JsonReport
} from './bench/child.js'
import {
  diffRepository,
  JUDGED_RUBRIC,
  JUDGES,
  openPullRequest,
  startWorld,
  type DiffShape,
  type World
} from './bench/fixtures.js'
import { count, median, mib, ms, repeat, table } from './bench/stats.js'
import {
  mapBundle,
  profileByPackage,
  type BundleMap,
  type ProfileShares,
  type Share
} from './bench/profile.js'
import { breakdown, type Breakdown } from './bench/timeline.js'
import {
  LIFECYCLE_TARGETS,
  everyEditShare,
  LIFECYCLE_AFTER,
  lifecycleFigure,
  lifecycleShares,
  lifecycleTables,
  type LifecycleRun
} from './bench/lifecycle.js'
import { monorepoFigure, monorepoTable } from './bench/monorepo.js'
import { firstOutputFigure, firstOutputTable } from './bench/first-output.js'
import { writeDocsBlock } from './bench/docs.js'

/** Timed runs per figure (plus one warm-up run, not counted, and one traced run). */
const RUNS = 5
const COUNCIL_RUNS = 3
const RENDER_RUNS = 15
const JUDGE_DELAY_MS = 2000

const SMALL: DiffShape = { files: 30, lines: 1_000 }
const LARGE: DiffShape = { files: 3_000, lines: 100_000 }
/** Diff sizes for the evidence figure, at the same ~33 lines a file. */
const EVIDENCE_SHAPES: readonly DiffShape[] = [
  { files: 1, lines: 10 },
  { files: 3, lines: 100 },
  SMALL,
  { files: 300, lines: 10_000 },
  LARGE
]
const OVERHEAD_JUDGES = JUDGES.slice(0, 3)

const TARGETS = {
  smallOverheadMs: 500,
  largeOverheadMs: 3000,
  /** The large run's overhead over the small run's: the evidence cost grows with the budget. */
  largeOverSmall: 1.5,
  largeRssKb: 300 * 1024,
  councilRatio: 1.2,
  /** A judged review of one rubric (issue 37): each fact read once a run. */
  githubRequests: 8,
  /** Of a re-run's prompt, the share the providers' caches serve. */
  rerunCachedShare: 0.8
} as const
/** Prefill time of the judges in the caching figure: calls that arrive together all miss. */
const CACHE_JUDGE_DELAY_MS = 200

function progress(message: string): void {
  process.stderr.write(`bench: ${message}\n`)
}

// ---------------------------------------------------------------------------------------------
// 1. Overhead of one run beyond a bare `node` start

interface Scenario {
  readonly name: string
  readonly wallMs: readonly number[]
  readonly rssKb: readonly number[]
  readonly medianMs: number
  readonly medianRssKb: number
  readonly overheadMs: number
  readonly verdict: string
  readonly judgeCalls: number
  readonly traced: Breakdown | undefined
}

interface ScenarioSpec {
  readonly name: string
  readonly repo: Repository
  readonly inputs: Record<string, string>
}

/**
 * The overhead scenarios, measured in turns: a warm-up run of each (the page cache, the stand-ins'
 * first requests), then `RUNS` rounds of one run of each, then a traced run of each. Run in turns,
 * they meet the same noise, so that their ratios hold better than their absolute times: a busy
 * spell of the machine lands on all of them, not on the one that happened to be running.
 */
async function scenarios(
  world: World,
  specs: readonly ScenarioSpec[],
  bareMs: number
): Promise<Scenario[]> {
  progress(`overhead: ${specs.map(s => s.name).join('; ')}, in turns`)
  const measured = specs.map(spec => ({
    spec,
    calls: [] as number[],
    runs: [] as ActionMeasured[],
    traced: undefined as ActionMeasured | undefined
  }))
  const once = async (of: (typeof measured)[number], trace: boolean): Promise<ActionMeasured> => {
    const { name, repo, inputs } = of.spec
    const pr = openPullRequest(world, repo, { inputs, env: world.providerEnv })
    const before = world.providers.calls.length
    try {
      const result = await runChecked(name, { ...pr.run, trace })
      of.calls.push(world.providers.calls.length - before)
      return result
    } finally {
      pr.dispose()
    }
  }
  for (const of of measured) await once(of, false)
  for (let round = 0; round < RUNS; round++) {
    for (const of of measured) of.runs.push(await once(of, false))
  }
  for (const of of measured) of.traced = await once(of, true)
  return measured.map(({ spec, calls, runs, traced }) => {
    const medianMs = median(runs.map(r => r.wallMs))
    return {
      name: spec.name,
      wallMs: runs.map(r => r.wallMs),
      rssKb: runs.map(r => r.maxRssKb),
      medianMs,
      medianRssKb: median(runs.map(r => r.maxRssKb)),
      overheadMs: medianMs - bareMs,
      verdict: runs[0]?.outputs.verdict ?? '',
      judgeCalls: median(calls),
      traced:
        traced?.trace &&
        breakdown(traced.trace, { github: world.github.url, providers: world.providers.url })
    }
  })
}

/** One run under `--cpu-prof`, its self time attributed to dist/'s files and packages. */
async function profiled(
  world: World,
  bundleMap: BundleMap,
  name: string,
  repo: Repository,
  inputs: Record<string, string>
): Promise<{ name: string; totalMs: number } & ProfileShares> {
  progress(`CPU profile: ${name}`)
  const dir = mkdtempSync(join(tmpdir(), 'rc-bench-prof-'))
  const pr = openPullRequest(world, repo, { inputs, env: world.providerEnv })
  try {
    await runChecked(name, {
      ...pr.run,
      nodeArgs: ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', '250']
    })
    const [file] = readdirSync(dir).filter(f => f.endsWith('.cpuprofile'))
    if (file === undefined) throw new Error(`${name}: node wrote no CPU profile`)
    const shares = profileByPackage(join(dir, file), bundleMap)
    return { name, totalMs: shares.byPackage.reduce((sum, s) => sum + s.ms, 0), ...shares }
  } finally {
    pr.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Council wall time over the slowest judge's latency

interface CouncilFigure {
  readonly judges: number
  readonly councilMs: readonly number[]
  readonly slowestLatencyMs: readonly number[]
  readonly runMs: readonly number[]
  readonly calls: number
  readonly ratio: number
}

async function councilFigure(
  world: World,
  repo: Repository,
  judges: number
): Promise<CouncilFigure> {
  progress(`council: ${judges} judges answering after ${JUDGE_DELAY_MS} ms`)
  const models = JUDGES.slice(0, judges).join(', ')
  const councilMs: number[] = []
  const slowest: number[] = []
  const runMs: number[] = []
  const calls: number[] = []
  for (let i = 0; i < COUNCIL_RUNS; i++) {
    const pr = openPullRequest(world, repo, { inputs: { models }, env: world.providerEnv })
    const before = world.providers.calls.length
    try {
      const result = await runChecked('council', { ...pr.run, trace: true })
      calls.push(world.providers.calls.length - before)
      const events = result.trace?.events ?? []
      const judged = events.filter(e => e.detail.includes(world.providers.url))
      const starts = judged.filter(e => e.kind === 'http-start').map(e => e.at)
      const ends = judged.filter(e => e.kind === 'http-end').map(e => e.at)
      councilMs.push(Math.max(...ends) - Math.min(...starts))
      slowest.push(Math.max(...(result.report?.judges ?? []).map(j => j.latency_ms)))
      runMs.push(result.wallMs)
    } finally {
      pr.dispose()
    }
  }
  return {
    judges,
    councilMs,
    slowestLatencyMs: slowest,
    runMs,
    calls: median(calls),
    ratio: median(councilMs.map((wall, i) => wall / (slowest[i] ?? JUDGE_DELAY_MS)))
  }
}

// ---------------------------------------------------------------------------------------------
// 2b. Prompt caching: tokens billed with and without the providers' caches

interface CacheRun {
  readonly name: string
  readonly calls: number
  readonly inputTokens: number
  readonly cachedTokens: number
  readonly cacheWriteTokens: number
  /** Per provider, the smallest share of one call's prompt the caches served. */
  readonly minCallShare: Readonly<Record<string, number>>
  readonly costUsd: number
  /** What the same tokens cost with no cache at all. */
  readonly uncachedCostUsd: number
}

/** One run's judges: tokens and cost from its JSON report, and the cost without any cache. */
async function cacheRun(
  world: World,
  repo: Repository,
  name: string,
  inputs: Record<string, string>
): Promise<CacheRun> {
  const pr = openPullRequest(world, repo, { inputs, env: world.providerEnv })
  try {
    const result = await runChecked(name, pr.run)
    const judges = result.report?.judges ?? []
    const sum = (pick: (j: (typeof judges)[number]) => number): number =>
      judges.reduce((total, judge) => total + pick(judge), 0)
    const minCallShare: Record<string, number> = {}
    for (const j of judges) {
      const provider = j.judge.slice(0, j.judge.indexOf(':'))
      const share = j.tokens ? j.tokens.cached_input / j.tokens.input : 0
      minCallShare[provider] = Math.min(minCallShare[provider] ?? 1, share)
    }
    return {
      name,
      calls: judges.length,
      inputTokens: sum(j => j.tokens?.input ?? 0),
      cachedTokens: sum(j => j.tokens?.cached_input ?? 0),
      cacheWriteTokens: sum(j => j.tokens?.cache_write ?? 0),
      minCallShare,
      costUsd: sum(j => j.cost_usd ?? 0),
      uncachedCostUsd: sum(j => {
        const model = j.judge.slice(j.judge.indexOf(':') + 1)
        const tokens = j.tokens
        return tokens
          ? (estimateCost(model, {
              input: tokens.input,
              cachedInput: 0,
              cacheWrite: 0,
              output: tokens.output
            }) ?? 0)
          : 0
      })
    }
  } finally {
    pr.dispose()
  }
}

/**
 * Three judges (OpenAI, Anthropic, Gemini) × 2 samples on the 1,000-line diff, then the same
 * evidence again. Cold: stand-ins and a repository of its own, so that no earlier figure's prompts
 * are in the caches (the other figures send the same rubric and the same diff). The stand-ins
 * bill a repeated prefix as their providers do; a prefix is readable only once the call that wrote
 * it has been answered, so calls sent together all miss.
 */
async function cacheFigure(): Promise<readonly CacheRun[]> {
  progress('prompt caching: 3 judges × 2 samples, then a re-run of the same evidence (cold)')
  const world = await startWorld()
  const repo = diffRepository(world, SMALL, JUDGED_RUBRIC)
  world.setJudgeDelay(CACHE_JUDGE_DELAY_MS)
  try {
    const inputs = { models: OVERHEAD_JUDGES.join(', '), samples: '2' }
    return [
      await cacheRun(world, repo, 'first run, samples: 2', inputs),
      await cacheRun(world, repo, 're-run of the same evidence', inputs)
    ]
  } finally {
    await world.close()
    rmSync(repo.dir, { recursive: true, force: true })
  }
}

/** Figure 2b's rows: per provider, the least share of a call's prompt read from a cache. */
function cacheTargets(caching: readonly CacheRun[]): TargetRow[] {
  return caching.flatMap(c =>
    Object.entries(c.minCallShare).map(([provider, share]) => {
      const rerun = c.name.startsWith('re-run')
      return {
        figure: `2b. prompt cache, ${c.name}, ${provider}: cached share of each call's prompt (least)`,
        value: `${(share * 100).toFixed(0)}%`,
        target: rerun ? `≥ ${TARGETS.rerunCachedShare * 100}%` : '',
        met: rerun ? share >= TARGETS.rerunCachedShare : undefined
      }
    })
  )
}

function cacheTable(caching: readonly CacheRun[]): string {
  return table([
    [
      'prompt caching, 1,000-line diff, 3 judges × 2 samples',
      'calls',
      'input tokens',
      'of which cached',
      'cache writes',
      'cost',
      'cost without caching'
    ],
    ...caching.map(c => [
      c.name,
      count(c.calls),
      count(c.inputTokens),
      `${count(c.cachedTokens)} (${((c.cachedTokens / c.inputTokens) * 100).toFixed(0)}%)`,
      count(c.cacheWriteTokens),
      `$${c.costUsd.toFixed(4)}`,
      `$${c.uncachedCostUsd.toFixed(4)}`
    ])
  ])
}

// ---------------------------------------------------------------------------------------------
// 3. GitHub requests per run

interface GitHubFigure {
  /** What was reviewed, as the figure's row names it. */
  readonly name: string
  /** The figure's target applies: one rubric, at most 100 comments. */
  readonly targeted: boolean
  readonly comments: number
  readonly total: number
  readonly byEndpoint: Readonly<Record<string, number>>
  readonly verdict: string
}

/** `GET /repos/{owner}/{repo}/issues/{n}/comments`, whatever the page or the form of the path. */
function endpoint(method: string, path: string): string {
  const template = path
    .replace(/^\/repositories\/\d+/, '/repos/{owner}/{repo}')
    .replace(/^\/repos\/[^/]+\/[^/]+/, '/repos/{owner}/{repo}')
    .replace(/\/contents\/.*$/, '/contents/{path}')
    .replace(/\/(issues|pulls)\/\d+/, '/$1/{n}')
    .replace(/\/commits\/[0-9a-f]{40}\//, '/commits/{sha}/')
    .replace(/\/(comments|check-runs)\/\d+/, '/$1/{id}')
  return `${method} ${template}`
}

/**
 * The GitHub requests of judged reviews of one pull request (one judge): the first push (no
 * comment of ours yet) and the next (the sticky comment read and updated), with `comments`
 * comments by someone else already on it.
 */
async function githubFigures(
  world: World,
  repo: Repository,
  given: { readonly comments: number; readonly rubrics: number; readonly pushes: number }
): Promise<GitHubFigure[]> {
  const { comments, rubrics, pushes } = given
  progress(`GitHub requests: ${rubrics} rubric(s), a pull request with ${comments} comments`)
  const pr = openPullRequest(world, repo, {
    inputs: { models: 'openai:gpt-5.4-mini' },
    env: world.providerEnv
  })
  for (let i = 0; i < comments; i++) {
    world.github.addComment(pr.number, `Comment ${i}: looks good to me`, {
      login: 'octocat',
      type: 'User'
    })
  }
  const figures: GitHubFigure[] = []
  try {
    for (let push = 1; push <= pushes; push++) {
      const before = world.github.requests.length
      const result = await runChecked('GitHub requests', pr.run)
      const made = world.github.requests.slice(before)
      const byEndpoint: Record<string, number> = {}
      for (const request of made) {
        const key = endpoint(request.method, request.path)
        byEndpoint[key] = (byEndpoint[key] ?? 0) + 1
      }
      figures.push({
        name: `${rubrics === 1 ? 'one rubric' : `${rubrics} rubrics`}, ${push === 1 ? 'first push' : 'next push'}, ${count(comments)} comments`,
        targeted: rubrics === 1 && comments <= 100,
        comments,
        total: made.length,
        byEndpoint,
        verdict: result.outputs.verdict ?? ''
      })
    }
    return figures
  } finally {
    pr.dispose()
  }
}

/**
 * Figure 3: judged reviews of one rubric (first and next push; 0, 100 and 1,000 comments by
 * others), then of three (two more in `rubrics/`), each on a repository of its own.
 */
async function requestsFigure(world: World, repos: Repository[]): Promise<GitHubFigure[]> {
  const one = diffRepository(world, { files: 1, lines: 10 }, JUDGED_RUBRIC)
  // Another rubric text: the same content committed in the same second would be the same commit,
  // and the rubrics/ folder set up below would be the first repository's too.
  const three = diffRepository(
    world,
    { files: 1, lines: 10 },
    `${JUDGED_RUBRIC}\n<!-- three rubrics -->\n`
  )
  repos.push(one, three)
  for (const name of ['api', 'docs']) {
    world.github.setFile(three.baseSha, `.github/rubrics/${name}.md`, JUDGED_RUBRIC)
  }
  return [
    ...(await githubFigures(world, one, { comments: 0, rubrics: 1, pushes: 2 })),
    ...(await githubFigures(world, one, { comments: 100, rubrics: 1, pushes: 1 })),
    ...(await githubFigures(world, one, { comments: 1000, rubrics: 1, pushes: 1 })),
    ...(await githubFigures(world, three, { comments: 0, rubrics: 3, pushes: 2 }))
  ]
}

function requestsTable(requests: readonly GitHubFigure[]): string {
  const endpoints = [...new Set(requests.flatMap(g => Object.keys(g.byEndpoint)))]
  return table([
    ['GitHub requests by endpoint (judged, comment: sticky)', ...requests.map(g => g.name)],
    ...endpoints.map(e => [e, ...requests.map(g => count(g.byEndpoint[e] ?? 0))]),
    ['total', ...requests.map(g => count(g.total))]
  ])
}

/** Figure 3's rows: one per review, with the target where it applies. */
function requestTargets(requests: readonly GitHubFigure[]) {
  return requests.map(g => ({
    figure: `3. GitHub requests, judged, ${g.name}`,
    value: count(g.total),
    target: g.targeted ? `≤ ${TARGETS.githubRequests}` : '',
    met: g.targeted ? g.total <= TARGETS.githubRequests : undefined
  }))
}

/** `npm run bench -- requests`: figure 3 alone, printed; no JSON written. */
async function requestsOnly(): Promise<void> {
  const world = await startWorld()
  const repos: Repository[] = []
  try {
    const requests = await requestsFigure(world, repos)
    const sha = createHash('sha256')
      .update(readFileSync(join(ROOT, 'dist/index.js')))
      .digest('hex')
    console.log(
      [
        `Rubric Council benchmark, GitHub requests · ${new Date().toISOString()} · Node ${process.version}`,
        `dist/index.js ${sha.slice(0, 12)}`,
        '',
        requestsTable(requests),
        '',
        table([
          ['figure', 'value', 'target', ''],
          ...requestTargets(requests).map(t => [t.figure, t.value, t.target, mark(t.met)])
        ]),
        `GitHub stand-in violations: ${world.github.violations.length}`
      ].join('\n')
    )
  } finally {
    await world.close()
    for (const repo of repos) rmSync(repo.dir, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------------
// 4. Provider requests per run, and the evidence sent against the diff's size

interface EvidenceFigure {
  readonly lines: number
  readonly files: number
  readonly diffBytes: number
  readonly budgetTokens: number
  readonly usedTokens: number
  readonly reviewedFiles: number
  readonly coverage: number
  readonly promptChars: number
  readonly promptTokens: number
  readonly runMs: number
}

async function samplesFigure(
  world: World,
  repo: Repository
): Promise<{ members: number; samples: number; calls: number }> {
  progress('provider requests: 3 members × 2 samples')
  const pr = openPullRequest(world, repo, {
    inputs: { models: OVERHEAD_JUDGES.join(', '), samples: '2' },
    env: world.providerEnv
  })
  const before = world.providers.calls.length
  try {
    await runChecked('samples', pr.run)
    return { members: 3, samples: 2, calls: world.providers.calls.length - before }
  } finally {
    pr.dispose()
  }
}

async function evidenceFigure(
  world: World,
  repo: Repository,
  shape: DiffShape
): Promise<EvidenceFigure> {
  progress(`evidence: ${count(shape.lines)} lines in ${count(shape.files)} files`)
  const pr = openPullRequest(world, repo, {
    inputs: { models: 'openai:gpt-5.4-mini' },
    env: world.providerEnv
  })
  const before = world.providers.calls.length
  try {
    const result = await runChecked('evidence', pr.run)
    const coverage: JsonReport['coverage'] = result.report?.coverage ?? null
    const calls = world.providers.calls.slice(before)
    const text = calls[0]?.text ?? ''
    const diff = execFileSync('git', ['diff', repo.baseSha, repo.headSha], {
      cwd: repo.dir,
      maxBuffer: 1024 * 1024 * 1024
    })
    return {
      lines: shape.lines,
      files: shape.files,
      diffBytes: diff.length,
      budgetTokens: coverage?.budget_tokens ?? NaN,
      usedTokens: coverage?.used_tokens ?? NaN,
      reviewedFiles: coverage?.reviewed.length ?? NaN,
      coverage: coverage?.ratio ?? NaN,
      promptChars: text.length,
      promptTokens: countTokens(text),
      runMs: result.wallMs
    }
  } finally {
    pr.dispose()
  }
}

// ---------------------------------------------------------------------------------------------
// 5. Rendering a 200-criterion report

function renderFigure(): { criteria: number; chars: number; runsMs: number[]; medianMs: number } {
  progress('rendering a 200-criterion report')
  const criteria = Array.from(
    { length: 200 },
    (_, i) =>
      `- c${i}: Criterion ${i}: the search API handles this case and its tests cover it, including the error path`
  )
  const rubric = parse(
    [
      '---',
      'dimensions: false',
      '---',
      '## Gates',
      '- `npm test`',
      '## Criteria',
      ...criteria.slice(0, 150),
      '## Nice to Have',
      ...criteria.slice(150),
      ''
    ].join('\n'),
    '.github/rubric.md'
  )
  const runs = [
    'openai:gpt-5.4-mini',
    'anthropic:claude-sonnet-4-6',
    'google:gemini-3.5-flash'
  ].map((judge, k) =>
    judgeRun(rubric, {
      judge,
      fail: k === 0 ? ['c3', 'c17', 'c160'] : [],
      reasoning: id =>
        `The diff addresses ${id}: src/search/api.ts validates the query, returns an empty result for "" and maps SearchError to a 503 with a friendly message; tests/search.test.ts covers each branch, including the error path and very long queries.`
    })
  )
  const evaluation = evaluationOf(rubric, [gateResult('npm test', 'pass', '212 passed\n')], {
    runs,
    quorum: 2
  })
  let chars = 0
  for (let i = 0; i < 3; i++) chars = renderMarkdown(evaluation, { budget: COMMENT_LIMIT }).length
  const runsMs: number[] = []
  for (let i = 0; i < RENDER_RUNS; i++) {
    const started = performance.now()
    renderMarkdown(evaluation, { budget: COMMENT_LIMIT })
    runsMs.push(performance.now() - started)
  }
  return { criteria: rubric.criteria.length, chars, runsMs, medianMs: median(runsMs) }
}

/** Omitted files in the coverage receipt, for the rendering-time-against-receipt figure. */
const RECEIPT_SIZES = [1_000, 3_000, 6_000] as const

/**
 * renderMarkdown of a small evaluation whose coverage receipt lists `omitted` files left out for
 * the budget (what a large pull request produces), at the comment's budget and the job summary's.
 */
function receiptFigure(omitted: number): { omitted: number; commentMs: number; summaryMs: number } {
  progress(`rendering a report with ${count(omitted)} files in the coverage receipt`)
  const base = evaluationOf(SEARCH_RUBRIC, [gateResult('npm test', 'pass', '212 passed\n')], {
    runs: ['openai:gpt-5.4-mini', 'anthropic:claude-sonnet-4-6', 'google:gemini-3.5-flash'].map(
      judge => judgeRun(SEARCH_RUBRIC, { judge })
    ),
    quorum: 2
  })
  const evaluation: Evaluation = {
    ...base,
    evidence: {
      pr: { title: 'Add the search modules', body: '' },
      files: [],
      diff: '',
      unlisted: 0,
      changed: [],
      receipt: {
        reviewed: [],
        omitted: Array.from({ length: omitted }, (_, i) => ({
          path: `src/m${String(Math.floor(i / 100))}/mod${String(i)}.ts`,
          reason: 'budget' as const,
          detail: `${String(400 + (i % 50))} tokens; 12 left in the budget`,
          counts: true
        })),
        redacted: [],
        reviewable: omitted + 24,
        ratio: 24 / (omitted + 24),
        budgetTokens: 60_000,
        usedTokens: 59_655
      }
    }
  }
  const time = (budget: number, unit: 'characters' | 'bytes' = 'characters'): number =>
    median(
      [0, 1, 2].map(() => {
        const started = performance.now()
        renderMarkdown(evaluation, { budget, unit })
        return performance.now() - started
      })
    )
  return { omitted, commentMs: time(COMMENT_LIMIT), summaryMs: time(SUMMARY_BUDGET_BYTES, 'bytes') }
}

// ---------------------------------------------------------------------------------------------

interface TargetRow {
  readonly figure: string
  readonly value: string
  readonly target: string
  readonly met: boolean | undefined
}

const mark = (met: boolean | undefined): string => (met === undefined ? '' : met ? '✓' : '✗')

/**
 * The lifecycle figure's done-when rows: the cached share of OpenAI's and Gemini's input over the
 * five pushes, and Anthropic's cache writes against its reads, per edit pattern. Targets on the
 * bundle measured, in the default order; the earlier bundle and the other order are shown for
 * reference.
 */
function lifecycleTargets(runs: readonly LifecycleRun[]): TargetRow[] {
  return runs.flatMap((run, i) => {
    const judged = run.label === LIFECYCLE_AFTER
    const shares = lifecycleShares(run)
    const target = `≥ ${LIFECYCLE_TARGETS.cachedShare * 100}%`
    const name = `6. lifecycle, ${run.label}, ${run.pattern}`
    return [
      ...(['openai', 'google'] as const).map(provider => ({
        figure: `${name}: ${provider} input billed cached`,
        value: `${(shares[provider] * 100).toFixed(0)}%`,
        target: judged ? target : '',
        met: judged ? shares[provider] >= LIFECYCLE_TARGETS.cachedShare : undefined
      })),
      ...(judged && i === 1
        ? [
            {
              figure: `6. lifecycle: what a prefix cache can serve of 5 pushes, each changing one file at random`,
              value: `${(everyEditShare(run.everyEdit) * 100).toFixed(0)}%`,
              target: '',
              met: undefined
            }
          ]
        : []),
      {
        figure: `${name}: anthropic cache writes / reads`,
        value: `${count(shares.anthropicWritten)} / ${count(shares.anthropicRead)}`,
        target: judged ? 'writes ≤ reads' : '',
        met: judged ? shares.anthropicWritten <= shares.anthropicRead : undefined
      }
    ]
  })
}

/** The lifecycle figure's tables and done-when rows, as printed and as written to the docs. */
function lifecycleSection(runs: readonly LifecycleRun[]): string {
  return [
    lifecycleTables(runs),
    '',
    table([
      ['figure', 'value', 'target', ''],
      ...lifecycleTargets(runs).map(t => [t.figure, t.value, t.target, mark(t.met)])
    ])
  ].join('\n')
}

/** `npm run bench -- lifecycle`: the lifecycle figure alone, printed and written to the docs. */
async function lifecycleOnly(): Promise<void> {
  const started = performance.now()
  const bundle = await snapshotBundle()
  try {
    const runs = await lifecycleFigure(bundle.path, progress)
    const section = lifecycleSection(runs)
    console.log(
      [
        `Rubric Council benchmark, lifecycle figure · ${new Date().toISOString()} · Node ${process.version}`,
        `after: dist/index.js ${bundle.sha256} at ${bundle.commit}${bundle.dirty === '' ? '' : ` (${bundle.dirty})`}`,
        '',
        section,
        '',
        `Bench took ${((performance.now() - started) / 1000).toFixed(0)} s.`
      ].join('\n')
    )
    writeDocsBlock('lifecycle', 'npm run bench -- lifecycle', section)
  } finally {
    bundle.dispose()
  }
}

/** `npm run bench -- caching`: figure 2b alone, printed; nothing written. */
async function cachingOnly(): Promise<void> {
  const bundle = await snapshotBundle()
  try {
    const caching = await cacheFigure()
    console.log(
      [
        `Rubric Council benchmark, prompt caching · ${new Date().toISOString()} · Node ${process.version}`,
        `dist/index.js ${bundle.sha256} at ${bundle.commit}${bundle.dirty === '' ? '' : ` (${bundle.dirty})`}`,
        '',
        cacheTable(caching),
        '',
        table([
          ['figure', 'value', 'target', ''],
          ...cacheTargets(caching).map(t => [t.figure, t.value, t.target, mark(t.met)])
        ])
      ].join('\n')
    )
  } finally {
    bundle.dispose()
  }
}

/** What the action loads by package, then each CPU profile by file, by package and by function. */
function profileTables(
  bundleMap: BundleMap,
  profiles: readonly ({ name: string; totalMs: number } & ProfileShares)[]
): string {
  const composition = bundleMap.bytesByPackage
  const bytes = composition.reduce((sum, part) => sum + part.bytes, 0)
  const out = [
    `What the action loads (dist/index.js and its chunks) by package: ${count(bytes)} bytes, parsed and compiled at every start (esbuild's metafile)`,
    table([
      ['package', 'bytes', 'share'],
      ...composition
        .slice(0, 8)
        .map(part => [part.name, count(part.bytes), `${((part.bytes / bytes) * 100).toFixed(0)}%`])
    ]),
    bundleMap.differing.length === 0
      ? 'Source maps: a build of src/ gives every file of dist/ byte for byte.'
      : `Source maps: a build of src/ differs from ${bundleMap.differing.map(f => `dist/${f}`).join(', ')}; time in those is given by file only.`,
    ''
  ]
  const shares = (list: readonly Share[], totalMs: number, top: number): string[][] => {
    const rest = list.slice(top).reduce((sum, share) => sum + share.ms, 0)
    return [
      ...list.slice(0, top).map(s => [s.name, ms(s.ms), `${((s.ms / totalMs) * 100).toFixed(0)}%`]),
      ['everything else', ms(rest), `${((rest / totalMs) * 100).toFixed(0)}%`]
    ]
  }
  for (const profile of profiles) {
    out.push(
      `CPU profile — ${profile.name} (one run under --cpu-prof, ${ms(profile.totalMs)} sampled)`,
      table([
        ['self time in file', 'time', 'share'],
        ...shares(profile.byFile, profile.totalMs, 6)
      ]),
      '',
      table([
        ['self time in package (by source map)', 'time', 'share'],
        ...shares(profile.byPackage, profile.totalMs, 8)
      ]),
      '',
      table([
        ['hottest functions of the bundle (self time)', 'time'],
        ...profile.byFunction.slice(0, 6).map(share => [share.name, ms(share.ms)])
      ]),
      ''
    )
  }
  return out.join('\n')
}

function phasesTable(name: string, traced: Breakdown | undefined): string {
  if (traced === undefined) return `${name}: no trace`
  const rows = traced.phases.map(p => [p.name, ms(p.ms)])
  rows.push(['total (traced run, includes the trace hook)', ms(traced.totalMs)])
  rows.push([
    `  of which before GitHub writes 2…${traced.githubWrites} (pacing, or rendering them)`,
    ms(traced.writePacingMs)
  ])
  return `${name}\n${table([['phase (one traced run)', 'time'], ...rows])}`
}

async function main(): Promise<void> {
  const started = performance.now()
  const loadBefore = loadavg()[0] ?? NaN
  const bundle = await snapshotBundle()
  const world = await startWorld()
  const repos: Repository[] = []
  try {
    progress('creating the repositories')
    const small = diffRepository(world, SMALL, JUDGED_RUBRIC)
    const large = diffRepository(world, LARGE, JUDGED_RUBRIC)
    const largeLoose = diffRepository(world, LARGE, JUDGED_RUBRIC, { loose: true })
    repos.push(small, large, largeLoose)

    // 1. Overhead
    progress('overhead: bare node -e 0')
    await measureBareNode()
    const bareRuns = await repeat(RUNS, () => measureBareNode())
    const bareMs = median(bareRuns.map(r => r.wallMs))
    const bareRssKb = median(bareRuns.map(r => r.maxRssKb))
    const models = OVERHEAD_JUDGES.join(', ')
    const [loadOnly, smallRun, smallNoComment, largeRun, largeLooseRun] = await scenarios(
      world,
      [
        { name: 'load only (invalid input)', repo: small, inputs: { 'fail-on': 'x' } },
        { name: '1,000-line diff', repo: small, inputs: { models } },
        { name: '1,000-line diff, comment: off', repo: small, inputs: { models, comment: 'off' } },
        { name: '3,000 files, 100,000 lines', repo: large, inputs: { models } },
        { name: '3,000 files, 100,000 lines, loose objects', repo: largeLoose, inputs: { models } }
      ],
      bareMs
    )
    if (!loadOnly || !smallRun || !smallNoComment || !largeRun || !largeLooseRun) {
      throw new Error('an overhead scenario is missing')
    }
    progress('source maps: building src/ as npm run bundle does')
    const bundleMap = await mapBundle(dirname(bundle.path))
    const profiles = [
      await profiled(world, bundleMap, '1,000-line diff', small, { models }),
      await profiled(world, bundleMap, '3,000 files / 100,000 lines', large, { models })
    ]

    // 2. Council
    world.setJudgeDelay(JUDGE_DELAY_MS)
    const councils = [
      await councilFigure(world, small, 3),
      await councilFigure(world, small, 5),
      await councilFigure(world, small, 9)
    ]
    world.setJudgeDelay(0)
    const caching = await cacheFigure()
    // 6. A pull request's life: its own stand-ins, the bundle before issue 24 and this one.
    const lifecycle = await lifecycleFigure(bundle.path, progress)

    // 3. GitHub requests
    const requests = await requestsFigure(world, repos)

    // 4. Provider requests and evidence
    const samples = await samplesFigure(world, small)
    const evidence: EvidenceFigure[] = []
    for (const shape of EVIDENCE_SHAPES) {
      let repo = shape === SMALL ? small : shape === LARGE ? large : undefined
      if (repo === undefined) {
        repo = diffRepository(world, shape, JUDGED_RUBRIC)
        repos.push(repo)
      }
      evidence.push(await evidenceFigure(world, repo, shape))
    }

    // 5. Rendering
    const render = renderFigure()
    const receipts = RECEIPT_SIZES.map(receiptFigure)

    // ---- Report
    const targets: TargetRow[] = [
      {
        figure: `1. bare \`node -e 0\` (median of ${RUNS})`,
        value: `${ms(bareMs)}, ${mib(bareRssKb)}`,
        target: '',
        met: undefined
      },
      {
        figure: '1. load only: invalid input, no I/O (overhead)',
        value: `${ms(loadOnly.overheadMs)}, ${mib(loadOnly.medianRssKb)}`,
        target: '',
        met: undefined
      },
      {
        figure: '1a. overhead, 1,000-line diff, 3 instant judges',
        value: ms(smallRun.overheadMs),
        target: `≤ ${ms(TARGETS.smallOverheadMs)}`,
        met: smallRun.overheadMs <= TARGETS.smallOverheadMs
      },
      {
        figure: '1a. peak RSS, 1,000-line diff',
        value: mib(smallRun.medianRssKb),
        target: '',
        met: undefined
      },
      {
        figure: '1a′. overhead, 1,000-line diff, comment: off',
        value: ms(smallNoComment.overheadMs),
        target: '',
        met: undefined
      },
      {
        figure: '1b. overhead, 3,000 files / 100,000 lines',
        value: ms(largeRun.overheadMs),
        target: `≤ ${ms(TARGETS.largeOverheadMs)}`,
        met: largeRun.overheadMs <= TARGETS.largeOverheadMs
      },
      {
        figure: '1b / 1a. overhead ratio, 100,000 lines / 1,000 lines',
        value: `${(largeRun.overheadMs / smallRun.overheadMs).toFixed(2)}×`,
        target: `≤ ${TARGETS.largeOverSmall}×`,
        met: largeRun.overheadMs <= TARGETS.largeOverSmall * smallRun.overheadMs
      },
      {
        figure: '1b″. overhead, 3,000 files / 100,000 lines, loose objects',
        value: ms(largeLooseRun.overheadMs),
        target: '',
        met: undefined
      },
      {
        figure: '1b. peak RSS, 3,000 files / 100,000 lines',
        value: mib(largeRun.medianRssKb),
        target: `≤ ${mib(TARGETS.largeRssKb)}`,
        met: largeRun.medianRssKb <= TARGETS.largeRssKb
      },
      ...councils.map(c => ({
        figure: `2. council wall / slowest judge (${ms(JUDGE_DELAY_MS)} each), ${c.judges} judges (median of ${COUNCIL_RUNS})`,
        value: `${c.ratio.toFixed(2)}× (${ms(median(c.councilMs))})`,
        target: `≤ ${TARGETS.councilRatio}×`,
        met: c.ratio <= TARGETS.councilRatio
      })),
      ...cacheTargets(caching),
      ...requestTargets(requests),
      {
        figure: `4. provider requests, ${samples.members} members × ${samples.samples} samples`,
        value: count(samples.calls),
        target: `= ${samples.members * samples.samples}`,
        met: samples.calls === samples.members * samples.samples
      },
      {
        figure: `5. renderMarkdown, ${render.criteria} criteria, budget ${count(COMMENT_LIMIT)} (median of ${RENDER_RUNS})`,
        value: `${render.medianMs.toFixed(1)} ms`,
        target: '',
        met: undefined
      },
      ...lifecycleTargets(lifecycle)
    ]

    const loadAfter = loadavg()[0] ?? NaN
    const out: string[] = []
    out.push(
      `Rubric Council benchmark · ${new Date().toISOString()} · Node ${process.version} · ` +
        `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'} · RSS from ${rssSource}`,
      `dist/index.js ${bundle.sha256} at ${bundle.commit}${bundle.dirty === '' ? '' : ` (${bundle.dirty})`} · ` +
        `load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after (other work on the machine skews the times)`,
      ''
    )
    out.push(
      table([
        ['figure', 'value', 'target', ''],
        ...targets.map(t => [t.figure, t.value, t.target, mark(t.met)])
      ]),
      ''
    )
    out.push(
      table([
        [
          'run (median of 5; overhead = median − bare node)',
          'wall',
          'overhead',
          'peak RSS',
          'verdict',
          'judge calls'
        ],
        ...[loadOnly, smallRun, smallNoComment, largeRun, largeLooseRun].map(s => [
          s.name,
          ms(s.medianMs),
          ms(s.overheadMs),
          mib(s.medianRssKb),
          s.verdict,
          count(s.judgeCalls)
        ])
      ]),
      ''
    )
    out.push(phasesTable('Where the time goes — 1,000-line diff', smallRun.traced), '')
    out.push(
      phasesTable('Where the time goes — 1,000-line diff, comment: off', smallNoComment.traced),
      ''
    )
    out.push(phasesTable('Where the time goes — 3,000 files / 100,000 lines', largeRun.traced), '')
    out.push(profileTables(bundleMap, profiles))
    out.push(
      table([
        ['council', 'council wall (each run)', 'slowest judge latency', 'whole run', 'calls'],
        ...councils.map(c => [
          `${c.judges} judges × ${ms(JUDGE_DELAY_MS)}`,
          c.councilMs.map(ms).join(', '),
          c.slowestLatencyMs.map(ms).join(', '),
          ms(median(c.runMs)),
          count(c.calls)
        ])
      ]),
      ''
    )
    out.push(cacheTable(caching), '')
    out.push(lifecycleTables(lifecycle), '')
    out.push(requestsTable(requests), '')
    out.push(
      table([
        [
          'diff lines',
          'files',
          'diff bytes',
          'used tokens',
          'budget',
          'files shown',
          'coverage',
          'prompt chars',
          'prompt tokens',
          'prompt − used'
        ],
        ...evidence.map(e => [
          count(e.lines),
          count(e.files),
          count(e.diffBytes),
          count(e.usedTokens),
          count(e.budgetTokens),
          count(e.reviewedFiles),
          `${(e.coverage * 100).toFixed(1)}%`,
          count(e.promptChars),
          count(e.promptTokens),
          count(e.promptTokens - e.usedTokens)
        ])
      ]),
      ''
    )
    out.push(
      table([
        [
          'renderMarkdown, files in the coverage receipt',
          `comment (${count(COMMENT_LIMIT)} characters)`,
          `job summary (${count(SUMMARY_BUDGET_BYTES)} bytes)`
        ],
        ...receipts.map(r => [count(r.omitted), ms(r.commentMs), ms(r.summaryMs)])
      ]),
      ''
    )
    const missed = targets.filter(t => t.met === false)
    out.push(
      missed.length === 0
        ? 'All targets met.'
        : `Targets missed (${missed.length}):\n${missed.map(t => `  ✗ ${t.figure}: ${t.value} (target ${t.target})`).join('\n')}`
    )
    if (world.github.violations.length > 0) {
      out.push(
        `\nGitHub stand-in: ${world.github.violations.length} request(s) GitHub's API description rejects:`
      )
      out.push(...world.github.violations.map(v => `  ${v}`))
    }
    const elapsed = (performance.now() - started) / 1000
    out.push('', `Bench took ${elapsed.toFixed(0)} s.`)
    console.log(out.join('\n'))
    writeDocsBlock('latest', 'npm run bench', out.join('\n'))
    writeDocsBlock('lifecycle', 'npm run bench', lifecycleSection(lifecycle))

    const json = {
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpu: cpus()[0]?.model.trim() ?? '',
        memoryMiB: Math.round(totalmem() / 1024 / 1024),
        node: process.version,
        platform: `${process.platform} ${process.arch}`,
        rss: rssSource,
        loadAverage: { before: loadBefore, after: loadAfter }
      },
      bundle: { sha256: bundle.sha256, commit: bundle.commit, dirty: bundle.dirty },
      targets: targets.map(t => ({ ...t, met: t.met ?? null })),
      overhead: {
        bareNode: { wallMs: bareRuns.map(r => r.wallMs), medianMs: bareMs, medianRssKb: bareRssKb },
        scenarios: [loadOnly, smallRun, smallNoComment, largeRun, largeLooseRun],
        bundleComposition: bundleMap.bytesByPackage,
        bundleDiffering: bundleMap.differing,
        profiles
      },
      council: councils,
      caching,
      lifecycle,
      github: requests,
      providers: { samples, evidence },
      render,
      receipts,
      githubViolations: world.github.violations,
      benchSeconds: elapsed
    }
    // Formatted as the repository formats JSON, so that `prettier --check .` stays clean.
    const jsonPath = join(ROOT, 'docs/performance.json')
    const options = (await resolveConfig(jsonPath)) ?? {}
    writeFileSync(jsonPath, await format(JSON.stringify(json), { ...options, filepath: jsonPath }))
    progress('wrote docs/performance.json')
  } finally {
    bundle.dispose()
    await world.close()
    for (const repo of repos) rmSync(repo.dir, { recursive: true, force: true })
  }
}

/** `npm run bench -- monorepo`: the monorepo figure alone, printed and written to the docs. */
async function monorepoOnly(): Promise<void> {
  const started = performance.now()
  const bundle = await snapshotBundle()
  try {
    const runs = await monorepoFigure(bundle.path, progress)
    const printed = [
      `Rubric Council benchmark, monorepo figure · ${new Date().toISOString()} · Node ${process.version}`,
      `dist/index.js ${bundle.sha256} at ${bundle.commit}${bundle.dirty === '' ? '' : ` (${bundle.dirty})`}`,
      '',
      monorepoTable(runs),
      '',
      `Bench took ${((performance.now() - started) / 1000).toFixed(0)} s.`
    ].join('\n')
    console.log(printed)
    writeDocsBlock('monorepo', 'npm run bench -- monorepo', printed)
  } finally {
    bundle.dispose()
  }
}

/** `npm run bench -- first-output [runs]`: time to first output, printed and put in the docs. */
async function firstOutputOnly(): Promise<void> {
  const bundle = await snapshotBundle()
  try {
    const runs = Number(process.argv[3] ?? 15)
    const rows = await firstOutputFigure(ROOT, bundle.path, runs)
    const printed = [
      `Rubric Council benchmark, first output · ${new Date().toISOString()} · Node ${process.version} · load ${loadavg()[0]?.toFixed(2) ?? '?'}`,
      `dist/index.js ${bundle.sha256} at ${bundle.commit}${bundle.dirty === '' ? '' : ` (${bundle.dirty})`}, ${runs} runs each, interleaved`,
      '',
      firstOutputTable(rows)
    ].join('\n')
    console.log(printed)
    writeDocsBlock('first-output', `npm run bench -- first-output ${runs}`, printed)
  } finally {
    bundle.dispose()
  }
}

if (process.argv[2] === 'lifecycle') await lifecycleOnly()
else if (process.argv[2] === 'first-output') await firstOutputOnly()
else if (process.argv[2] === 'monorepo') await monorepoOnly()
else if (process.argv[2] === 'requests') await requestsOnly()
else if (process.argv[2] === 'caching') await cachingOnly()
else if (process.argv[2] === undefined) await main()
else {
  process.stderr.write(
    'usage: npm run bench [-- lifecycle | monorepo | requests | caching | first-output [runs]]\n'
  )
  process.exit(2)
}
