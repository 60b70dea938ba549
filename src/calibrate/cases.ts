import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { DEFAULT_MAX_EVIDENCE_TOKENS } from '../evidence/build.js'
import { runGit, type Run } from '../evidence/git-process.js'
import { pullRequestEvidence, startDiff } from '../evidence/git-source.js'
import type { EvidenceOrder } from '../evidence/types.js'
import { defaultBase } from '../evidence/git.js'
import { EvidenceUnavailableError } from '../evidence/source.js'
import { providerVariables } from '../council/providers/index.js'
import { gateEnvironment } from '../gates/environment.js'
import { gatesHere } from '../gates/run.js'
import type { GateSource } from '../gates/types.js'
import { readCapped } from '../util/read-capped.js'
import { failed, ok, type Result } from '../util/result.js'
import {
  MAX_SET_BYTES,
  parseCalibrationSet,
  type CalibrationCase,
  type CalibrationSet,
  type SetIssue
} from './set.js'

/**
 * A calibration case in the local repository: its commits, its evidence as a pull request's is
 * read, and (with `--gates`) its gates in a checkout of its own.
 */

/**
 * The calibration set at `path` (from `cwd`, inside the repository `root`), its criterion ids
 * checked against the rubric's; a set that cannot be read says how to write one.
 */
export async function readCalibrationSet(
  cwd: string,
  path: string,
  criterionIds: readonly string[],
  root: string
): Promise<Result<CalibrationSet, readonly SetIssue[]>> {
  const read = await readCapped(resolve(cwd, path), MAX_SET_BYTES, root)
  if (!read.ok) {
    return failed([
      {
        file: path,
        rule: 'missing-file',
        message: `cannot read the calibration set: it ${read.problem.message} (write one, or propose one from this history: rubric-council calibrate --propose 20)`
      }
    ])
  }
  return parseCalibrationSet(read.value.toString('utf8'), path, criterionIds)
}

/** A case with the commits its refs name here. */
export type ResolvedCase = CalibrationCase & { readonly base: string; readonly head: string }

/**
 * Every case's commits, or the problems at each case's line in the set at `setPath`: refs that
 * name no commit here, else cases that are one change (listed twice, it would count twice
 * towards the cases each recommendation needs).
 */
export async function resolveCases(
  cwd: string,
  cases: readonly CalibrationCase[],
  setPath: string,
  run: Run
): Promise<Result<ResolvedCase[], SetIssue[]>> {
  const resolved: ResolvedCase[] = []
  const unresolved: SetIssue[] = []
  for (const c of cases) {
    const refs = await resolveCase(cwd, c, run)
    if (refs.ok) resolved.push({ ...c, ...refs.value })
    else
      unresolved.push({
        file: setPath,
        line: c.line,
        column: c.column,
        rule: 'unresolved-ref',
        message: `case "${c.name}": ${refs.problem}`
      })
  }
  if (unresolved.length > 0) return failed(unresolved)
  const twins = resolved.flatMap((c, i) => {
    const first = resolved.findIndex(o => o.base === c.base && o.head === c.head)
    return first < i ? [{ c, of: resolved[first] }] : []
  })
  if (twins.length === 0) return ok(resolved)
  return failed(
    twins.map(({ c, of }) => ({
      file: setPath,
      line: c.line,
      column: c.column,
      rule: 'duplicate-case' as const,
      message: `case "${c.name}" is the same change as case "${of?.name ?? ''}" (${c.base.slice(0, 12)}..${c.head.slice(0, 12)}): each case must be a different change`
    }))
  )
}

/** A ref as the commit it names, or undefined when it names none here. */
async function commitOf(cwd: string, ref: string, run: Run): Promise<string | undefined> {
  const found = await run(
    ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`],
    cwd
  )
  return found.exitCode === 0 ? found.stdout.trim() : undefined
}

/**
 * A case's base and head commits. A pull request's head is `refs/pull/N/head`; its base is the
 * first parent of the merge commit that merged it into the default base, or, while it is open,
 * its merge base with the default base.
 */
async function resolveCase(
  cwd: string,
  c: CalibrationCase,
  run: Run
): Promise<Result<{ base: string; head: string }>> {
  if (c.refs.kind === 'range') {
    const [base, head] = [
      await commitOf(cwd, c.refs.base, run),
      await commitOf(cwd, c.refs.head, run)
    ]
    const missing = [
      ...(base === undefined ? [`base "${c.refs.base}"`] : []),
      ...(head === undefined ? [`head "${c.refs.head}"`] : [])
    ]
    if (base === undefined || head === undefined) {
      return failed(
        `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} no commit of this repository (fetch ${missing.length > 1 ? 'them' : 'it'} first)`
      )
    }
    return ok({ base, head })
  }
  const number = c.refs.number
  const head = await commitOf(cwd, `refs/pull/${number}/head`, run)
  if (head === undefined) {
    return failed(
      `pull request ${number} is not fetched: git fetch origin pull/${number}/head:refs/pull/${number}/head`
    )
  }
  let target: string
  try {
    target = await defaultBase(cwd, run)
  } catch (error) {
    if (error instanceof EvidenceUnavailableError) return failed(error.message)
    throw error
  }
  const merges = await run(['rev-list', '--first-parent', '--merges', '--parents', target], cwd)
  const merged = merges.stdout
    .split('\n')
    .map(line => line.split(' '))
    .find(([, , second]) => second === head)
  if (merged?.[1] !== undefined) return ok({ base: merged[1], head })
  const mergeBase = await run(['merge-base', target, head], cwd)
  const base = mergeBase.stdout.trim()
  if (mergeBase.exitCode !== 0 || base === head) {
    return failed(
      `pull request ${number}: no merge commit of it on ${target}, and no change of its own from ${target}: give its base and head instead`
    )
  }
  return ok({ base, head })
}

/**
 * The case's diff from the merge base of its base and head, as a pull request's is read, its
 * files shown in `order` (the case's commits are its pushes).
 */
export async function caseEvidence(
  cwd: string,
  c: { base: string; head: string },
  order: EvidenceOrder
) {
  const log = await runGit(['log', '-1', '--format=%s%n%b', c.head, '--'], cwd)
  const [title = '', ...body] = log.exitCode === 0 ? log.stdout.split('\n') : []
  return pullRequestEvidence({
    diff: startDiff({ cwd, baseSha: c.base, headSha: c.head }),
    title,
    body: body.join('\n').trim(),
    maxTokens: DEFAULT_MAX_EVIDENCE_TOKENS,
    exclude: [],
    order
  })
}

/**
 * `--gates`: the gates in a temporary checkout of the case's head (a git worktree, removed after
 * the run), never in the working tree the set and rubric are read from. Their output is not shown.
 */
export async function headGates(
  repo: { readonly cwd: string; readonly env: Readonly<Record<string, string | undefined>> },
  head: string,
  mask: (text: string) => string
): Promise<{ source: GateSource; remove: () => Promise<void> }> {
  const folder = await mkdtemp(join(tmpdir(), 'rubric-council-calibrate-'))
  const checkout = join(folder, 'head')
  const added = await runGit(['worktree', 'add', '--detach', checkout, head], repo.cwd)
  // A run left by Ctrl-C may still be ending its gates: their checkout goes once they are gone.
  let running: Promise<unknown> = Promise.resolve()
  const remove = async (): Promise<void> => {
    await running
    await runGit(['worktree', 'remove', '--force', checkout], repo.cwd)
    await rm(folder, { recursive: true, force: true })
  }
  if (added.exitCode !== 0) {
    await remove()
    throw new Error(`git worktree add failed: ${added.stderr.trim()}`)
  }
  const quiet = { startGroup: () => undefined, write: () => undefined, endGroup: () => undefined }
  const here = gatesHere({
    cwd: checkout,
    env: gateEnvironment(repo.env, providerVariables()),
    log: quiet,
    mask
  })
  return {
    source: {
      results: rubric => {
        const results = here.results(rubric)
        running = results.catch(() => undefined)
        return results
      }
    },
    remove
  }
}
