import type { Evaluation } from '../engine/evaluation.js'
import { code } from '../report/escape.js'
import { renderComment, type CommentState } from './memory.js'
import { COMMENT_LIMIT, renderMarkdown } from '../report/markdown.js'
import { summaryLine } from '../report/summary.js'
import type { ExitCode } from '../verdict/types.js'
import { annotationBatches, annotationsOf, type Annotation } from './annotations.js'
import { outcomeOf, type Conclusion, type FailOn, type Outcome } from './outcome.js'
import { checkRunName } from './check-name.js'
import { formatNumber, reasonSentence } from '../sentences/reasons.js'

/**
 * GitHub drops a step summary over 1 MiB of UTF-8 (1,048,576 bytes) entirely, so the report is
 * budgeted in bytes. 16 KiB (1.6 %) is kept in reserve: the runner states its check as "1024k"
 * without saying how it rounds, and the toolkit may add a line end when it writes the file; a
 * small margin costs little against losing the whole summary. (Budgeting 1 MiB / 3 characters
 * instead cut mostly-ASCII reports at a third of what fits.)
 */
export const SUMMARY_BUDGET_BYTES = 1024 * 1024 - 16 * 1024

/** GitHub refuses a check run's summary over 65,535 bytes of UTF-8, and a title over 255 characters. */
export const CHECK_RUN_SUMMARY_LIMIT = 65_535
const CHECK_RUN_TITLE_LIMIT = 255

/** Where the security advice the warnings point to is published. */
const SECURITY_DOC = 'https://github.com/rubric-council/rubric-council/blob/main/docs/security.md'

/**
 * The `external_id` of the check runs Rubric Council writes, so that a later review of the same
 * commit does not take an earlier one for another's. A workflow job's own check run has none and
 * cannot be given one; a token that can write check runs could set it, and only a ruleset-required
 * workflow stops that (docs/security.md).
 */
export const CHECK_RUN_MARK = 'rubric-council'

/** What the workflow configured about what is said: the action's inputs that shape it. */
export interface PublicationSettings {
  readonly checkName: string
  readonly failOn: FailOn
  /** Whether the pull request gets the sticky comment (`comment: sticky`). */
  readonly comment: boolean
}

/** A check run GitHub lists on the head commit under the check's name. */
export interface NamedCheckRun {
  readonly id: number
  /** Its `external_id`: `CHECK_RUN_MARK` on those Rubric Council wrote. */
  readonly externalId: string
  /** The app that created it (`github-actions` for a workflow job or a workflow's token). */
  readonly appSlug: string
  readonly htmlUrl: string
}

/** What is known of where the words go, besides the evaluation. */
export interface PublicationContext {
  /** The commit the check run goes on; '' when the run ended before knowing one. */
  readonly headSha: string
  /** The pull request the comment goes on; absent when the run ended before knowing one. */
  readonly pullRequest?: number
  /** The run's page, the check run's details link. */
  readonly detailsUrl?: string
  /** What the sticky comment remembers besides the history (the sealed judgement, an acceptance). */
  readonly kept?: Omit<CommentState, 'history'>
  /** Where the edge writes the JSON report: the `report` output. */
  readonly reportPath: string
  /** The check run this review started, if it did. */
  readonly checkRunId?: number
  /**
   * The check runs of the check's name on the head commit. Those Rubric Council did not write are
   * named: a pull request's own workflow job can post one, and a required check may take it.
   */
  readonly checkRunsNamed?: readonly NamedCheckRun[]
  /** The pull request's base branch and the repository's default one: see `checkRunName`. */
  readonly base?: { readonly baseRef: string; readonly defaultBranch: string }
}

/** The completed check run: where it goes and everything it says. */
export interface PlannedCheckRun {
  readonly name: string
  readonly headSha: string
  readonly detailsUrl?: string
  readonly externalId: string
  readonly status: 'completed'
  readonly conclusion: Conclusion
  readonly title: string
  readonly summary: string
  /** In the batches one request each may carry (at most 50); one empty batch when none. */
  readonly annotations: readonly (readonly Annotation[])[]
}

/** How the step ends: a line in the log, or a failure with the verdict's exit code. */
export type StepResult =
  | { readonly fails: false; readonly level: 'notice' | 'info'; readonly message: string }
  | { readonly fails: true; readonly message: string; readonly exitCode: ExitCode }

/** Everything a review says, to each audience, before any of it is written. */
export interface Publication {
  readonly checkRun: PlannedCheckRun
  /** The sticky comment's whole body; undefined with `comment: off`. */
  readonly comment: string | undefined
  /** The job summary (Markdown, within `SUMMARY_BUDGET_BYTES`). */
  readonly summary: string
  /**
   * The action's outputs by name, all but `comment-url`, which only the comment's write knows.
   */
  readonly outputs: Readonly<Record<string, string>>
  readonly step: StepResult
  /** Warnings for the log. */
  readonly warnings: readonly string[]
  /** What a dry run prints instead of writing: the comment (a titled group) and the check run. */
  readonly dryRun: {
    readonly comment?: { readonly title: string; readonly body: string }
    readonly checkRun: string
  }
}

/** Everything that will be said about `evaluation`, as data: nothing is written here. */
export function planPublication(
  evaluation: Evaluation,
  settings: PublicationSettings,
  context: PublicationContext
): Publication {
  const { verdict } = evaluation
  const outcome = outcomeOf(verdict, settings.failOn, evaluation.acceptance !== undefined)
  const others = otherCheckRuns(context.checkRunsNamed ?? [], context.checkRunId)
  const name =
    context.base === undefined ? settings.checkName : checkRunName(settings.checkName, context.base)
  const alert = othersAlert(name, others)
  const annotations = annotationsOf(evaluation)
  const comment = settings.comment ? commentBody(evaluation, settings, context, alert) : undefined
  const checkRun: PlannedCheckRun = {
    name,
    headSha: context.headSha,
    ...(context.detailsUrl !== undefined && { detailsUrl: context.detailsUrl }),
    externalId: CHECK_RUN_MARK,
    status: 'completed',
    conclusion: outcome.conclusion,
    title:
      `${verdict.verdict}: ${summaryLine(evaluation) || verdict.reasons.map(r => r.code).join(', ') || 'no details'}`.slice(
        0,
        CHECK_RUN_TITLE_LIMIT
      ),
    summary:
      alert +
      // GitHub counts the summary's limit in bytes ("summary exceeds a maximum bytesize of 65535").
      renderMarkdown(evaluation, {
        budget: CHECK_RUN_SUMMARY_LIMIT - Buffer.byteLength(alert, 'utf8'),
        unit: 'bytes',
        nextStep: 'action'
      }),
    annotations: annotationBatches(annotations)
  }
  const count = annotations.length
  return {
    checkRun,
    comment,
    summary: renderMarkdown(evaluation, {
      budget: SUMMARY_BUDGET_BYTES,
      unit: 'bytes',
      nextStep: 'action'
    }),
    outputs: outputsOf(evaluation, context.reportPath),
    step: stepResult(evaluation, outcome),
    warnings: othersWarnings(name, others),
    dryRun: {
      ...(comment !== undefined &&
        context.pullRequest !== undefined && {
          comment: { title: dryRunCommentTitle(context.pullRequest), body: comment }
        }),
      checkRun:
        `Rubric Council (dry run): it would create the check run "${name}" on ${context.headSha.slice(0, 7)} ` +
        `concluding ${outcome.conclusion}, with ${count} annotation${count === 1 ? '' : 's'}`
    }
  }
}

/** What a dry run prints above the comment it would post on pull request `number`. */
export function dryRunCommentTitle(number: number): string {
  return `Rubric Council (dry run): the comment it would post on #${number}`
}

/**
 * The sticky comment, with the alert about other check runs right under its marker line. The one
 * place the comment is rendered from.
 */
function commentBody(
  evaluation: Evaluation,
  settings: PublicationSettings,
  context: PublicationContext,
  alert: string
): string {
  return renderComment(evaluation, settings.checkName, context.kept ?? {}, COMMENT_LIMIT, alert)
}

/** Other check runs the alert names one by one; a pull request's workflow can make hundreds. */
const NAMED_OTHERS = 10

/**
 * The check runs among `listed` (of the check's name on a commit) that Rubric Council did not
 * write; `own` is the one this run started, which is never another's.
 */
export function otherCheckRuns(
  listed: readonly NamedCheckRun[],
  own?: number
): readonly NamedCheckRun[] {
  return listed.filter(r => r.id !== own && r.externalId !== CHECK_RUN_MARK)
}

/** The log's warning about each of them. */
export function othersWarnings(name: string, others: readonly NamedCheckRun[]): string[] {
  return others.map(
    other =>
      `Rubric Council: another check run named "${name}" exists on this commit that Rubric Council did not create: ${other.htmlUrl} (by ${other.appSlug}); make the check a ruleset-required workflow, see ${SECURITY_DOC}`
  )
}

/**
 * The warning that a check run of the check's name on this commit is not this run's: a required
 * check may take that one's conclusion. GitHub gives the link; it is shown only when it is one.
 * The comment and the check run's summary start with it; '' when there is none.
 */
export function othersAlert(checkName: string, others: readonly NamedCheckRun[]): string {
  if (others.length === 0) return ''
  const more = others.length - NAMED_OTHERS
  const lines = others.slice(0, NAMED_OTHERS).map(other => {
    // An app's slug is lower-case letters, digits and dashes; anything else is not shown.
    const app = /^[a-z0-9][a-z0-9-]*$/i.test(other.appSlug) ? other.appSlug : 'an app'
    const label = `${app}, check run ${other.id}`
    const link = /^https:\/\/[^\s()<>[\]]+$/.test(other.htmlUrl)
      ? `[${label}](${other.htmlUrl})`
      : label
    return `> Another check run named ${code(checkName)} exists on this commit that Rubric Council did not create: ${link}.`
  })
  if (more > 0) lines.push(`> And ${more} more of that name (the log names each).`)
  return (
    `> [!WARNING]\n${lines.join('\n>\n')}\n>\n` +
    `> A required check may be satisfied by it. Make the check a ruleset-required workflow, which a pull request cannot imitate: see [docs/security.md](${SECURITY_DOC}).\n\n`
  )
}

/** The action's outputs (action.yml), but `comment-url`. */
function outputsOf(evaluation: Evaluation, reportPath: string): Record<string, string> {
  const { verdict, rubric } = evaluation
  return {
    verdict: verdict.verdict,
    'exit-code': String(verdict.exitCode),
    score: verdict.score === null ? '' : formatNumber(verdict.score),
    confidence: verdict.confidence === null ? '' : formatNumber(verdict.confidence),
    reasons: verdict.reasons.map(r => r.code).join(','),
    recommendation: verdict.recommendation,
    'rubric-hash': rubric.hash ?? '',
    report: reportPath
  }
}

/** The step's end: accepted (a notice), failed per `fail-on`, or passed with the headline. */
function stepResult(evaluation: Evaluation, outcome: Outcome): StepResult {
  const { verdict, acceptance } = evaluation
  const codes = verdict.reasons.map(r => r.code).join(', ')
  const headline = `Rubric Council: ${verdict.verdict}${codes === '' ? '' : ` (${codes})`}`
  if (acceptance) {
    return {
      fails: false,
      level: 'notice',
      message: `${headline}, accepted for ${acceptance.commit.slice(0, 7)} by @${acceptance.by}: ${acceptance.reason}`
    }
  }
  if (outcome.stepFails) {
    return {
      fails: true,
      message: `${headline}\n${verdict.reasons.map(r => `- ${reasonSentence(r, 'action')}`).join('\n')}`,
      exitCode: outcome.exitCode
    }
  }
  return { fails: false, level: 'info', message: headline }
}
