import { open } from 'node:fs/promises'
import { resolve } from 'node:path'
import { mapBounded } from '../util/pool.js'
import { buildEvidence } from './build.js'
import { mediaFormat, SIGNATURE_BYTES } from './content.js'
import { blobHead, runGit, type GitAuth, type Run } from './git-process.js'
import { defaultBase, diffFromMergeBase, lastChanges, localDiff } from './git.js'
import type { EvidenceRequest, EvidenceSource } from './source.js'
import type { ChangedFile, EvidenceOrder } from './types.js'

export interface EvidenceSettings {
  /** The `max-evidence-tokens` budget. */
  readonly maxTokens: number
  /** The `exclude` input: it hides files, but only a trusted rubric's `exclude` waives them. */
  readonly exclude: readonly string[]
  /** The `evidence-order` input; `diff` when not given. */
  readonly order?: EvidenceOrder
}

/** The pull request's commits' last change of each file, when the order asks for it. */
async function recencyFor(
  order: EvidenceOrder | undefined,
  cwd: string,
  from: string,
  to: string
): Promise<{ readonly recency?: ReadonlyMap<string, number> }> {
  if (order !== 'least-recently-changed') return {}
  const recency = await lastChanges(cwd, from, to)
  return recency === undefined ? {} : { recency }
}

/** The binary files whose first bytes are looked at; past this many, none is taken for media. */
const MAX_SNIFFED = 200
/** git processes reading first bytes at once: enough to keep two cores busy, not 200 spawns. */
const SNIFFING_AT_ONCE = 8

/**
 * The binary files whose first bytes (`head` reads them) are a media signature. Those that are
 * not text past their first line either are media (see `listedFile`): listed but not sent, and
 * they do not count against coverage. Any other binary file counts.
 */
async function sniffMedia(
  files: readonly ChangedFile[],
  head: (file: ChangedFile) => Promise<Uint8Array | undefined>
): Promise<Map<string, string>> {
  const binaries = files.filter(f => f.binary).slice(0, MAX_SNIFFED)
  const formats = await mapBounded(binaries, SNIFFING_AT_ONCE, async file => {
    const bytes = await head(file)
    return bytes === undefined ? undefined : mediaFormat(bytes, file.path)
  })
  return new Map(
    binaries.flatMap((file, i) => {
      const format = formats[i]
      return format === undefined ? [] : [[file.path, format] as const]
    })
  )
}

/** Which `exclude` globs only hide files, and which also waive them (a trusted rubric's). */
function exclusions(
  request: EvidenceRequest,
  input: readonly string[]
): {
  waived: readonly string[]
  unwaived: readonly string[]
} {
  const own = request.rubric.exclude
  return request.trusted
    ? { waived: own, unwaived: input }
    : { waived: [], unwaived: [...own, ...input] }
}

/**
 * Starts computing a pull request's diff from the merge base of its base and head commits, so
 * that git works (in its own process) while the action reads from GitHub. A failure surfaces
 * where the diff is used, as the evidence being unavailable.
 */
export function startDiff(options: {
  readonly cwd: string
  readonly baseSha: string
  readonly headSha: string
  readonly run?: Run
  /** For fetching what the checkout lacks (from a private repository, a fork's head). */
  readonly auth?: GitAuth
}): Promise<PullRequestDiff> {
  const diff = diffFromMergeBase({
    cwd: options.cwd,
    base: options.baseSha,
    head: options.headSha,
    ...(options.run && { run: options.run }),
    ...(options.auth && { auth: options.auth })
  }).then(result => ({ ...result, cwd: options.cwd, head: options.headSha }))
  // Handled where it is awaited; until then, not an unhandled rejection.
  diff.catch(() => undefined)
  return diff
}

export interface PullRequestDiff {
  readonly cwd: string
  readonly mergeBase: string
  readonly head: string
  readonly files: readonly ChangedFile[]
}

/** A pull request's evidence, from the diff `startDiff` computes, and git's objects. */
export function pullRequestEvidence(
  options: EvidenceSettings & {
    readonly diff: Promise<PullRequestDiff>
    readonly title: string
    readonly body: string
  }
): EvidenceSource {
  return {
    budget: options.maxTokens,
    order: options.order ?? 'diff',
    collect: async request => {
      const { cwd, mergeBase, head, files } = await options.diff
      const [media, recency] = await Promise.all([
        sniffMedia(files, file =>
          file.status === 'deleted'
            ? blobHead(cwd, mergeBase, file.path, SIGNATURE_BYTES)
            : blobHead(cwd, head, file.path, SIGNATURE_BYTES)
        ),
        recencyFor(options.order, cwd, mergeBase, head)
      ])
      return buildEvidence({
        ...recency,
        files,
        media,
        pr: { title: options.title, body: options.body },
        exclude: exclusions(request, options.exclude),
        ...(request.scope && { scope: request.scope }),
        maxTokens: Math.min(options.maxTokens, request.limit ?? Infinity)
      })
    }
  }
}

/**
 * A local repository's evidence for `rubric-council check`: the diff from the merge base of `base`
 * (default: the remote's default branch, else main) to the working tree, with the last commit as
 * title and body.
 */
export function localEvidence(
  options: EvidenceSettings & { readonly cwd: string; readonly base?: string; readonly run?: Run }
): EvidenceSource {
  const run = options.run ?? runGit
  return {
    budget: options.maxTokens,
    // Shown in git's order; which order the workflow's check shows them in is not known here, so
    // a calibration record's order is not compared: the local verdict is the check's forecast.
    collect: async request => {
      const base = options.base ?? (await defaultBase(options.cwd, run))
      const { mergeBase, files } = await localDiff({ cwd: options.cwd, base, run })
      const log = await run(['log', '-1', '--format=%s%n%b'], options.cwd)
      const [title = '', ...body] = log.exitCode === 0 ? log.stdout.split('\n') : []
      // The diff runs to the working tree: a file is read from it, a deleted one from the base.
      const media = await sniffMedia(files, file =>
        file.status === 'deleted'
          ? blobHead(options.cwd, mergeBase, file.path, SIGNATURE_BYTES)
          : fileHead(resolve(options.cwd, file.path), SIGNATURE_BYTES)
      )
      return buildEvidence({
        files,
        media,
        pr: { title, body: body.join('\n').trim() },
        exclude: exclusions(request, options.exclude),
        ...(request.scope && { scope: request.scope }),
        maxTokens: Math.min(options.maxTokens, request.limit ?? Infinity)
      })
    }
  }
}

/** The first `bytes` bytes of a file on disk; undefined when it cannot be read. */
async function fileHead(path: string, bytes: number): Promise<Uint8Array | undefined> {
  try {
    const handle = await open(path, 'r')
    try {
      const buffer = new Uint8Array(bytes)
      const { bytesRead } = await handle.read(buffer, 0, bytes, 0)
      return buffer.subarray(0, bytesRead)
    } finally {
      await handle.close()
    }
  } catch {
    return undefined
  }
}
