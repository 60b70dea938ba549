import { localBase, localDiff } from '../evidence/git.js'
import { EvidenceUnavailableError } from '../evidence/source.js'
import { formatIssue } from '../rubric/errors.js'
import type { RubricTextResult } from '../rubric/text.js'
import type { Rubric } from '../rubric/types.js'
import { failed, ok, type Result } from '../util/result.js'
import { needsCouncil } from '../verdict/decide.js'
import { NO_RUBRIC_HINT, unchangedLine } from './sentences.js'

// What a local check refuses before anything runs, one line each on stderr: a rubric file it
// cannot read, a base that does not resolve, and a change with nothing in it.

/**
 * A rubric file that cannot be read is the user's path, not a rubric to grade: the lines that say
 * so, with how to get one when the user `named` none; none when the file was read.
 */
export function unreadableRubricLines(rubric: RubricTextResult, named: boolean): string[] {
  const unreadable = rubric.ok
    ? []
    : rubric.problem.issues.filter(i => i.rule === 'missing-file' || i.rule === 'unreadable-file')
  const hint = named ? '' : NO_RUBRIC_HINT
  return unreadable.map(issue => `rubric-council: ${formatIssue(issue)}${hint}`)
}

/**
 * The base the judges' diff is read from, in `cwd`: found only for a rubric with judges (`rubric`,
 * when it is valid), while a base the user `named` is checked all the same; refused when the
 * diff from it was read and is empty, since a PASS would then vouch for nothing. Undefined: the
 * default base, found when the diff is read.
 */
export async function judgedBase(
  cwd: string,
  named: string | undefined,
  rubric: Rubric | undefined
): Promise<Result<string | undefined, readonly string[]>> {
  const judged = rubric !== undefined && needsCouncil(rubric)
  if (named === undefined && !judged) return ok(undefined)
  const found = await localBase(cwd, named)
  if (!found.ok) return failed([`rubric-council: ${found.problem}`])
  const unchanged = judged ? await unchangedFrom(cwd, found.value) : undefined
  return unchanged === undefined ? ok(found.value) : failed([unchangedLine(found.value, unchanged)])
}

/**
 * The merge base with `base` when the diff from it to the working tree is empty. Only a diff that
 * was read and found empty counts; one that cannot be read is the verdict's to report.
 */
async function unchangedFrom(cwd: string, base: string): Promise<string | undefined> {
  try {
    const { mergeBase, files } = await localDiff({ cwd, base })
    return files.length === 0 ? mergeBase : undefined
  } catch (error) {
    if (error instanceof EvidenceUnavailableError) return undefined
    throw error
  }
}
