import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pullRequestEvent, pullRequestJson } from '../../__tests__/helpers/action-run.js'
import { estimateCost } from '../../src/council/pricing.js'
import { ROOT, runChecked } from './child.js'
import {
  diffRepository,
  JUDGED_RUBRIC,
  JUDGES,
  startWorld,
  TOKEN,
  type DiffShape
} from './fixtures.js'
import type { RecordedCall } from '../../__tests__/helpers/provider-standin.js'
import { LAYOUTS, replayLayouts, type LayoutFigure } from './layouts.js'
import { count, table } from './stats.js'
import type { EvidenceOrder } from '../../src/evidence/types.js'

/**
 * The lifecycle figure: what a pull request's prompts cost over its life. One pull request, five
 * pushes (the first opens it, the other four each change a few lines of one file, as
 * `synchronize` events on the same number), three judges on three vendors; the action runs once
 * per push. Each bundle ("before", "after") meets a provider stand-in of its own, so that neither
 * reads what the other wrote to the prompt caches. Tokens are read from each run's JSON report
 * and summed per provider; dollars are `estimateCost` on those sums, so that both bundles are
 * priced alike.
 */

/** The commit before issue 24's work: its committed dist/ is the "before" bundle. */
export const LIFECYCLE_BEFORE = '5507557'
export const LIFECYCLE_PUSHES = 5
export const LIFECYCLE_AFTER = 'after (dist/)'
/** The order `lifecycleFigure` runs the bundle measured with too, on every edit pattern. */
const REORDERED: EvidenceOrder = 'least-recently-changed'
/** A pull request the size of figure 1a: 1,000 added lines in 30 files. */
export const LIFECYCLE_SHAPE: DiffShape = { files: 30, lines: 1_000 }
/** One judge per vendor, as in figure 1a. */
export const LIFECYCLE_JUDGES = JUDGES.slice(0, 3)
/**
 * How pushes 2–5 edit the pull request: which of the 30 added files each changes (indexes), spread
 * over the diff, for where a change falls decides how much of the evidence before it is
 * byte-identical to the last push. Three patterns: each push a file no push changed before; one
 * file again and again; files revisited (A, B, A, C).
 */
export interface EditPattern {
  readonly name: string
  readonly files: readonly number[]
}
export const EDIT_PATTERNS: readonly EditPattern[] = [
  { name: 'a new file per push', files: [20, 5, 27, 12] },
  { name: 'the same file re-edited', files: [20, 20, 20, 20] },
  { name: 'files revisited (A, B, A, C)', files: [20, 5, 20, 27] }
]
/** Lines each later push changes. */
const CHANGED_LINES = 3
/** Prefill time: calls that arrive together all miss, as in figure 2b. */
const JUDGE_DELAY_MS = 200

export const LIFECYCLE_TARGETS = {
  /** Of the input tokens over the five pushes, the share billed at a cached rate. */
  cachedShare: 0.6
} as const

export interface ProviderTokens {
  readonly provider: string
  readonly model: string
  readonly calls: number
  /** All input tokens, as billed: full price, cached and written together. */
  readonly input: number
  readonly cached: number
  readonly written: number
  readonly output: number
  /** `estimateCost` of the tokens above; NaN for an unpriced model. */
  readonly costUsd: number
}

/** One push's diff (base to head) against the earlier pushes' diffs. */
export interface PushDiff {
  readonly chars: number
  /** Characters before the first one that differs from every earlier push's diff. */
  readonly unchanged: number
}

/**
 * The ceiling to expect whichever file a push changes: for each of the pull request's files, the
 * share of push 1's diff that stays byte-identical up to the first change when a push edits that
 * file as pushes 2–5 do. Its mean is what a prefix cache can serve of a later push on average, for
 * any order of the files: a push changes one of them, and whichever comes first stands somewhere.
 */
export interface EveryEdit {
  readonly files: number
  readonly mean: number
}

export interface LifecycleRun {
  readonly bundle: string
  readonly label: string
  readonly pattern: string
  /** The action's `evidence-order` input. */
  readonly order: EvidenceOrder
  readonly everyEdit: EveryEdit
  /**
   * Per push: how much of the diff's text is byte-identical to an earlier push's up to the first
   * change. A prefix cache can serve no more of the evidence than this, whatever the layout.
   */
  readonly diffs: readonly PushDiff[]
  /** Per push, per provider. */
  readonly pushes: readonly (readonly ProviderTokens[])[]
  /** The five pushes together, per provider. */
  readonly total: readonly ProviderTokens[]
  /** The same requests replayed under each layout (the bundle being measured only). */
  readonly layouts?: LayoutFigure
  /** Why they could not be replayed. */
  readonly layoutsError?: string
}

export const fullPrice = (t: ProviderTokens): number => Math.max(0, t.input - t.cached - t.written)

/** The committed dist/ of `commit`, unpacked in `into`; the path of its index.js. */
export function bundleOf(commit: string, into: string): string {
  const archive = join(into, 'dist.tar')
  execFileSync('git', ['archive', '--format=tar', `--output=${archive}`, commit, 'dist'], {
    cwd: ROOT
  })
  execFileSync('tar', ['-x', '-f', archive, '-C', into])
  return join(into, 'dist', 'index.js')
}

/** `lines` of `text` from the middle on, changed as an edit would change them. */
function edited(text: string, push: number): string {
  const lines = text.split('\n')
  const from = Math.floor(lines.length / 2)
  for (let i = from; i < Math.min(lines.length - 1, from + CHANGED_LINES); i++) {
    lines[i] = `${lines[i] ?? ''} // revised in push ${String(push)}`
  }
  return lines.join('\n')
}

const modulePath = (file: number): string =>
  `src/m${String(Math.floor(file / 100))}/mod${String(file)}.ts`

/** `EveryEdit` on the working tree of `repo` at push 1, left as it was found. */
function everyEdit(
  repo: { readonly dir: string; git(...args: string[]): string; readonly baseSha: string },
  first: string
): EveryEdit {
  const shares: number[] = []
  for (let file = 0; file < LIFECYCLE_SHAPE.files; file++) {
    const path = join(repo.dir, modulePath(file))
    const text = readFileSync(path, 'utf8')
    writeFileSync(path, edited(text, 2))
    const diff = repo.git('diff', repo.baseSha)
    writeFileSync(path, text)
    shares.push(commonPrefix(first, diff) / diff.length)
  }
  return {
    files: shares.length,
    mean: shares.reduce((sum, share) => sum + share, 0) / shares.length
  }
}

function commonPrefix(a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  let i = 0
  while (i < length && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

function sumTokens(rows: readonly ProviderTokens[]): ProviderTokens[] {
  const byProvider = new Map<string, ProviderTokens>()
  for (const row of rows) {
    const seen = byProvider.get(row.provider)
    byProvider.set(
      row.provider,
      seen === undefined
        ? row
        : {
            ...seen,
            calls: seen.calls + row.calls,
            input: seen.input + row.input,
            cached: seen.cached + row.cached,
            written: seen.written + row.written,
            output: seen.output + row.output,
            costUsd: seen.costUsd + row.costUsd
          }
    )
  }
  return [...byProvider.values()]
}

/**
 * Five pushes of one pull request edited as `pattern` says, run by `bundle` with the files shown in
 * `order` against a fresh GitHub and provider stand-in; with `layouts`, its requests replayed under
 * each layout too.
 */
export async function lifecycleRun(
  bundle: string,
  label: string,
  pattern: EditPattern,
  options: { readonly layouts: boolean; readonly order: EvidenceOrder }
): Promise<LifecycleRun> {
  const world = await startWorld()
  world.setJudgeDelay(JUDGE_DELAY_MS)
  const repo = diffRepository(world, LIFECYCLE_SHAPE, JUDGED_RUBRIC)
  const number = 1
  const inputs = {
    'github-token': TOKEN,
    models: LIFECYCLE_JUDGES.join(', '),
    ...(options.order !== 'diff' && { 'evidence-order': options.order })
  }
  const pushes: ProviderTokens[][] = []
  const recorded: RecordedCall[][] = []
  const diffTexts: string[] = []
  const diffs: PushDiff[] = []
  let every: EveryEdit | undefined
  try {
    for (let push = 1; push <= LIFECYCLE_PUSHES; push++) {
      if (push > 1) {
        const file = pattern.files[(push - 2) % pattern.files.length] ?? 0
        const path = modulePath(file)
        repo.commit(
          { [path]: edited(readFileSync(join(repo.dir, path), 'utf8'), push) },
          `Push ${String(push)}`
        )
      }
      const diff = repo.git('diff', repo.baseSha, repo.headSha)
      if (push === 1) every = everyEdit(repo, diff)
      diffs.push({
        chars: diff.length,
        unchanged: Math.max(0, ...diffTexts.map(earlier => commonPrefix(earlier, diff)))
      })
      diffTexts.push(diff)
      world.github.setPullRequest(number, pullRequestJson(repo, number))
      const eventPath = pullRequestEvent(repo, {
        number,
        action: push === 1 ? 'opened' : 'synchronize'
      })
      const before = world.providers.calls.length
      try {
        const result = await runChecked(
          `lifecycle, ${label}, ${pattern.name}, push ${String(push)}`,
          {
            workspace: repo.dir,
            eventName: 'pull_request',
            eventPath,
            apiUrl: world.github.url,
            inputs,
            env: world.providerEnv,
            bundle
          }
        )
        recorded.push(world.providers.calls.slice(before))
        const judges = result.report?.judges ?? []
        pushes.push(
          sumTokens(
            judges.map(judge => {
              const colon = judge.judge.indexOf(':')
              const model = judge.judge.slice(colon + 1)
              const tokens = judge.tokens ?? {
                input: 0,
                cached_input: 0,
                cache_write: 0,
                output: 0
              }
              return {
                provider: judge.judge.slice(0, colon),
                model,
                calls: 1,
                input: tokens.input,
                cached: tokens.cached_input,
                written: tokens.cache_write,
                output: tokens.output,
                costUsd:
                  estimateCost(model, {
                    input: tokens.input,
                    cachedInput: tokens.cached_input,
                    cacheWrite: tokens.cache_write,
                    output: tokens.output
                  }) ?? NaN
              }
            })
          )
        )
      } finally {
        rmSync(join(eventPath, '..'), { recursive: true, force: true })
      }
    }
    if (every === undefined) throw new Error('lifecycle: no push was made')
    const outputOf = (push: number, provider: string): number => {
      const t = pushes[push]?.find(x => x.provider === provider)
      return t === undefined ? 0 : t.output / t.calls
    }
    return {
      bundle,
      label,
      pattern: pattern.name,
      order: options.order,
      everyEdit: every,
      diffs,
      pushes,
      total: sumTokens(pushes.flat()),
      ...(options.layouts && replayed(recorded, outputOf))
    }
  } finally {
    await world.close()
    rmSync(repo.dir, { recursive: true, force: true })
  }
}

/** The layouts' replay, or why there is none, without losing the run's own figures. */
function replayed(
  recorded: readonly (readonly RecordedCall[])[],
  outputOf: (push: number, provider: string) => number
): { layouts: LayoutFigure } | { layoutsError: string } {
  try {
    return { layouts: replayLayouts(recorded, outputOf) }
  } catch (error) {
    return { layoutsError: error instanceof Error ? error.message : String(error) }
  }
}

/**
 * The figure: the commit before issue 24 against `afterBundle` (the working tree's dist/) on the
 * first edit pattern, then `afterBundle` on the others, each of those runs replayed under each
 * layout; then `afterBundle` with `evidence-order: least-recently-changed` on every pattern.
 */
export async function lifecycleFigure(
  afterBundle: string,
  progress: (message: string) => void
): Promise<readonly LifecycleRun[]> {
  const dir = mkdtempSync(join(tmpdir(), 'rc-bench-lifecycle-'))
  const [first, ...others] = EDIT_PATTERNS
  if (first === undefined) throw new Error('lifecycle: no edit pattern')
  try {
    const before = bundleOf(LIFECYCLE_BEFORE, dir)
    const runs: LifecycleRun[] = []
    const reordered = `${LIFECYCLE_AFTER}, evidence-order: ${REORDERED}`
    for (const [bundle, label, pattern, order] of [
      [before, `before (${LIFECYCLE_BEFORE})`, first, 'diff'],
      [afterBundle, LIFECYCLE_AFTER, first, 'diff'],
      ...others.map(pattern => [afterBundle, LIFECYCLE_AFTER, pattern, 'diff'] as const),
      ...EDIT_PATTERNS.map(pattern => [afterBundle, reordered, pattern, REORDERED] as const)
    ] as const) {
      progress(
        `lifecycle: ${label}, ${pattern.name}, ${String(LIFECYCLE_PUSHES)} pushes of one pull request, 3 judges`
      )
      const layouts = bundle === afterBundle && order === 'diff'
      runs.push(await lifecycleRun(bundle, label, pattern, { layouts, order }))
    }
    return runs
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The done-when shares of one run: cached share per automatic-cache provider, Anthropic's balance. */
export function lifecycleShares(run: LifecycleRun): {
  readonly openai: number
  readonly google: number
  readonly anthropicWritten: number
  readonly anthropicRead: number
} {
  const of = (provider: string): ProviderTokens | undefined =>
    run.total.find(t => t.provider === provider)
  const share = (t: ProviderTokens | undefined): number =>
    t === undefined || t.input === 0 ? 0 : t.cached / t.input
  return {
    openai: share(of('openai')),
    google: share(of('google')),
    anthropicWritten: of('anthropic')?.written ?? 0,
    anthropicRead: of('anthropic')?.cached ?? 0
  }
}

/**
 * What a prefix cache can serve of the five pushes together when each later push changes a file
 * chosen at random: push 1 is new to every cache, the others average `mean` (the pushes' diffs
 * differ by a few characters in length, which this ignores).
 */
export const everyEditShare = (every: EveryEdit): number =>
  (every.mean * (LIFECYCLE_PUSHES - 1)) / LIFECYCLE_PUSHES

const percent = (part: number, whole: number): string =>
  whole === 0 ? '–' : `${((part / whole) * 100).toFixed(0)}%`
const dollars = (usd: number): string => (Number.isNaN(usd) ? 'unpriced' : `$${usd.toFixed(4)}`)

/**
 * Anthropic's input over the five pushes, in dollars as billed (reads and writes at their rates)
 * against the same tokens at the plain input price: the done-when's "at most 85%".
 */
export function anthropicInputLines(runs: readonly LifecycleRun[]): string[] {
  return runs.flatMap(run => {
    const t = run.total.find(x => x.provider === 'anthropic')
    if (t === undefined) return []
    const billed = estimateCost(t.model, {
      input: t.input,
      cachedInput: t.cached,
      cacheWrite: t.written,
      output: 0
    })
    const plain = estimateCost(t.model, {
      input: t.input,
      cachedInput: 0,
      cacheWrite: 0,
      output: 0
    })
    if (billed === undefined || plain === undefined) return []
    return [
      `anthropic input, ${run.label}: ${dollars(billed)} of ${dollars(plain)} uncached (${percent(billed, plain)})`
    ]
  })
}

/** The tables: the first edit pattern's (before and after), then the layouts'. */
export function lifecycleTables(all: readonly LifecycleRun[]): string {
  const runs = all.filter(run => run.pattern === all[0]?.pattern)
  return [bundleTables(runs), '', layoutTable(all)].join('\n')
}

/** Per provider, before and after side by side; then each push's cached share. */
function bundleTables(runs: readonly LifecycleRun[]): string {
  const providers = [...new Set(runs.flatMap(r => r.total.map(t => t.provider)))]
  const rows: string[][] = []
  for (const provider of providers) {
    for (const run of runs) {
      const t = run.total.find(x => x.provider === provider)
      if (t === undefined) continue
      rows.push([
        `${provider}:${t.model}`,
        run.label,
        count(t.calls),
        count(t.input),
        count(fullPrice(t)),
        `${count(t.cached)} (${percent(t.cached, t.input)})`,
        count(t.written),
        count(t.output),
        dollars(t.costUsd)
      ])
    }
  }
  for (const run of runs) {
    const all = run.total
    const sum = (pick: (t: ProviderTokens) => number): number =>
      all.reduce((total, t) => total + pick(t), 0)
    rows.push([
      'all three',
      run.label,
      count(sum(t => t.calls)),
      count(sum(t => t.input)),
      count(sum(fullPrice)),
      `${count(sum(t => t.cached))} (${percent(
        sum(t => t.cached),
        sum(t => t.input)
      )})`,
      count(sum(t => t.written)),
      count(sum(t => t.output)),
      dollars(sum(t => t.costUsd))
    ])
  }
  const diffs = runs[0]?.diffs ?? []
  const diffChars = diffs.reduce((sum, d) => sum + d.chars, 0)
  const unchangedChars = diffs.reduce((sum, d) => sum + d.unchanged, 0)
  const every = runs[0]?.everyEdit
  const perPush = [
    [
      `diff unchanged before the first change (a prefix cache's ceiling; all: ${percent(unchangedChars, diffChars)})`,
      ...diffs.map(d => percent(d.unchanged, d.chars))
    ],
    ...(every === undefined
      ? []
      : [
          [
            `the same, whichever one of the ${String(every.files)} files a push changes (mean; all: ${percent(everyEditShare(every), 1)})`,
            ...diffs.map((_, i) => (i === 0 ? '0%' : percent(every.mean, 1)))
          ]
        ])
  ]
  perPush.push(
    ...runs.flatMap(run =>
      providers.map(provider => [
        `${provider}, ${run.label}`,
        ...run.pushes.map(push => {
          const t = push.find(x => x.provider === provider)
          if (t === undefined) return '–'
          return provider === 'anthropic'
            ? `r ${count(t.cached)} / w ${count(t.written)}`
            : percent(t.cached, t.input)
        })
      ])
    )
  )
  return [
    table([
      [
        `lifecycle: ${String(LIFECYCLE_PUSHES)} pushes of one pull request (${count(LIFECYCLE_SHAPE.lines)} lines in ${count(LIFECYCLE_SHAPE.files)} files, then ${String(CHANGED_LINES)} lines a push, ${runs[0]?.pattern ?? ''})`,
        'bundle',
        'calls',
        'input tokens',
        'full price',
        'cached',
        'written',
        'output',
        'dollars'
      ],
      ...rows
    ]),
    '',
    table([
      [
        'each push: cached share of input (Anthropic: cache reads / writes)',
        ...Array.from({ length: LIFECYCLE_PUSHES }, (_, i) => `push ${String(i + 1)}`)
      ],
      ...perPush
    ]),
    '',
    ...anthropicInputLines(runs)
  ].join('\n')
}

const PROVIDERS = ['openai', 'google', 'anthropic'] as const

/** Each provider's cached share of its input, Anthropic's cache writes beside it; – if absent. */
const cachedShares = (
  tokens: readonly Pick<ProviderTokens, 'provider' | 'input' | 'cached' | 'written'>[]
): string[] =>
  PROVIDERS.map(provider => {
    const t = tokens.find(x => x.provider === provider)
    if (t === undefined) return '–'
    const share = percent(t.cached, t.input)
    return provider === 'anthropic' ? `${share} (w ${count(t.written)})` : share
  })

/**
 * Per edit pattern and layout: each provider's cached share of its input over the five pushes
 * (Anthropic's cache writes beside it), all input tokens against today's layout, the dollars, and
 * the prefix ceiling; then whether the replay of today's layout gave what the run measured.
 */
function layoutTable(runs: readonly LifecycleRun[]): string {
  const rows: string[][] = []
  const mismatches: string[] = []
  const wholeBill: string[] = []
  for (const run of runs) {
    if (run.layoutsError !== undefined) mismatches.push(`  ${run.pattern}: ${run.layoutsError}`)
    if (run.layouts === undefined) continue
    const today = run.layouts.layouts.find(l => l.layout === 'today')
    const todayInput = sum(today?.providers ?? [], t => t.input)
    for (const replay of run.layouts.layouts) {
      const name = LAYOUTS.find(l => l.id === replay.layout)?.name ?? replay.layout
      const input = sum(replay.providers, t => t.input)
      rows.push([
        run.pattern,
        name,
        ...cachedShares(replay.providers),
        vsToday(input, todayInput),
        dollars(sum(replay.providers, t => t.costUsd)),
        percent(run.layouts.ceiling, 1)
      ])
    }
    // The product's own orders, measured: every provider, Anthropic's breakpoints placed by it.
    for (const measured of runs.filter(r => r.pattern === run.pattern && r.order !== 'diff')) {
      // The input and dollars of the providers the replays give, so that the rows compare; the
      // shares are every provider's, and the whole bill is under the table.
      const compared = measured.total.filter(t => !run.layouts?.notReplayed.includes(t.provider))
      const input = sum(compared, t => t.input)
      rows.push([
        run.pattern,
        `${measured.order} first (evidence-order; measured)`,
        ...cachedShares(measured.total),
        vsToday(input, todayInput),
        dollars(sum(compared, t => t.costUsd)),
        percent(run.layouts.ceiling, 1)
      ])
      wholeBill.push(
        `${run.pattern}: the five pushes with the three judges cost ${dollars(sum(measured.total, t => t.costUsd))} with ${measured.order} first, ${dollars(sum(run.total, t => t.costUsd))} in git's order (both measured)`
      )
    }
    for (const t of today?.providers ?? []) {
      const measured = run.total.find(x => x.provider === t.provider)
      const same =
        measured?.input === t.input &&
        measured.cached === t.cached &&
        measured.written === t.written
      if (!same) {
        mismatches.push(
          `  ${run.pattern}, ${t.provider}: measured ${count(measured?.input ?? 0)} in / ${count(measured?.cached ?? 0)} cached / ${count(measured?.written ?? 0)} written, replayed ${count(t.input)} / ${count(t.cached)} / ${count(t.written)}`
        )
      }
    }
  }
  return [
    table([
      [
        `layouts: ${String(LIFECYCLE_PUSHES)} pushes, 3 judges (edit pattern of pushes 2–5)`,
        'layout',
        'openai cached',
        'google cached',
        'anthropic cached (written)',
        'input tokens (vs today)',
        'dollars (providers replayed)',
        'prefix ceiling'
      ],
      ...rows
    ]),
    ...notReplayedLines(runs),
    ...wholeBill,
    mismatches.length === 0
      ? "The replay of today's layout gives each run's measured tokens, provider by provider."
      : `The replay of today's layout differs from the measured run, or failed:\n${mismatches.join('\n')}`
  ].join('\n')
}

/**
 * The providers given breakpoints inside the diff are not replayed under other layouts (only the
 * product places those breakpoints): what today's layout measured for them, per pattern.
 */
function notReplayedLines(runs: readonly LifecycleRun[]): string[] {
  return runs.flatMap(run =>
    (run.layouts?.notReplayed ?? []).map(provider => {
      const t = run.total.find(x => x.provider === provider)
      const measured = t ? `${percent(t.cached, t.input)} cached, ${count(t.written)} written` : '–'
      return `${provider}, ${run.pattern}: not replayed (breakpoints inside the diff, placed by the product); today's layout measured ${measured}`
    })
  )
}

const sum = <T>(rows: readonly T[], pick: (row: T) => number): number =>
  rows.reduce((total, row) => total + pick(row), 0)

/** "120,400 (+6.3%)": input tokens against today's layout's. */
const vsToday = (input: number, today: number): string =>
  `${count(input)} (${input >= today ? '+' : ''}${(((input - today) / today) * 100).toFixed(1)}%)`
