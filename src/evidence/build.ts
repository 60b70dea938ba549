import { classify } from './classify.js'
import { escapeName, showControls, textPastFirstLine } from './content.js'
import { denylistRule, excludedBy } from './denylist.js'
import { stripHidden } from './pr-text.js'
import { redactPatch } from './redact.js'
import { countTokens, countTokensUpTo, truncateToTokens } from './tokens.js'
import { formatCount } from '../util/format-count.js'
import type {
  ChangedFile,
  Evidence,
  FileKind,
  Omission,
  OmissionReason,
  Redaction
} from './types.js'

export const DEFAULT_MAX_EVIDENCE_TOKENS = 60_000
/** The share of the budget the PR description may take: the change is what is being judged. */
const BODY_SHARE = 0.1

export interface EvidenceInput {
  readonly files: readonly ChangedFile[]
  readonly pr: { readonly title: string; readonly body: string }
  /**
   * Globs of files not to send (see `excludedBy`). Only the rubric owner's (`waived`: the rubric
   * read from the base branch, or a local one) also take the files out of coverage; the others
   * (the action's input, a rubric from the pull request itself) hide them, and they count.
   */
  readonly exclude: { readonly waived: readonly string[]; readonly unwaived: readonly string[] }
  /**
   * Binary files recognised by their first bytes as media, by path, with their format. Only a
   * binary file can be media, and only when it is not text past its first line either.
   */
  readonly media?: ReadonlyMap<string, string>
  readonly maxTokens: number
}

type ListedFile = ChangedFile & { readonly kind: FileKind }

/**
 * Budget tiers: what the rubric is about first (source and its tests), then what shapes it
 * (config, docs), then what is derived from it. Binary files never reach the budget.
 */
const TIER: Readonly<Record<FileKind, number>> = {
  source: 0,
  test: 0,
  config: 1,
  docs: 1,
  generated: 2,
  lockfile: 3,
  vendored: 4,
  media: 5,
  binary: 5
}

/** A file whose patch may be sent, waiting for its place in the budget. */
interface Candidate {
  readonly index: number
  readonly file: ListedFile
  /** UTF-8 bytes of the file's patch as in the diff: the size the budget orders files by. */
  readonly bytes: number
}

/** A candidate that fit: its redacted patch, and the exact tokens it costs. */
interface Included {
  readonly candidate: Candidate
  readonly patch: string
  readonly tokens: number
  readonly redaction: Redaction | undefined
}

/**
 * Why a candidate was left out for the budget, as far as it was looked at: nothing was left for
 * any patch (`spent`); tried and found larger than what was left (`limit`, the tokens left at its
 * turn); not tried because a file of its tier with a patch no larger did not fit (`after`); not in
 * the file list, so not reviewed either.
 */
type LeftOut =
  | { readonly candidate: Candidate; readonly why: 'spent' }
  | { readonly candidate: Candidate; readonly why: 'over'; readonly limit: number }
  | { readonly candidate: Candidate; readonly why: 'after'; readonly misfit: Candidate }
  | { readonly candidate: Candidate; readonly why: 'unlisted' }

/**
 * What the judges are shown, and the receipt of what they are not. Pure and deterministic.
 *
 * Counted against `maxTokens`: the title, the body (at most `BODY_SHARE` of the budget), one list
 * line per changed file (`fileListLine`) and the patches included. Whole files are included in
 * priority order: tier by tier (`TIER`), smallest patch first within a tier, its size taken in
 * bytes (so that more files fit). Within a tier, files are taken until one does not fit; that file
 * and the larger ones of its tier are left out, and the next tier gets its chance. (Ordered by
 * exact tokens, as before, a file that did not fit meant that none after it in its tier could; in
 * bytes, the larger files of its tier are only unlikely to, and are not tried.) Only when the
 * title, body and file list alone exceed the budget does `usedTokens` exceed it (then no patch is
 * included, and the coverage ratio shows it).
 *
 * The cost grows with the budget, not with the diff: a patch is redacted and tokenised only when
 * its turn comes, and counted only until it passes what is left (`countTokensUpTo`). So the files
 * that fit cost at most the budget's worth of tokens to count, and each tier's first file that
 * does not fit at most what was left at its turn (it is still redacted whole: see `fitting`); the
 * others are never redacted or tokenised, and the receipt says so. Ordering by exact tokens (as before) needed every patch counted: a text's
 * bytes bound its tokens from above, but nothing cheap bounds them from below, so no file can be
 * ranked, or ruled out, without counting it.
 */
export function buildEvidence(input: EvidenceInput): Evidence {
  const budget = Number.isFinite(input.maxTokens) ? Math.max(0, Math.floor(input.maxTokens)) : 0
  const title = stripHidden(input.pr.title)
  const body = limitBody(stripHidden(input.pr.body), Math.floor(budget * BODY_SHARE))

  const media = input.media ?? new Map<string, string>()
  const listed: ListedFile[] = input.files.map(file => listedFile(file, media))
  const omitted: { index: number; omission: Omission }[] = []
  const candidates: Candidate[] = []
  listed.forEach((file, index) => {
    const omission = ruledOut(file, input.exclude, media)
    if (omission !== undefined) {
      omitted.push({ index, omission })
      return
    }
    candidates.push({ index, file, bytes: Buffer.byteLength(file.patch ?? '') })
  })
  candidates.sort(byPriority)

  // The file list gets at most its share of the budget, most important files first; a file that
  // is not listed is not reviewed either. Each line is counted as the prompt may show it, with
  // the longest "not shown" note: an upper bound.
  const byImportance = [...candidates.map(c => c.index), ...omitted.map(o => o.index)]
  const listBudget = Math.floor(budget * LIST_SHARE)
  const inList = new Set<number>()
  let listTokens = 0
  for (const index of byImportance) {
    const file = listed[index]
    if (!file) continue
    const cost = countTokensUpTo(fileListLine(file, LONGEST_REASON), listBudget - listTokens)
    if (listTokens + cost > listBudget) break
    inList.add(index)
    listTokens += cost
  }
  const unlisted = listed.length - inList.size
  const fixed =
    countTokens(title) +
    countTokens(body) +
    listTokens +
    (unlisted > 0 ? countTokens(unlistedLine(unlisted)) : 0)
  let used = fixed
  const included: Included[] = []
  const leftOut: LeftOut[] = []
  /** The first file of each tier that did not fit. */
  const misfits = new Map<number, Candidate>()
  for (const candidate of candidates) {
    const tier = TIER[candidate.file.kind]
    const misfit = misfits.get(tier)
    if (!inList.has(candidate.index)) {
      leftOut.push({ candidate, why: 'unlisted' })
    } else if (misfit !== undefined) {
      leftOut.push({ candidate, why: 'after', misfit })
    } else if (used > budget) {
      leftOut.push({ candidate, why: 'spent' })
    } else {
      const limit = budget - used
      const fit = fitting(candidate, limit)
      if (fit === undefined) {
        leftOut.push({ candidate, why: 'over', limit })
        misfits.set(tier, candidate)
      } else {
        included.push(fit)
        used += fit.tokens
      }
    }
  }
  const left = Math.max(0, budget - used)
  for (const out of leftOut) {
    omitted.push({
      index: out.candidate.index,
      omission: {
        path: out.candidate.file.path,
        reason: 'budget',
        detail: budgetDetail(out, left),
        counts: true
      }
    })
  }

  // Shown in priority order with the exact counts now known: tier by tier, fewest tokens first.
  const shown = [...included].sort(
    (a, b) =>
      TIER[a.candidate.file.kind] - TIER[b.candidate.file.kind] ||
      a.tokens - b.tokens ||
      a.candidate.index - b.candidate.index
  )
  const sentPatches = new Map(shown.map(c => [c.candidate.index, c.patch]))
  const reviewable = reviewableCount(candidates.length, omitted)
  return {
    pr: { title, body },
    // Only reviewed files keep a patch, and it is the redacted one: nothing else is reachable.
    files: listed.flatMap((file, index) =>
      inList.has(index) ? [withPatch(file, sentPatches.get(index))] : []
    ),
    unlisted,
    changed: changedPaths(input.files),
    diff: shown.map(c => (c.patch.endsWith('\n') ? c.patch : `${c.patch}\n`)).join(''),
    receipt: {
      reviewed: shown.map(c => ({
        path: c.candidate.file.path,
        kind: c.candidate.file.kind,
        tokens: c.tokens
      })),
      omitted: omitted.sort((a, b) => a.index - b.index).map(o => o.omission),
      redacted: shown.flatMap(c => (c.redaction === undefined ? [] : [c.redaction])),
      reviewable,
      ratio: reviewable === 0 ? 1 : included.length / reviewable,
      budgetTokens: budget,
      usedTokens: used
    }
  }
}

/**
 * The candidate's redacted patch and its exact tokens when they are at most `limit`, else
 * undefined. The whole patch is redacted (a secret's replacement may be longer or shorter than
 * the secret, and a key's body runs over lines, so what would be sent is known only then), but
 * counted no further than `limit` tokens.
 */
function fitting(candidate: Candidate, limit: number): Included | undefined {
  const { patch, redaction } = redactFile(candidate.file)
  // The prompt also says what it redacted in the file: that line is the file's too.
  const note = redaction === undefined ? 0 : countTokens(redactionLine(redaction))
  const tokens = note + countTokensUpTo(patch, limit - note)
  return tokens <= limit ? { candidate, patch, tokens, redaction } : undefined
}

/**
 * A file's patch as it is sent, and what was redacted in it: control characters shown as
 * symbols, secrets replaced by `[redacted: kind]`; in a secret file (see `secretFileRule`) every
 * value that looks like a credential too.
 */
function redactFile(file: ChangedFile): { patch: string; redaction?: Redaction } {
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
function listedFile(file: ChangedFile, media: ReadonlyMap<string, string>): ListedFile {
  const format = file.binary ? media.get(file.path) : undefined
  if (format !== undefined && textPastFirstLine(file.patch ?? '')) {
    const text = { ...file, binary: false }
    return { ...text, kind: classify(text) }
  }
  return { ...file, kind: format === undefined ? classify(file) : 'media' }
}

/** The receipt's detail for a file left out for the budget: only what is known of it. */
function budgetDetail(out: LeftOut, left: number): string {
  const remaining = `${formatCount(left)} left in the budget`
  switch (out.why) {
    case 'spent':
      return 'not tried: the title, description and file list fill the budget'
    case 'over':
      // Counted until it passed `limit`, the tokens left at its turn (never fewer than `left`).
      return `more than ${formatCount(out.limit)} tokens; ${remaining}`
    case 'after':
      return `not tried: ${out.misfit.file.path} did not fit and is no larger`
    case 'unlisted':
      // A file the list has no room for is not reviewed (see the list's share above).
      return 'not tried: the file list is full'
  }
}

/**
 * The line the file list gives each changed file, e.g. `renamed src/b.ts (from src/a.ts) +3 -1
 * [source]`. Its tokens are counted against the budget, so the prompt should list files this way.
 */
export function fileListLine(file: ListedFile, notShown?: OmissionReason): string {
  const from = file.previousPath === undefined ? '' : ` (from ${escapeName(file.previousPath)})`
  const note = notShown === undefined ? '' : ` — not shown: ${notShown}`
  return `- ${file.status} ${escapeName(file.path)}${from} +${file.additions} -${file.deletions} [${file.kind}]${note}`
}

/** The share of the budget the file list may take: a huge change still leaves room for patches. */
const LIST_SHARE = 0.25

/** What the prompt says in place of the files the list had no room for. */
export function unlistedLine(count: number): string {
  return `- … and ${count} more changed file${count === 1 ? '' : 's'}, not listed for the budget (the coverage receipt names them)`
}

/** The longest reason a file can be left out for, to count the list's lines from above. */
const LONGEST_REASON: OmissionReason = 'denylisted'

/** The line the prompt gives a file whose secrets were redacted. */
export function redactionLine(r: Redaction): string {
  const secretFile =
    r.secretFile === undefined
      ? ''
      : `; a secret file (${escapeName(r.secretFile)}): every value that looked like a credential`
  return `- ${escapeName(r.path)}: ${r.secrets} secret${r.secrets === 1 ? '' : 's'} replaced by [redacted: …] (looked like ${r.kinds.join(', ')}${secretFile})`
}

/**
 * Why a file's content is not sent at all, whatever the budget, and whether that counts against
 * coverage. Only the trusted rubric's `exclude` waives a file. A secret file (`.env`, `*.key`) is
 * not ruled out for its name: it is sent with its credentials redacted (see `redactFile`), unless
 * its content is binary, which no redaction can make safe to send.
 */
function ruledOut(
  file: ListedFile,
  exclude: EvidenceInput['exclude'],
  media: ReadonlyMap<string, string>
): Omission | undefined {
  const { path } = file
  const waived = excludedBy(path, exclude.waived)
  if (waived !== undefined) return { path, reason: 'excluded', detail: waived, counts: false }
  const hidden = excludedBy(path, exclude.unwaived)
  if (hidden !== undefined) {
    return {
      path,
      reason: 'excluded',
      detail: `${hidden} (counts against coverage: only the base branch's rubric can waive a file)`,
      counts: true
    }
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

function byPriority(a: Candidate, b: Candidate): number {
  return TIER[a.file.kind] - TIER[b.file.kind] || a.bytes - b.bytes || a.index - b.index
}

/**
 * Files that count toward coverage, shown or not: the candidates for the budget, and the files
 * ruled out that could carry code (binary, or excluded) and that nobody entitled to waive them did.
 */
function reviewableCount(
  candidates: number,
  omitted: readonly { readonly omission: Omission }[]
): number {
  return (
    candidates + omitted.filter(o => o.omission.reason !== 'budget' && o.omission.counts).length
  )
}

/** Every changed path, and where renamed or copied files came from, each once. */
function changedPaths(files: readonly ChangedFile[]): string[] {
  return [
    ...new Set(
      files.flatMap(f => (f.previousPath === undefined ? [f.path] : [f.path, f.previousPath]))
    )
  ]
}

/** The entry without its original patch; with `patch` (the redacted one) when it was reviewed. */
function withPatch(file: ListedFile, patch: string | undefined): ListedFile {
  return {
    path: file.path,
    ...(file.previousPath === undefined ? {} : { previousPath: file.previousPath }),
    status: file.status,
    additions: file.additions,
    deletions: file.deletions,
    ...(patch === undefined ? {} : { patch }),
    binary: file.binary,
    kind: file.kind
  }
}

/** Retries with a shorter cut when re-tokenising the cut text comes out a little longer. */
const CUT_ATTEMPTS = 5

/**
 * The body, cut to `limit` tokens with a note saying how much was cut. Even when the note alone
 * is over the limit (absurdly small budgets), the note is kept: the judges must know the
 * description was cut rather than see an empty one.
 */
function limitBody(body: string, limit: number): string {
  const total = countTokens(body)
  if (total <= limit) return body
  const note = (cut: number): string => `[… ${formatCount(cut)} tokens of the PR description cut]`
  let keep = Math.max(0, limit - countTokens(`\n\n${note(total)}`))
  for (let attempt = 0; attempt < CUT_ATTEMPTS && keep > 0; attempt++) {
    const kept = truncateToTokens(body, keep).trimEnd()
    const cut = `${kept}\n\n${note(total - countTokens(kept))}`
    if (countTokens(cut) <= limit) return cut
    keep = Math.max(0, keep - 8)
  }
  return note(total)
}
