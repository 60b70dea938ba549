import type { Evaluation } from '../engine/evaluation.js'
import { renderMarkdown } from '../report/markdown.js'
import { summaryLine } from '../report/summary.js'
import type { Severity } from '../council/types.js'
import { shownLines } from '../evidence/diff.js'
import { outcomeOf, type Conclusion, type FailOn } from '../verdict/outcome.js'
import type { GitHub } from './client.js'
import { describeFailure, type Repo } from './comment.js'

/** GitHub accepts at most 50 annotations per request, and 65,535 characters of summary. */
const ANNOTATIONS_PER_REQUEST = 50
const SUMMARY_LIMIT = 65_535

const LEVEL: Readonly<Record<Severity, 'failure' | 'warning' | 'notice'>> = {
  critical: 'failure',
  major: 'failure',
  minor: 'warning',
  info: 'notice'
}

export interface Annotation {
  readonly path: string
  readonly start_line: number
  readonly end_line: number
  readonly annotation_level: 'failure' | 'warning' | 'notice'
  readonly title: string
  readonly message: string
}

/**
 * Findings with a path and a line, as check-run annotations: only those naming a changed file the
 * judges were shown, at a line its patch shows (so an existing line of the new file). A judge's
 * answer is untrusted text; `../../etc/passwd` or line 999999999 is dropped, not posted.
 */
export function annotationsOf(evaluation: Evaluation): Annotation[] {
  const shown = new Map(
    (evaluation.evidence?.files ?? []).flatMap(file =>
      file.patch === undefined || file.status === 'deleted'
        ? []
        : [[file.path, shownLines(file.patch)] as const]
    )
  )
  return evaluation.verdict.findings.flatMap(f => {
    if (f.path === undefined || f.line === undefined) return []
    const { line } = f
    const path = [f.path, f.path.replace(/^(\.\/|b\/)/, '')].find(p => shown.has(p))
    const ranges = path === undefined ? undefined : shown.get(path)
    return path !== undefined && ranges?.some(([first, last]) => line >= first && line <= last)
      ? [
          {
            path,
            start_line: f.line,
            end_line: f.line,
            annotation_level: LEVEL[f.severity],
            title: `${f.severity}: ${f.title}`.slice(0, 255),
            message: `${f.evidence}\n— ${f.judge}`.slice(0, 64_000)
          }
        ]
      : []
  })
}

export type CheckRunOutcome =
  | { readonly action: 'created' | 'completed'; readonly url: string }
  | { readonly action: 'failed'; readonly reason: string }

/** Where a check run goes: its name on the head commit. */
export interface CheckRunPlace {
  readonly headSha: string
  readonly name: string
  readonly detailsUrl?: string
}

/** What a check run says, in GitHub's words: a title and a Markdown summary. */
export interface CheckRunText {
  readonly title: string
  readonly summary: string
}

export type CheckRunStart =
  | { readonly action: 'started'; readonly id: number }
  | { readonly action: 'failed'; readonly reason: string }

/**
 * A check run `in_progress` on the head commit: the check is pending while the run works, and a
 * required check never shows an older result meanwhile. `publishCheckRun` completes it.
 */
export async function startCheckRun(
  github: GitHub,
  where: Repo & CheckRunPlace,
  text: CheckRunText
): Promise<CheckRunStart> {
  try {
    const { data } = await github.rest.checks.create({
      owner: where.owner,
      repo: where.repo,
      name: where.name,
      head_sha: where.headSha,
      status: 'in_progress',
      started_at: new Date().toISOString(),
      ...(where.detailsUrl !== undefined && { details_url: where.detailsUrl }),
      output: { title: text.title.slice(0, 255), summary: text.summary.slice(0, SUMMARY_LIMIT) }
    })
    return { action: 'started', id: data.id }
  } catch (error) {
    return { action: 'failed', reason: describeFailure(error, 'create the check run') }
  }
}

/**
 * A completed check run on the head commit, with any text: a maintainer's acceptance, or a run
 * that ended before any evaluation. `id` completes the run `startCheckRun` began.
 */
export async function completeCheckRun(
  github: GitHub,
  where: Repo & CheckRunPlace & { readonly id?: number },
  conclusion: Conclusion,
  text: CheckRunText
): Promise<CheckRunOutcome> {
  try {
    const { html_url } = await completed(github, where, conclusion, {
      title: text.title.slice(0, 255),
      summary: text.summary.slice(0, SUMMARY_LIMIT)
    })
    return { action: where.id === undefined ? 'created' : 'completed', url: html_url ?? '' }
  } catch (error) {
    return {
      action: 'failed',
      reason: describeFailure(
        error,
        `${where.id === undefined ? 'create' : 'complete'} the check run`
      )
    }
  }
}

/** Completes the check run `where.id`, or creates a completed one when there is none. */
async function completed(
  github: GitHub,
  where: Repo & CheckRunPlace & { readonly id?: number },
  conclusion: Conclusion,
  output: CheckRunText & { readonly annotations?: Annotation[] }
): Promise<{ readonly id: number; readonly html_url: string | null }> {
  const { data } =
    where.id === undefined
      ? await github.rest.checks.create({
          owner: where.owner,
          repo: where.repo,
          name: where.name,
          head_sha: where.headSha,
          status: 'completed',
          conclusion,
          ...(where.detailsUrl !== undefined && { details_url: where.detailsUrl }),
          output
        })
      : await github.rest.checks.update({
          owner: where.owner,
          repo: where.repo,
          check_run_id: where.id,
          status: 'completed',
          conclusion,
          output
        })
  return data
}

/**
 * The check run named `name` on the head commit, its annotations in batches of 50: `id`, when
 * given, is the run `startCheckRun` began, which this completes.
 */
export async function publishCheckRun(
  github: GitHub,
  where: Repo & CheckRunPlace & { readonly id?: number },
  evaluation: Evaluation,
  failOn: FailOn
): Promise<CheckRunOutcome> {
  const annotations = annotationsOf(evaluation)
  const output = (
    batch: readonly Annotation[]
  ): { title: string; summary: string; annotations: Annotation[] } => ({
    title:
      `${evaluation.verdict.verdict}: ${summaryLine(evaluation) || evaluation.verdict.reasons.map(r => r.code).join(', ') || 'no details'}`.slice(
        0,
        255
      ),
    summary: renderMarkdown(evaluation, { budget: SUMMARY_LIMIT, nextStep: 'pull-request' }),
    annotations: [...batch]
  })
  const conclusion = outcomeOf(
    evaluation.verdict,
    failOn,
    evaluation.acceptance !== undefined
  ).conclusion
  const verb = where.id === undefined ? 'create' : 'complete'
  try {
    const data = await completed(
      github,
      where,
      conclusion,
      output(annotations.slice(0, ANNOTATIONS_PER_REQUEST))
    )
    for (let i = ANNOTATIONS_PER_REQUEST; i < annotations.length; i += ANNOTATIONS_PER_REQUEST) {
      await github.rest.checks.update({
        owner: where.owner,
        repo: where.repo,
        check_run_id: data.id,
        output: output(annotations.slice(i, i + ANNOTATIONS_PER_REQUEST))
      })
    }
    return { action: where.id === undefined ? 'created' : 'completed', url: data.html_url ?? '' }
  } catch (error) {
    return { action: 'failed', reason: describeFailure(error, `${verb} the check run`) }
  }
}
