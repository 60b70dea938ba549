import { constants } from 'node:fs'
import { lstat, mkdir, open } from 'node:fs/promises'
import { join } from 'node:path'
import { failed, ok, type Result } from '../util/result.js'

// Files the CLI writes inside a repository it does not trust (a checked-out branch may commit
// `.rubric-council/sessions` as a symbolic link to anywhere): no link is followed on the way, and
// the file itself is opened with O_NOFOLLOW, so a link found where a folder or file should be is
// refused, with its path, instead of written through.

/** A path inside `root`, as `/`-separated segments; each segment is a plain name. */
type Segments = readonly string[]

const splitPath = (path: string): Segments => path.split('/').filter(s => s !== '' && s !== '.')

/** Why the folders on the way are refused (a link, not a folder); made when missing. */
async function wayProblem(root: string, folders: Segments): Promise<string | undefined> {
  let at = root
  for (const [i, name] of folders.entries()) {
    if (name === '..') return `${folders.join('/')} climbs out of the repository`
    at = join(at, name)
    const shown = folders.slice(0, i + 1).join('/')
    const stat = await lstat(at).catch(() => undefined)
    if (stat === undefined) {
      await mkdir(at)
      continue
    }
    if (stat.isSymbolicLink()) {
      return `${shown} is a symbolic link: nothing is written through it (remove it, or run from a clean checkout)`
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
  const problem = await wayProblem(root, segments.slice(0, -1))
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

/** What an open refused, in words: ELOOP is O_NOFOLLOW meeting a link. */
function linkProblem(path: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ELOOP'
    ? `${path} is a symbolic link: nothing is written through it (remove it, or run from a clean checkout)`
    : `${path} cannot be opened (${code ?? String(error)})`
}
