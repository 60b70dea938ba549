import { resolve } from 'node:path'
import type { HistoryEntry } from '../engine/history.js'
import { planRubrics, scopeText } from '../engine/rubric-set.js'
import { localBase, localDiff } from '../evidence/git.js'
import { notApplicableTitle } from '../publish/scope-sentences.js'
import {
  renderRubricsComment,
  renderRubricsReport,
  rubricsJsonReport,
  worstVerdict,
  type RubricOutcome
} from '../publish/rubrics.js'
import { renderMarkdown } from '../report/markdown.js'
import { renderTerminal } from '../report/terminal.js'
import { DEFAULT_RUBRIC_PATH } from '../rubric/defaults.js'
import { readRubricFile } from '../rubric/load.js'
import { declaredName, parseRubric } from '../rubric/parse.js'
import { DEFAULT_CHECK_NAME } from '../publish/memory.js'
import { EXIT_CODE } from '../verdict/outcome.js'
import { USAGE_ERROR } from './args.js'
import { failed, ok, type Result } from '../util/result.js'
import { checkHere, writeOwnReport, type CheckOptions, type CheckRequest } from './check.js'
import { reportsProblem, writeReports, type CliIo } from './io.js'
import { withUpstreams } from './upstream.js'
import { defaultTargets } from './validate.js'

/** A local file has no size limit worth cutting for; this only bounds a pathological report. */
const LOCAL_MARKDOWN_BUDGET = 5_000_000

/** The rubrics a request that names none is of, when the repository has several. */
export function rubricSet(
  request: Pick<CheckRequest, 'rubric' | 'checker'>,
  cwd: string
): string[] | undefined {
  if (request.rubric !== undefined || request.checker !== undefined) return undefined
  const paths = defaultTargets(cwd)
  return paths.length === 1 && paths[0] === DEFAULT_RUBRIC_PATH ? undefined : paths
}

/**
 * Every rubric of a repository with several (docs/rubric.md#several-rubrics), for a request that
 * names neither a rubric nor a checker: each rubric that applies to the diff from the merge base is
 * checked as `check --rubric` would, its judges shown the files it matches; the others say they do
 * not apply. Undefined when the repository has one rubric (the request is `checkHere`'s); not ok
 * with the lines to say when something was wrong before anything ran.
 */
export async function checkRubricSet(
  request: CheckRequest,
  io: CliIo,
  /** What each rubric's judges are told of earlier iterations, by check run name (the loop). */
  historyOf?: (checkName: string) => readonly HistoryEntry[]
): Promise<Result<RubricOutcome[], readonly string[]> | undefined> {
  const paths = rubricSet(request, io.cwd)
  if (paths === undefined) return undefined
  const base = await localBase(io.cwd, request.base)
  if (!base.ok) return failed([`rubric-council: ${base.problem}`])
  // Unread, every rubric applies: each then says why it has no verdict.
  const changed = await localDiff({ cwd: io.cwd, base: base.value }).then(
    diff =>
      diff.files.flatMap(f => (f.previousPath === undefined ? [f.path] : [f.path, f.previousPath])),
    () => undefined
  )
  const files = await Promise.all(
    paths.map(async path => {
      const read = await withUpstreams(io, await readRubricFile(resolve(io.cwd, path), path))
      const parsed = read.ok ? parseRubric(read.value) : undefined
      return {
        path,
        repoPath: path,
        main: path === DEFAULT_RUBRIC_PATH,
        rubric: parsed?.ok === true ? parsed.value : undefined,
        declaredName: declaredName({
          text: read.ok ? read.value.text : (read.problem.text ?? ''),
          path
        })
      }
    })
  )
  const outcomes: RubricOutcome[] = []
  for (const plan of planRubrics(files, changed, DEFAULT_CHECK_NAME)) {
    const named = { name: plan.name, checkName: plan.checkName, path: plan.file.path }
    if (!plan.applicable) {
      outcomes.push({
        ...named,
        notApplicable: notApplicableTitle(scopeText(plan.file.rubric?.scope ?? {}))
      })
      continue
    }
    io.stderr(`── ${plan.checkName} (${plan.file.path})`)
    const checked = await checkHere(
      {
        ...request,
        rubric: plan.file.path,
        ...(plan.scope && { scope: plan.scope }),
        ...(historyOf && { history: historyOf(plan.checkName) })
      },
      io
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
  if (rubricSet(options, io.cwd) === undefined) return undefined
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

/**
 * The compact report of several rubrics' checks: a line for each that did not apply, and each
 * other's compact report under its check run's name, pointing at its Markdown report's file.
 */
export function rubricsTerminal(
  outcomes: readonly RubricOutcome[],
  markdownFileOf: (outcome: RubricOutcome) => string | undefined
): string {
  return outcomes
    .map(o => {
      if (o.evaluation === undefined) return `➖ ${o.checkName}: ${o.notApplicable ?? ''}`
      const markdownFile = markdownFileOf(o)
      const compact = renderTerminal(
        o.evaluation,
        markdownFile === undefined ? {} : { markdownFile }
      )
      return `── ${o.checkName} (${o.path})\n${compact.trimEnd()}`
    })
    .join('\n\n')
}
