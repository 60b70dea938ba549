import { failed, ok } from '../util/result.js'
import { existsSync } from 'node:fs'
import { posix, relative, resolve, sep } from 'node:path'
import { rubricChanges, unreadExtends, type RubricChoice } from '../engine/rubric-choice.js'
import type { PullRequestRun } from '../github/event.js'
import type { BaseFiles } from '../github/base-files.js'
import type { GitHubPort } from '../github/port.js'
import { localRubricFiles, readRubricFile } from '../rubric/load.js'
import { declaredName, parseRubric } from '../rubric/parse.js'
import { readExtends } from '../rubric/read-extends.js'
import { isRubricFile, rubricsFolder } from '../rubric/defaults.js'
import { checkerRubric } from '../rubric/sugar.js'
import type { RubricText, RubricTextResult } from '../rubric/text.js'
import type { Rubric } from '../rubric/types.js'
import { symbolicLinkOn, type ActionDirs, type Checkout } from './context.js'
import type { ActionInputs } from './inputs.js'
import { planRubrics } from '../engine/rubric-set.js'
import { checkRunName } from '../publish/check-name.js'

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
 * The rubric as a trust boundary (docs/security.md): read at the tip of the base branch, so a
 * pull request cannot weaken the gate that grades it; the PR's own only when asked, or when the
 * base has none yet (never under pull_request_target, nor under a workflow of another repository:
 * an organisation ruleset runs that on repositories which may have no rubric yet, and a pull
 * request must not bring the one that grades it). When the PR changes the rubric, the review says
 * how.
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
  // A checkout that is not the pull request holds the base's rubric: the pull request's is read
  // at its head commit, only to show what it changes (such a run grades by the base's).
  const head =
    checkout === 'base'
      ? await rubricAtHead(github, repoPath, run.pr.headSha, inputs.rubric)
      : await checkoutRubric(dirs, inputs.rubric)
  let baseText: string | undefined
  let baseProblem: string | undefined
  if (base) {
    try {
      baseText = await base.fileAt(repoPath)
    } catch (error) {
      baseProblem = error instanceof Error ? error.message : String(error)
    }
  }
  const baseRubric: RubricText | undefined =
    baseText === undefined ? undefined : { text: baseText, path: inputs.rubric, kind: 'file' }
  const diff = rubricChanges(baseRubric, head.ok ? head.value : undefined)

  if (inputs.rubricSource === 'head' && !run.baseRubricOnly) {
    return {
      rubric: unreadExtends(head),
      trusted: false,
      review: { source: 'head', ...(diff && { diff }) }
    }
  }
  if (baseRubric !== undefined) {
    return {
      // What it extends is read at the refs the base names, through the API: never the PR's.
      rubric: await readExtends(baseRubric, github?.upstreamFile),
      trusted: true,
      review: { source: 'base', ...(diff && { diff }) }
    }
  }
  const at =
    run.pr.baseRef === ''
      ? `${repoPath} at the base commit ${run.pr.baseSha.slice(0, 7)}`
      : `${repoPath} on the base branch ${run.pr.baseRef}`
  if (!github && !run.baseRubricOnly && !central) {
    return {
      rubric: unreadExtends(head),
      trusted: false,
      review: {
        source: 'head',
        note: `Without a github-token the base commit's rubric cannot be read, so the rubric in the working tree (${repoPath}) is used.`
      }
    }
  }
  if (run.baseRubricOnly || central || baseProblem !== undefined) {
    // Without the base's rubric there is nothing trusted to grade by.
    const why =
      baseProblem !== undefined
        ? `could not be read (${baseProblem})`
        : github
          ? 'does not exist'
          : 'could not be read without a github-token'
    const rule = run.baseRubricOnly
      ? 'pull_request_target uses only the base branch’s rubric'
      : central
        ? 'a workflow required from another repository uses only the base branch’s rubric, so that a pull request cannot bring the rubric that grades it'
        : 'the base branch’s rubric is required with rubric-source: base'
    const message = `${at} ${why}; ${rule}`
    return {
      rubric: failed({
        source: { path: inputs.rubric, kind: 'file' },
        issues: [{ file: inputs.rubric, rule: 'missing-file', message }]
      }),
      trusted: false,
      review: { source: 'base' }
    }
  }
  return {
    rubric: unreadExtends(head),
    trusted: false,
    review: {
      source: 'head',
      note: `The base branch has no rubric at ${repoPath} yet, so this pull request's own rubric is used. Once it is merged, later pull requests are graded by the base branch's.`
    }
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
 * A branch by its full name, as the base branch's files are read: git resolves a short name to a
 * tag before a branch, and a tag named like the base branch (which someone who may push tags can
 * create where branch protection does not reach) must never stand in for its rubric.
 */
export function branchRef(name: string): string {
  return `refs/heads/${name}`
}

/**
 * Where the base's rubric is read: the base branch as it is now (a re-run after its rubric
 * changed uses the new one), or the base commit when the branch is not named.
 */
export function baseRef(pr: Pick<PullRequestRun['pr'], 'baseRef' | 'baseSha'>): string {
  return pr.baseRef === '' ? pr.baseSha : branchRef(pr.baseRef)
}

/** The rubric's path in the repository, as the review reads it (`working-directory`/`rubric`). */
export function repositoryRubricPath(
  inputs: Pick<ActionInputs, 'workingDirectory' | 'rubric'>
): string {
  return posix.normalize(posix.join(inputs.workingDirectory, inputs.rubric))
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
  const rubrics = await baseRubrics(github, path, ref)
  if (rubrics.length === 0) return undefined
  const criteria = new Map<string, boolean>()
  for (const c of rubrics.flatMap(r => r.criteria))
    criteria.set(c.id, c.required || criteria.get(c.id) === true)
  return criteria
}

/** A rubric file of the repository: where it is, and whether it is the `rubric` input's. */
interface RubricFileAt {
  /** Relative to the working directory, as the `rubric` input is. */
  readonly path: string
  /** Relative to the repository's root. */
  readonly repoPath: string
  readonly main: boolean
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
  const mainRepo = repositoryRubricPath(inputs)
  const files = base
    ? (await base.filesIn(rubricsFolder(mainRepo))).filter(isRubricFile)
    : localRubricFiles(dirs.workspace, mainRepo)
  if (files.length === 0) return undefined
  const mainExists = base
    ? (await base.fileAt(mainRepo)) !== undefined
    : existsSync(resolve(dirs.cwd, inputs.rubric))
  const localFolder = rubricsFolder(inputs.rubric)
  return [
    ...(mainExists ? [{ path: inputs.rubric, repoPath: mainRepo, main: true }] : []),
    ...files.map(repoPath => ({
      path: posix.join(localFolder, posix.basename(repoPath)),
      repoPath,
      main: false
    }))
  ]
}
