import { posix } from 'node:path'
import type { GitHub } from './client.js'
import type { Repo } from './comment.js'

/**
 * What a review reads of the base branch before it starts, in one GraphQL request instead of one
 * REST request a file: the pull request's head now (is this run already superseded?), the main
 * rubric and the files of the `rubrics/` folder beside it. Anything the request cannot give as
 * the REST reads would (a symbolic link, which the contents API follows inside the repository; a
 * blob GraphQL cuts short or calls binary; a request that fails) is read through those REST reads,
 * so what the review grades by is the same either way.
 */
export interface BaseFiles {
  /** The pull request's head commit now; undefined when it could not be read. */
  readonly head: string | undefined
  /** A file's text at the base ref; undefined when it does not exist there (as `fileAt`). */
  readonly fileAt: (path: string) => Promise<string | undefined>
  /** The files right in a folder at the base ref, sorted (as `filesAt`). */
  readonly filesIn: (folder: string) => Promise<string[]>
}

/** The port's REST reads the snapshot falls back on, at the same ref. */
export interface RestReads {
  readonly pullRequest: (number: number) => Promise<{ readonly headSha: string } | undefined>
  readonly fileAt: (path: string, ref: string) => Promise<string | undefined>
  readonly filesAt: (folder: string, ref: string) => Promise<string[]>
}

/** What to read: the base ref (a branch's full name or a commit), the pull request, the paths. */
export interface BaseWhere {
  readonly ref: string
  readonly number: number
  /** The main rubric's path in the repository. */
  readonly main: string
  /** The `rubrics/` folder beside it. */
  readonly folder: string
  /**
   * The main rubric's calibration record (`defaultRecordPath`): read in the same request when it
   * is beside the rubric, so that reading it costs no request of its own.
   */
  readonly record?: string
}

const QUERY = `query RubricCouncilBase($owner: String!, $name: String!, $number: Int!, $parent: String!, $main: String!, $folder: String!, $record: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) { headRefOid }
    parent: object(expression: $parent) { ... on Tree { entries { name type mode } } }
    main: object(expression: $main) { ...File }
    record: object(expression: $record) { ...File }
    folder: object(expression: $folder) {
      ... on Tree { entries { name type mode object { ...File } } }
    }
  }
}
fragment File on Blob { text isBinary isTruncated byteSize }`

interface Blob {
  readonly text?: string | null
  readonly isBinary?: boolean | null
  readonly isTruncated?: boolean
  readonly byteSize?: number
}
interface Entry {
  readonly name: string
  readonly type: string
  readonly mode: number
  readonly object?: Blob | null
}
interface Answer {
  readonly repository?: {
    readonly pullRequest?: { readonly headRefOid: string } | null
    readonly parent?: { readonly entries?: readonly Entry[] | null } | null
    readonly main?: Blob | null
    readonly record?: Blob | null
    readonly folder?: { readonly entries?: readonly Entry[] | null } | null
  } | null
}

/** A regular file's modes in git (0o100644, 0o100755); a link is 0o120000. */
const REGULAR = new Set([0o100644, 0o100755])

/** What the answer says of one path: its text, that it is not there, or ask REST. */
type Known = { readonly text: string } | 'absent' | 'ask'

/** The text of a regular file's blob when GraphQL gave all of it as UTF-8; else ask REST. */
function textOf(
  entry: Pick<Entry, 'type' | 'mode'> | undefined,
  blob: Blob | null | undefined
): Known {
  if (entry === undefined) return 'absent'
  if (entry.type !== 'blob' || !REGULAR.has(entry.mode)) return 'ask'
  const text = blob?.text
  if (typeof text !== 'string' || blob?.isTruncated !== false || blob.isBinary === true)
    return 'ask'
  // A byte GraphQL could not give as UTF-8 changes the length: the REST read refuses such a file.
  return Buffer.byteLength(text) === blob.byteSize ? { text } : 'ask'
}

/** The answer read into what it says of the main file and the folder; undefined when unusable. */
export function readAnswer(
  answer: unknown,
  where: Pick<BaseWhere, 'main' | 'folder' | 'record'>
):
  | {
      readonly head: string | undefined
      readonly files: ReadonlyMap<string, Known>
      readonly folder: readonly string[]
    }
  | undefined {
  const repository = (answer as Answer | undefined)?.repository
  if (!repository) return undefined
  const files = new Map<string, Known>()
  const name = posix.basename(where.main)
  const mainEntry = repository.parent?.entries?.find(e => e.name === name)
  files.set(where.main, textOf(mainEntry, repository.main))
  // The record beside the rubric is an entry of the same folder; elsewhere, REST reads it.
  const { record } = where
  if (record !== undefined && posix.dirname(record) === posix.dirname(where.main)) {
    const recordEntry = repository.parent?.entries?.find(e => e.name === posix.basename(record))
    files.set(record, textOf(recordEntry, repository.record))
  }
  const folder: string[] = []
  for (const entry of repository.folder?.entries ?? []) {
    const path = posix.join(where.folder, entry.name)
    // As the contents API lists a folder: its files (a link is listed as a link, not a file), and
    // what else is there is for REST to read.
    if (entry.type !== 'blob' || !REGULAR.has(entry.mode)) {
      files.set(path, 'ask')
      continue
    }
    folder.push(path)
    files.set(path, textOf(entry, entry.object))
  }
  return { head: repository.pullRequest?.headRefOid, files, folder: folder.sort() }
}

/**
 * The base's rubric files and the pull request's head, read at once (`BaseFiles`); when the
 * GraphQL request fails, every read is the REST read it stands for.
 */
export async function readBaseFiles(
  github: GitHub,
  repo: Repo,
  where: BaseWhere,
  rest: RestReads
): Promise<BaseFiles> {
  const parent = posix.dirname(where.main)
  const answer = await github
    .graphql<unknown>(QUERY, {
      owner: repo.owner,
      name: repo.repo,
      number: where.number,
      parent: `${where.ref}:${parent === '.' ? '' : parent}`,
      main: `${where.ref}:${where.main}`,
      folder: `${where.ref}:${where.folder}`,
      record: where.record === undefined ? null : `${where.ref}:${where.record}`
    })
    .then(
      data => readAnswer(data, where),
      () => undefined
    )
  const fileAt = (path: string): Promise<string | undefined> => {
    // The folder's entries are all listed: a file right in it that is not (a calibration record
    // beside its rubric) is not there.
    const listed = answer !== undefined && posix.dirname(path) === where.folder
    const known = answer?.files.get(path) ?? (listed ? 'absent' : undefined)
    if (known === 'absent') return Promise.resolve(undefined)
    if (known !== undefined && known !== 'ask') return Promise.resolve(known.text)
    return rest.fileAt(path, where.ref)
  }
  const filesIn = (folder: string): Promise<string[]> =>
    answer !== undefined && folder === where.folder
      ? Promise.resolve([...answer.folder])
      : rest.filesAt(folder, where.ref)
  const head =
    answer?.head ?? (await rest.pullRequest(where.number).catch(() => undefined))?.headSha
  return { head, fileAt, filesIn }
}
