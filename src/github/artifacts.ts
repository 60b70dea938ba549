import { proxiedFetch } from '../util/fetch.js'
import { ActionsError, actionsError, type RunWhere } from './actions-runs.js'
import type { GitHub } from './client.js'
import type { Repo } from './comment.js'
import { readZipEntry } from './zip.js'

/**
 * Workflow artifacts: found by name on a run, and one file read out of one, for the trusted side of
 * the split layout. The artifact was uploaded by a job that ran the pull request's code, so its
 * zip is hostile input (see `zip.ts`), read within caps.
 */

export interface Artifact {
  readonly id: number
  readonly name: string
  readonly sizeInBytes: number
  /** Past its retention period: listed still, but its files are gone (a download answers 410). */
  readonly expired: boolean
}

/** The download of the zip may not pass this many bytes unless `maxDownloadBytes` says otherwise. */
const MAX_DOWNLOAD_BYTES = 16 * 1024 * 1024
/** An artifact's zip may hold at most this many entries unless `maxEntries` says otherwise. */
const MAX_ENTRIES = 1000
/** The download from blob storage, answer and body, must be done within this many milliseconds. */
const DOWNLOAD_TIMEOUT_MS = 60_000

/**
 * The run's artifact named exactly `name` (`GET …/actions/runs/{run_id}/artifacts?name=`, every
 * page), undefined when there is none. Should several share the name, the newest that has not
 * expired, or the newest expired one when all have. Any job of the run could have uploaded it: the
 * name says nothing about which.
 */
export async function findArtifact(
  github: GitHub,
  where: RunWhere & { readonly name: string }
): Promise<Artifact | undefined> {
  let listed
  try {
    listed = await github.paginate(github.rest.actions.listWorkflowRunArtifacts, {
      owner: where.owner,
      repo: where.repo,
      run_id: where.runId,
      name: where.name,
      per_page: 100
    })
  } catch (error) {
    throw actionsError(error, `the artifacts of workflow run ${where.runId}`, where)
  }
  const newestFirst = listed
    .filter(a => a.name === where.name)
    .sort((a, b) => Date.parse(b.created_at ?? '') - Date.parse(a.created_at ?? '') || b.id - a.id)
  const chosen = newestFirst.find(a => !a.expired) ?? newestFirst[0]
  return chosen === undefined
    ? undefined
    : {
        id: chosen.id,
        name: chosen.name,
        sizeInBytes: chosen.size_in_bytes,
        expired: chosen.expired
      }
}

export interface ArtifactFileRequest extends Repo {
  readonly artifactId: number
  /** The entry's path inside the artifact, exactly as uploaded (e.g. `gates.json`). */
  readonly file: string
  /** The entry's declared and actual size may not pass this. */
  readonly maxBytes: number
  /** The zip as downloaded; MAX_DOWNLOAD_BYTES by default. */
  readonly maxDownloadBytes?: number
  /** Entries in the zip; MAX_ENTRIES by default. */
  readonly maxEntries?: number
  /** DOWNLOAD_TIMEOUT_MS by default. */
  readonly timeoutMs?: number
  /** For the blob storage download; by default through the runner's proxy, as the API is. */
  readonly fetch?: typeof globalThis.fetch
}

/**
 * The bytes of one file of an artifact. GitHub answers the download
 * (`GET …/actions/artifacts/{artifact_id}/zip`) with a redirect to a short-lived signed URL on its
 * blob storage; the redirect is not followed by Octokit, which would send the token along when the
 * target shares the API's origin (as on some GitHub Enterprise Server setups), but fetched here
 * with no credentials at all. Throws ActionsError (permission, not found, expired, too large,
 * failed download) or ZipError (the zip refused).
 */
export async function downloadArtifactFile(
  github: GitHub,
  request: ArtifactFileRequest
): Promise<Buffer> {
  const what = `artifact ${request.artifactId}`
  const maxDownload = request.maxDownloadBytes ?? MAX_DOWNLOAD_BYTES
  const location = await downloadLocation(github, request, what)
  const signal = AbortSignal.timeout(request.timeoutMs ?? DOWNLOAD_TIMEOUT_MS)
  const fetch = request.fetch ?? proxiedFetch(Number.POSITIVE_INFINITY)
  // The signed URL is a credential for a minute: messages name its host only.
  const host = location.host
  let response: Response
  try {
    response = await fetch(location, { signal, redirect: 'follow' })
  } catch (error) {
    throw new ActionsError(
      'download',
      `could not download ${what} from ${host}: ${reason(error)}`,
      undefined,
      { cause: error }
    )
  }
  if (!response.ok) {
    await response.body?.cancel()
    throw new ActionsError(
      'download',
      `could not download ${what}: ${host} answered ${response.status}`,
      response.status
    )
  }
  const length = response.headers.get('content-length')
  if (length !== null && Number(length) > maxDownload) {
    await response.body?.cancel()
    throw tooLarge(what, `${length} bytes`, maxDownload)
  }
  const zip = await readBounded(response, maxDownload, what, host)
  return readZipEntry(zip, request.file, {
    maxBytes: request.maxBytes,
    maxEntries: request.maxEntries ?? MAX_ENTRIES
  })
}

/** The blob storage URL GitHub redirects the artifact's download to. */
async function downloadLocation(
  github: GitHub,
  request: ArtifactFileRequest,
  what: string
): Promise<URL> {
  let status: number
  let location: string | undefined
  let answeredAt: string
  try {
    const response = await github.rest.actions.downloadArtifact({
      owner: request.owner,
      repo: request.repo,
      artifact_id: request.artifactId,
      archive_format: 'zip',
      request: { redirect: 'manual' }
    })
    status = response.status
    location = response.headers.location
    answeredAt = response.url
  } catch (error) {
    throw actionsError(error, what, request)
  }
  if (status !== 302 || location === undefined) {
    throw new ActionsError(
      'download',
      `GitHub answered the download of ${what} with ${status}${location === undefined ? ' and no Location' : ''}, not a redirect to its zip`,
      status
    )
  }
  let url: URL
  try {
    url = new URL(location, answeredAt)
  } catch {
    throw new ActionsError('download', `GitHub redirected the download of ${what} to no valid URL`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ActionsError(
      'download',
      `GitHub redirected the download of ${what} to a ${url.protocol} URL, not an HTTP one`
    )
  }
  return url
}

/** The body, refused as soon as it passes `max` bytes, whatever Content-Length said. */
async function readBounded(
  response: Response,
  max: number,
  what: string,
  host: string
): Promise<Uint8Array> {
  // Node's types leave the chunks `any`; fetch's are Uint8Array.
  const body = response.body as ReadableStream<Uint8Array> | null
  if (body === null) return new Uint8Array(0)
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      total += value.byteLength
      if (total > max) {
        await reader.cancel()
        throw tooLarge(what, `more than ${max} bytes`, max)
      }
      chunks.push(value)
    }
  } catch (error) {
    if (error instanceof ActionsError) throw error
    throw new ActionsError(
      'download',
      `could not download ${what} from ${host}: ${reason(error)}`,
      undefined,
      { cause: error }
    )
  }
  return Buffer.concat(chunks, total)
}

function tooLarge(what: string, size: string, max: number): ActionsError {
  return new ActionsError(
    'too-large',
    `${what} is ${size} to download, more than the ${max} allowed: the gates job uploads ` +
      'more than its results'
  )
}

function reason(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return 'timed out'
  }
  const cause = error instanceof Error ? error.cause : undefined
  const detail = cause instanceof Error ? `: ${cause.message}` : ''
  return `${error instanceof Error ? error.message : String(error)}${detail}`
}
