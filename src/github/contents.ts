import type { GitHub } from './client.js'
import { statusOf } from './client.js'
import type { Repo } from './comment.js'
import type { UnreadFile } from '../rubric/read-extends.js'
import { failed, ok, type Result } from '../util/result.js'

type Where = Repo & { readonly path: string; readonly ref: string }

/** `GET /contents/{path}` at a ref: a file's or a folder's entry; undefined on 404. */
async function contentAt(github: GitHub, where: Where) {
  try {
    const { data } = await github.rest.repos.getContent({
      owner: where.owner,
      repo: where.repo,
      path: where.path,
      ref: where.ref
    })
    return data
  } catch (error) {
    if (statusOf(error) === 404) return undefined
    throw error
  }
}

/**
 * A file's text at a commit, through the API (the checkout holds the PR's version, not the
 * base's). Undefined when the file does not exist there.
 */
export async function fileAt(github: GitHub, where: Where): Promise<string | undefined> {
  const data = await contentAt(github, where)
  if (data === undefined || Array.isArray(data) || data.type !== 'file' || !('content' in data))
    return undefined
  return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(
    Buffer.from(data.content, 'base64')
  )
}

/**
 * The paths of the files (not the folders) right in a folder at a ref, through the API, sorted;
 * none when the folder does not exist there.
 */
export async function filesIn(github: GitHub, where: Where): Promise<string[]> {
  const data = await contentAt(github, where)
  if (!Array.isArray(data)) return []
  return data
    .filter(entry => entry.type === 'file')
    .map(entry => entry.path)
    .sort()
}

/**
 * A file of any repository the token can read, at a ref: its text, or the status GitHub refused
 * it with (404 also when the token cannot see the repository).
 */
export async function fileInRepository(
  github: GitHub,
  where: Repo & { readonly path: string; readonly ref: string }
): Promise<Result<string, UnreadFile>> {
  try {
    const text = await fileAt(github, where)
    return text === undefined ? failed({ status: 404, message: 'not a file' }) : ok(text)
  } catch (error) {
    const status = statusOf(error)
    const message = error instanceof Error ? error.message : String(error)
    return failed({ ...(status !== undefined && { status }), message })
  }
}
