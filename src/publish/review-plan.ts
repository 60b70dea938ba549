import type { Evaluation } from '../engine/evaluation.js'
import type { HistoryEntry } from '../engine/history.js'
import { toJsonReport } from '../report/json.js'
import {
  keptByReview,
  type CommentState,
  type RubricMemory,
  type StoredAcceptance,
  type StoredHeal,
  type StoredWaiver
} from './memory.js'
import {
  CHECK_RUN_MARK,
  dryRunCommentTitle,
  planPublication,
  SUMMARY_BUDGET_BYTES,
  type NamedCheckRun,
  type PlannedCheckRun,
  type Publication,
  type PublicationSettings,
  type StepResult
} from './plan.js'
import {
  combinedEntry,
  renderRubricsComment,
  renderRubricsReport,
  rubricsJsonReport,
  worstFirst,
  type RubricOutcome
} from './rubrics.js'
import { notApplicableSummary } from '../sentences/scope.js'
import { formatNumber } from '../sentences/reasons.js'
import { EXIT_CODE } from '../verdict/outcome.js'
import { plannedRubric, type RubricChoice } from '../engine/rubric-choice.js'
import { planRubrics, type RubricFile } from '../engine/rubric-set.js'
import type { CheckRunPlace } from '../github/check-run.js'
import { checkRunName } from './check-name.js'

/**
 * Everything said about one review of a pull request, whatever the number of its rubrics: each
 * rubric's check run, the sticky comment and what it keeps, the job summary, the outputs, the
 * report file, the step's end. A rubric alone (`.github/rubric.md`, no `rubrics/` folder) is said
 * as it always was: its own comment, summary and `rubric-council/report@1`; several are said
 * together (docs/rubric.md#several-rubrics). Pure.
 */

/** One rubric's part of the review, with where its check run goes. */
export interface ReviewedRubric extends RubricOutcome {
  /** The check run this review started for it, if it did. */
  readonly checkRunId?: number
  /** The check runs of its check run's name on the head commit (see `otherCheckRuns`). */
  readonly checkRunsNamed?: readonly NamedCheckRun[]
  /** What it remembers after this review: its history and its judges' sealed answers. */
  readonly memory?: RubricMemory
}

/** What the review knows besides its rubrics' outcomes. */
export interface ReviewContext {
  readonly headSha: string
  readonly pullRequest: number
  readonly detailsUrl?: string
  readonly reportPath: string
  /** One rubric, said as one rubric is; otherwise the set's forms. */
  readonly alone: boolean
  /** The pull request's history before this run (with several rubrics; alone, it is its own). */
  readonly prior: readonly HistoryEntry[]
  /** Why this run ran, for the history, when it is not a new push (with several rubrics). */
  readonly note?: string
  /** What is kept of what was asked of this head (see `keptByReview`). */
  readonly accepted?: StoredAcceptance | undefined
  readonly heal?: StoredHeal | undefined
  readonly waivers: readonly StoredWaiver[]
  /** When this run's history entry is recorded. */
  readonly at: Date
  /** The pull request's base branch and the repository's default one: see `checkRunName`. */
  readonly base: { readonly baseRef: string; readonly defaultBranch: string }
}

/** A rubric's check run as planned: completed with the report, or with a text only. */
export type PlannedRubricRun =
  | { readonly rubric: ReviewedRubric; readonly run: PlannedCheckRun }
  | {
      readonly rubric: ReviewedRubric
      /** Where it goes: a new check run, completed at once. */
      readonly place: {
        readonly headSha: string
        readonly name: string
        readonly externalId: string
        readonly detailsUrl?: string
      }
      readonly text: { readonly title: string; readonly summary: string }
    }

/** An invalid rubric's problem, as an annotation of its file. */
export interface RubricProblemAnnotation {
  readonly message: string
  readonly title: string
  /** Its file as the review read it, relative to the working directory. */
  readonly file: string
  readonly line?: number
  readonly column?: number
}

export interface ReviewPublication {
  readonly checkRuns: readonly PlannedRubricRun[]
  /** The sticky comment for a state of the comment: the one place it is rendered. */
  readonly comment: (state: CommentState) => string
  /** What the comment holds after this review: the history with this run's entry, and the rest. */
  readonly state: CommentState
  readonly summary: string
  /** The action's outputs by name, all but `comment-url`, which only the comment's write knows. */
  readonly outputs: Readonly<Record<string, string>>
  /** The `report` output's file, as JSON. */
  readonly report: unknown
  readonly annotations: readonly RubricProblemAnnotation[]
  readonly step: StepResult
  readonly warnings: readonly string[]
  /** What a dry run prints instead of writing: the comment (a titled group), the check runs. */
  readonly dryRun: {
    readonly comment?: { readonly title: string; readonly body: string }
    readonly checkRuns: readonly string[]
  }
}

/** The review of `rubrics`, planned: nothing is written here. */
export function planReview(
  rubrics: readonly ReviewedRubric[],
  settings: PublicationSettings,
  context: ReviewContext
): ReviewPublication {
  const [alone] = rubrics
  if (context.alone && alone?.evaluation !== undefined) {
    return planAlone({ ...alone, evaluation: alone.evaluation }, settings, context)
  }
  return planSet(rubrics, settings, context)
}

/**
 * Each judged rubric's own publication, as `planPublication` plans one. A rubric alone is named as
 * the check (with the base branch's suffix, see `checkRunName`) and may have the comment; among
 * several, each is named as the review named its check run, and the comment is the set's.
 */
function rubricPlan(
  rubric: ReviewedRubric & { readonly evaluation: Evaluation },
  settings: PublicationSettings,
  context: ReviewContext,
  kept?: Omit<CommentState, 'history'>
) {
  const where = {
    headSha: context.headSha,
    pullRequest: context.pullRequest,
    ...(context.detailsUrl !== undefined && { detailsUrl: context.detailsUrl }),
    reportPath: context.reportPath,
    ...(rubric.checkRunId !== undefined && { checkRunId: rubric.checkRunId }),
    checkRunsNamed: rubric.checkRunsNamed ?? []
  }
  return context.alone
    ? planPublication(rubric.evaluation, settings, {
        ...where,
        base: context.base,
        ...(kept && { kept })
      })
    : planPublication(
        rubric.evaluation,
        { ...settings, checkName: rubric.checkName, comment: false },
        where
      )
}

/** A rubric alone: its comment, summary, outputs and report are its own publication's. */
function planAlone(
  rubric: ReviewedRubric & { readonly evaluation: Evaluation },
  settings: PublicationSettings,
  context: ReviewContext
): ReviewPublication {
  const kept = keptOf([rubric], context)
  const plan = rubricPlan(rubric, settings, context, kept)
  const { evaluation } = rubric
  const state: CommentState = { ...kept, history: evaluation.history ?? [] }
  return {
    checkRuns: [{ rubric, run: plan.checkRun }],
    comment: ({ history, ...remembered }) =>
      rubricPlan(
        { ...rubric, evaluation: { ...evaluation, history } },
        settings,
        context,
        remembered
      ).comment ?? '',
    state,
    summary: plan.summary,
    outputs: plan.outputs,
    report: toJsonReport(evaluation),
    annotations: problemsOf(rubric),
    step: plan.step,
    warnings: plan.warnings,
    dryRun: {
      ...(plan.dryRun.comment && { comment: plan.dryRun.comment }),
      checkRuns: [plan.dryRun.checkRun]
    }
  }
}

/** Several rubrics: each its check run, together one comment, summary and report. */
function planSet(
  rubrics: readonly ReviewedRubric[],
  settings: PublicationSettings,
  context: ReviewContext
): ReviewPublication {
  const planned = rubrics.map(rubric =>
    rubric.evaluation === undefined
      ? { rubric, plan: undefined }
      : {
          rubric,
          plan: rubricPlan({ ...rubric, evaluation: rubric.evaluation }, settings, context)
        }
  )
  const entry = combinedEntry(
    rubrics,
    (context.prior.at(-1)?.iteration ?? 0) + 1,
    context.headSha,
    context.note,
    context.at
  )
  const state: CommentState = { ...keptOf(rubrics, context), history: [...context.prior, entry] }
  const sorted = worstFirst(rubrics) as ReviewedRubric[]
  return {
    checkRuns: planned.map(({ rubric, plan }) =>
      plan === undefined
        ? {
            rubric,
            place: {
              headSha: context.headSha,
              name: rubric.checkName,
              externalId: CHECK_RUN_MARK,
              ...(context.detailsUrl !== undefined && { detailsUrl: context.detailsUrl })
            },
            text: { title: rubric.notApplicable ?? '', summary: notApplicableSummary(rubric.path) }
          }
        : { rubric, run: plan.checkRun }
    ),
    comment: remembered => renderRubricsComment(rubrics, settings.checkName, remembered),
    state,
    // The budget is in characters, the summary's limit in bytes: at most 4 bytes a character.
    summary: renderRubricsReport(sorted, Math.floor(SUMMARY_BUDGET_BYTES / 4)),
    outputs: setOutputs(sorted, entry, context.reportPath),
    report: rubricsJsonReport(rubrics),
    annotations: sorted.flatMap(problemsOf),
    step: setStep(planned, entry),
    warnings: planned.flatMap(({ plan }) => plan?.warnings ?? []),
    dryRun: {
      ...(settings.comment && {
        comment: {
          title: dryRunCommentTitle(context.pullRequest),
          body: renderRubricsComment(rubrics, settings.checkName, state)
        }
      }),
      checkRuns: planned.map(({ rubric, plan }) =>
        plan === undefined
          ? `Rubric Council (dry run): the check run "${rubric.checkName}" would conclude success: ${rubric.notApplicable ?? ''}`
          : plan.dryRun.checkRun
      )
    }
  }
}

/**
 * The outputs of several rubrics: the worst verdict's, `score` and `confidence` those of the rubric
 * whose verdict decided (the first of `sorted`, worst first, that was judged), as with one rubric.
 */
function setOutputs(
  sorted: readonly ReviewedRubric[],
  entry: HistoryEntry,
  reportPath: string
): Record<string, string> {
  const decided = sorted.find(r => r.evaluation !== undefined)?.evaluation?.verdict
  return {
    verdict: entry.verdict,
    'exit-code': String(EXIT_CODE[entry.verdict]),
    score: decided?.score == null ? '' : formatNumber(decided.score),
    confidence: decided?.confidence == null ? '' : formatNumber(decided.confidence),
    reasons: entry.reasons.join(','),
    recommendation: decided?.recommendation ?? 'ACCEPT',
    'rubric-hash': entry.rubricHash,
    report: reportPath
  }
}

/** The step's end with several rubrics: failed, naming each rubric whose verdict fails it. */
function setStep(
  planned: readonly { readonly rubric: ReviewedRubric; readonly plan?: Publication | undefined }[],
  entry: HistoryEntry
): StepResult {
  const failing = planned.flatMap(({ rubric, plan }) =>
    plan?.step.fails === true ? [{ ...plan.step, rubric }] : []
  )
  if (failing.length === 0) {
    return {
      fails: false,
      level: 'info',
      message: `Rubric Council: ${entry.verdict} (${entry.summary})`
    }
  }
  return {
    fails: true,
    message: failing.map(s => `${s.rubric.checkName}: ${s.message}`).join('\n'),
    exitCode: failing.some(s => s.exitCode === 2) ? 2 : 1
  }
}

/** What the comment keeps besides the history (see `keptByReview`). */
function keptOf(
  rubrics: readonly ReviewedRubric[],
  context: ReviewContext
): Omit<CommentState, 'history'> {
  return keptByReview({
    alone: context.alone,
    rubrics: rubrics.flatMap(r => (r.memory ? [{ checkName: r.checkName, memory: r.memory }] : [])),
    accepted: context.accepted,
    heal: context.heal && { ...context.heal, due: false },
    waivers: context.waivers
  })
}

/** A rubric's problems, each as an annotation of its file. */
function problemsOf(rubric: ReviewedRubric): RubricProblemAnnotation[] {
  return (rubric.evaluation?.rubric.problems ?? []).map(issue => ({
    message: issue.message,
    title: `Invalid rubric (${issue.rule})`,
    file: issue.file,
    ...(issue.line !== undefined && { line: issue.line }),
    ...(issue.column !== undefined && { column: issue.column })
  }))
}

/** Every rubric's check run, when a skip rule skips the run: a required one must not wait. */
export function skippedCheckRuns(
  rubrics: readonly (Omit<RubricFile, 'rubric'> & { readonly choice: RubricChoice })[],
  alone: boolean,
  given: {
    readonly checkName: string
    readonly pr: {
      readonly headSha: string
      readonly baseRef: string
      readonly defaultBranch: string
    }
    readonly detailsUrl: string | undefined
  }
): CheckRunPlace[] {
  const { checkName, pr, detailsUrl } = given
  const names = alone
    ? [checkName]
    : planRubrics(
        rubrics.map(read => ({ ...read, ...plannedRubric(read.choice) })),
        undefined,
        checkName
      ).map(plan => plan.checkName)
  return names.map(name => ({
    headSha: pr.headSha,
    name: checkRunName(name, pr),
    externalId: CHECK_RUN_MARK,
    ...(detailsUrl !== undefined && { detailsUrl })
  }))
}
