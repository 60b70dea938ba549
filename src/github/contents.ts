import type { GitHub } from './client.js'
import { statusOf } from './client.js'
import type { Repo } from './comment.js'

/**
 * A file's text at a commit, through the API (the checkout holds the PR's version, not the
 * base's). Undefined when the file does not exist there.
 */
export async function fileAt(
  github: GitHub,
  where: Repo & { readonly path: string; readonly ref: string }
): Promise<string | undefined> {
  try {
    const { data } = await github.rest.repos.getContent({
      owner: where.owner,
      repo: where.repo,
      path: where.path,
      ref: where.ref
    })
    if (Array.isArray(data) || data.type !== 'file' || !('content' in data)) return undefined
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(
      Buffer.from(data.content, 'base64')
    )
  } catch (error) {
    if (statusOf(error) === 404) return undefined
    throw error
  }
}
