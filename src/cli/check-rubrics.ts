import { resolve } from 'node:path'
import { planRubrics, scopeText } from '../engine/rubric-set.js'
import { localBase, localDiff } from '../evidence/git.js'
import { notApplicableTitle } from '../publish/sentences.js'
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
import { parseRubric } from '../rubric/parse.js'
import { DEFAULT_CHECK_NAME } from '../publish/memory.js'
import { EXIT_CODE } from '../verdict/outcome.js'
import { USAGE_ERROR } from './args.js'
import { checkHere, writeOwnReport, type CheckOptions } from './check.js'
import { reportsProblem, writeReports, type CliIo } from './io.js'
import { withUpstreams } from './upstream.js'
import { defaultTargets } from './validate.js'

/** A local file has no size limit worth cutting for; this only bounds a pathological report. */
const LOCAL_MARKDOWN_BUDGET = 5_000_000

/**
 * `rubric-council check` in a repository with several rubrics (docs/rubric.md#several-rubrics),
 * given neither `--rubric` nor `--checker`: each rubric that applies to the diff from the merge
 * base is checked as `check --rubric` would, its judges shown the files it matches; the others say
 * they do not apply. Exits with the worst verdict's code. Undefined when the repository has one
 * rubric: `check` goes on as before.
 */
export async function checkRubrics(options: CheckOptions, io: CliIo): Promise<number | undefined> {
  if (options.rubric !== undefined || options.checker !== undefined) return undefined
  const paths = defaultTargets(io.cwd)
  if (paths.length === 1 && paths[0] === DEFAULT_RUBRIC_PATH) return undefined
  const unwritable = reportsProblem(io, [
    ['JSON report', options.json],
    ['Markdown report', options.markdown === '-' ? undefined : options.markdown]
  ])
  if (unwritable !== undefined) {
    io.stderr(`rubric-council: ${unwritable}`)
    return USAGE_ERROR
  }
  const base = await localBase(io.cwd, options.base)
  if (!base.ok) {
    io.stderr(`rubric-council: ${base.problem}`)
    return USAGE_ERROR
  }
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
        rubric: parsed?.ok === true ? parsed.value : undefined
      }
    })
  )
  const outcomes: RubricOutcome[] = []
  const terminal: string[] = []
  for (const plan of planRubrics(files, changed, DEFAULT_CHECK_NAME)) {
    const named = { name: plan.name, checkName: plan.checkName, path: plan.file.path }
    if (!plan.applicable) {
      const title = notApplicableTitle(scopeText(plan.file.rubric?.scope ?? {}))
      outcomes.push({ ...named, notApplicable: title })
      terminal.push(`➖ ${plan.checkName}: ${title}`)
      continue
    }
    io.stderr(`── ${plan.checkName} (${plan.file.path})`)
    const checked = await checkHere(
      {
        ...options,
        rubric: plan.file.path,
        ...(plan.scope && { scope: plan.scope })
      },
      io
    )
    if (!checked.ok) {
      for (const line of checked.problem) io.stderr(line)
      return USAGE_ERROR
    }
    const evaluation = checked.value
    outcomes.push({ ...named, evaluation })
    const markdown = renderMarkdown(evaluation, {
      budget: LOCAL_MARKDOWN_BUDGET,
      nextStep: 'terminal'
    })
    const markdownFile = await writeOwnReport(markdown, io)
    terminal.push(
      `── ${plan.checkName} (${plan.file.path})\n${renderTerminal(evaluation, markdownFile === undefined ? {} : { markdownFile }).trimEnd()}`
    )
  }
  const report = renderRubricsReport(outcomes, LOCAL_MARKDOWN_BUDGET)
  if (options.markdown === '-') io.stdout(report)
  else if (options.dryRun === true) {
    io.stdout(renderRubricsComment(outcomes, DEFAULT_CHECK_NAME, { history: [] }))
  } else io.stdout(terminal.join('\n\n'))
  const written = await writeReports(io, [
    ['JSON report', options.json, `${JSON.stringify(rubricsJsonReport(outcomes), null, 2)}\n`],
    ['Markdown report', options.markdown === '-' ? undefined : options.markdown, report]
  ])
  return written ? EXIT_CODE[worstVerdict(outcomes)] : USAGE_ERROR
}
