import { constants } from 'node:fs'
import { open, realpath, type FileHandle } from 'node:fs/promises'
import { isAbsolute, relative, sep } from 'node:path'
import { formatCount } from './format-count.js'
import { failed, ok, type Result } from './result.js'

/** Why a file was not read, and in words. */
export interface Unread {
  readonly reason: 'missing' | 'directory' | 'refused'
  readonly message: string
}

/**
 * A file's bytes, at most `maxBytes`: refused when it is anything but a regular file (a device, a
 * pipe, a folder) or larger, and never read whole then. With `root` (a repository the user did not
 * necessarily write), its real path must be inside it: a symbolic link out of it (to `/etc/passwd`,
 * to `/dev/zero`) is refused, with where it leads.
 */
export async function readCapped(
  path: string,
  maxBytes: number,
  root?: string
): Promise<Result<Buffer, Unread>> {
  const refused = (message: string): Result<Buffer, Unread> =>
    failed({ reason: 'refused', message })
  const directory = failed({ reason: 'directory' as const, message: 'is a directory, not a file' })
  let handle: FileHandle | undefined
  try {
    if (root !== undefined) {
      const [real, realRoot] = await Promise.all([realpath(path), realpath(root)])
      const inside = relative(realRoot, real)
      if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
        return refused(`leads to ${real}, outside the repository ${realRoot}: it is not read`)
      }
    }
    // Not blocking: opening a pipe nobody writes to must not hang before it is refused.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
    const stat = await handle.stat()
    if (stat.isDirectory()) return directory
    if (!stat.isFile()) return refused('is not a regular file (a device or a pipe)')
    if (stat.size > maxBytes) {
      return refused(
        `has ${formatCount(stat.size)} bytes, over the ${formatCount(maxBytes)} bytes it may have; it was not read`
      )
    }
    const buffer = Buffer.alloc(maxBytes + 1)
    let read = 0
    while (read < buffer.length) {
      const { bytesRead } = await handle.read(buffer, read, buffer.length - read, read)
      if (bytesRead === 0) break
      read += bytesRead
    }
    // Grown since its size was read: still never more than the cap.
    if (read > maxBytes)
      return refused(`is over the ${formatCount(maxBytes)} bytes it may have; it was not read`)
    return ok(buffer.subarray(0, read))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return failed({ reason: 'missing', message: 'not found' })
    if (code === 'EISDIR') return directory
    return refused(`cannot be read (${code ?? String(error)})`)
  } finally {
    await handle?.close()
  }
}
