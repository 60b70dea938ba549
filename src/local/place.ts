import { existsSync } from 'node:fs'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { blobHead, runGit, type Run } from '../evidence/git-process.js'
import { localBase, localMergeBase } from '../evidence/git.js'
import {
  DEFAULT_RUBRIC_PATH,
  isRubricFile,
  MAX_RUBRIC_BYTES,
  rubricsFolder
} from '../rubric/defaults.js'
import { localRubricFiles, rubricText } from '../rubric/load.js'
import type { RubricTextResult } from '../rubric/text.js'
import { failed, ok, type Result } from '../util/result.js'
import { BASE_NEEDED, notOwnFileAtBase } from './sentences.js'

// Where a local check reads its rubrics: the repository, the base's commit, and the rubric files
// git has there. Reads git's objects and the working tree; decides nothing about which grades
// (rubric-choice.ts).

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
    return failed(`${found.problem}${source === 'base' ? BASE_NEEDED : ''}`)
  }
  const mergeBase = await localMergeBase(cwd, found.value, run)
  const commit = mergeBase.ok
    ? mergeBase.value
    : (await run(['rev-parse', '--verify', `${found.value}^{commit}`], cwd)).stdout.trim()
  return ok({ root, source, base: { ref: found.value, commit } })
}

/** A rubric's path in the repository (`/` separators), or undefined when it is outside. */
export function repositoryPath(root: string, cwd: string, path: string): string | undefined {
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
          message: notOwnFileAtBase(what, commit)
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
 * The repository's rubrics in the working tree under `cwd`, as `validate` and `check` take them
 * when given none: the main one (when it exists, or when there is no other) and the `rubrics/`
 * folder's.
 */
export function workingTreeRubrics(cwd: string): string[] {
  const listed = localRubricFiles(cwd, DEFAULT_RUBRIC_PATH)
  const main = listed.length === 0 || existsSync(resolve(cwd, DEFAULT_RUBRIC_PATH))
  return [...(main ? [DEFAULT_RUBRIC_PATH] : []), ...listed]
}

/**
 * The rubric files a local check of the whole repository reads (relative to the repository's
 * root): `.github/rubric.md` and every rubric in `.github/rubrics/`, as the base has them, or,
 * from the working tree, as `validate` lists them. Undefined when that is the main rubric alone.
 */
export async function localRubricSet(place: LocalPlace): Promise<string[] | undefined> {
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
  if (paths.length <= 1) paths = workingTreeRubrics(place.root)
  return paths.length === 1 && paths[0] === DEFAULT_RUBRIC_PATH ? undefined : paths
}
