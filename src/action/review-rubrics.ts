import { mkdir, writeFile } from 'node:fs/promises'
import { shownElsewhere } from '../engine/evaluate.js'
import { nextIteration } from '../engine/history.js'
import {
  planRubrics,
  scopeText,
  type PlannedRubric,
  type RubricFile
} from '../engine/rubric-set.js'
import type { CheckRunPlace } from '../github/check-run.js'
import type { PullRequestRun } from '../github/event.js'
import type { GitHubPort } from '../github/port.js'
import type { GateSource } from '../gates/types.js'
import {
  iterationNote,
  readState,
  type CommentState,
  type RubricMemory
} from '../publish/memory.js'
import { checkRunName } from '../publish/check-name.js'
import { CHECK_RUN_MARK, planPublication, SUMMARY_BUDGET_BYTES } from '../publish/plan.js'
import {
  combinedEntry,
  renderRubricsComment,
  renderRubricsReport,
  rubricsJsonReport,
  worstFirst,
  type RubricOutcome
} from '../publish/rubrics.js'
import {
  duplicateRubricName,
  notApplicableSummary,
  notApplicableTitle
} from '../sentences/scope.js'
import { failed } from '../util/result.js'
import { EXIT_CODE } from '../verdict/outcome.js'
import type { ActionInputs } from './inputs.js'
import type { ActionIO } from './io.js'
import { reportPathIn, type PublishContext } from './publish.js'
import {
  askedOf,
  checkRunsNamed,
  judgeRubric,
  ourComments,
  verifiedAcceptance,
  type ReviewPorts
} from './review.js'
import { plannedRubric, type RubricChoice } from '../engine/rubric-choice.js'
import { stickyComment } from './sticky-comment.js'

/** A rubric's part of the review, with where its check run is. */
interface Judged extends RubricOutcome {
  readonly place: CheckRunPlace
  /** The check run this review started, when it could. */
  readonly id?: number
  readonly memory?: RubricMemory
}

/** A rubric file of the repository as the review reads it, before it is planned. */
export interface RubricRead {
  /** Its path relative to the working directory (as the `rubric` input is). */
  readonly path: string
  /** Its path in the repository, which `paths` and the changed files are relative to. */
  readonly repoPath: string
  readonly main: boolean
  readonly choice: RubricChoice
}

/**
 * One review of a pull request by several rubrics (docs/rubric.md#several-rubrics): those that
 * apply are judged at once, each with its own check run, judges and memory; those that do not
 * conclude `success` "not applicable", so a required check never waits. One sticky comment shows
 * every rubric, the worst verdict first.
 */
export async function reviewRubrics(
  review: {
    readonly run: PullRequestRun
    readonly inputs: ActionInputs
    readonly rubrics: readonly RubricRead[]
    readonly ports: ReviewPorts & { readonly changedPaths: () => Promise<readonly string[]> }
    /** Why a `skip-*` rule that held did not skip this run (`skipOf`), for each report. */
    readonly skipRefused?: string
  },
  context: PublishContext & { readonly detailsUrl?: string | undefined },
  io: ActionIO
): Promise<void> {
  const { run, inputs, ports } = review
  const head = run.pr.headSha
  const writer = inputs.dryRun ? undefined : ports.github
  // Unread, every rubric applies: each then says why it has no verdict.
  const changed = await ports.changedPaths().catch(() => undefined)
  const plans = planRubrics(
    review.rubrics.map(read => ({ ...read, ...plannedRubric(read.choice) })),
    changed,
    inputs.checkName
  )
  const [existing, begun] = await Promise.all([
    inputs.comment === 'sticky' ? ourComments(ports.github, run, inputs.checkName, io) : [],
    Promise.all(
      plans.map(async plan => {
        const place: CheckRunPlace = {
          headSha: head,
          name: checkRunName(plan.checkName, run.pr),
          externalId: CHECK_RUN_MARK,
          ...(context.detailsUrl !== undefined && { detailsUrl: context.detailsUrl })
        }
        const started =
          plan.applicable && writer
            ? await writer.startCheckRun(place, {
                title: 'Reviewing…',
                summary: `Rubric Council is reviewing ${head.slice(0, 7)} by ${plan.file.repoPath}: gates, then the judges.`
              })
            : undefined
        if (started?.ok === false) io.warning(`Rubric Council: ${started.problem}`)
        return { plan, place, ...(started?.ok === true && { id: started.value }) }
      })
    )
  ])
  try {
    const state: CommentState = existing[0] ? readState(existing[0].body) : { history: [] }
    // A waiver names a must-have; it binds in every rubric that has it.
    const asked = await askedOf(state, run.pr, ports.github, io)
    const { heal, waivers } = asked
    // Gates of several rubrics run one rubric at a time: they share the checkout.
    const gates = oneAtATime(ports.gates)
    const scoped = await shownElsewhere(plans, plan => plan.file.choice.trusted, ports)
    const outcomes = await Promise.all(
      begun.map(async ({ plan, place, id }, i): Promise<Judged> => {
        const scope = scoped[i]?.scope
        const read = plan.file
        const base = {
          checkName: place.name,
          name: plan.name,
          path: read.repoPath,
          place,
          ...(id !== undefined && { id })
        }
        if (!plan.applicable) {
          return {
            ...base,
            notApplicable: notApplicableTitle(scopeText(read.rubric?.scope ?? {}))
          }
        }
        const choice =
          plan.duplicateOf === undefined
            ? read.choice
            : { ...read.choice, rubric: duplicate(plan, read) }
        const { evaluation, sealed } = await judgeRubric(
          {
            choice,
            memory: state.rubrics?.[base.checkName] ?? { history: [] },
            head,
            asked,
            ...(scope && { scope })
          },
          { ...ports, gates }
        )
        return {
          ...base,
          evaluation,
          memory: { history: evaluation.history ?? [], ...(sealed && { judgement: sealed }) }
        }
      })
    )
    // `/council accept <reason>` accepts the whole pull request: every rubric's verdict on the head.
    const acceptance = await verifiedAcceptance(
      ports.github,
      state.accepted,
      { head, number: run.pr.number },
      io
    )
    const { skipRefused } = review
    for (const [i, o] of outcomes.entries()) {
      if (o.evaluation) {
        outcomes[i] = {
          ...o,
          evaluation: {
            ...o.evaluation,
            ...(acceptance && { acceptance }),
            ...(skipRefused !== undefined && { skipRefused })
          }
        }
      }
    }
    const iteration = nextIteration(state.history)
    const note = iterationNote(
      state.history,
      head,
      undefined,
      { ...(asked.rerun && { rerun: asked.rerun }), healed: heal?.due === true },
      undefined
    )
    const entry = combinedEntry(outcomes, iteration, head, note, new Date())
    const history = [...state.history, entry]
    const kept: Omit<CommentState, 'history'> = {
      rubrics: Object.fromEntries(
        outcomes.flatMap(o => (o.memory ? [[o.checkName, o.memory]] : []))
      ),
      ...(heal && { heal: { ...heal, due: false } }),
      ...(acceptance && state.accepted && { accepted: state.accepted }),
      ...(waivers.length > 0 && { waivers })
    }
    const render = (remembered: CommentState): string =>
      renderRubricsComment(outcomes, inputs.checkName, remembered)

    // Each rubric's check run, as the single rubric's would be.
    const checkRuns = await Promise.all(
      outcomes.map(async outcome => {
        const { place, id } = outcome
        if (outcome.evaluation === undefined) {
          return {
            outcome,
            step: undefined,
            write: () => writeNotApplicable(writer, place, outcome, io)
          }
        }
        const plan = planPublication(
          outcome.evaluation,
          { checkName: place.name, failOn: inputs.failOn, comment: false },
          {
            headSha: head,
            ...(context.detailsUrl !== undefined && { detailsUrl: context.detailsUrl }),
            reportPath: reportPathIn(context.tempDir),
            ...(id !== undefined && { checkRunId: id }),
            checkRunsNamed: writer ? await checkRunsNamed(writer, place, io) : []
          }
        )
        for (const warning of plan.warnings) io.warning(warning)
        return {
          outcome,
          step: plan.step,
          write: async () => {
            if (!writer) {
              io.info(plan.dryRun.checkRun)
              return
            }
            const written = await writer.checkRun({
              ...plan.checkRun,
              ...(id !== undefined && { id })
            })
            if (!written.ok) io.warning(`Rubric Council: ${written.problem}`)
            else io.info(`Check run "${place.name}": ${plan.checkRun.conclusion}`)
          }
        }
      })
    )
    let commentUrl: string | undefined
    if (inputs.comment === 'sticky') {
      if (writer) {
        commentUrl = await stickyComment(
          writer,
          run,
          inputs.checkName,
          { history, render, read: state, kept, existing },
          io
        )
      } else if (inputs.dryRun) {
        io.group(
          `Rubric Council (dry run): the comment it would post on #${run.pr.number}`,
          render({ ...kept, history })
        )
      }
    }
    await Promise.all(checkRuns.map(c => c.write()))

    // The job summary, the outputs and the report: the worst verdict, every rubric's report.
    const sorted = worstFirst(outcomes)
    // The budget is in characters, the summary's limit in bytes: at most 4 bytes a character.
    await io.summary(renderRubricsReport(sorted, Math.floor(SUMMARY_BUDGET_BYTES / 4)))
    const reportPath = reportPathIn(context.tempDir)
    await mkdir(context.tempDir, { recursive: true })
    await writeFile(reportPath, `${JSON.stringify(rubricsJsonReport(outcomes), null, 2)}\n`)
    for (const o of sorted) {
      for (const issue of o.evaluation?.rubric.problems ?? []) {
        io.error(issue.message, {
          title: `Invalid rubric (${issue.rule})`,
          file: o.path,
          ...(issue.line !== undefined && { startLine: issue.line })
        })
      }
    }
    // The worst verdict's, as one rubric's outputs are its own; score and confidence are each
    // rubric's alone, in the report.
    const worst = sorted.find(o => o.evaluation !== undefined)?.evaluation?.verdict
    io.setOutput('verdict', entry.verdict)
    io.setOutput('exit-code', String(EXIT_CODE[entry.verdict]))
    io.setOutput('score', '')
    io.setOutput('confidence', '')
    io.setOutput('reasons', entry.reasons.join(','))
    io.setOutput('recommendation', worst?.recommendation ?? 'ACCEPT')
    io.setOutput('rubric-hash', entry.rubricHash)
    io.setOutput('report', reportPath)
    io.setOutput('comment-url', commentUrl ?? '')
    const failing = checkRuns.flatMap(c =>
      c.step?.fails === true ? [{ ...c.step, o: c.outcome }] : []
    )
    const exitCode = failing.reduce((code, s) => Math.max(code, s.exitCode), 0)
    if (failing.length > 0) {
      io.fail(failing.map(s => `${s.o.checkName}: ${s.message}`).join('\n'), exitCode)
    } else {
      io.info(`Rubric Council: ${entry.verdict} (${entry.summary})`)
    }
  } catch (error) {
    // A pending check must not stay pending: each started one ends as a failure that says why.
    const why = error instanceof Error ? error.message : String(error)
    await Promise.all(
      begun.map(async ({ place, id }) => {
        if (!writer || id === undefined) return
        await writer.completeCheckRun({ ...place, id }, 'failure', {
          title: 'Rubric Council failed with an internal error',
          summary: `The run stopped before a verdict: ${why}`
        })
      })
    )
    throw error
  }
}

/** A rubric whose name another file of the set already has: a problem of the rubric, not judged. */
function duplicate(
  plan: PlannedRubric<RubricRead & RubricFile>,
  read: RubricRead
): RubricChoice['rubric'] {
  return failed({
    source: { path: read.path, kind: 'file' as const },
    issues: [
      {
        file: read.path,
        line: 1,
        rule: 'name' as const,
        message: duplicateRubricName(plan.name, plan.duplicateOf ?? '')
      }
    ]
  })
}

/** The gate source, asked for one rubric's gates at a time (in the order asked). */
function oneAtATime(gates: GateSource): GateSource {
  let queue: Promise<unknown> = Promise.resolve()
  return {
    ...gates,
    results: rubric => {
      const next = queue.then(() => gates.results(rubric))
      queue = next.catch(() => undefined)
      return next
    }
  }
}

/** A rubric that did not apply: its check run concludes `success`, saying why. */
async function writeNotApplicable(
  writer: GitHubPort | undefined,
  place: CheckRunPlace,
  outcome: RubricOutcome,
  io: ActionIO
): Promise<void> {
  const title = outcome.notApplicable ?? ''
  if (!writer) {
    io.info(
      `Rubric Council (dry run): the check run "${place.name}" would conclude success: ${title}`
    )
    return
  }
  const written = await writer.completeCheckRun(place, 'success', {
    title,
    summary: notApplicableSummary(outcome.path)
  })
  if (!written.ok) io.warning(`Rubric Council: ${written.problem}`)
  else io.info(`Check run "${place.name}": success (${title})`)
}
