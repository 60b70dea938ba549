import { constants } from 'node:fs'
import { lstat, mkdir, open } from 'node:fs/promises'
import { join } from 'node:path'
import { failed, ok, type Result } from '../util/result.js'

// Files the CLI writes or reads back inside a repository it does not trust (a checked-out branch
// may commit `.rubric-council/sessions` as a symbolic link to anywhere): no link is followed on
// the way, and the file itself is opened with O_NOFOLLOW, so a link found where a folder or file
// should be is refused, with its path, instead of written through.

/** A path inside `root`, as `/`-separated segments; each segment is a plain name. */
type Segments = readonly string[]

const splitPath = (path: string): Segments => path.split('/').filter(s => s !== '' && s !== '.')

/** Why `path` (inside `root`) is refused: a link or not a folder on the way; undefined when fine. */
async function wayProblem(
  root: string,
  folders: Segments,
  create: boolean
): Promise<string | undefined> {
  let at = root
  for (const [i, name] of folders.entries()) {
    if (name === '..') return `${folders.join('/')} climbs out of the repository`
    at = join(at, name)
    const shown = folders.slice(0, i + 1).join('/')
    const stat = await lstat(at).catch(() => undefined)
    if (stat === undefined) {
      if (!create) return undefined
      await mkdir(at)
      continue
    }
    if (stat.isSymbolicLink()) {
      return `${shown} is a symbolic link: nothing is written or read through it (remove it, or run from a clean checkout)`
    }
    if (!stat.isDirectory()) return `${shown} is not a folder`
  }
  return undefined
}

/**
 * Writes `text` to `path` (relative to `root`), making the folders on its way; refused when a
 * folder or the file is a symbolic link, or the file is not a regular file.
 */
export async function writeInside(root: string, path: string, text: string): Promise<Result<void>> {
  const segments = splitPath(path)
  const problem = await wayProblem(root, segments.slice(0, -1), true)
  if (problem !== undefined) return failed(problem)
  try {
    const handle = await open(
      join(root, ...segments),
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      0o644
    )
    try {
      if (!(await handle.stat()).isFile()) return failed(`${path} is not a regular file`)
      await handle.writeFile(text)
    } finally {
      await handle.close()
    }
    return ok(undefined)
  } catch (error) {
    return failed(linkProblem(path, error))
  }
}

/**
 * The text of `path` (relative to `root`), at most `maxBytes` bytes; undefined when it does not
 * exist; refused when a folder on its way or the file is a link, or it is not a regular file.
 */
export async function readInside(
  root: string,
  path: string,
  maxBytes: number
): Promise<Result<string | undefined>> {
  const segments = splitPath(path)
  const problem = await wayProblem(root, segments.slice(0, -1), false)
  if (problem !== undefined) return failed(problem)
  try {
    const handle = await open(
      join(root, ...segments),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK
    )
    try {
      const stat = await handle.stat()
      if (!stat.isFile()) return failed(`${path} is not a regular file`)
      if (stat.size > maxBytes) return failed(`${path} is over ${maxBytes} bytes; it was not read`)
      return ok((await handle.readFile()).toString('utf8'))
    } finally {
      await handle.close()
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined)
    return failed(linkProblem(path, error))
  }
}

/** What an open refused, in words: ELOOP is O_NOFOLLOW meeting a link. */
function linkProblem(path: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ELOOP'
    ? `${path} is a symbolic link: nothing is written or read through it (remove it, or run from a clean checkout)`
    : `${path} cannot be opened (${code ?? String(error)})`
}
