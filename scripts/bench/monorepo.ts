import { rmSync } from 'node:fs'
import { baseBranch, Repository } from '../../__tests__/helpers/action-run.js'
import type { RubricsJsonReport } from '../../src/publish/rubrics.js'
import { runChecked, type JsonReport } from './child.js'
import { JUDGED_RUBRIC, JUDGES, openPullRequest, RUBRIC_PATH, startWorld } from './fixtures.js'
import { count, median, ms, table } from './stats.js'

/**
 * The monorepo figure (issue 26): a repository with 10 rubrics in `.github/rubrics/`, each scoped
 * to one service by `paths`, and a pull request that touches one service, against the same pull
 * request in a repository whose one rubric is `.github/rubric.md`. The judges answer after a
 * fixed prefill delay, so wall time is a council's. Requests are counted at the provider
 * stand-in; tokens are the JSON reports' sums.
 */

export const MONOREPO_RUBRICS = 10
/** The service the pull request touches, and how many files of it. */
const TOUCHED = 3
const FILES = 6
/** Each judge's answer comes this long after its request: a council's time, as a provider's. */
const JUDGE_DELAY_MS = 1_500
const RUNS = 3
const MONOREPO_JUDGES = JUDGES.slice(0, 3)

export interface MonorepoRun {
  readonly label: string
  readonly requests: number
  readonly inputTokens: number
  readonly outputTokens: number
  /** Median of `RUNS` runs. */
  readonly wallMs: number
  readonly checkRuns: number
  readonly verdict: string
}

/** A service's files: plausible TypeScript, one module each. */
function serviceFiles(service: number, version: number): Record<string, string> {
  const files: Record<string, string> = {}
  for (let i = 0; i < FILES; i++) {
    files[`services/s${String(service)}/mod${String(i)}.ts`] =
      `export const handler${String(i)} = (request: Request) => respond(request, ${String(version * 100 + i)})\n`
  }
  return files
}

const scoped = (service: number): string =>
  JUDGED_RUBRIC.replace('---\n', `---\npaths: ['services/s${String(service)}/**']\n`)

/** One repository: its rubric files at the base, every service, and the pull request's change. */
async function measure(
  bundle: string,
  label: string,
  rubrics: Record<string, string>
): Promise<MonorepoRun> {
  const world = await startWorld()
  world.setJudgeDelay(JUDGE_DELAY_MS)
  const services: Record<string, string> = {}
  for (let s = 0; s < MONOREPO_RUBRICS; s++) Object.assign(services, serviceFiles(s, 1))
  const repo = new Repository({ ...rubrics, ...services, 'README.md': '# Services\n' })
  for (const [path, text] of Object.entries(rubrics)) world.github.setFile(repo.baseSha, path, text)
  world.github.setBranch(baseBranch(repo), repo.baseSha)
  repo.commit(serviceFiles(TOUCHED, 2), 'Change one service')
  const walls: number[] = []
  let last: { report: unknown; requests: number; checkRuns: number; verdict: string } | undefined
  try {
    for (let run = 0; run < RUNS; run++) {
      // A new pull request each time: no comment of ours, so no answer is reused.
      const pr = openPullRequest(world, repo, {
        inputs: { models: MONOREPO_JUDGES.join(', ') },
        env: world.providerEnv
      })
      const calls = world.providers.calls.length
      const checks = world.github.checkRuns.length
      try {
        const result = await runChecked(`monorepo, ${label}`, { ...pr.run, bundle })
        walls.push(result.wallMs)
        last = {
          report: result.report,
          requests: world.providers.calls.length - calls,
          checkRuns: new Set(world.github.checkRuns.slice(checks).map(c => c.name)).size,
          verdict: result.outputs.verdict ?? ''
        }
      } finally {
        pr.dispose()
      }
    }
  } finally {
    await world.close()
    rmSync(repo.dir, { recursive: true, force: true })
  }
  const reports = judgedReports(last?.report)
  const judges = reports.flatMap(r => r.judges)
  return {
    label,
    requests: last?.requests ?? 0,
    inputTokens: judges.reduce((sum, j) => sum + (j.tokens?.input ?? 0), 0),
    outputTokens: judges.reduce((sum, j) => sum + (j.tokens?.output ?? 0), 0),
    wallMs: median(walls),
    checkRuns: last?.checkRuns ?? 0,
    verdict: last?.verdict ?? ''
  }
}

/** The reports of the rubrics judged: the one report, or each applicable rubric's. */
function judgedReports(report: unknown): JsonReport[] {
  if (report === undefined) return []
  const several = report as Partial<RubricsJsonReport>
  if (several.rubrics !== undefined) {
    return several.rubrics.flatMap(r => (r.report === undefined ? [] : [r.report]))
  }
  return [report as JsonReport]
}

/** The figure: one rubric against ten scoped ones, the same pull request. */
export async function monorepoFigure(
  bundle: string,
  progress: (message: string) => void
): Promise<readonly MonorepoRun[]> {
  progress(`monorepo: one rubric, ${String(RUNS)} runs, 3 judges`)
  const single = await measure(bundle, '1 rubric (.github/rubric.md)', {
    [RUBRIC_PATH]: JUDGED_RUBRIC
  })
  progress(`monorepo: ${String(MONOREPO_RUBRICS)} scoped rubrics, ${String(RUNS)} runs, 3 judges`)
  const rubrics: Record<string, string> = {}
  for (let s = 0; s < MONOREPO_RUBRICS; s++) rubrics[`.github/rubrics/s${String(s)}.md`] = scoped(s)
  const several = await measure(bundle, `${String(MONOREPO_RUBRICS)} rubrics, 1 applies`, rubrics)
  return [single, several]
}

export function monorepoTable(runs: readonly MonorepoRun[]): string {
  return table([
    [
      'repository',
      'verdict',
      'check runs',
      'provider requests',
      'input tokens',
      'output tokens',
      'wall (median)'
    ],
    ...runs.map(r => [
      r.label,
      r.verdict,
      count(r.checkRuns),
      count(r.requests),
      count(r.inputTokens),
      count(r.outputTokens),
      ms(r.wallMs)
    ])
  ])
}
