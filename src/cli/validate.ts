import { statSync } from 'node:fs'
import { posix, resolve, sep } from 'node:path'
import { rubricStem } from '../engine/rubric-set.js'
import { runGit } from '../evidence/git-process.js'
import { isScoped, unmatchedPatterns } from '../rubric/paths.js'
import type { Rubric } from '../rubric/types.js'
import { formatIssue } from '../rubric/errors.js'
import { duplicateRubricName, noCatchAll, unmatchedPattern } from '../publish/scope-sentences.js'
import { loadRubric } from '../rubric/load.js'
import { describeRubric } from '../rubric/describe.js'
import type { CliIo } from './io.js'
import { rubricDeprecationLines, rubricModelLines } from './model-check.js'
import { withProblemMatcher } from './problem-matcher.js'
import { cliUpstreamReader } from './upstream.js'
import { repositoryRoot, workingTreeRubrics } from '../local/place.js'

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
        const models = rubricModelLines(result.value, (io.now ?? Date.now)())
        if (models.errors > 0) invalid++
        else io.stdout(`${file}: ok (${describeRubric(result.value)})`)
        valid.push({ file, rubric: result.value })
        for (const line of [...models.lines, ...rubricDeprecationLines(result.value)])
          io.stderr(line)
      } else {
        invalid++
        for (const issue of result.problem) io.stderr(formatIssue(issue))
      }
    }
    const set = await setProblems(valid, io.cwd)
    for (const line of set.lines) io.stderr(line)
    invalid += set.invalid
    if (targets.length > 1) io.stdout(`${checked - invalid} of ${checked} rubrics valid`)
    // Only folders: nothing was validated, which is not "all valid".
    return invalid === 0 && checked > 0 ? 0 : 1
  })
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/**
 * What is wrong with the rubrics together: two of one name (one check run for both), and `paths`
 * patterns that match no file git tracks (a rubric that would never apply), each at its line.
 */
async function setProblems(
  rubrics: readonly { readonly file: string; readonly rubric: Rubric }[],
  cwd: string
): Promise<{ lines: string[]; invalid: number }> {
  const lines: string[] = []
  const bad = new Set<string>()
  const names = new Map<string, string>()
  for (const { file, rubric } of rubrics) {
    if (posix.basename(posix.dirname(file.split(sep).join('/'))) !== 'rubrics') continue
    const name = rubric.name ?? rubricStem(file)
    const first = names.get(name)
    if (first === undefined) names.set(name, file)
    else {
      bad.add(file)
      lines.push(
        formatIssue({ file, line: 1, rule: 'name', message: duplicateRubricName(name, first) })
      )
    }
  }
  // Several rubrics, every one scoped: a pull request outside them all is judged by none.
  if (names.size > 0 && rubrics.every(r => isScoped(r.rubric.scope))) lines.push(noCatchAll())
  const scoped = rubrics.filter(r => (r.rubric.scope.paths ?? []).length > 0)
  if (scoped.length > 0) {
    const listed = await runGit(['ls-files', '--full-name', '-z'], cwd).catch(() => undefined)
    if (listed?.exitCode !== 0) {
      lines.push(
        "note: not a git repository here, so the rubrics' paths were not checked against its files"
      )
    } else {
      const tracked = listed.stdout.split('\0').filter(Boolean)
      for (const { file, rubric } of scoped) {
        for (const pattern of unmatchedPatterns(rubric.scope, tracked)) {
          bad.add(file)
          lines.push(
            formatIssue({
              file,
              line: lineOf(rubric.text, pattern),
              rule: 'paths',
              message: unmatchedPattern(pattern, file)
            })
          )
        }
      }
    }
  }
  return { lines, invalid: bad.size }
}

/** The first line of `text` that holds `needle` (1 when none does). */
function lineOf(text: string, needle: string): number {
  const index = text.split('\n').findIndex(line => line.includes(needle))
  return index === -1 ? 1 : index + 1
}
