import type { RubricDiff } from '../rubric/diff.js'
import type { RubricText } from '../rubric/text.js'
import type { Result } from '../util/result.js'

// What a local check says about the rubric it grades by (docs/agent-loop.md#which-rubric-grades):
// the notes the report shows, and the lines said on stderr before anything runs.

/** After a base that cannot be found, when the base's rubric was to grade. */
export const BASE_NEEDED =
  " (the rubric is read at the merge base with the base, as the required check reads it from the base branch; --rubric-source head grades by the working tree's)"

/** The base's commit has something at the rubric's path that is no file of its own. */
export function notOwnFileAtBase(what: string, commit: string): string {
  return `is ${what} at the base's commit ${commit.slice(0, 12)}, not a rubric file of its own`
}

/** The rubric the user named is outside the repository. */
export function outsideRepository(root: string): string {
  return `is outside the repository ${root}: a rubric is read only from within it`
}

/** Outside a git repository, the folder's rubric grades. */
export function notARepositoryNote(root: string): string {
  return `${root} is not a git repository: the rubric in it grades (a required check reads the base branch's).`
}

/** `--rubric-source head`: the working tree's rubric grades; `where` is the base's, when known. */
export function headNote(path: string, where: string | undefined): string {
  return `Graded by the working tree's ${path}, as --rubric-source head asks; the required check grades by the base's${where ? ` (${where})` : ''}.`
}

/** The base has no rubric at that path yet: the working tree's grades. */
export function noBaseRubricNote(repoPath: string, where: string | undefined): string {
  return `The base${where ? ` (${where})` : ''} has no ${repoPath} yet, so the working tree's is graded, as the required check would; once it is merged, the base's grades.`
}

/** The line of `--rubric-source head`: its note, and how the working tree's differs, if it does. */
export function headLine(note: string, difference: string | undefined): string {
  return `rubric-council: ${note.replace(/\.$/, '')}${difference === undefined ? '' : `, which ${difference}`}`
}

/** The base's rubric grades, and the working tree's differs from it as `difference` says. */
export function baseGradesLine(path: string, difference: string, where: string): string {
  return `rubric-council: the working tree's ${path} ${difference}; graded by the base's (${where}), as the required check is (--rubric-source head grades by the working tree's)`
}

/** How the working tree's rubric differs from the base's, weakening first, in one clause. */
export function differenceText(
  diff: RubricDiff | undefined,
  working: Result<RubricText, unknown>
): string {
  if (!working.ok) return 'is missing or unreadable, while the base has one (a weakening)'
  if (diff === undefined) return "differs from the base's, and one of them is not a valid rubric"
  if (diff.changes.length === 0) return "differs from the base's in wording only (no rule changed)"
  const changes = [...diff.changes]
    .sort((a, b) => Number(b.weakens) - Number(a.weakens))
    .map(c => `${c.weakens ? 'WEAKENS: ' : ''}${c.text}`)
  return `differs from the base's${diff.weakened ? ' and weakens it' : ''}: ${changes.join('; ')}`
}

/** After a rubric file that cannot be read, when the user named none. */
export const NO_RUBRIC_HINT = ' (pass --rubric FILE, or write one with rubric-council init)'

/** Nothing changed from `base`: HEAD and the working tree are as at their merge base. */
export function unchangedLine(base: string, mergeBase: string): string {
  return `rubric-council: no change from ${base}: HEAD and the working tree are as at their merge base ${mergeBase.slice(0, 12)} (a new file counts once it is added with git add); nothing was checked: no gate ran and no judge was asked`
}
