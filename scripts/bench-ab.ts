/**
 * Two commits' bundles, run in turns on the same pull requests: `npm run bench:ab -- A B [rounds]`.
 * A change of 10–20 ms is smaller than the spread between two runs of `npm run bench` on a shared
 * machine; interleaving the two bundles round by round lets both meet the same noise. Each commit's
 * `dist/` is taken as committed (`git archive`), so nothing is built. Prints, for each bundle, the
 * median overhead (wall time minus a bare `node -e 0`) of the bench's 1,000-line (1a) and
 * 100,000-line (1b) pull requests, on packed objects, and their ratio.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Repository } from '../__tests__/helpers/action-run.js'
import { measureBareNode, ROOT, runChecked } from './bench/child.js'
import {
  diffRepository,
  JUDGED_RUBRIC,
  JUDGES,
  openPullRequest,
  startWorld
} from './bench/fixtures.js'
import { median } from './bench/stats.js'

const [first, second, roundsArgument = '10'] = process.argv.slice(2)
const rounds = Number(roundsArgument)
if (first === undefined || second === undefined || !Number.isInteger(rounds) || rounds < 1) {
  process.stderr.write('usage: npm run bench:ab -- <commit A> <commit B> [rounds, default 10]\n')
  process.exit(2)
}

/** The commit's `dist/`, as committed, in a temporary folder; the path of its index.js. */
function bundleOf(commit: string, into: string): string {
  const archive = join(into, 'dist.tar')
  execFileSync('git', ['archive', '--format=tar', `--output=${archive}`, commit, 'dist'], {
    cwd: ROOT
  })
  execFileSync('tar', ['-x', '-f', archive, '-C', into])
  return join(into, 'dist', 'index.js')
}

const dir = mkdtempSync(join(tmpdir(), 'rc-bench-ab-'))
const world = await startWorld()
const repos: Repository[] = []
try {
  const bundles = [first, second].map((commit, i) => {
    const into = join(dir, String(i))
    mkdirSync(into)
    return { commit, path: bundleOf(commit, into), small: [] as number[], large: [] as number[] }
  })
  const small = diffRepository(world, { files: 30, lines: 1_000 }, JUDGED_RUBRIC)
  const large = diffRepository(world, { files: 3_000, lines: 100_000 }, JUDGED_RUBRIC)
  repos.push(small, large)
  const models = JUDGES.slice(0, 3).join(', ')
  const once = async (bundle: string, repo: Repository): Promise<number> => {
    const pr = openPullRequest(world, repo, { inputs: { models }, env: world.providerEnv })
    try {
      return (await runChecked(bundle, { ...pr.run, bundle })).wallMs
    } finally {
      pr.dispose()
    }
  }
  // One warm-up run of each, not counted.
  for (const bundle of bundles) {
    await once(bundle.path, small)
    await once(bundle.path, large)
  }
  const bare: number[] = []
  for (let round = 0; round < rounds; round++) {
    process.stderr.write(`bench:ab: round ${String(round + 1)} of ${String(rounds)}\n`)
    bare.push((await measureBareNode()).wallMs)
    // Alternate which bundle goes first, so neither always runs right after the other.
    for (const bundle of round % 2 === 0 ? bundles : [...bundles].reverse()) {
      bundle.small.push(await once(bundle.path, small))
      bundle.large.push(await once(bundle.path, large))
    }
  }
  const bareMs = median(bare)
  for (const bundle of bundles) {
    const a = median(bundle.small) - bareMs
    const b = median(bundle.large) - bareMs
    process.stdout.write(
      `${bundle.commit}: 1a ${a.toFixed(0)} ms, 1b ${b.toFixed(0)} ms, 1b / 1a ${(b / a).toFixed(2)}× (median of ${String(rounds)})\n`
    )
  }
} finally {
  await world.close()
  for (const repo of repos) rmSync(repo.dir, { recursive: true, force: true })
  rmSync(dir, { recursive: true, force: true })
}
