import { posix } from 'node:path'
import type { EvidenceScope } from '../evidence/types.js'
import { inScope, isScoped, type RubricScope } from '../rubric/paths.js'
import type { Rubric } from '../rubric/types.js'
import { needsCouncil } from '../verdict/decide.js'

/**
 * Several rubrics in one repository (docs/rubric.md#several-rubrics): which of them apply to a
 * pull request, under which check run names, and what each one's judges see. Pure.
 */

/** A rubric file of the repository, and the rubric it makes when it is a valid one. */
export interface RubricFile {
  /** Its path in the repository. */
  readonly repoPath: string
  /** `.github/rubric.md` (the `rubric` input): its check run keeps the check's own name. */
  readonly main: boolean
  /** Undefined when it is not a valid rubric (its check run then says why). */
  readonly rubric: Rubric | undefined
  /**
   * The `name` its front matter gives, read even when it is not valid (`declaredName`), so that an
   * invalid rubric reports on the check run its name gives, not on another.
   */
  readonly declaredName?: string | undefined
}

export interface PlannedRubric<F extends RubricFile = RubricFile> {
  readonly file: F
  /** Its name: `name` from its front matter, else the file's stem (`rubric` for the main one). */
  readonly name: string
  /** Its check run's name before any base branch suffix: `check-name`, or `check-name / <name>`. */
  readonly checkName: string
  /** Another file of the same name came first: this one is not judged, and says so. */
  readonly duplicateOf?: string
  readonly applicable: boolean
  /** What its judges see, for a scoped rubric that applies (an unscoped one sees every file). */
  readonly scope?: EvidenceScope
}

/**
 * The plan of a rubric alone (`.github/rubric.md` with no `rubrics/` folder beside it): under the
 * check's own name, it applies whatever changed, and its judges see every file.
 */
export function planAlone<F extends RubricFile>(file: F, checkName: string): PlannedRubric<F> {
  return { file, name: file.rubric?.name ?? 'rubric', checkName, applicable: true }
}

/** The plans whose judges are asked: valid, first of their name, applicable, not gates only. */
export function judgedPlans<P extends PlannedRubric>(plans: readonly P[]): P[] {
  return plans.filter(
    p =>
      p.applicable &&
      p.duplicateOf === undefined &&
      p.file.rubric !== undefined &&
      needsCouncil(p.file.rubric)
  )
}

/**
 * The plans with each scoped one's `shownElsewhere`: the first other plan whose judges are shown a
 * file's content, by check run name, from `shown` (each judged plan's reviewed paths). A rubric of
 * gates only, or one whose `exclude` or budget leaves a file out, vouches for nothing.
 */
export function withShownElsewhere<P extends PlannedRubric>(
  plans: readonly P[],
  shown: ReadonlyMap<P, ReadonlySet<string>>
): P[] {
  return plans.map(plan => {
    if (plan.scope === undefined) return plan
    const others = [...shown].filter(([other]) => other !== plan)
    const shownElsewhere = (path: string): string | undefined =>
      others.find(([, paths]) => paths.has(path))?.[0].checkName
    return { ...plan, scope: { ...plan.scope, shownElsewhere } }
  })
}

/** A file's name without its folder and extension. */
export function rubricStem(path: string): string {
  const base = posix.basename(path)
  const dot = base.lastIndexOf('.')
  return dot > 0 ? base.slice(0, dot) : base
}

/**
 * Each rubric's plan for a pull request that changed `changed` (renamed files by both names;
 * undefined when the change could not be read: then every rubric applies, and each says why it
 * has no verdict). A rubric applies when it is not scoped, when a changed file is in its scope, or
 * when the pull request changes the rubric's own file (its review shows what the change would do);
 * one that is not valid always applies, so that its problems are shown.
 */
export function planRubrics<F extends RubricFile>(
  files: readonly F[],
  changed: readonly string[] | undefined,
  checkName: string
): PlannedRubric<F>[] {
  const seen = new Map<string, string>()
  const planned = files.map(file => {
    const name =
      file.rubric?.name ?? file.declaredName ?? (file.main ? 'rubric' : rubricStem(file.repoPath))
    const full = file.main ? checkName : `${checkName} / ${name}`
    const duplicateOf = seen.get(full)
    if (duplicateOf === undefined) seen.set(full, file.repoPath)
    const scope = file.rubric?.scope ?? {}
    const matches = inScope(scope)
    const applicable =
      duplicateOf !== undefined ||
      file.rubric === undefined ||
      changed === undefined ||
      !isScoped(scope) ||
      changed.some(path => path === file.repoPath || matches(path))
    return {
      file,
      name,
      checkName: full,
      ...(duplicateOf !== undefined && { duplicateOf }),
      applicable,
      matches
    }
  })
  // A scoped rubric's judges see the files it matches; what the judges of the others are shown is
  // known once their evidence is (`shownElsewhere`).
  return planned.map(({ matches, ...plan }) =>
    plan.applicable && isScoped(plan.file.rubric?.scope ?? {})
      ? { ...plan, scope: { inScope: matches } }
      : plan
  )
}

/** The scope's patterns as a person reads them, at most `max` characters. */
export function scopeText(scope: RubricScope, max = 160): string {
  const list = (patterns: readonly string[]): string => {
    let text = ''
    for (const [i, p] of patterns.entries()) {
      const next = `${text}${i === 0 ? '' : ', '}${p}`
      if (next.length > max) return `${text}, and ${patterns.length - i} more`
      text = next
    }
    return text
  }
  if (scope.paths !== undefined) return `paths ${list(scope.paths)}`
  if (scope.pathsIgnore !== undefined) return `anything but paths-ignore ${list(scope.pathsIgnore)}`
  return 'every file'
}
