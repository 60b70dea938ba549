/** What the judges are shown of the pull request (docs/council.md#evidence), and the receipt of what they were not. */

export type FileStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'copied'

/**
 * How a changed file is prioritised: source and tests first, then the rest. Media (pictures,
 * fonts, sound, video, recognised by their content and not text past their first line) and
 * other binary content are never sent.
 */
export type FileKind =
  'source' | 'test' | 'docs' | 'config' | 'lockfile' | 'generated' | 'vendored' | 'media' | 'binary'

/**
 * The order of the files shown, within each tier (docs/performance.md#the-order-of-the-files):
 * `diff`, git's (by path); `least-recently-changed`, the files the pull request's commits last
 * touched earliest first, so that a push's prompt repeats the last one's up to the files it
 * changed and a prompt cache serves more of it. Either way the same files are shown.
 */
export const EVIDENCE_ORDERS = ['diff', 'least-recently-changed'] as const
export type EvidenceOrder = (typeof EVIDENCE_ORDERS)[number]

export function isEvidenceOrder(value: string): value is EvidenceOrder {
  return (EVIDENCE_ORDERS as readonly string[]).includes(value)
}

export interface ChangedFile {
  readonly path: string
  /** For renames and copies. */
  readonly previousPath?: string
  readonly status: FileStatus
  readonly additions: number
  readonly deletions: number
  /** The unified-diff text of this file (from its `diff --git` line). */
  readonly patch?: string
  /** Mostly not text by its content (see `looksBinary`), whatever its name or attributes say. */
  readonly binary: boolean
  /** A submodule (a gitlink) that points at another commit: its code is not in this diff. */
  readonly submodule?: true
  /**
   * Its new content is a Git LFS pointer (see `isLfsPointer`): a checkout with LFS gets the
   * content the pointer names, which is not in this diff.
   */
  readonly lfsPointer?: true
}

export type OmissionReason =
  'denylisted' | 'excluded' | 'media' | 'binary' | 'submodule' | 'lfs' | 'budget' | 'out-of-scope'

/**
 * Which changed files a rubric among several is about (its `paths`), and which the judges of
 * another rubric that applies are shown in the same run: a file outside the first and the second
 * counts against coverage, for no judge sees it (docs/rubric.md#several-rubrics).
 */
export interface EvidenceScope {
  readonly inScope: (path: string) => boolean
  /** The check run name of another rubric whose judges are shown the file's content, if any. */
  readonly shownElsewhere?: (path: string) => string | undefined
}

export interface Omission {
  readonly path: string
  readonly reason: OmissionReason
  /**
   * For the reader: which rule or glob matched, or, for the budget, what is known of the file's
   * size (`more than 1,200 tokens; 641 left in the budget`) or why it was not tried.
   */
  readonly detail: string
  /**
   * Whether it counts against coverage: a file that could carry code and was not shown. Media and
   * what the trusted rubric's `exclude` waives do not. (A secret file is shown, its credentials
   * redacted; one that is binary is not, and counts.)
   */
  readonly counts: boolean
}

export interface Redaction {
  readonly path: string
  /**
   * Secrets replaced by `[redacted: kind]` in the patch sent: each a span of text (a value, a key,
   * a key's body over several lines), the code around it left as it was.
   */
  readonly secrets: number
  /** What was recognised, e.g. "AWS access key", "private key". */
  readonly kinds: readonly string[]
  /**
   * The denylist rule that makes it a secret file (`.env`, `*.key`; for a file renamed from one,
   * what it was), whose every value that looks like a credential was redacted: absent for code.
   */
  readonly secretFile?: string
}

export interface CoverageReceipt {
  readonly reviewed: readonly {
    readonly path: string
    readonly kind: FileKind
    readonly tokens: number
  }[]
  readonly omitted: readonly Omission[]
  readonly redacted: readonly Redaction[]
  /**
   * Files that count toward coverage: every file that could carry code, shown or not, secret files
   * included. Not counted: media, and files the trusted rubric's `exclude` waives.
   */
  readonly reviewable: number
  /** Reviewed reviewable files / reviewable files; 1 when nothing is reviewable. */
  readonly ratio: number
  readonly budgetTokens: number
  readonly usedTokens: number
}

interface PullRequestText {
  readonly title: string
  /** Hidden content (HTML comments, zero-width and bidi control characters) already stripped. */
  readonly body: string
}

export interface Evidence {
  readonly pr: PullRequestText
  /**
   * The changed files the judges are listed, reviewed or not (they see the list, not omitted
   * contents): all of them unless the list would take more than its share of the budget.
   */
  readonly files: readonly (ChangedFile & { readonly kind: FileKind })[]
  /** Changed files left out of the list for the budget (the receipt names each). */
  readonly unlisted: number
  /** Every changed path, listed or not, and where renamed or copied files came from. */
  readonly changed: readonly string[]
  /** The patches of the reviewed files, in priority order, secrets in them redacted. */
  readonly diff: string
  readonly receipt: CoverageReceipt
}
