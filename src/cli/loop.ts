import { randomBytes } from 'node:crypto'
import { resolve } from 'node:path'
import { parseModelList } from '../council/providers.js'
import type { Evaluation } from '../engine/evaluation.js'
import type { HistoryEntry } from '../engine/history.js'
import { runGate } from '../gates/run.js'
import type { GateResult } from '../gates/types.js'
import {
  collapsedLine,
  iterationRecord,
  loopExitCode,
  loopHistoryEntry,
  loopStep,
  rubricsIterationRecord,
  SESSION_SCHEMA,
  sessionId,
  SESSIONS_DIR,
  type SessionOutcome,
  type IterationRecord,
  type SessionState
} from '../loop/session.js'
import { renderRubricsReport, rubricsJsonReport } from '../publish/rubrics.js'
import { toJsonReport } from '../report/json.js'
import { renderFeedback, renderRubricsFeedback } from '../report/feedback.js'
import { renderMarkdown } from '../report/markdown.js'
import { renderTerminal } from '../report/terminal.js'
import { DEFAULT_RUBRIC_PATH, rubricsFolder } from '../rubric/defaults.js'
import { formatIssue } from '../rubric/errors.js'
import { checkerRubric } from '../rubric/sugar.js'
import { failed, ok, type Result } from '../util/result.js'
import { maskSecrets, secretValues } from '../util/secrets.js'
import { USAGE_ERROR } from './args.js'
import { checkHere, chooseCheckRubric, terminalGateLog, type CheckRequest } from './check.js'
import type { LocalRubricSource } from '../local/place.js'
import { writeInside } from './repository-files.js'
import { checkRubricSet, rubricSet, rubricsTerminal } from './check-rubrics.js'
import { reportsProblem, writeReports, type CliIo } from './io.js'
import { DEFAULT_MAX_ITERATIONS, MAX_ITERATIONS_LIMIT } from './loop-spec.js'

export interface LoopOptions {
  readonly doer?: string
  readonly rubric?: string
  readonly checker?: string
  readonly maxIterations?: string
  readonly models?: string
  readonly base?: string
  /** Which rubric file grades (`--rubric-source`): the base's by default. */
  readonly rubricSource?: Exclude<LocalRubricSource, 'session'>
  readonly json?: string
}

/**
 * The doer is the user's own command (an agent, a script), run with their whole environment: it
 * may need its own keys. Like a gate it runs in its own process group, which nothing outlives; an
 * agent may take long, so the only limit is the timer's (about 24 days).
 */
const DOER_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000)

/** The Markdown report of each check, in the session, like `check`'s own. */
const SESSION_MARKDOWN_BUDGET = 5_000_000

/**
 * `rubric-council loop`: the doer → checker loop (docs/agent-loop.md). Exits 0 on ACCEPT, 1 on
 * TERMINATE or without ACCEPT after --max-iterations, 2 for what was found wrong before the doer
 * ran, a check that could not run (the same preconditions as `check`) or a report not written.
 */
export async function loopCommand(options: LoopOptions, io: CliIo): Promise<number> {
  const usage = (line: string): number => {
    io.stderr(`rubric-council: ${line}`)
    return USAGE_ERROR
  }
  const doer = options.doer?.trim() ?? ''
  if (doer === '') return usage('loop needs the command that does the work: --doer COMMAND')
  if (options.rubric !== undefined && options.checker !== undefined) {
    return usage('--rubric and --checker both name the rubric: pass one of them')
  }
  const max = Number(options.maxIterations ?? DEFAULT_MAX_ITERATIONS)
  if (!Number.isInteger(max) || max < 1 || max > MAX_ITERATIONS_LIMIT) {
    return usage(
      `--max-iterations "${options.maxIterations ?? ''}": a whole number from 1 to ${MAX_ITERATIONS_LIMIT}`
    )
  }
  const { problems } = parseModelList(options.models ?? '')
  if (problems.length > 0) return usage(`--models: ${problems.join('; ')}`)
  const unwritable = reportsProblem(io, [['JSON report', options.json]])
  if (unwritable !== undefined) return usage(unwritable)

  const started = nowOf(io)
  const id = sessionId(started, randomBytes(3).toString('hex'))
  const planned = await planSession(options, id, io)
  if (!planned.ok) return usage(planned.problem)
  const { check, rubricPath, several } = planned.value
  const session = await sessionFiles(io.cwd, `${SESSIONS_DIR}/${id}`)
  if (!session.ok) return usage(session.problem)
  try {
    const sugar = options.checker === undefined ? undefined : checkerRubric(options.checker)
    if (sugar?.ok === true) await session.value.write('rubric.md', sugar.value.text)
    const state: SessionState = {
      schema: SESSION_SCHEMA,
      session: id,
      doer,
      rubric_path: rubricPath,
      rubric_source: options.checker === undefined ? (options.rubricSource ?? 'base') : 'session',
      checker: options.checker ?? null,
      max_iterations: max,
      started_at: started.toISOString(),
      outcome: 'running',
      history: []
    }
    io.stderr(
      `rubric-council: session ${id}, ${several === undefined ? `rubric ${rubricPath}` : `rubrics ${several.join(', ')}`}`
    )
    return await runSession(state, check, session.value, options.json, io)
  } catch (error) {
    if (error instanceof RefusedWrite) return usage(error.message)
    throw error
  }
}

/** What a session checks, as `planSession` found it before the doer runs. */
interface SessionPlan {
  readonly check: Check
  /** The rubric read each iteration: a file, the session's own, or the rubrics folder. */
  readonly rubricPath: string
  /** In a repository of several rubrics, their paths. */
  readonly several?: readonly string[]
}

/**
 * The rubric must be there before the doer runs: read as `check` reads it (the base's unless
 * asked otherwise), or, for sugar, the session's own rubric file, editable mid-loop. Named
 * neither, in a repository of several rubrics, the loop checks every one, as `check` does.
 */
async function planSession(
  options: LoopOptions,
  id: string,
  io: CliIo
): Promise<Result<SessionPlan>> {
  const request: CheckRequest = {
    ...(options.models !== undefined && { models: options.models }),
    ...(options.base !== undefined && { base: options.base }),
    rubricSource: options.rubricSource ?? 'base'
  }
  const secrets = secretValues(io.env)
  const mask = (text: string): string => maskSecrets(text, secrets)
  const set = await rubricSet(request, io.cwd)
  if (set !== undefined && options.rubric === undefined && options.checker === undefined) {
    const check = everyRubric(request, io, mask)
    return ok({ check, rubricPath: rubricsFolder(DEFAULT_RUBRIC_PATH), several: set.paths })
  }
  if (options.checker !== undefined) {
    const sugar = checkerRubric(options.checker)
    if (!sugar.ok) return failed(sugar.problem.issues.map(formatIssue).join('; '))
    const rubricPath = `${SESSIONS_DIR}/${id}/rubric.md`
    const own = { ...request, rubricSource: 'session' as const, rubric: rubricPath }
    return ok({ check: oneRubric(own, io, mask), rubricPath })
  }
  const rubricPath = options.rubric ?? DEFAULT_RUBRIC_PATH
  const chosen = await chooseCheckRubric({ ...request, rubric: rubricPath }, io)
  if (!chosen.ok) return failed(chosen.problem.join('; ').replace(/^rubric-council: /, ''))
  const file = chosen.value.rubric
  if (!file.ok && file.problem.issues.some(i => i.rule.endsWith('-file'))) {
    const hint = options.rubric === undefined ? ' (pass --rubric FILE or --checker TEXT)' : ''
    return failed(`${file.problem.issues.map(formatIssue).join('; ')}${hint}`)
  }
  return ok({ check: oneRubric({ ...request, rubric: rubricPath }, io, mask), rubricPath })
}

/**
 * The iterations of a started session: the doer, then the check, until ACCEPT, TERMINATE or the
 * last iteration; `state.json`, the feedback and the reports written as they come.
 */
async function runSession(
  started: SessionState,
  check: Check,
  files: SessionFiles,
  json: string | undefined,
  io: CliIo
): Promise<number> {
  const secrets = secretValues(io.env)
  const mask = (text: string): string => maskSecrets(text, secrets)
  const { session: id, max_iterations: max } = started
  let state = started
  const save = (): Promise<void> =>
    // Every string masked before it is written: gate output and the judges' words may quote one.
    files.write(
      'state.json',
      `${JSON.stringify(state, (_, v: unknown) => (typeof v === 'string' ? mask(v) : v), 2)}\n`
    )
  await save()
  let last: { checked: IterationCheck; feedback: string } | undefined
  let outcome: SessionOutcome = 'running'
  for (let iteration = 1; iteration <= max; iteration++) {
    io.stderr(`rubric-council: iteration ${iteration} of ${max}: the doer`)
    const ran = await runDoer(state.doer, iteration, id, last?.feedback, io, mask)
    if (ran.exitCode !== 0) {
      io.stderr(
        `rubric-council: the doer ${ran.detail ?? `exited ${ran.exitCode}`}; the check runs all the same`
      )
    }
    io.stderr(`rubric-council: iteration ${iteration} of ${max}: the check`)
    const checked = await check(iteration, ran)
    if (!checked.ok) {
      for (const line of checked.problem) io.stderr(line)
      state = { ...state, outcome: 'stopped' }
      await save()
      return USAGE_ERROR
    }
    const { record } = checked.value
    await files.write(`feedback-${iteration}.md`, record.feedback)
    await files.write(`report-${iteration}.md`, checked.value.report)
    const feedbackFile = files.path(`feedback-${iteration}.md`)
    const reportFile = files.path(`report-${iteration}.md`)
    const step = loopStep(record.decision, iteration, max)
    outcome = step.next === 'end' ? step.outcome : 'running'
    state = { ...state, outcome, history: [...state.history, record] }
    await save()
    io.stdout(collapsedLine(record))
    last = { checked: checked.value, feedback: feedbackFile }
    if (step.next === 'end') {
      io.stdout('')
      io.stdout(checked.value.terminal(reportFile))
      io.stdout(endLine(outcome, iteration, max, id, feedbackFile))
      break
    }
  }
  const written =
    last === undefined ||
    (await writeReports(io, [
      ['JSON report', json, `${JSON.stringify(last.checked.json, null, 2)}\n`]
    ]))
  return written ? loopExitCode(outcome) : USAGE_ERROR
}

/** An iteration's check, as the loop keeps and shows it. */
interface IterationCheck {
  /** What `state.json` keeps, the feedback (masked) included. */
  readonly record: IterationRecord
  /** The Markdown report, masked. */
  readonly report: string
  /** The compact report the last iteration prints, pointing at the Markdown report's file. */
  readonly terminal: (reportFile: string) => string
  /** What `--json` writes when this is the last check. */
  readonly json: unknown
}

type Check = (
  iteration: number,
  doer: GateResult
) => Promise<Result<IterationCheck, readonly string[]>>

const nowOf = (io: CliIo): Date => new Date((io.now ?? Date.now)())

/** Checks of one rubric, whose judges are told the iterations before. */
function oneRubric(
  request: CheckRequest & { readonly rubric: string },
  io: CliIo,
  mask: (text: string) => string
): Check {
  const history: HistoryEntry[] = []
  return async (iteration, doer) => {
    const checked = await checkHere({ ...request, history: [...history] }, io)
    if (!checked.ok) return checked
    const at = nowOf(io)
    history.push(loopHistoryEntry(iteration, checked.value, at))
    // The reports show this iteration last in the history, as the pull request's comment does.
    const evaluation: Evaluation = { ...checked.value, history: [...history] }
    const feedback = mask(renderFeedback(evaluation))
    return ok({
      record: iterationRecord(iteration, doer, evaluation, feedback, at),
      report: mask(
        renderMarkdown(evaluation, { budget: SESSION_MARKDOWN_BUDGET, nextStep: 'terminal' })
      ),
      terminal: reportFile => renderTerminal(evaluation, { markdownFile: reportFile }).trimEnd(),
      json: toJsonReport(evaluation, 'terminal')
    })
  }
}

/**
 * Checks of every rubric of a repository with several, as `check` makes them: each rubric's judges
 * are told its own earlier iterations.
 */
function everyRubric(request: CheckRequest, io: CliIo, mask: (text: string) => string): Check {
  const histories = new Map<string, HistoryEntry[]>()
  return async (iteration, doer) => {
    const checked = await checkRubricSet(request, io, name => [...(histories.get(name) ?? [])])
    if (checked === undefined) {
      return failed([
        `rubric-council: the session checks every rubric of the repository, and ${rubricsFolder(DEFAULT_RUBRIC_PATH)}/ no longer holds one; start the loop again, or pass --rubric FILE`
      ])
    }
    if (!checked.ok) return checked
    const at = nowOf(io)
    const outcomes = checked.value.map(o => {
      if (o.evaluation === undefined) return o
      const history = [...(histories.get(o.checkName) ?? [])]
      history.push(loopHistoryEntry(iteration, o.evaluation, at))
      histories.set(o.checkName, history)
      return { ...o, evaluation: { ...o.evaluation, history } }
    })
    const feedback = mask(renderRubricsFeedback(outcomes, iteration))
    return ok({
      record: rubricsIterationRecord(iteration, doer, outcomes, feedback, at),
      report: mask(renderRubricsReport(outcomes, SESSION_MARKDOWN_BUDGET)),
      terminal: reportFile => rubricsTerminal(outcomes, () => reportFile),
      json: rubricsJsonReport(outcomes)
    })
  }
}

/** A write the loop refused (a symbolic link on the way): it ends the loop, saying why. */
class RefusedWrite extends Error {
  override readonly name: string = 'RefusedWrite'
}

/** The session's folder: where its files are, and how they are written. */
interface SessionFiles {
  readonly path: (name: string) => string
  /** Throws RefusedWrite when the file or a folder on its way is a symbolic link. */
  readonly write: (name: string, text: string) => Promise<void>
}

/**
 * The session's folder, and how its files are written: never through a symbolic link, which a
 * checked-out branch may commit in `.rubric-council/` (to `.git/config`, or out of the repository).
 * `.rubric-council/` ignores itself, so a session is never committed by accident, even in a
 * repository `init` did not set up.
 */
async function sessionFiles(cwd: string, folder: string): Promise<Result<SessionFiles>> {
  const ignore = await writeInside(cwd, '.rubric-council/.gitignore', '*\n')
  if (!ignore.ok) return ignore
  return ok({
    path: name => resolve(cwd, folder, name),
    write: async (name, text) => {
      const written = await writeInside(cwd, `${folder}/${name}`, text)
      if (!written.ok) throw new RefusedWrite(written.problem)
    }
  })
}

/** The doer, run like a gate (bash, its own process group), its output live on stderr. */
function runDoer(
  command: string,
  iteration: number,
  session: string,
  feedback: string | undefined,
  io: CliIo,
  mask: (text: string) => string
): Promise<GateResult> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(io.env)) if (value !== undefined) env[name] = value
  env.RUBRIC_COUNCIL_ITERATION = String(iteration)
  env.RUBRIC_COUNCIL_SESSION = session
  if (feedback === undefined) delete env.RUBRIC_COUNCIL_FEEDBACK
  else env.RUBRIC_COUNCIL_FEEDBACK = feedback
  return runGate(
    { command, timeout: DOER_TIMEOUT_SECONDS, line: 0 },
    // As `bash -c` runs a command line: each of its commands runs, whatever the one before did.
    { cwd: io.cwd, env, log: terminalGateLog(io), mask, parallel: 1, shellOptions: [] }
  )
}

/** The loop's last line: how it ended, and where the feedback is when it did not ACCEPT. */
function endLine(
  outcome: SessionOutcome,
  iteration: number,
  max: number,
  session: string,
  feedback: string
): string {
  switch (outcome) {
    case 'accepted':
      return `ACCEPT at iteration ${iteration} of ${max} (session ${session})`
    case 'terminated':
      return `TERMINATE at iteration ${iteration} of ${max}: the judges recommend stopping (session ${session}); feedback: ${feedback}`
    default:
      return `no ACCEPT after ${iteration} iterations (session ${session}); the last feedback: ${feedback}`
  }
}
