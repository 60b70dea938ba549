import { resolve } from 'node:path'
import type { Council, CouncilOutcome, CouncilRequest } from './council/types.js'
import { EvidenceUnavailableError, type EvidenceSource } from './evidence/source.js'
import type { Evidence } from './evidence/types.js'
import { runGates } from './gates/run.js'
import type { GateLog } from './gates/types.js'
import type { Evaluation, RubricInfo } from './report/evaluation.js'
import { RubricError } from './rubric/errors.js'
import { resolveRubric, type RubricChoice } from './rubric/resolve.js'
import type { Rubric } from './rubric/types.js'
import { gateEnvironment, maskSecrets, secretValues } from './secrets.js'
import { decide, invalidVerdict, needsCouncil, splitMustHaves } from './verdict/decide.js'

export interface EngineDeps {
  readonly council: Council
  readonly evidence: EvidenceSource
  readonly log: GateLog
  /** The process environment: gates get it without credentials, and its secrets are masked. */
  readonly env: Readonly<Record<string, string | undefined>>
  /**
   * The paths of this check's own machinery (its workflows, local actions, the action's files): a
   * pull request that changes one cannot PASS, for it could have changed how it is judged.
   * Absent: not checked (a local run, where nobody else relies on the verdict).
   */
  readonly machinery?: (path: string) => boolean
}

/**
 * One evaluation: rubric → evidence → gates → council → verdict. Every failure of the machinery
 * ends in a verdict with a named reason; only an unexpected bug can make this throw.
 */
export async function evaluate(
  choice: RubricChoice,
  deps: EngineDeps,
  iteration = 1
): Promise<Evaluation> {
  let rubric: Rubric
  try {
    rubric = await resolveRubric(choice)
  } catch (error) {
    if (!(error instanceof RubricError)) throw error
    const count = error.issues.length
    return {
      verdict: invalidVerdict(
        'invalid_rubric',
        `the rubric has ${count} problem${count === 1 ? '' : 's'}; fix ${count === 1 ? 'it' : 'them'} and run again`
      ),
      rubric: {
        path: choice.checker === undefined ? choice.path : 'checker input',
        source: choice.checker === undefined ? 'file' : 'checker',
        problems: error.issues,
        counts: { gates: 0, must: 0, nice: 0 }
      },
      gates: [],
      iteration
    }
  }

  // The evidence first, before any gate runs the pull request's code, so nothing the pull
  // request runs can change what the judges see. The changed files are needed for every rubric
  // whose verdict someone relies on: they say whether the machinery was changed.
  let evidence: Evidence | undefined
  let evidenceProblem: string | undefined
  if (needsCouncil(rubric) || deps.machinery !== undefined) {
    const limit = needsCouncil(rubric) ? deps.council.contextLimit?.(rubric) : undefined
    try {
      evidence = await deps.evidence.collect({
        rubric,
        trusted: choice.trusted ?? false,
        ...(limit !== undefined && { limit })
      })
    } catch (error) {
      if (!(error instanceof EvidenceUnavailableError)) throw error
      evidenceProblem = error.message
    }
  }
  const machinery = deps.machinery
  const machineryChanged =
    machinery === undefined || evidence === undefined
      ? undefined
      : evidence.changed.filter(path => machinery(path))

  const secrets = secretValues(deps.env)
  const gates = await runGates(rubric.gates, {
    cwd: resolve(choice.cwd, rubric.gateOptions.workingDirectory),
    env: gateEnvironment(deps.env),
    log: deps.log,
    mask: text => maskSecrets(text, secrets),
    parallel: rubric.gateOptions.parallel
  })
  const council =
    evidence && needsCouncil(rubric)
      ? await conveneCouncil(deps.council, { rubric, gates, evidence })
      : undefined
  const verdict = decide({
    rubric,
    gates,
    ...(council && { council }),
    ...(evidence && { coverage: evidence.receipt.ratio }),
    ...(evidenceProblem !== undefined && { evidenceProblem }),
    ...(machineryChanged !== undefined && { machineryChanged }),
    machineryChecked: machinery !== undefined
  })
  return {
    verdict,
    rubric: describe(rubric),
    gates,
    ...(council && { council }),
    ...(evidence && { evidence }),
    iteration
  }
}

/**
 * The council's answers, and while the judges are split on a must-have, up to the rubric's
 * `council.tie_breaks` more calls, one member at a time, to settle it (docs/verdict.md). A council
 * that throws has a bug; it still ends as a named failure, never as a crash or a PASS.
 */
export async function conveneCouncil(
  council: Council,
  request: CouncilRequest
): Promise<CouncilOutcome> {
  try {
    let outcome = await council.convene(request)
    for (let round = 1; round <= request.rubric.council.tieBreaks; round++) {
      const split = splitMustHaves(request.rubric, outcome)
      if (split.length === 0 || council.tieBreak === undefined) break
      const run = await council.tieBreak(request, round, split)
      if (run === undefined) break
      outcome = { ...outcome, runs: [...outcome.runs, { ...run, tieBreak: true }] }
    }
    return outcome
  } catch (error) {
    return {
      quorum: 1,
      runs: [
        {
          judge: 'council',
          sample: 1,
          latencyMs: 0,
          status: 'failed',
          failure: 'provider_error',
          message: `internal error: ${error instanceof Error ? error.message : String(error)}`
        }
      ]
    }
  }
}

export function describe(rubric: Rubric): RubricInfo {
  const must = rubric.criteria.filter(c => c.required).length
  return {
    path: rubric.source.path,
    source: rubric.source.kind,
    hash: rubric.hash,
    ...(rubric.title !== undefined && { title: rubric.title }),
    ...(rubric.source.kind === 'checker' && { materialised: rubric.text }),
    problems: [],
    counts: { gates: rubric.gates.length, must, nice: rubric.criteria.length - must }
  }
}
