import { statSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { everyDefaultJudge } from '../council/members.js'
import { askedModels, rubricTooLarge } from '../council/window.js'
import { DEFAULT_MAX_EVIDENCE_TOKENS } from '../evidence/build.js'
import { repositoryRoot, workingTreeRubrics } from '../local/place.js'
import { rubricSetProblems } from '../local/rubric-set-problems.js'
import { rubricDeprecationLines, rubricModelLines } from '../publish/model-lines.js'
import { MATCHER_OWNER, PROBLEM_MATCHER } from '../publish/problem-matcher.js'
import { describeRubric } from '../rubric/describe.js'
import { formatIssue } from '../rubric/errors.js'
import { loadRubric } from '../rubric/load.js'
import type { Rubric } from '../rubric/types.js'
import { needsCouncil } from '../verdict/decide.js'
import type { CliIo } from './io.js'
import { cliUpstreamReader } from './upstream.js'

/**
 * `rubric-council validate [FILE...]`: 0 when every file is a valid rubric, 1 otherwise. Without
 * files: `.github/rubric.md` and every rubric in `.github/rubrics/`. A model this version does not
 * know is a warning, with the known one it most likely meant: exit 0; so is a model that retires
 * within 30 days, and a key under its old name (`council.tie_breaks`). A model past its retirement
 * date is an error: exit 1; so are two rubrics of one name, and a `paths` pattern that matches no
 * file of the repository (the rubric would never apply).
 */
export async function validateCommand(files: readonly string[], io: CliIo): Promise<number> {
  const targets = files.length > 0 ? files : workingTreeRubrics(io.cwd)
  return withProblemMatcher(io, async () => {
    let invalid = 0
    let checked = 0
    const valid: { file: string; rubric: Rubric }[] = []
    const upstream = cliUpstreamReader(io.env, line => {
      io.stderr(line)
    })
    const root = await repositoryRoot(io.cwd)
    for (const file of targets) {
      // `validate examples/*` also meets folders (example workflows): say so, and go on.
      if (isDirectory(resolve(io.cwd, file))) {
        io.stderr(`${file}: a folder, not a rubric; skipped`)
        continue
      }
      checked++
      const result = await loadRubric(resolve(io.cwd, file), file, upstream, root)
      if (result.ok) {
        const today = (io.now ?? Date.now)()
        const models = rubricModelLines(result.value, today)
        const size = sizeLines(result.value, today)
        if (models.errors + size.length > 0) invalid++
        else io.stdout(`${file}: ok (${describeRubric(result.value)})`)
        valid.push({ file, rubric: result.value })
        for (const line of [...models.lines, ...size, ...rubricDeprecationLines(result.value)])
          io.stderr(line)
      } else {
        invalid++
        for (const issue of result.problem) io.stderr(formatIssue(issue))
      }
    }
    const set = await rubricSetProblems(valid, io.cwd)
    for (const line of set.lines) io.stderr(line)
    invalid += set.invalid
    if (targets.length > 1) io.stdout(`${checked - invalid} of ${checked} rubrics valid`)
    // Only folders: nothing was validated, which is not "all valid".
    return invalid === 0 && checked > 0 ? 0 : 1
  })
}

/**
 * A rubric too large for its council, as the run would refuse it (council/window.ts): its members,
 * else every provider's default judges (the keys of the run are not known here), and its reserves,
 * with the default evidence budget.
 */
function sizeLines(rubric: Rubric, today: number): string[] {
  if (!needsCouncil(rubric)) return []
  const { models, reserve } = rubric.council
  const members = models.length > 0 ? models : everyDefaultJudge()
  const asked = askedModels(members, reserve, today)
  const message = rubricTooLarge(rubric, asked, DEFAULT_MAX_EVIDENCE_TOKENS)
  return message === undefined
    ? []
    : [formatIssue({ file: rubric.source.path, rule: 'too-large', message })]
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/**
 * Inside GitHub Actions, registers the matcher for the duration of `body` (the runner reads
 * `::add-matcher::` from the log); elsewhere just runs `body`.
 */
async function withProblemMatcher<T>(io: CliIo, body: () => Promise<T>): Promise<T> {
  if (io.env.GITHUB_ACTIONS !== 'true') return body()
  const path = join(io.env.RUNNER_TEMP ?? tmpdir(), 'rubric-council-problem-matcher.json')
  await writeFile(path, JSON.stringify(PROBLEM_MATCHER, null, 2))
  io.stdout(`::add-matcher::${path}`)
  try {
    return await body()
  } finally {
    io.stdout(`::remove-matcher owner=${MATCHER_OWNER}::`)
  }
}
