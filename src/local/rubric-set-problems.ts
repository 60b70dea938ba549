import { posix, sep } from 'node:path'
import { rubricStem } from '../engine/rubric-set.js'
import { runGit } from '../evidence/git-process.js'
import { duplicateRubricName, noCatchAll, unmatchedPattern } from '../sentences/scope.js'
import { formatIssue } from '../rubric/errors.js'
import { isScoped, unmatchedPatterns } from '../rubric/paths.js'
import type { Rubric } from '../rubric/types.js'

/**
 * What is wrong with the rubrics together: two of one name (one check run for both), and `paths`
 * patterns that match no file git tracks (a rubric that would never apply), each at its line.
 */
export async function rubricSetProblems(
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
