import type { GateResult, StopSignal } from '../gates/types.js'
import type { Check, IterationCheck } from './checks.js'
import { doerFailedLine, endLine, interruptedLine, iterationLine } from './sentences.js'
import { collapsedLine, loopStep, type SessionOutcome, type SessionState } from './session.js'

/** The session's folder: where its files are, and how they are written. */
export interface SessionFiles {
  readonly path: (name: string) => string
  /** Throws when the file cannot be written; the loop then ends. */
  readonly write: (name: string, text: string) => Promise<void>
}

/** What the iterations run on. */
export interface LoopPorts {
  readonly check: Check
  readonly files: SessionFiles
  /** The doer of `iteration`, handed the feedback file of the iteration before (none first). */
  readonly doer: (iteration: number, feedback: string | undefined) => Promise<GateResult>
  /** Every string written to `state.json` is masked: gate output and judges' words may quote one. */
  readonly mask: (text: string) => string
  readonly stdout: (line: string) => void
  readonly stderr: (line: string) => void
  /**
   * Settles with the signal that interrupts the session (Ctrl-C, SIGTERM): the doer or check in
   * flight is left (its gates are ended by src/bin.ts), and the session ends `interrupted`.
   */
  readonly interrupted?: Promise<StopSignal>
}

/**
 * The iterations of a started session: the doer, then the check, until ACCEPT, TERMINATE or the
 * last iteration; `state.json` and each iteration's feedback and report written as they come.
 * `stopped` when a check could not run (its problems said on stderr); `last` is the last check.
 */
export async function runIterations(
  started: SessionState,
  ports: LoopPorts
): Promise<{ readonly outcome: SessionOutcome; readonly last?: IterationCheck }> {
  const { session: id, max_iterations: max } = started
  const { files, mask } = ports
  let state = started
  const save = (): Promise<void> =>
    files.write(
      'state.json',
      `${JSON.stringify(state, (_, v: unknown) => (typeof v === 'string' ? mask(v) : v), 2)}\n`
    )
  await save()
  let last: { checked: IterationCheck; feedback: string } | undefined
  let outcome: SessionOutcome = 'running'
  const unlessInterrupted = interruptible(ports.interrupted)
  const endInterrupted = async (): Promise<{ readonly outcome: SessionOutcome }> => {
    state = { ...state, outcome: 'interrupted' }
    await save()
    ports.stderr(interruptedLine(id, state.history.length, files.path('state.json')))
    return { outcome: 'interrupted' }
  }
  for (let iteration = 1; iteration <= max; iteration++) {
    ports.stderr(iterationLine(iteration, max, 'the doer'))
    const ran = await unlessInterrupted(() => ports.doer(iteration, last?.feedback))
    if ('interrupted' in ran) return endInterrupted()
    if (ran.exitCode !== 0) ports.stderr(doerFailedLine(ran.exitCode, ran.detail))
    ports.stderr(iterationLine(iteration, max, 'the check'))
    const checked = await unlessInterrupted(() => ports.check(iteration, ran))
    if ('interrupted' in checked) return endInterrupted()
    if (!checked.ok) {
      for (const line of checked.problem) ports.stderr(line)
      state = { ...state, outcome: 'stopped' }
      await save()
      return { outcome: 'stopped' }
    }
    const { record } = checked.value
    await files.write(`feedback-${iteration}.md`, record.feedback)
    await files.write(`report-${iteration}.md`, checked.value.report)
    const feedbackFile = files.path(`feedback-${iteration}.md`)
    const step = loopStep(record.decision, iteration, max)
    outcome = step.next === 'end' ? step.outcome : 'running'
    state = { ...state, outcome, history: [...state.history, record] }
    await save()
    ports.stdout(collapsedLine(record))
    last = { checked: checked.value, feedback: feedbackFile }
    if (step.next === 'end') {
      ports.stdout('')
      ports.stdout(checked.value.terminal(files.path(`report-${iteration}.md`)))
      ports.stdout(endLine(outcome, iteration, max, id, feedbackFile))
      break
    }
  }
  return { outcome, ...(last && { last: last.checked }) }
}

/**
 * Runs a step unless the session is interrupted: once it is, no step starts, and the one in flight
 * is left (the gates it runs are ended by src/bin.ts) for `{ interrupted }`.
 */
function interruptible(
  interrupted: Promise<StopSignal> | undefined
): <T>(step: () => Promise<T>) => Promise<T | { interrupted: StopSignal }> {
  let signal: StopSignal | undefined
  const settled = interrupted?.then(s => ({ interrupted: (signal = s) }))
  return step =>
    signal !== undefined
      ? Promise.resolve({ interrupted: signal })
      : settled
        ? Promise.race([step(), settled])
        : step()
}
