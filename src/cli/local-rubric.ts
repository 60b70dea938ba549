import { isAbsolute, relative, resolve, sep } from 'node:path'
import { rubricChanges, unreadExtends, type RubricChoice } from '../engine/rubric-choice.js'
import { blobHead, runGit, type Run } from '../evidence/git-process.js'
import { localBase, localMergeBase } from '../evidence/git.js'
import {
  DEFAULT_RUBRIC_PATH,
  isRubricFile,
  MAX_RUBRIC_BYTES,
  rubricsFolder
} from '../rubric/defaults.js'
import type { RubricDiff } from '../rubric/diff.js'
import { readRubricFile, rubricText } from '../rubric/load.js'
import type { RubricText, RubricTextResult } from '../rubric/text.js'
import { failed, ok, type Result } from '../util/result.js'
import type { CliIo } from './io.js'
import { withUpstreams } from './upstream.js'

/**
 * Which rubric a local check grades by (docs/agent-loop.md#which-rubric-grades): the base's, as the
 * required check does, unless the user names the working tree's (`--rubric-source head`); a
 * session's own materialised rubric (`loop --checker`) is the user's, read from disk.
 */
export type LocalRubricSource = 'base' | 'head' | 'session'

export const RUBRIC_SOURCES = ['base', 'head'] as const

/** Where a local check reads its rubrics: the repository, and the base's commit. */
export interface LocalPlace {
  /** The repository's top folder (the folder itself outside one): rubric files must be inside. */
  readonly root: string
  /**
   * The base as named (`--base`, or the default), and the commit its rubric is read at: the merge
   * base with HEAD, or the base's own commit when they have none (the diff then cannot be read,
   * which the verdict says).
   */
  readonly base?: { readonly ref: string; readonly commit: string }
  readonly source: LocalRubricSource
  /** Not a git repository: there is no base, and the folder's rubric grades. */
  readonly outside?: true
}

/** The repository's top folder, or `cwd` outside a repository: what rubric files must be inside. */
export async function repositoryRoot(cwd: string, run: Run = runGit): Promise<string> {
  const top = await run(['rev-parse', '--show-toplevel'], cwd)
  return top.exitCode === 0 && top.stdout.trim() !== '' ? top.stdout.trim() : cwd
}

/**
 * The repository and the commit a local check reads its rubric at. In a repository, a base is
 * needed to read the base's rubric, and never guessed past the default branch: a checkout with
 * none (a single branch cloned) is told to name one. The working tree's rubric (`head`) is only
 * compared with the base's, when there is one.
 */
export async function localPlace(
  cwd: string,
  base: string | undefined,
  source: LocalRubricSource,
  run: Run = runGit
): Promise<Result<LocalPlace>> {
  const top = await run(['rev-parse', '--show-toplevel'], cwd)
  const root = top.stdout.trim()
  if (top.exitCode !== 0 || root === '') return ok({ root: cwd, source, outside: true })
  // A session's own rubric is the user's: read from disk, whatever the base.
  if (source === 'session') return ok({ root, source })
  const found = await localBase(cwd, base, run)
  if (!found.ok) {
    if (source === 'head' && base === undefined) return ok({ root, source })
    const why =
      source === 'base'
        ? " (the rubric is read at the merge base with the base, as the required check reads it from the base branch; --rubric-source head grades by the working tree's)"
        : ''
    return failed(`${found.problem}${why}`)
  }
  const mergeBase = await localMergeBase(cwd, found.value, run)
  const commit = mergeBase.ok
    ? mergeBase.value
    : (await run(['rev-parse', '--verify', `${found.value}^{commit}`], cwd)).stdout.trim()
  return ok({ root, source, base: { ref: found.value, commit } })
}

/** A rubric's path in the repository (`/` separators), or undefined when it is outside. */
function repositoryPath(root: string, cwd: string, path: string): string | undefined {
  const inside = relative(root, resolve(cwd, path))
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return undefined
  return inside.split(sep).join('/')
}

/**
 * The rubric file at `repoPath` as git has it at `commit`: undefined when there is none there; a
 * problem when it is not a rubric file of its own (a symbolic link, a submodule) or cannot be one
 * (over the size cap, not UTF-8). Read from git's objects, never from the working tree.
 */
export async function rubricAtCommit(
  root: string,
  commit: string,
  repoPath: string,
  displayPath: string,
  run: Run = runGit
): Promise<RubricTextResult | undefined> {
  const listed = await run(['ls-tree', '-z', commit, '--', repoPath], root)
  const [entry] = listed.stdout.split('\0').filter(line => line !== '')
  if (listed.exitCode !== 0 || entry === undefined) return undefined
  const [mode = '', type = ''] = entry.split(/[ \t]/)
  if (type !== 'blob' || mode === '120000') {
    const what = mode === '120000' ? 'a symbolic link' : `a ${type}`
    return failed({
      source: { path: displayPath, kind: 'file' },
      issues: [
        {
          file: displayPath,
          rule: 'unreadable-file',
          message: `is ${what} at the base's commit ${commit.slice(0, 12)}, not a rubric file of its own`
        }
      ]
    })
  }
  const bytes = await blobHead(root, commit, repoPath, MAX_RUBRIC_BYTES + 1)
  return bytes === undefined ? undefined : rubricText(bytes, displayPath)
}

/** The rubric files (not links) in the `rubrics/` folder beside `mainPath` at `commit`, sorted. */
async function rubricFilesAtCommit(
  root: string,
  commit: string,
  mainPath: string,
  run: Run = runGit
): Promise<string[]> {
  const listed = await run(['ls-tree', '-z', commit, '--', `${rubricsFolder(mainPath)}/`], root)
  if (listed.exitCode !== 0) return []
  return listed.stdout
    .split('\0')
    .flatMap(line => {
      const [meta = '', path = ''] = line.split('\t')
      const [mode, type] = meta.split(' ')
      return type === 'blob' && mode !== '120000' && isRubricFile(path) ? [path] : []
    })
    .sort()
}

/**
 * The rubric files a local check of the whole repository reads (relative to the repository's
 * root): `.github/rubric.md` and every rubric in `.github/rubrics/`, as the base has them, or,
 * from the working tree, as `validate` lists them. Undefined when that is the main rubric alone.
 */
export async function localRubricSet(
  place: LocalPlace,
  workingTree: (root: string) => string[]
): Promise<string[] | undefined> {
  const base = place.base
  let paths: string[] = []
  if (place.source === 'base' && base !== undefined) {
    const folder = await rubricFilesAtCommit(place.root, base.commit, DEFAULT_RUBRIC_PATH)
    const main =
      folder.length === 0 ||
      (await rubricAtCommit(place.root, base.commit, DEFAULT_RUBRIC_PATH, DEFAULT_RUBRIC_PATH)) !==
        undefined
    paths = [...(main ? [DEFAULT_RUBRIC_PATH] : []), ...folder]
  }
  // A base without a rubric yet: the working tree's, as the required check would grade by them.
  if (paths.length <= 1) paths = workingTree(place.root)
  return paths.length === 1 && paths[0] === DEFAULT_RUBRIC_PATH ? undefined : paths
}

/** A local check's rubric, how it was chosen, and the line that says so when it is not plain. */
export interface LocalChoice {
  readonly choice: RubricChoice
  /** Said on stderr before anything runs; undefined when the working tree's and the base's agree. */
  readonly line?: string
}

/**
 * The rubric at `path` (as the user named it, from `cwd`) a local check grades by: the base's when
 * it has one (what it extends read as the CLI reads it), else the working tree's with a note, as
 * the required check would; the working tree's when the user names it (`head`), stated; a
 * session's own as it is. The working tree's file is read inside the repository only.
 */
export async function chooseLocalRubric(
  place: LocalPlace,
  path: string,
  io: Pick<CliIo, 'cwd' | 'env' | 'stderr'>
): Promise<LocalChoice> {
  const repoPath = repositoryPath(place.root, io.cwd, path)
  if (repoPath === undefined) {
    return {
      choice: {
        rubric: failed({
          source: { path, kind: 'file' },
          issues: [
            {
              file: path,
              rule: 'unreadable-file',
              message: `is outside the repository ${place.root}: a rubric is read only from within it`
            }
          ]
        }),
        trusted: false
      }
    }
  }
  const working = await readRubricFile(resolve(io.cwd, path), path, place.root)
  if (place.source === 'session') return { choice: { rubric: working, trusted: true } }
  if (place.outside === true) {
    const note = `${place.root} is not a git repository: the rubric in it grades (a required check reads the base branch's).`
    return {
      choice: { rubric: unreadExtends(working), trusted: false, review: { source: 'head', note } },
      ...(working.ok && { line: `rubric-council: ${note}` })
    }
  }
  const base = place.base
  const atBase = base && (await rubricAtCommit(place.root, base.commit, repoPath, path))
  const baseText = atBase?.ok === true ? atBase.value : undefined
  const diff = rubricChanges(baseText, working.ok ? working.value : undefined)
  const differs = atBase !== undefined && !sameText(atBase, working)
  const where = base && `${base.ref} at ${base.commit.slice(0, 12)}`
  if (place.source === 'head') {
    const note = `Graded by the working tree's ${path}, as --rubric-source head asks; the required check grades by the base's${where ? ` (${where})` : ''}.`
    return {
      choice: {
        rubric: unreadExtends(working),
        trusted: false,
        review: { source: 'head', note, ...(diff && { diff }) }
      },
      line: `rubric-council: ${note.replace(/\.$/, '')}${differs ? `, which ${differenceText(diff, working)}` : ''}`
    }
  }
  if (atBase === undefined || where === undefined) {
    const note = `The base${where ? ` (${where})` : ''} has no ${repoPath} yet, so the working tree's is graded, as the required check would; once it is merged, the base's grades.`
    return {
      choice: { rubric: unreadExtends(working), trusted: false, review: { source: 'head', note } },
      ...(working.ok && { line: `rubric-council: ${note}` })
    }
  }
  return {
    choice: {
      rubric: await withUpstreams(io, atBase),
      trusted: true,
      review: { source: 'base', ...(diff && { diff }) }
    },
    ...(differs && {
      line: `rubric-council: the working tree's ${path} ${differenceText(diff, working)}; graded by the base's (${where}), as the required check is (--rubric-source head grades by the working tree's)`
    })
  }
}

/** Whether the base's and the working tree's files are read alike and have one text. */
function sameText(base: RubricTextResult, working: RubricTextResult): boolean {
  return base.ok && working.ok && base.value.text === working.value.text
}

/** How the working tree's rubric differs from the base's, weakening first, in one clause. */
function differenceText(
  diff: RubricDiff | undefined,
  working: Result<RubricText, unknown>
): string {
  if (!working.ok) return 'is missing or unreadable, while the base has one (a weakening)'
  if (diff === undefined) return "differs from the base's, and one of them is not a valid rubric"
  if (diff.changes.length === 0) return "differs from the base's in wording only (no rule changed)"
  const changes = [...diff.changes]
    .sort((a, b) => Number(b.weakens) - Number(a.weakens))
    .map(c => `${c.weakens ? 'WEAKENS: ' : ''}${c.text}`)
  return `differs from the base's${diff.weakened ? ' and weakens it' : ''}: ${changes.join('; ')}`
}
