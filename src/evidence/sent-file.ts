import { classify } from './classify.js'
import { escapeName, showControls, textPastFirstLine } from './content.js'
import { denylistRule, excludedBy } from './denylist.js'
import { redactPatch } from './redact.js'
import type { ChangedFile, EvidenceScope, FileKind, Omission, Redaction } from './types.js'

/** A changed file as the file list shows it: with its kind. */
export type ListedFile = ChangedFile & { readonly kind: FileKind }

/**
 * Globs of files not to send (see `excludedBy`). Only the rubric owner's (`waived`: the rubric
 * read from the base branch, or a local one) also take the files out of coverage; the others
 * (the action's input, a rubric from the pull request itself) hide them, and they count.
 */
export interface Exclusions {
  readonly waived: readonly string[]
  readonly unwaived: readonly string[]
}

/**
 * A file's patch as it is sent, and what was redacted in it: control characters shown as
 * symbols, secrets replaced by `[redacted: kind]`; in a secret file (see `secretFileRule`) every
 * value that looks like a credential too.
 */
export function redactFile(file: ChangedFile): { patch: string; redaction?: Redaction } {
  const secretFile = secretFileRule(file)
  // A NUL or other control character in a text file is shown, not sent raw (or hidden).
  const redacted = redactPatch(
    showControls(file.patch ?? ''),
    secretFile === undefined ? 'code' : 'secret file'
  )
  if (redacted.secrets === 0) return { patch: redacted.patch }
  return {
    patch: redacted.patch,
    redaction: {
      path: file.path,
      secrets: redacted.secrets,
      kinds: redacted.kinds,
      ...(secretFile !== undefined && { secretFile })
    }
  }
}

/**
 * The denylist rule that makes `file` a secret file, by its name or the name it was renamed or
 * copied from (`key.pem` renamed to `notes.txt` may still be the key).
 */
function secretFileRule(file: Pick<ChangedFile, 'path' | 'previousPath'>): string | undefined {
  const rule = denylistRule(file.path)
  if (rule !== undefined || file.previousPath === undefined) return rule
  const before = denylistRule(file.previousPath)
  return before === undefined ? undefined : `${before} (as ${escapeName(file.previousPath)})`
}

/**
 * A changed file as it is listed, with its kind. Media only when its content is binary and it is
 * not text past its first line either: text is reviewable whatever its first bytes say, so a
 * picture's signature in front of code does not hide the code (see `textPastFirstLine`).
 */
export function listedFile(file: ChangedFile, media: ReadonlyMap<string, string>): ListedFile {
  const format = file.binary ? media.get(file.path) : undefined
  if (format !== undefined && textPastFirstLine(file.patch ?? '')) {
    const text = { ...file, binary: false }
    return { ...text, kind: classify(text) }
  }
  return { ...file, kind: format === undefined ? classify(file) : 'media' }
}

/**
 * Why a file's content is not sent at all, whatever the budget, and whether that counts against
 * coverage. Only the trusted rubric's `exclude` waives a file. A secret file (`.env`, `*.key`) is
 * not ruled out for its name: it is sent with its credentials redacted (see `redactFile`), unless
 * its content is binary, which no redaction can make safe to send.
 */
export function ruledOut(
  file: ListedFile,
  exclude: Exclusions,
  media: ReadonlyMap<string, string>,
  scope?: EvidenceScope
): Omission | undefined {
  const { path } = file
  // A file moved into or out of the rubric's paths, or its `exclude`, is changed there too: by
  // both names. Moving reviewed code under an excluded folder does not take it out of review.
  const names = file.previousPath === undefined ? [path] : [path, file.previousPath]
  const waived = excludedBy(path, exclude.waived)
  if (waived !== undefined && names.every(name => excludedBy(name, exclude.waived) !== undefined)) {
    return { path, reason: 'excluded', detail: waived, counts: false }
  }
  if (scope !== undefined && !names.some(scope.inScope)) {
    const seenBy = names.map(name => scope.shownElsewhere?.(name)).find(by => by !== undefined)
    return {
      path,
      reason: 'out-of-scope',
      detail:
        seenBy === undefined
          ? "outside this rubric's paths, and the judges of no other rubric that applies are shown it: it counts against coverage"
          : `outside this rubric's paths; shown to the judges of ${seenBy}`,
      counts: seenBy === undefined
    }
  }
  const hidden = excludedBy(path, exclude.unwaived)
  if (hidden !== undefined) {
    return {
      path,
      reason: 'excluded',
      detail: `${hidden} (counts against coverage: only the base branch's rubric can waive a file)`,
      counts: true
    }
  }
  if (file.submodule === true) {
    return {
      path,
      reason: 'submodule',
      detail:
        'a submodule moved to another commit: the code it brings is not in this diff, and it counts against coverage',
      counts: true
    }
  }
  if (file.lfsPointer === true) {
    // The pointer's three lines are all the diff holds: the code a checkout gets is elsewhere.
    return { path, reason: 'lfs', detail: 'stored in Git LFS (content not fetched)', counts: true }
  }
  const secretFile = secretFileRule(file)
  if (file.binary && secretFile !== undefined) {
    return {
      path,
      reason: 'denylisted',
      detail: `${secretFile}, binary content: not sent, and it counts against coverage`,
      counts: true
    }
  }
  if (file.kind === 'media') {
    const format = media.get(path) ?? 'media'
    return { path, reason: 'media', detail: `${format}, recognised by its content`, counts: false }
  }
  if (file.binary) {
    return {
      path,
      reason: 'binary',
      detail:
        'binary content that is not a known media format: not sent, and it counts against coverage',
      counts: true
    }
  }
  return undefined
}
