import { randomBytes } from 'node:crypto'
import { resolve } from 'node:path'
import { parseModelList } from '../council/members.js'
import { signalExitCode } from '../gates/running.js'
import type { StopSignal } from '../gates/types.js'
import type { LocalRubricSource } from '../local/place.js'
import { everyRubricCheck, oneRubricCheck, type Check, type CheckShown } from '../loop/checks.js'
import { runDoer } from '../loop/doer.js'
import { runIterations, type SessionFiles } from '../loop/run.js'
import {
  LOCAL_FOLDER,
  loopExitCode,
  newSessionState,
  sessionId,
  SESSIONS_DIR
} from '../loop/session.js'
import { DEFAULT_RUBRIC_PATH, rubricsFolder } from '../rubric/defaults.js'
import { formatIssue } from '../rubric/errors.js'
import { checkerRubric } from '../rubric/sugar.js'
import { failed, ok, type Result } from '../util/result.js'
import { maskSecrets, secretValues } from '../util/secrets.js'
import { USAGE_ERROR } from './args.js'
import { checkHere, chooseCheckRubric, terminalGateLog, type CheckRequest } from './check.js'
import { checkRubricSet, rubricSet } from './check-rubrics.js'
import { reportsProblem, writeReports, type CliIo } from './io.js'
import { DEFAULT_MAX_ITERATIONS, MAX_ITERATIONS_LIMIT } from './loop-spec.js'
import { writeInside } from './repository-files.js'

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

  const startedAt = nowOf(io)
  const id = sessionId(startedAt, randomBytes(3).toString('hex'))
  const planned = await planSession(options, id, io)
  if (!planned.ok) return usage(planned.problem)
  const { check, rubricPath, several } = planned.value
  const session = await sessionFiles(io.cwd, `${SESSIONS_DIR}/${id}`)
  if (!session.ok) return usage(session.problem)
  try {
    const sugar = options.checker === undefined ? undefined : checkerRubric(options.checker)
    if (sugar?.ok === true) await session.value.write('rubric.md', sugar.value.text)
    const state = newSessionState({
      id,
      doer,
      rubricPath,
      rubricSource: options.checker === undefined ? (options.rubricSource ?? 'base') : 'session',
      checker: options.checker,
      maxIterations: max,
      startedAt
    })
    io.stderr(
      `rubric-council: session ${id}, ${several === undefined ? `rubric ${rubricPath}` : `rubrics ${several.join(', ')}`}`
    )
    const mask = masker(io)
    // Ctrl-C or SIGTERM: the session ends `interrupted`, its finished iterations kept.
    let release: (() => void) | undefined
    const interrupted = new Promise<StopSignal>(done => {
      release = io.onInterrupt?.(done)
    })
    const { outcome, last } = await runIterations(state, {
      check,
      files: session.value,
      doer: (iteration, feedback) =>
        runDoer(doer, iteration, id, feedback, {
          cwd: io.cwd,
          env: io.env,
          log: terminalGateLog(io),
          mask
        }),
      mask,
      stdout: io.stdout,
      stderr: io.stderr,
      ...(io.onInterrupt && { interrupted })
    }).finally(() => release?.())
    if (outcome === 'interrupted') return signalExitCode(await interrupted)
    if (outcome === 'stopped') return USAGE_ERROR
    const written =
      last === undefined ||
      (await writeReports(io, [
        ['JSON report', options.json, `${JSON.stringify(last.json, null, 2)}\n`]
      ]))
    return written ? loopExitCode(outcome) : USAGE_ERROR
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
  const shown: CheckShown = { mask: masker(io), now: () => nowOf(io) }
  const oneRubric = (one: CheckRequest): Check =>
    oneRubricCheck(history => checkHere({ ...one, history }, io), shown)
  const set = await rubricSet(request, io.cwd)
  if (set !== undefined && options.rubric === undefined && options.checker === undefined) {
    const check = everyRubricCheck(historyOf => checkRubricSet(request, io, historyOf), shown)
    return ok({ check, rubricPath: rubricsFolder(DEFAULT_RUBRIC_PATH), several: set.paths })
  }
  if (options.checker !== undefined) {
    const sugar = checkerRubric(options.checker)
    if (!sugar.ok) return failed(sugar.problem.issues.map(formatIssue).join('; '))
    const rubricPath = `${SESSIONS_DIR}/${id}/rubric.md`
    return ok({
      check: oneRubric({ ...request, rubricSource: 'session', rubric: rubricPath }),
      rubricPath
    })
  }
  const rubricPath = options.rubric ?? DEFAULT_RUBRIC_PATH
  const chosen = await chooseCheckRubric({ ...request, rubric: rubricPath }, io)
  if (!chosen.ok) return failed(chosen.problem.join('; ').replace(/^rubric-council: /, ''))
  const file = chosen.value.rubric
  if (!file.ok && file.problem.issues.some(i => i.rule.endsWith('-file'))) {
    const hint = options.rubric === undefined ? ' (pass --rubric FILE or --checker TEXT)' : ''
    return failed(`${file.problem.issues.map(formatIssue).join('; ')}${hint}`)
  }
  return ok({ check: oneRubric({ ...request, rubric: rubricPath }), rubricPath })
}

const nowOf = (io: CliIo): Date => new Date((io.now ?? Date.now)())

/** Masks the secrets of the user's environment in what is shown and written. */
function masker(io: CliIo): (text: string) => string {
  const secrets = secretValues(io.env)
  return text => maskSecrets(text, secrets)
}

/** A write the loop refused (a symbolic link on the way): it ends the loop, saying why. */
class RefusedWrite extends Error {
  override readonly name: string = 'RefusedWrite'
}

/**
 * The session's folder, and how its files are written: never through a symbolic link, which a
 * checked-out branch may commit in `.rubric-council/` (to `.git/config`, or out of the repository).
 * `.rubric-council/` ignores itself, so a session is never committed by accident, even in a
 * repository `init` did not set up.
 */
async function sessionFiles(cwd: string, folder: string): Promise<Result<SessionFiles>> {
  const ignore = await writeInside(cwd, `${LOCAL_FOLDER}/.gitignore`, '*\n')
  if (!ignore.ok) return ignore
  return ok({
    path: name => resolve(cwd, folder, name),
    write: async (name, text) => {
      const written = await writeInside(cwd, `${folder}/${name}`, text)
      if (!written.ok) throw new RefusedWrite(written.problem)
    }
  })
}
