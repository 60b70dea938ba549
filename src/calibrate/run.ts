import { createCouncil } from '../council/council.js'
import { evaluate } from '../engine/evaluate.js'
import type { Evaluation } from '../engine/evaluation.js'
import type { RubricTextResult } from '../rubric/text.js'
import type { Ticker } from '../util/ticker.js'
import type { EvidenceOrder } from '../evidence/types.js'
import { caseEvidence, headGates, type ResolvedCase } from './cases.js'
import type { CalibrationRun } from './measure.js'

/** What a calibration runs: each case `repeat` times, graded by one rubric. */
export interface CalibrationPlan {
  readonly cases: readonly ResolvedCase[]
  readonly repeat: number
  /** The rubric's text, with what it extends, as the working tree has it. */
  readonly rubric: RubricTextResult
  /** The judges `--models` names, unless the rubric names its own. */
  readonly models: readonly string[]
  /** Also the gates, in a temporary checkout of each case's head (`--gates`). */
  readonly gates: boolean
  /** The order of the files shown (`--evidence-order`), as the action's `evidence-order` sets it. */
  readonly evidenceOrder: EvidenceOrder
}

/** A run that completed, as the progress line tells it. */
export interface RunProgress {
  /** The runs completed, this one included, and the runs planned. */
  readonly done: number
  readonly planned: number
  /** Which case (0-based) of how many, and which repeat (1-based) of how many. */
  readonly index: number
  readonly cases: number
  readonly repeat: number
  readonly repeats: number
  readonly case: ResolvedCase
  readonly evaluation: Evaluation
  readonly seconds: number
}

/** Where a calibration runs, and how it is stopped and told of. */
export interface CalibrationPorts {
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly now: () => number
  readonly ticker?: Ticker
  readonly mask: (text: string) => string
  /** Settles when the user stops the calibration: the run in flight is left, and not counted. */
  readonly stopped: Promise<'stopped'>
  readonly interrupted: () => boolean
  readonly completed: (progress: RunProgress) => void
}

/**
 * The runs of a calibration, every case once before any twice (stopped early, the runs still cover
 * the whole set), and how many of them some judge answered.
 */
export async function runCalibration(
  plan: CalibrationPlan,
  ports: CalibrationPorts
): Promise<{ readonly runs: CalibrationRun[]; readonly judged: number }> {
  const runs: CalibrationRun[] = []
  let judged = 0
  const order = Array.from({ length: plan.repeat }, (_, i) =>
    plan.cases.map((c, index) => ({ r: i + 1, c, index }))
  ).flat()
  for (const { r, c, index } of order) {
    if (ports.interrupted()) break
    const started = ports.now()
    const gates = plan.gates ? await headGates(ports, c.head, ports.mask) : undefined
    try {
      const evaluation = await Promise.race([
        evaluate(
          { rubric: plan.rubric, trusted: true },
          {
            gates: gates?.source ?? { results: () => Promise.resolve([]) },
            evidence: await caseEvidence(ports.cwd, c, plan.evidenceOrder),
            council: createCouncil({
              env: ports.env,
              models: plan.models,
              mask: ports.mask,
              now: ports.now,
              ...(ports.ticker && { ticker: ports.ticker }),
              // A case's repeats are the same prompt but for the fence: routed together, they
              // read what the first one left in OpenAI's cache.
              thread: `${ports.cwd}#${c.name}`
            })
          }
        ),
        ports.stopped
      ])
      if (evaluation === 'stopped') break
      runs.push(calibrationRun(evaluation, index, r))
      if (evaluation.council?.runs.some(call => call.status === 'ok')) judged++
      ports.completed({
        done: runs.length,
        planned: order.length,
        index,
        cases: plan.cases.length,
        repeat: r,
        repeats: plan.repeat,
        case: c,
        evaluation,
        seconds: (ports.now() - started) / 1000
      })
    } finally {
      await gates?.remove()
    }
  }
  return { runs, judged }
}

/** What the calibration keeps of an evaluation. */
function calibrationRun(evaluation: Evaluation, index: number, repeat: number): CalibrationRun {
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
