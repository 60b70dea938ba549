import { failed, ok } from '../util/result.js'
import { existsSync } from 'node:fs'
import { relative, resolve, sep } from 'node:path'
import type { RubricChoice } from '../engine/rubric-choice.js'
import {
  branchRef,
  criteriaOf,
  pullRequestRubric,
  repositoryRubricPath,
  severalRubricFiles,
  type PullRequestRubricFacts,
  type RubricFileAt
} from '../engine/pull-request-rubric.js'
import type { PullRequestRun } from '../github/event.js'
import type { GitHubPort } from '../github/port.js'
import type { BaseFiles } from '../github/base-files.js'
import { localRubricFiles, readRubricFile } from '../rubric/load.js'
import { declaredName, parseRubric } from '../rubric/parse.js'
import { readExtends } from '../rubric/read-extends.js'
import { isRubricFile, rubricsFolder } from '../rubric/defaults.js'
import { checkerRubric } from '../rubric/sugar.js'
import type { RubricTextResult } from '../rubric/text.js'
import type { Rubric } from '../rubric/types.js'
import { symbolicLinkOn, type ActionDirs } from './context.js'
import type { Checkout } from '../engine/run-preparation.js'
import type { ActionInputs } from '../inputs/action-inputs.js'
import { planRubrics } from '../engine/rubric-set.js'
import { checkRunName } from '../publish/check-name.js'
import { defaultRecordPath } from '../rubric/calibration-record.js'
import { recordRead, recordTextOf, type RecordText } from '../engine/calibration-record.js'
import type { RecordRead } from '../verdict/calibration.js'

/**
 * A rubric file of the checkout (the pull request's), read only as a file of its own: one reached
 * through a symbolic link (the file, or a folder on its way, such as `.github/rubrics`) could be
 * any file on the runner, which the judges and the comment would then show.
 */
async function checkoutRubric(dirs: ActionDirs, path: string): Promise<RubricTextResult> {
  const full = resolve(dirs.cwd, path)
  const link = await symbolicLinkOn(dirs.workspace, full)
  if (link === undefined) return readRubricFile(full, path)
  return failed({
    source: { path, kind: 'file' },
    issues: [
      {
        file: path,
        rule: 'unreadable-file',
        message: `reached through the symbolic link ${link}: a rubric in the checkout is read only as a file of its own`
      }
    ]
  })
}

/**
 * The rubric a run grades by (`pullRequestRubric`): the workflow's checker, or the base branch's
 * rubric and the pull request's, read here, then chosen between. A checkout that is not the pull
 * request holds the base's rubric: the pull request's is then read at its head commit, only to
 * show what it changes (such a run grades by the base's).
 */
export async function chooseRubric(
  github: GitHubPort | undefined,
  /** The base's files as the run read them (`BaseFiles`); undefined without a token. */
  base: BaseFiles | undefined,
  run: PullRequestRun,
  inputs: ActionInputs,
  dirs: ActionDirs,
  checkout: Checkout = 'pull-request',
  /** The running workflow is another repository's (`RunningWorkflow.central`). */
  central = false
): Promise<RubricChoice> {
  // The checker input is part of the workflow, which is the repository owner's (a pull request
  // that edits it is workflow_modified).
  if (inputs.checker !== undefined) return { rubric: checkerRubric(inputs.checker), trusted: true }
  const repoPath = relative(dirs.workspace, resolve(dirs.cwd, inputs.rubric)).split(sep).join('/')
  const head =
    checkout === 'base'
      ? await rubricAtHead(github, repoPath, run.pr.headSha, inputs.rubric)
      : await checkoutRubric(dirs, inputs.rubric)
  const decided = pullRequestRubric({
    path: inputs.rubric,
    repoPath,
    head,
    // The base branch as it is now: a re-run after its rubric changed uses the new one.
    base: base ? await baseFile(base, repoPath) : 'unread',
    source: inputs.rubricSource,
    baseRubricOnly: run.baseRubricOnly,
    central,
    baseRef: run.pr.baseRef,
    baseSha: run.pr.baseSha,
    records: await calibrationRecords(github, base, run, inputs.rubric, dirs, checkout)
  })
  if (decided.kind === 'chosen') return decided.choice
  // What it extends is read at the refs the base names, through the API: never the PR's.
  return {
    rubric: await readExtends(decided.base, github?.upstreamFile),
    trusted: true,
    review: decided.review,
    ...(decided.calibration && { calibration: decided.calibration })
  }
}

/**
 * The calibration record beside the rubric at `path`, the base's (through the API, as its rubric
 * is read) and the pull request's (as its rubric is read): the first goes with the base's rubric,
 * the second only shows what the pull request changed, unless its own rubric grades.
 */
async function calibrationRecords(
  github: GitHubPort | undefined,
  base: BaseFiles | undefined,
  run: PullRequestRun,
  path: string,
  dirs: ActionDirs,
  checkout: Checkout
): Promise<{ readonly base: RecordRead; readonly head: RecordRead }> {
  const local = defaultRecordPath(path)
  const repoPath = relative(dirs.workspace, resolve(dirs.cwd, local)).split(sep).join('/')
  const atBase: RecordText = base
    ? await base.fileAt(repoPath).catch((error: unknown) => ({
        problem: error instanceof Error ? error.message : String(error)
      }))
    : undefined
  const atHead: RecordText =
    checkout === 'base'
      ? await github?.fileAt(repoPath, run.pr.headSha).catch(() => undefined)
      : recordTextOf(await checkoutRubric(dirs, local))
  return { base: recordRead(local, atBase), head: recordRead(local, atHead) }
}

/** The base's rubric file as `pullRequestRubric` takes it. */
async function baseFile(
  base: BaseFiles,
  repoPath: string
): Promise<PullRequestRubricFacts['base']> {
  try {
    const text = await base.fileAt(repoPath)
    return text === undefined ? 'absent' : { text }
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) }
  }
}

/** The pull request's rubric at its head commit, through the API; not ok when it cannot be read. */
async function rubricAtHead(
  github: GitHubPort | undefined,
  repoPath: string,
  headSha: string,
  path: string
): Promise<RubricTextResult> {
  const text = await github?.fileAt(repoPath, headSha).catch(() => undefined)
  return text === undefined
    ? failed({
        source: { path, kind: 'file' },
        issues: [
          {
            file: path,
            rule: 'missing-file',
            message: `${repoPath} could not be read at the pull request's head ${headSha.slice(0, 7)}`
          }
        ]
      })
    : ok({ text, path, kind: 'file' })
}

/**
 * The base branch's rubric: read through the API at `ref` (never from the pull request), with
 * what it extends. Undefined when there is none or it is not valid.
 */
async function baseRubric(
  github: GitHubPort,
  path: string,
  ref: string
): Promise<Rubric | undefined> {
  const text = await github.fileAt(path, ref)
  return text === undefined ? undefined : rubricOfText(github, path, text)
}

/** A rubric's text, with what it extends read through the API; undefined when not valid. */
async function rubricOfText(
  github: GitHubPort,
  path: string,
  text: string
): Promise<Rubric | undefined> {
  const read = await readExtends({ text, path, kind: 'file' }, github.upstreamFile)
  const parsed = read.ok ? parseRubric(read.value) : read
  return parsed.ok ? parsed.value : undefined
}

/**
 * The rubrics in the `rubrics/` folder beside the rubric at `path`, at `ref`, through the API,
 * sorted; none when there is no such folder there.
 */
export async function rubricFilesAt(
  github: GitHubPort,
  path: string,
  ref: string
): Promise<string[]> {
  return (await github.filesAt(rubricsFolder(path), ref)).filter(isRubricFile)
}

/**
 * The names this check's runs have on a pull request into `base`: one per rubric of the base
 * branch (`check-name`, `check-name / <rubric>`, as the review plans them), with the base's suffix.
 */
export async function ownCheckNames(
  github: GitHubPort,
  path: string,
  checkName: string,
  base: { readonly baseRef: string; readonly defaultBranch: string }
): Promise<ReadonlySet<string>> {
  const ref = branchRef(base.baseRef)
  const folder = await rubricFilesAt(github, path, ref)
  const read = await Promise.all(
    [path, ...folder].map(async p => {
      const text = await github.fileAt(p, ref)
      return text === undefined
        ? undefined
        : {
            repoPath: p,
            main: p === path,
            rubric: await rubricOfText(github, p, text),
            declaredName: declaredName({ text, path: p })
          }
    })
  )
  // As the review plans them: the main rubric's run only when the base has that file.
  const files = read.filter(file => file !== undefined)
  return new Set(
    planRubrics(files, undefined, checkName).map(plan => checkRunName(plan.checkName, base))
  )
}

/**
 * The base branch's rubrics: the one at `path` and, with several, those in the `rubrics/` folder
 * beside it (docs/rubric.md#several-rubrics), each as `baseRubric` reads it; the valid ones.
 */
export async function baseRubrics(
  github: GitHubPort,
  path: string,
  ref: string
): Promise<Rubric[]> {
  const folder = await rubricFilesAt(github, path, ref)
  const rubrics = await Promise.all([path, ...folder].map(p => baseRubric(github, p, ref)))
  return rubrics.filter(r => r !== undefined)
}

/**
 * The criteria of the base branch's rubrics (`baseRubrics`), id → whether it is a must-have (in
 * any of them); undefined when there is no valid rubric.
 */
export async function baseCriteria(
  github: GitHubPort,
  path: string,
  ref: string
): Promise<ReadonlyMap<string, boolean> | undefined> {
  return criteriaOf(await baseRubrics(github, path, ref))
}

/**
 * The repository's rubrics when it has several (docs/rubric.md#several-rubrics): the `rubric`
 * input's file when it exists, then every `*.md`, `*.yml` and `*.yaml` file in the `rubrics/`
 * folder beside it. Undefined when that folder has none (one rubric, as before) or the workflow
 * gives a checker. Listed at the base branch through the API, like the rubric itself, so a pull
 * request cannot add, remove or rename the rubrics that grade it (one it adds is judged once
 * merged); without a token, from the checkout.
 */
export async function severalRubrics(
  base: BaseFiles | undefined,
  inputs: ActionInputs,
  dirs: ActionDirs
): Promise<RubricFileAt[] | undefined> {
  if (inputs.checker !== undefined) return undefined
  const repoPath = repositoryRubricPath(inputs)
  const folder = base
    ? (await base.filesIn(rubricsFolder(repoPath))).filter(isRubricFile)
    : localRubricFiles(dirs.workspace, repoPath)
  if (folder.length === 0) return undefined
  const exists = base
    ? (await base.fileAt(repoPath)) !== undefined
    : existsSync(resolve(dirs.cwd, inputs.rubric))
  return severalRubricFiles({ path: inputs.rubric, repoPath, exists }, folder)
}
