import { stripHidden } from './pr-text.js'
import {
  fileListLine,
  limitBody,
  LONGEST_REASON,
  redactionLine,
  unlistedLine
} from './prompt-lines.js'
import { listedFile, redactFile, ruledOut, type Exclusions, type ListedFile } from './sent-file.js'
import { countTokens, countTokensUpTo } from './tokens.js'
import { formatCount } from '../util/format-count.js'
import type {
  ChangedFile,
  Evidence,
  EvidenceScope,
  FileKind,
  Omission,
  Redaction
} from './types.js'

export const DEFAULT_MAX_EVIDENCE_TOKENS = 60_000
/** The share of the budget the PR description may take: the change is what is being judged. */
const BODY_SHARE = 0.1
/** The share of the budget the file list may take: a huge change still leaves room for patches. */
const LIST_SHARE = 0.25

export interface EvidenceInput {
  readonly files: readonly ChangedFile[]
  readonly pr: { readonly title: string; readonly body: string }
  readonly exclude: Exclusions
  /**
   * Binary files recognised by their first bytes as media, by path, with their format. Only a
   * binary file can be media, and only when it is not text past its first line either.
   */
  readonly media?: ReadonlyMap<string, string>
  readonly maxTokens: number
  /** A rubric among several: the files outside its paths are listed by name only. */
  readonly scope?: EvidenceScope
  /**
   * For `evidence-order: least-recently-changed`: by path, when the pull request's commits last
   * touched each file (`lastChanges`, larger is later). A file it does not name (changed by a
   * merge's own resolution) counts as changed last of all.
   */
  readonly recency?: ReadonlyMap<string, number>
}

/**
 * Budget tiers: what the rubric is about first (source and its tests), then what shapes it
 * (config, docs), then what is derived from it. Binary files never reach the budget.
 */
export const TIER: Readonly<Record<FileKind, number>> = {
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
  const { omitted, candidates } = sortOut(listed, input, media)
  const byImportance = [...candidates.map(c => c.index), ...omitted.map(o => o.index)]
  const list = fileList(listed, byImportance, Math.floor(budget * LIST_SHARE), input.scope)
  const unlisted = listed.length - list.indexes.size
  const fixed =
    countTokens(title) +
    countTokens(body) +
    list.tokens +
    (unlisted > 0 ? countTokens(unlistedLine(unlisted)) : 0)
  const { included, leftOut, used } = fillBudget(candidates, list.indexes, budget, fixed)
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

  // Shown tier by tier, in the diff's order within a tier (or, given `recency`, the least
  // recently changed first): a file keeps its place when a push changes its size, so the
  // providers' prompt caches serve the diff up to the first file that changed (the judges' prompt
  // puts the diff first, see council/prompt.ts).
  const changedAt = (c: Included): number =>
    input.recency === undefined
      ? 0
      : (input.recency.get(c.candidate.file.path) ?? Number.MAX_SAFE_INTEGER)
  const shown = [...included].sort(
    (a, b) =>
      TIER[a.candidate.file.kind] - TIER[b.candidate.file.kind] ||
      changedAt(a) - changedAt(b) ||
      a.candidate.index - b.candidate.index
  )
  const sentPatches = new Map(shown.map(c => [c.candidate.index, c.patch]))
  const reviewable = reviewableCount(candidates.length, omitted)
  return {
    pr: { title, body },
    // Only reviewed files keep a patch, and it is the redacted one: nothing else is reachable.
    files: listed.flatMap((file, index) =>
      list.indexes.has(index) ? [withPatch(file, sentPatches.get(index))] : []
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

interface Omitted {
  readonly index: number
  readonly omission: Omission
}

/** The files ruled out before the budget, and the others, the candidates, in priority order. */
function sortOut(
  listed: readonly ListedFile[],
  input: EvidenceInput,
  media: ReadonlyMap<string, string>
): { omitted: Omitted[]; candidates: Candidate[] } {
  const omitted: Omitted[] = []
  const candidates: Candidate[] = []
  listed.forEach((file, index) => {
    const omission = ruledOut(file, input.exclude, media, input.scope)
    if (omission !== undefined) {
      omitted.push({ index, omission })
      return
    }
    candidates.push({ index, file, bytes: Buffer.byteLength(file.patch ?? '') })
  })
  candidates.sort(byPriority)
  return { omitted, candidates }
}

/**
 * The files in the file list, by index, and its tokens: at most `listBudget`, most important
 * files first; a file that is not listed is not reviewed either. Each line is counted as the
 * prompt may show it, with the longest "not shown" note: an upper bound.
 */
function fileList(
  listed: readonly ListedFile[],
  byImportance: readonly number[],
  listBudget: number,
  scope: EvidenceInput['scope']
): { indexes: Set<number>; tokens: number } {
  const indexes = new Set<number>()
  const longest = scope === undefined ? LONGEST_REASON.alone : LONGEST_REASON.scoped
  let tokens = 0
  for (const index of byImportance) {
    const file = listed[index]
    if (!file) continue
    const cost = countTokensUpTo(fileListLine(file, longest), listBudget - tokens)
    if (tokens + cost > listBudget) break
    indexes.add(index)
    tokens += cost
  }
  return { indexes, tokens }
}

/**
 * The candidates' patches taken in priority order while they fit in `budget`, `fixed` tokens of
 * which are spent already; within a tier, none after the first that did not fit.
 */
function fillBudget(
  candidates: readonly Candidate[],
  inList: ReadonlySet<number>,
  budget: number,
  fixed: number
): { included: Included[]; leftOut: LeftOut[]; used: number } {
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
  return { included, leftOut, used }
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
      // A file the list has no room for is not reviewed (see `LIST_SHARE`).
      return 'not tried: the file list is full'
  }
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
