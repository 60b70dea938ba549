import * as core from '@actions/core'
import { readFile } from 'node:fs/promises'
import { relative, resolve, sep } from 'node:path'
import { annotationsOf, conclusionOf, publishCheckRun } from '../github/check-run.js'
import type { GitHub } from '../github/client.js'
import { upsertComment, type IssueComment } from '../github/comment.js'
import { fileAt } from '../github/contents.js'
import type { PullRequestRun } from '../github/event.js'
import type { ActionInputs } from '../inputs.js'
import { renderComment } from '../report/comment.js'
import type { Evaluation, RubricReview } from '../report/evaluation.js'
import type { HistoryEntry } from '../report/history.js'
import { summaryLine } from '../report/summary.js'
import { diffRubrics } from '../rubric/diff.js'
import { RubricError } from '../rubric/errors.js'
import { parseRubric } from '../rubric/parse.js'
import type { RubricChoice } from '../rubric/resolve.js'
import type { Rubric } from '../rubric/types.js'

/**
 * The rubric as a trust boundary (docs/security.md): read at the base commit, so a pull request cannot
 * weaken the gate that grades it; the PR's own only when asked, or when the base has none yet
 * (never under pull_request_target). When the PR changes the rubric, the review says how.
 */
export async function chooseRubric(
  github: GitHub | undefined,
  run: PullRequestRun,
  inputs: ActionInputs,
  dirs: { readonly workspace: string; readonly cwd: string; readonly tempDir: string }
): Promise<{ choice: RubricChoice; review?: RubricReview }> {
  const base: RubricChoice = {
    path: inputs.rubric,
    cwd: dirs.cwd,
    tempDir: dirs.tempDir,
    ...(inputs.checker !== undefined && { checker: inputs.checker })
  }
  if (inputs.checker !== undefined) return { choice: base }

  const repoPath = relative(dirs.workspace, resolve(dirs.cwd, inputs.rubric)).split(sep).join('/')
  const headText = await readFile(resolve(dirs.cwd, inputs.rubric), 'utf8').catch(() => undefined)
  let baseText: string | undefined
  let baseProblem: string | undefined
  if (github) {
    try {
      // The base branch as it is now: a re-run after its rubric changed uses the new one.
      baseText = await fileAt(github, {
        owner: run.owner,
        repo: run.repo,
        path: repoPath,
        ref: run.pr.baseRef === '' ? run.pr.baseSha : run.pr.baseRef
      })
    } catch (error) {
      baseProblem = error instanceof Error ? error.message : String(error)
    }
  }
  const diff = changes(baseText, headText, inputs.rubric)

  if (inputs.rubricSource === 'head' && !run.baseRubricOnly) {
    return { choice: base, review: { source: 'head', ...(diff && { diff }) } }
  }
  if (baseText !== undefined) {
    return {
      choice: { ...base, text: baseText, trusted: true },
      review: { source: 'base', ...(diff && { diff }) }
    }
  }
  const at =
    run.pr.baseRef === ''
      ? `${repoPath} at the base commit ${run.pr.baseSha.slice(0, 7)}`
      : `${repoPath} on the base branch ${run.pr.baseRef}`
  if (!github && !run.baseRubricOnly) {
    return {
      choice: base,
      review: {
        source: 'head',
        note: `Without a github-token the base commit's rubric cannot be read, so the rubric in the working tree (${repoPath}) is used.`
      }
    }
  }
  if (run.baseRubricOnly || baseProblem !== undefined) {
    // Without the base's rubric there is nothing trusted to grade by.
    const why = baseProblem === undefined ? 'does not exist' : `could not be read (${baseProblem})`
    return {
      choice: {
        ...base,
        missing: `${at} ${why}; ${run.baseRubricOnly ? 'pull_request_target uses only the base branch’s rubric' : 'the base branch’s rubric is required with rubric-source: base'}`
      },
      review: { source: 'base' }
    }
  }
  return {
    choice: base,
    review: {
      source: 'head',
      note: `The base branch has no rubric at ${repoPath} yet, so this pull request's own rubric is used. Once it is merged, later pull requests are graded by the base branch's.`
    }
  }
}

/** The semantic difference when both versions parse and differ; undefined otherwise. */
function changes(
  baseText: string | undefined,
  headText: string | undefined,
  path: string
): RubricReview['diff'] {
  if (baseText === undefined || headText === undefined || baseText === headText) return undefined
  const parse = (text: string): Rubric | undefined => {
    try {
      return parseRubric({ text, path })
    } catch (error) {
      if (error instanceof RubricError) return undefined
      throw error
    }
  }
  const before = parse(baseText)
  const after = parse(headText)
  return before && after ? diffRubrics(before, after) : undefined
}

export function historyEntry(evaluation: Evaluation, commit: string): HistoryEntry {
  return {
    iteration: evaluation.iteration,
    commit,
    verdict: evaluation.verdict.verdict,
    summary: summaryLine(evaluation),
    rubricHash: evaluation.rubric.hash ?? '',
    reasons: evaluation.verdict.reasons.map(r => r.code)
  }
}

/**
 * The sticky comment and the check run. Without write permission both degrade to a warning; the
 * verdict stands and the job summary has the report. Returns the comment's URL, if any.
 */
export async function publishToPullRequest(
  github: GitHub | undefined,
  run: PullRequestRun,
  inputs: ActionInputs,
  evaluation: Evaluation,
  options: { readonly existing: readonly IssueComment[]; readonly detailsUrl: string | undefined }
): Promise<string | undefined> {
  const where = { owner: run.owner, repo: run.repo }
  if (inputs.dryRun) {
    printDryRun(run, inputs, evaluation)
    return undefined
  }
  if (!github) {
    core.warning(
      'Rubric Council: no github-token, so no comment and no check run; the report is in the job summary'
    )
    return undefined
  }
  // The comment and the check run are written at once; the client still sends one write at a
  // time, so this only overlaps rendering one with sending the other.
  const [url, check] = await Promise.all([
    inputs.comment === 'sticky'
      ? stickyComment(github, run, inputs, evaluation, options.existing)
      : undefined,
    publishCheckRun(
      github,
      {
        ...where,
        headSha: run.pr.headSha,
        name: inputs.checkName,
        ...(options.detailsUrl !== undefined && { detailsUrl: options.detailsUrl })
      },
      evaluation,
      inputs.failOn
    )
  ])
  if (check.action === 'failed') core.warning(`Rubric Council: ${check.reason}`)
  else
    core.info(
      `Check run "${inputs.checkName}": ${conclusionOf(evaluation.verdict.verdict, inputs.failOn)}`
    )
  return url
}

/** Creates or updates the sticky comment, unless a newer push is already being reviewed. */
async function stickyComment(
  github: GitHub,
  run: PullRequestRun,
  inputs: ActionInputs,
  evaluation: Evaluation,
  existing: readonly IssueComment[]
): Promise<string | undefined> {
  const current = await currentHead(github, run)
  if (current !== undefined && current !== run.pr.headSha) {
    // A newer push is being reviewed; its result must not be overwritten by this older one.
    core.notice(
      `Rubric Council: not updating the comment: this run reviewed ${run.pr.headSha.slice(0, 7)}, but the pull request is now at ${current.slice(0, 7)}`
    )
    return undefined
  }
  const outcome = await upsertComment(
    github,
    { owner: run.owner, repo: run.repo, issue: run.pr.number },
    renderComment(evaluation, inputs.checkName),
    existing
  )
  if (outcome.action === 'failed') {
    core.warning(`Rubric Council: ${outcome.reason}`)
    return undefined
  }
  return outcome.url
}

/** What a real run would post, printed instead (dry-run). */
function printDryRun(run: PullRequestRun, inputs: ActionInputs, evaluation: Evaluation): void {
  if (inputs.comment === 'sticky') {
    core.startGroup(`Rubric Council (dry run): the comment it would post on #${run.pr.number}`)
    core.info(renderComment(evaluation, inputs.checkName))
    core.endGroup()
  }
  const annotations = annotationsOf(evaluation).length
  core.info(
    `Rubric Council (dry run): it would create the check run "${inputs.checkName}" on ${run.pr.headSha.slice(0, 7)} ` +
      `concluding ${conclusionOf(evaluation.verdict.verdict, inputs.failOn)}, with ${annotations} annotation${annotations === 1 ? '' : 's'}`
  )
}

/** The pull request's head now, or undefined when it cannot be read (then nothing is withheld). */
async function currentHead(github: GitHub, run: PullRequestRun): Promise<string | undefined> {
  try {
    const { data } = await github.rest.pulls.get({
      owner: run.owner,
      repo: run.repo,
      pull_number: run.pr.number
    })
    return data.head.sha
  } catch {
    return undefined
  }
}
