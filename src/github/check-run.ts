import { failed, ok, type Result } from '../util/result.js'
import { utf8Head } from '../util/utf8.js'
import type { GitHub } from './client.js'
import { describeFailure, type Repo } from './comment.js'

/**
 * GitHub accepts 65,535 bytes of summary (its docs say characters; it answers "summary exceeds a
 * maximum bytesize of 65535") and 255 characters of title; longer text is cut, not refused.
 */
const SUMMARY_LIMIT = 65_535
const TITLE_LIMIT = 255

/** A completed check run's conclusion, in the Checks API's words (those a check run may set). */
export type CheckConclusion =
  'success' | 'failure' | 'neutral' | 'action_required' | 'cancelled' | 'skipped' | 'timed_out'

/** A check-run annotation, as the Checks API takes it. */
export interface CheckRunAnnotation {
  readonly path: string
  readonly start_line: number
  readonly end_line: number
  readonly annotation_level: 'failure' | 'warning' | 'notice'
  readonly title?: string
  readonly message: string
}

/** Where a check run goes: its name on the head commit. */
export interface CheckRunPlace {
  readonly headSha: string
  readonly name: string
  readonly detailsUrl?: string
  /** The integrator's own reference for the run (`external_id`), which listings return. */
  readonly externalId?: string
}

/** What a check run says, in GitHub's words: a title and a Markdown summary. */
export interface CheckRunText {
  readonly title: string
  readonly summary: string
}

/** A completed check run, as written: its conclusion, its text and its annotations. */
export interface CompletedCheckRun extends CheckRunPlace, CheckRunText {
  readonly conclusion: CheckConclusion
  /** One request each; the API takes at most 50 annotations per request. */
  readonly annotations?: readonly (readonly CheckRunAnnotation[])[]
}

/** A completed check run's write: a new one, or the started one completed. */
export interface CheckRunWritten {
  readonly action: 'created' | 'completed'
  readonly url: string
}

/** A check run GitHub lists on a commit. */
export interface ListedCheckRun {
  readonly id: number
  readonly name: string
  /** The slug of the app that created it; '' when GitHub names none. */
  readonly appSlug: string
  readonly htmlUrl: string
  /** What its creator gave as `external_id`; '' for none (a workflow job's own check run). */
  readonly externalId: string
  readonly status: string
  /** Null until it completes. */
  readonly conclusion: string | null
  /** Its output's title; '' when it has none. */
  readonly title: string
}

const cut = (text: CheckRunText): CheckRunText => ({
  title: text.title.slice(0, TITLE_LIMIT),
  summary: utf8Head(text.summary, SUMMARY_LIMIT)
})

/** A check run this run started: its id, and the app that owns it (the token's). */
export interface StartedCheckRun {
  readonly id: number
  /** The app's slug (`github-actions` for the workflow's token); '' when GitHub does not say. */
  readonly appSlug: string
}

/**
 * A check run `in_progress` on the head commit: the check is pending while the run works, and a
 * required check never shows an older result meanwhile. Its id, for `writeCheckRun` to complete.
 */
export async function startCheckRun(
  github: GitHub,
  where: Repo & CheckRunPlace,
  text: CheckRunText
): Promise<Result<StartedCheckRun>> {
  try {
    const { data } = await github.rest.checks.create({
      owner: where.owner,
      repo: where.repo,
      name: where.name,
      head_sha: where.headSha,
      status: 'in_progress',
      started_at: new Date().toISOString(),
      ...(where.detailsUrl !== undefined && { details_url: where.detailsUrl }),
      ...(where.externalId !== undefined && { external_id: where.externalId }),
      output: cut(text)
    })
    return ok({ id: data.id, appSlug: data.app?.slug ?? '' })
  } catch (error) {
    return failed(describeFailure(error, 'create the check run'))
  }
}

/**
 * The completed check run `run` on the head commit: completes `id` (the run `startCheckRun`
 * began) or creates one, then adds each further batch of annotations.
 */
export async function writeCheckRun(
  github: GitHub,
  where: Repo & { readonly id?: number },
  run: CompletedCheckRun
): Promise<Result<CheckRunWritten>> {
  const [first = [], ...rest] = run.annotations ?? []
  const output = (batch: readonly CheckRunAnnotation[]) => ({
    ...cut(run),
    ...(batch.length > 0 && { annotations: [...batch] })
  })
  const base = { owner: where.owner, repo: where.repo }
  try {
    const { data } =
      where.id === undefined
        ? await github.rest.checks.create({
            ...base,
            name: run.name,
            head_sha: run.headSha,
            status: 'completed',
            conclusion: run.conclusion,
            ...(run.detailsUrl !== undefined && { details_url: run.detailsUrl }),
            ...(run.externalId !== undefined && { external_id: run.externalId }),
            output: output(first)
          })
        : await github.rest.checks.update({
            ...base,
            check_run_id: where.id,
            status: 'completed',
            conclusion: run.conclusion,
            output: output(first)
          })
    for (const batch of rest) {
      await github.rest.checks.update({ ...base, check_run_id: data.id, output: output(batch) })
    }
    return ok({
      action: where.id === undefined ? 'created' : 'completed',
      url: data.html_url ?? ''
    })
  } catch (error) {
    return failed(
      describeFailure(error, `${where.id === undefined ? 'create' : 'complete'} the check run`)
    )
  }
}

/**
 * The check runs of these names on a commit, every page of them and every one (not only the
 * latest per app): which app created each. One request for any number of names: GitHub filters
 * by one name, so with several every check run of the commit is listed and the names kept here.
 */
export async function checkRunsNamed(
  github: GitHub,
  where: Repo & { readonly ref: string; readonly names: readonly string[] }
): Promise<ListedCheckRun[]> {
  const [only, ...more] = where.names
  if (only === undefined) return []
  const runs = await github.paginate(github.rest.checks.listForRef, {
    owner: where.owner,
    repo: where.repo,
    ref: where.ref,
    ...(more.length === 0 && { check_name: only }),
    filter: 'all',
    per_page: 100
  })
  const names = new Set(where.names)
  return runs
    .filter(run => names.has(run.name))
    .map(run => ({
      id: run.id,
      name: run.name,
      appSlug: run.app?.slug ?? '',
      htmlUrl: run.html_url ?? '',
      externalId: run.external_id ?? '',
      status: run.status,
      conclusion: run.conclusion,
      title: run.output.title ?? ''
    }))
}
