import type { HistoryEntry } from '../engine/history.js'
import { planRubrics, scopeText } from '../engine/rubric-set.js'
import { localBase, localDiff } from '../evidence/git.js'
import { notApplicableTitle } from '../sentences/scope.js'
import {
  renderRubricsComment,
  renderRubricsReport,
  rubricsJsonReport,
  worstVerdict,
  type RubricOutcome
} from '../publish/rubrics.js'
import { renderMarkdown } from '../report/markdown.js'
import { rubricsTerminal } from '../publish/rubrics-terminal.js'
import { DEFAULT_RUBRIC_PATH } from '../rubric/defaults.js'
import { DEFAULT_CHECK_NAME } from '../publish/memory.js'
import { EXIT_CODE } from '../verdict/outcome.js'
import { USAGE_ERROR } from './args.js'
import { failed, ok, type Result } from '../util/result.js'
import {
  checkPorts,
  checkWith,
  writeOwnReport,
  type CheckOptions,
  type CheckRequest
} from './check.js'
import { localPlace, localRubricSet, type LocalPlace } from '../local/place.js'
import { LOCAL_MARKDOWN_BUDGET } from '../local/reports.js'
import { readLocalRubric } from './local-rubric.js'
import { shownElsewhere } from '../engine/evaluate.js'
import { plannedRubric } from '../engine/rubric-choice.js'
import { reportsProblem, writeReports, type CliIo } from './io.js'

/**
 * The rubrics a request that names none is of, when the repository has several, with where they
 * are read (`localRubricSet`); undefined for one rubric, a named one, or checker sugar, and where
 * the place cannot be found (the one rubric's check then says why).
 */
export async function rubricSet(
  request: Pick<CheckRequest, 'rubric' | 'checker' | 'base' | 'rubricSource'>,
  cwd: string
): Promise<{ readonly place: LocalPlace; readonly paths: readonly string[] } | undefined> {
  if (request.rubric !== undefined || request.checker !== undefined) return undefined
  const place = await localPlace(cwd, request.base, request.rubricSource ?? 'base')
  if (!place.ok) return undefined
  const paths = await localRubricSet(place.value)
  return paths === undefined ? undefined : { place: place.value, paths }
}

/**
 * Every rubric of a repository with several (docs/rubric.md#several-rubrics), for a request that
 * names neither a rubric nor a checker: each rubric that applies to the diff from the merge base is
 * checked as `check --rubric` would, its judges shown the files it matches; the others say they do
 * not apply. Each is read as the required check reads it (the base's, unless asked otherwise). A
 * file outside a rubric's paths counts as seen only when another rubric's judges are shown it.
 * Undefined when the repository has one rubric (the request is `checkHere`'s); not ok with the
 * lines to say when something was wrong before anything ran.
 */
export async function checkRubricSet(
  request: CheckRequest,
  io: CliIo,
  /** What each rubric's judges are told of earlier iterations, by check run name (the loop). */
  historyOf?: (checkName: string) => readonly HistoryEntry[]
): Promise<Result<RubricOutcome[], readonly string[]> | undefined> {
  const set = await rubricSet(request, io.cwd)
  if (set === undefined) return undefined
  const base = await localBase(io.cwd, request.base)
  if (!base.ok) return failed([`rubric-council: ${base.problem}`])
  // Unread, every rubric applies: each then says why it has no verdict.
  const changed = await localDiff({ cwd: io.cwd, base: base.value }).then(
    diff =>
      diff.files.flatMap(f => (f.previousPath === undefined ? [f.path] : [f.path, f.previousPath])),
    () => undefined
  )
  const files = []
  for (const path of set.paths) {
    const chosen = await readLocalRubric(set.place, path, io)
    if (chosen.line !== undefined) io.stderr(chosen.line)
    files.push({
      path,
      repoPath: path,
      main: path === DEFAULT_RUBRIC_PATH,
      choice: chosen.choice,
      ...plannedRubric(chosen.choice)
    })
  }
  const plans = await shownElsewhere(
    planRubrics(files, changed, DEFAULT_CHECK_NAME),
    plan => plan.file.choice.trusted,
    checkPorts(io, { models: request.models, base: base.value })
  )
  const outcomes: RubricOutcome[] = []
  for (const plan of plans) {
    const named = { name: plan.name, checkName: plan.checkName, path: plan.file.path }
    if (!plan.applicable) {
      outcomes.push({
        ...named,
        notApplicable: notApplicableTitle(scopeText(plan.file.rubric?.scope ?? {}))
      })
      continue
    }
    io.stderr(`── ${plan.checkName} (${plan.file.path})`)
    const checked = await checkWith(
      {
        ...request,
        rubric: plan.file.path,
        ...(historyOf && { history: historyOf(plan.checkName) })
      },
      plan.file.choice,
      io,
      plan.scope
    )
    if (!checked.ok) return checked
    outcomes.push({ ...named, evaluation: checked.value })
  }
  return ok(outcomes)
}

/**
 * `rubric-council check` in a repository with several rubrics and neither `--rubric` nor
 * `--checker` (`checkRubricSet`): each rubric's compact report, or a line for one that does not
 * apply; exits with the worst verdict's code. Undefined when the repository has one rubric:
 * `check` goes on as before.
 */
export async function checkRubrics(options: CheckOptions, io: CliIo): Promise<number | undefined> {
  if ((await rubricSet(options, io.cwd)) === undefined) return undefined
  const unwritable = reportsProblem(io, [
    ['JSON report', options.json],
    ['Markdown report', options.markdown === '-' ? undefined : options.markdown]
  ])
  if (unwritable !== undefined) {
    io.stderr(`rubric-council: ${unwritable}`)
    return USAGE_ERROR
  }
  const checked = await checkRubricSet(options, io)
  if (checked === undefined) return undefined
  if (!checked.ok) {
    for (const line of checked.problem) io.stderr(line)
    return USAGE_ERROR
  }
  const outcomes = checked.value
  const files = new Map<RubricOutcome, string | undefined>()
  for (const o of outcomes) {
    if (o.evaluation === undefined) continue
    const markdown = renderMarkdown(o.evaluation, {
      budget: LOCAL_MARKDOWN_BUDGET,
      nextStep: 'terminal'
    })
    files.set(o, await writeOwnReport(markdown, io))
  }
  const report = renderRubricsReport(outcomes, LOCAL_MARKDOWN_BUDGET)
  if (options.markdown === '-') io.stdout(report)
  else if (options.dryRun === true) {
    io.stdout(renderRubricsComment(outcomes, DEFAULT_CHECK_NAME, { history: [] }))
  } else io.stdout(rubricsTerminal(outcomes, o => files.get(o)))
  const written = await writeReports(io, [
    ['JSON report', options.json, `${JSON.stringify(rubricsJsonReport(outcomes), null, 2)}\n`],
    ['Markdown report', options.markdown === '-' ? undefined : options.markdown, report]
  ])
  return written ? EXIT_CODE[worstVerdict(outcomes)] : USAGE_ERROR
}
