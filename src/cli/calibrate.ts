import { relative, resolve, sep } from 'node:path'
import { readCalibrationSet, resolveCases, type ResolvedCase } from '../calibrate/cases.js'
import {
  DEFAULT_THRESHOLDS,
  measureCalibration,
  type CalibrationReport,
  type CalibrationRun,
  type CalibrationThresholds
} from '../calibrate/measure.js'
import {
  calibrationSummary,
  renderCalibrationHtml,
  renderCalibrationMarkdown
} from '../calibrate/render.js'
import { buildRecord, defaultRecordPath, recordText } from '../calibrate/record.js'
import { runCalibration, type CalibrationPlan } from '../calibrate/run.js'
import {
  recordNotWritten,
  recordWritten,
  runLine,
  unconfirmedLeftOut
} from '../calibrate/sentences.js'
import { DEFAULT_SET_PATH } from '../calibrate/set.js'
import { repositoryRoot } from '../local/place.js'
import { councilSetup } from '../council/council.js'
import { parseModelList } from '../council/members.js'
import { criterionHash, PROMPT_VERSION } from '../council/prompt.js'
import type { Evaluation } from '../engine/evaluation.js'
import { runGit } from '../evidence/git-process.js'
import { EVIDENCE_ORDERS, isEvidenceOrder, type EvidenceOrder } from '../evidence/types.js'
import { reasonSentence } from '../sentences/reasons.js'
import { DEFAULT_RUBRIC_PATH } from '../rubric/defaults.js'
import { formatIssue } from '../rubric/errors.js'
import { readRubricFile } from '../rubric/load.js'
import { parseRubric } from '../rubric/parse.js'
import type { RubricTextResult } from '../rubric/text.js'
import type { Rubric } from '../rubric/types.js'
import { signalExitCode } from '../gates/running.js'
import type { StopSignal } from '../gates/types.js'
import { failed, ok, type Result } from '../util/result.js'
import { maskSecrets, secretValues } from '../util/secrets.js'
import { needsCouncil } from '../verdict/decide.js'
import { USAGE_ERROR } from './args.js'
import { VERSION } from '../version.js'
import { isWithin, reportsProblem, terminalText, writeReports, type CliIo } from './io.js'
import { proposeCommand } from './propose.js'
import { writeInside } from './repository-files.js'
import { optionModelLines, rubricModelLines } from '../publish/model-lines.js'
import { withUpstreams } from './upstream.js'

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
  'propose',
  'check-name',
  'comment-author',
  'evidence-order'
] as const

export type CalibrateOptions = Readonly<
  Partial<Record<(typeof CALIBRATE_VALUES)[number], string>>
> & {
  readonly gates?: boolean
  readonly force?: boolean
  /** `--record [FILE]`: write the calibration record; `true`, beside the rubric. */
  readonly record?: string | true
}

const DEFAULT_REPEAT = 3

/**
 * `rubric-council calibrate`: the rubric's council on every case of the set, `--repeat` times,
 * and how far its verdicts can be trusted. The set and the rubric are read from the working tree,
 * never from a case's commits: what a case's head says cannot change what it is measured against.
 */
export async function calibrateCommand(options: CalibrateOptions, io: CliIo): Promise<number> {
  const setPath = options.set ?? DEFAULT_SET_PATH
  if (options.propose !== undefined) return proposeCommand(options.propose, setPath, options, io)
  const settings = readSettings(options, io)
  if (!settings.ok) {
    io.stderr(`rubric-council: ${settings.problem}`)
    return USAGE_ERROR
  }
  const { repeat, thresholds, models, evidenceOrder } = settings.value
  const rubricPath = options.rubric ?? DEFAULT_RUBRIC_PATH
  const root = await repositoryRoot(io.cwd)
  const read = await readCalibratedRubric(rubricPath, root, io)
  if (!read.ok) {
    for (const line of read.problem) io.stderr(line)
    return USAGE_ERROR
  }
  const { text, rubric } = read.value
  const recordPath = recordTarget(options.record, rubricPath, root, io)
  if (!recordPath.ok) {
    io.stderr(`rubric-council: ${recordPath.problem}`)
    return USAGE_ERROR
  }
  const now = io.now ?? Date.now
  const named = rubric.council.models.length > 0
  const modelLines = named ? rubricModelLines(rubric, now()) : optionModelLines(models, now())
  for (const line of modelLines.lines) io.stderr(line)
  const cases = await confirmedCases(
    setPath,
    rubric.criteria.map(c => c.id),
    root,
    io
  )
  if (!cases.ok) return USAGE_ERROR
  const { runs, judged, signal } = await calibrationRuns(
    {
      cases: cases.value,
      repeat,
      rubric: text,
      models,
      gates: options.gates === true,
      evidenceOrder
    },
    io,
    now
  )
  const report = measureCalibration({
    set: setPath,
    rubric: rubricPath,
    cases: cases.value,
    criteria: rubric.criteria.map(c => ({ id: c.id, required: c.required })),
    repeat,
    evidenceOrder,
    runs,
    interrupted: signal !== undefined,
    thresholds
  })
  const written = await writeCalibrationReports(report, options, io)
  if (signal !== undefined) {
    if (recordPath.value !== undefined) io.stderr(recordNotWritten('interrupted'))
    return signalExitCode(signal)
  }
  // Every run without one answer (no key, a provider down): it measured the machinery only.
  if (runs.length > 0 && judged === 0) {
    io.stderr(
      `rubric-council: error: no judge answered in any of the ${runs.length} runs, so nothing was measured (each run's line says why)`
    )
    if (recordPath.value !== undefined) io.stderr(recordNotWritten('unjudged'))
    return USAGE_ERROR
  }
  const recorded =
    recordPath.value === undefined ||
    (await writeCalibrationRecord(report, { rubric, models, root, path: recordPath.value }, io))
  return written && recorded ? 0 : USAGE_ERROR
}

/**
 * The set's confirmed cases with their commits, an unconfirmed one left out (and said so); or
 * the set's problems, on stderr.
 */
async function confirmedCases(
  setPath: string,
  ids: readonly string[],
  root: string,
  io: CliIo
): Promise<Result<ResolvedCase[], undefined>> {
  const set = await readCalibrationSet(io.cwd, setPath, ids, root)
  const cases = set.ok ? await resolveCases(io.cwd, set.value.cases, setPath, runGit) : set
  if (!cases.ok) {
    for (const issue of cases.problem) io.stderr(formatIssue(issue))
    return failed(undefined)
  }
  if (set.ok && set.value.unconfirmed.length > 0) {
    io.stderr(unconfirmedLeftOut(setPath, set.value.unconfirmed))
  }
  return cases
}

/**
 * Where `--record` writes, relative to the repository's root; undefined without `--record`. A
 * path that leaves the repository is refused before anything runs.
 */
function recordTarget(
  record: string | true | undefined,
  rubricPath: string,
  root: string,
  io: CliIo
): Result<string | undefined> {
  if (record === undefined) return ok(undefined)
  const file = record === true ? defaultRecordPath(rubricPath) : record
  const inside = relative(root, resolve(io.cwd, file))
  if (!isWithin(root, inside) || inside === '') {
    return failed(`--record "${file}" is not a file inside the repository (${root})`)
  }
  return ok(inside.split(sep).join('/'))
}

/**
 * The calibration record, written inside the repository through no symbolic link (a checkout may
 * commit one where the record goes); true when written.
 */
async function writeCalibrationRecord(
  report: CalibrationReport,
  ran: { rubric: Rubric; models: readonly string[]; root: string; path: string },
  io: CliIo
): Promise<boolean> {
  const record = buildRecord(report, {
    textHashes: Object.fromEntries(ran.rubric.criteria.map(c => [c.id, criterionHash(c)])),
    council: councilSetup({ models: ran.models, env: io.env }, ran.rubric),
    promptVersion: PROMPT_VERSION,
    productVersion: VERSION,
    now: (io.now ?? Date.now)()
  })
  const written = await writeInside(ran.root, ran.path, recordText(record))
  if (!written.ok) {
    io.stderr(`rubric-council: cannot write the calibration record: ${written.problem}`)
    return false
  }
  io.stderr(recordWritten(ran.path, record))
  return true
}

/**
 * The rubric to calibrate, from the working tree with what it extends, or the lines that say why
 * there is none: it is not valid, or it has no judges to calibrate.
 */
async function readCalibratedRubric(
  rubricPath: string,
  root: string,
  io: CliIo
): Promise<Result<{ text: RubricTextResult; rubric: Rubric }, string[]>> {
  const rubricFile = await readRubricFile(resolve(io.cwd, rubricPath), rubricPath, root)
  const text = await withUpstreams(io, rubricFile)
  const rubric = text.ok ? parseRubric(text.value) : failed(text.problem.issues)
  if (!text.ok || !rubric.ok) return failed(rubric.ok ? [] : rubric.problem.map(formatIssue))
  if (!needsCouncil(rubric.value)) {
    return failed([
      `rubric-council: ${rubricPath} has no criteria or dimensions: there are no judges to calibrate`
    ])
  }
  return ok({ text, rubric: rubric.value })
}

/**
 * SIGINT (Ctrl-C) or SIGTERM while the calibration runs: `stopped` settles and `signal` says which,
 * until `release`; the running gates are ended meanwhile (src/bin.ts), and a second signal ends
 * the process (`CliIo.onInterrupt`).
 */
/**
 * The plan's runs, each told on stderr as it completes. Ctrl-C or SIGTERM stops what runs; the runs
 * that completed are kept, and the signal said, so that the reports are written with them.
 */
async function calibrationRuns(
  plan: CalibrationPlan,
  io: CliIo,
  now: () => number
): Promise<{
  readonly runs: CalibrationRun[]
  readonly judged: number
  readonly signal: StopSignal | undefined
}> {
  const stop = interruption(io)
  const secrets = secretValues(io.env)
  const { runs, judged } = await runCalibration(plan, {
    cwd: io.cwd,
    env: io.env,
    now,
    ...(io.ticker && { ticker: io.ticker }),
    mask: value => maskSecrets(value, secrets),
    stopped: stop.stopped,
    interrupted: () => stop.signal() !== undefined,
    completed: run => {
      io.stderr(runLine(run, unclearWhy(run.evaluation)))
    }
  }).finally(stop.release)
  return { runs, judged, signal: stop.signal() }
}

function interruption(io: CliIo): {
  readonly stopped: Promise<'stopped'>
  readonly signal: () => StopSignal | undefined
  readonly release: () => void
} {
  let stop: () => void = () => undefined
  const stopped = new Promise<'stopped'>(done => {
    stop = () => {
      done('stopped')
    }
  })
  const state: { signal?: StopSignal } = {}
  const release = io.onInterrupt?.(signal => {
    state.signal = signal
    io.stderr('rubric-council: interrupted; writing the reports of the runs that completed')
    stop()
  })
  return { stopped, signal: () => state.signal, release: () => release?.() }
}

/** The summary, or the Markdown report, on stdout, and the reports asked for; true when written. */
async function writeCalibrationReports(
  report: CalibrationReport,
  options: CalibrateOptions,
  io: CliIo
): Promise<boolean> {
  const markdown = renderCalibrationMarkdown(report)
  if (options.markdown === '-') io.stdout(markdown)
  else io.stdout(calibrationSummary(report).join('\n'))
  return writeReports(io, [
    ['JSON report', options.json, `${JSON.stringify(report, null, 2)}\n`],
    ['Markdown report', options.markdown === '-' ? undefined : options.markdown, markdown],
    ['HTML report', options.html, renderCalibrationHtml(report)]
  ])
}

/** An UNCLEAR run's first reason, for its progress line: a machinery failure is named. */
function unclearWhy(evaluation: Evaluation): string {
  const [reason] = evaluation.verdict.reasons
  return evaluation.verdict.verdict === 'UNCLEAR' && reason !== undefined
    ? `: ${terminalText(reasonSentence(reason, 'terminal'))}`
    : ''
}

/**
 * The settings of a calibration, or the usage error in them, in the words stderr shows after
 * `rubric-council: `; a report that cannot be written is one, found before anything runs.
 */
function readSettings(
  options: CalibrateOptions,
  io: CliIo
): Result<{
  repeat: number
  thresholds: CalibrationThresholds
  models: string[]
  evidenceOrder: EvidenceOrder
}> {
  const numbers = readNumbers(options)
  if (!numbers.ok) return failed(`${numbers.problem} (see rubric-council calibrate --help)`)
  const { models, problems } = parseModelList(options.models ?? '')
  if (problems.length > 0) return failed(`--models: ${problems.join('; ')}`)
  const evidenceOrder = options['evidence-order'] ?? 'diff'
  if (!isEvidenceOrder(evidenceOrder)) {
    return failed(
      `--evidence-order ${JSON.stringify(evidenceOrder)} is not one of ${EVIDENCE_ORDERS.join(', ')} (see rubric-council calibrate --help)`
    )
  }
  const unwritable = reportsProblem(io, [
    ['JSON report', options.json],
    ['Markdown report', options.markdown === '-' ? undefined : options.markdown],
    ['HTML report', options.html]
  ])
  return unwritable === undefined
    ? ok({ ...numbers.value, models, evidenceOrder })
    : failed(unwritable)
}

function readNumbers(
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
