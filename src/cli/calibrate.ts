import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { caseEvidence, headGates, resolveCase } from '../calibrate/cases.js'
import {
  DEFAULT_THRESHOLDS,
  measureCalibration,
  type CalibrationRun,
  type CalibrationThresholds
} from '../calibrate/measure.js'
import { proposeCases, proposedSetText, readHistory } from '../calibrate/propose.js'
import { renderCalibrationHtml, renderCalibrationMarkdown } from '../calibrate/render.js'
import { percent } from '../calibrate/sentences.js'
import {
  DEFAULT_SET_PATH,
  MAX_SET_BYTES,
  parseCalibrationSet,
  type CalibrationCase,
  type SetIssue
} from '../calibrate/set.js'
import { createCouncil } from '../council/council.js'
import { parseModelList } from '../council/members.js'
import { evaluate } from '../engine/evaluate.js'
import type { Evaluation } from '../engine/evaluation.js'
import { runGit } from '../evidence/git-process.js'
import { DEFAULT_RUBRIC_PATH } from '../rubric/defaults.js'
import { formatIssue } from '../rubric/errors.js'
import { readRubricFile } from '../rubric/load.js'
import { readCapped } from '../util/read-capped.js'
import { repositoryRoot } from './local-rubric.js'
import { parseRubric } from '../rubric/parse.js'
import { withUpstreams } from './upstream.js'
import { needsCouncil } from '../verdict/decide.js'
import { maskSecrets, secretValues } from '../util/secrets.js'
import { failed, ok, type Result } from '../util/result.js'
import { USAGE_ERROR } from './args.js'
import { reportsProblem, terminalText, writeReports, type CliIo } from './io.js'
import { reasonSentence } from '../sentences/reasons.js'
import { optionModelLines, rubricModelLines } from './model-check.js'

/** The options of `calibrate` that take a value, by their names on the command line. */
export const CALIBRATE_VALUES = [
  'set',
  'rubric',
  'repeat',
  'models',
  'json',
  'markdown',
  'html',
  'min-precision',
  'max-flip',
  'min-labelled',
  'propose'
] as const

export type CalibrateOptions = Readonly<
  Partial<Record<(typeof CALIBRATE_VALUES)[number], string>>
> & {
  readonly gates?: boolean
  readonly force?: boolean
}

/** The exit code of a calibration stopped by Ctrl-C, as a shell reports a SIGINT. */
export const INTERRUPTED = 130
const DEFAULT_REPEAT = 3

/**
 * `rubric-council calibrate`: the rubric's council on every case of the set, `--repeat` times,
 * and how far its verdicts can be trusted. The set and the rubric are read from the working tree,
 * never from a case's commits: what a case's head says cannot change what it is measured against.
 */
export async function calibrateCommand(options: CalibrateOptions, io: CliIo): Promise<number> {
  const setPath = options.set ?? DEFAULT_SET_PATH
  if (options.propose !== undefined) return proposeCommand(options.propose, setPath, options, io)
  const read = readSettings(options)
  if (!read.ok) {
    io.stderr(`rubric-council: ${read.problem} (see rubric-council calibrate --help)`)
    return USAGE_ERROR
  }
  const { repeat, thresholds } = read.value
  const { models, problems } = parseModelList(options.models ?? '')
  if (problems.length > 0) {
    io.stderr(`rubric-council: --models: ${problems.join('; ')}`)
    return USAGE_ERROR
  }
  const outputs = [
    ['JSON report', options.json],
    ['Markdown report', options.markdown === '-' ? undefined : options.markdown],
    ['HTML report', options.html]
  ] as const
  const unwritable = reportsProblem(io, outputs)
  if (unwritable !== undefined) {
    io.stderr(`rubric-council: ${unwritable}`)
    return USAGE_ERROR
  }

  const rubricPath = options.rubric ?? DEFAULT_RUBRIC_PATH
  const root = await repositoryRoot(io.cwd)
  const rubricFile = await readRubricFile(resolve(io.cwd, rubricPath), rubricPath, root)
  const rubricText = await withUpstreams(io, rubricFile)
  const rubric = rubricText.ok ? parseRubric(rubricText.value) : failed(rubricText.problem.issues)
  if (!rubricText.ok || !rubric.ok) {
    for (const issue of rubric.ok ? [] : rubric.problem) io.stderr(formatIssue(issue))
    return USAGE_ERROR
  }
  if (!needsCouncil(rubric.value)) {
    io.stderr(
      `rubric-council: ${rubricPath} has no criteria or dimensions: there are no judges to calibrate`
    )
    return USAGE_ERROR
  }
  const now = io.now ?? Date.now
  const named = rubric.value.council.models.length > 0
  const modelLines = named ? rubricModelLines(rubric.value, now()) : optionModelLines(models, now())
  for (const line of modelLines.lines) io.stderr(line)

  const set = await readSet(
    io.cwd,
    setPath,
    rubric.value.criteria.map(c => c.id)
  )
  if (!set.ok) {
    for (const issue of set.problem) io.stderr(formatIssue(issue))
    return USAGE_ERROR
  }
  const resolved: (CalibrationCase & { base: string; head: string })[] = []
  const unresolved: SetIssue[] = []
  for (const c of set.value) {
    const refs = await resolveCase(io.cwd, c, runGit)
    if (refs.ok) resolved.push({ ...c, ...refs.value })
    else
      unresolved.push({
        file: setPath,
        line: c.line,
        column: c.column,
        rule: 'unresolved-ref',
        message: `case "${c.name}": ${refs.problem}`
      })
  }
  if (unresolved.length > 0) {
    for (const issue of unresolved) io.stderr(formatIssue(issue))
    return USAGE_ERROR
  }
  // One change listed twice would count twice towards the cases each recommendation needs.
  const twins = resolved.flatMap((c, i) => {
    const first = resolved.findIndex(o => o.base === c.base && o.head === c.head)
    return first < i ? [{ c, of: resolved[first] }] : []
  })
  if (twins.length > 0) {
    for (const { c, of } of twins)
      io.stderr(
        formatIssue({
          file: setPath,
          line: c.line,
          column: c.column,
          rule: 'duplicate-case',
          message: `case "${c.name}" is the same change as case "${of?.name ?? ''}" (${c.base.slice(0, 12)}..${c.head.slice(0, 12)}): each case must be a different change`
        })
      )
    return USAGE_ERROR
  }

  // Ctrl-C stops what runs, and the reports are written with what completed.
  let stop: () => void = () => undefined
  const stopped = new Promise<'stopped'>(done => {
    stop = () => {
      done('stopped')
    }
  })
  const state = { interrupted: false }
  const release = io.onInterrupt?.(() => {
    state.interrupted = true
    io.stderr('rubric-council: interrupted; writing the reports of the runs that completed')
    stop()
  })
  const secrets = secretValues(io.env)
  const mask = (text: string): string => maskSecrets(text, secrets)
  const runs: CalibrationRun[] = []
  let judged = 0
  // Every case once before any twice: stopped early, the runs still cover the whole set.
  const plan = Array.from({ length: repeat }, (_, i) =>
    resolved.map((c, index) => ({ r: i + 1, c, index }))
  ).flat()
  try {
    for (const { r, c, index } of plan) {
      if (state.interrupted) break
      const started = now()
      const gates = options.gates === true ? await headGates(io, c.head, mask) : undefined
      try {
        const evaluation = await Promise.race([
          evaluate(
            { rubric: rubricText, trusted: true },
            {
              gates: gates?.source ?? { results: () => Promise.resolve([]) },
              evidence: await caseEvidence(io.cwd, c),
              council: createCouncil({
                env: io.env,
                models,
                mask,
                now,
                ...(io.ticker && { ticker: io.ticker }),
                // A case's repeats are the same prompt but for the fence: routed together, they
                // read what the first one left in OpenAI's cache.
                thread: `${io.cwd}#${c.name}`
              })
            }
          ),
          stopped
        ])
        if (evaluation === 'stopped') break
        runs.push(calibrationRun(evaluation, index, r))
        if (evaluation.council?.runs.some(call => call.status === 'ok')) judged++
        const seconds = ((now() - started) / 1000).toFixed(1)
        io.stderr(
          `[${runs.length}/${plan.length}] case ${index + 1}/${resolved.length} "${c.name}", run ${r}/${repeat}: ${evaluation.verdict.verdict} (expected ${c.expect}), ${seconds} s${unclearWhy(evaluation)}`
        )
      } finally {
        await gates?.remove()
      }
    }
  } finally {
    release?.()
  }

  const report = measureCalibration({
    set: setPath,
    rubric: rubricPath,
    cases: resolved,
    criteria: rubric.value.criteria.map(c => ({ id: c.id, required: c.required })),
    repeat,
    runs,
    interrupted: state.interrupted,
    thresholds
  })
  const markdown = renderCalibrationMarkdown(report)
  if (options.markdown === '-') io.stdout(markdown)
  else io.stdout(summary(report).join('\n'))
  const writes = [
    ['JSON report', options.json, `${JSON.stringify(report, null, 2)}\n`],
    ['Markdown report', options.markdown === '-' ? undefined : options.markdown, markdown],
    ['HTML report', options.html, renderCalibrationHtml(report)]
  ] as const
  const written = await writeReports(io, writes)
  if (state.interrupted) return INTERRUPTED
  // Every run without one answer (no key, a provider down): it measured the machinery only.
  if (runs.length > 0 && judged === 0) {
    io.stderr(
      `rubric-council: error: no judge answered in any of the ${runs.length} runs, so nothing was measured (each run's line says why)`
    )
    return USAGE_ERROR
  }
  return written ? 0 : USAGE_ERROR
}

/** An UNCLEAR run's first reason, for its progress line: a machinery failure is named. */
function unclearWhy(evaluation: Evaluation): string {
  const [reason] = evaluation.verdict.reasons
  return evaluation.verdict.verdict === 'UNCLEAR' && reason !== undefined
    ? `: ${terminalText(reasonSentence(reason, 'terminal'))}`
    : ''
}

/** The terminal's summary: how much ran, and each criterion's recommendation with its figures. */
function summary(report: ReturnType<typeof measureCalibration>): string[] {
  const v = report.verdicts
  return [
    `${report.completed} of ${report.planned} runs${report.interrupted > 0 ? ` (interrupted: ${report.interrupted} not run)` : ''}: accuracy ${percent(v.accuracy)}, false PASS ${percent(v.false_pass)}, false FAIL ${percent(v.false_fail)}, UNCLEAR ${percent(v.unclear)}, flip ${percent(v.flip)}`,
    ...report.criteria.map(
      c =>
        `${c.recommendation === 'block' ? 'block ' : 'advise'} ${c.id}: precision ${percent(c.precision)}, recall ${percent(c.recall)}, flip ${percent(c.flip)}. ${c.reason}.`
    )
  ]
}

function readSettings(
  options: CalibrateOptions
): Result<{ repeat: number; thresholds: CalibrationThresholds }> {
  const whole = (
    name: string,
    text: string | undefined,
    fallback: number,
    min: number
  ): Result<number> => {
    if (text === undefined) return ok(fallback)
    const value = Number(text)
    return Number.isInteger(value) && value >= min
      ? ok(value)
      : failed(`--${name} "${text}" is not a whole number of at least ${min}`)
  }
  const shareOf = (name: string, text: string | undefined, fallback: number): Result<number> => {
    if (text === undefined) return ok(fallback)
    const value = Number(text)
    return text.trim() !== '' && value >= 0 && value <= 1
      ? ok(value)
      : failed(`--${name} "${text}" is not a share between 0 and 1 (0.9 is 90%)`)
  }
  const repeat = whole('repeat', options.repeat, DEFAULT_REPEAT, 1)
  const minLabelled = whole(
    'min-labelled',
    options['min-labelled'],
    DEFAULT_THRESHOLDS.minLabelled,
    0
  )
  const minPrecision = shareOf(
    'min-precision',
    options['min-precision'],
    DEFAULT_THRESHOLDS.minPrecision
  )
  const maxFlip = shareOf('max-flip', options['max-flip'], DEFAULT_THRESHOLDS.maxFlip)
  if (!repeat.ok) return repeat
  if (!minLabelled.ok) return minLabelled
  if (!minPrecision.ok) return minPrecision
  if (!maxFlip.ok) return maxFlip
  return ok({
    repeat: repeat.value,
    thresholds: {
      minPrecision: minPrecision.value,
      maxFlip: maxFlip.value,
      minLabelled: minLabelled.value
    }
  })
}

async function readSet(
  cwd: string,
  path: string,
  criterionIds: readonly string[]
): Promise<Result<readonly CalibrationCase[], readonly SetIssue[]>> {
  const read = await readCapped(resolve(cwd, path), MAX_SET_BYTES, await repositoryRoot(cwd))
  if (!read.ok) {
    return failed([
      {
        file: path,
        rule: 'missing-file',
        message: `cannot read the calibration set: it ${read.problem.message} (write one, or propose one from this history: rubric-council calibrate --propose 20)`
      }
    ])
  }
  const set = parseCalibrationSet(read.value.toString('utf8'), path, criterionIds)
  return set.ok ? ok(set.value.cases) : set
}

/** What the calibration keeps of an evaluation. */
export function calibrationRun(
  evaluation: Evaluation,
  index: number,
  repeat: number
): CalibrationRun {
  const calls = evaluation.council?.runs ?? []
  return {
    case: index,
    repeat,
    verdict: evaluation.verdict.verdict,
    criteria: evaluation.verdict.criteria.map(c => ({
      id: c.id,
      status: c.status,
      votes: c.votes.flatMap(v => (v.verdict === undefined ? [] : [v.verdict]))
    })),
    tokens: {
      input: calls.reduce((total, call) => total + (call.tokens?.input ?? 0), 0),
      output: calls.reduce((total, call) => total + (call.tokens?.output ?? 0), 0)
    },
    dollars: calls.reduce((total, call) => total + (call.costUsd ?? 0), 0),
    unpriced: calls.filter(call => call.costUsd === undefined).length
  }
}

/** `calibrate --propose N`: a starting set from this repository's history, for a maintainer to review. */
async function proposeCommand(
  count: string,
  setPath: string,
  options: CalibrateOptions,
  io: CliIo
): Promise<number> {
  const n = Number(count)
  if (!Number.isInteger(n) || n < 1) {
    io.stderr(
      `rubric-council: --propose "${count}" is not a whole number of at least 1 (see rubric-council calibrate --help)`
    )
    return USAGE_ERROR
  }
  const target = resolve(io.cwd, setPath)
  if (existsSync(target) && options.force !== true) {
    io.stderr(`rubric-council: ${setPath} exists; not overwriting it (use --force)`)
    return 1
  }
  const history = await readHistory(io.cwd, runGit)
  if (!history.ok) {
    io.stderr(`rubric-council: ${history.problem}`)
    return USAGE_ERROR
  }
  const cases = proposeCases(history.value.firstParent, history.value.all, n)
  if (cases.length === 0) {
    io.stderr(
      'rubric-council: no merged pull request in this history (a merge commit, or a squash commit whose subject ends with "(#N)"): write the set by hand (docs/calibration.md)'
    )
    return 1
  }
  await mkdir(dirname(target), { recursive: true })
  await writeFile(target, proposedSetText(cases))
  const fails = cases.filter(c => c.expect === 'FAIL').length
  io.stdout(
    `wrote ${setPath}: ${cases.length} merged pull requests, ${cases.length - fails} expect PASS and ${fails} FAIL (reverted later). Review each case, then run rubric-council calibrate.`
  )
  return 0
}
