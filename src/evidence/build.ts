import { classify } from './classify.js'
import { denylistRule, excludedBy } from './denylist.js'
import { stripHidden } from './pr-text.js'
import { redactPatch } from './redact.js'
import { countTokens, truncateToTokens } from './tokens.js'
import { formatCount } from '../util/format-count.js'
import type {
  ChangedFile,
  Evidence,
  FileKind,
  Omission,
  OmissionReason,
  PriorIteration,
  Redaction
} from './types.js'

export const DEFAULT_MAX_EVIDENCE_TOKENS = 60_000
/** The share of the budget the PR description may take: the change is what is being judged. */
export const BODY_SHARE = 0.1

export interface EvidenceInput {
  readonly files: readonly ChangedFile[]
  readonly pr: { readonly title: string; readonly body: string }
  /** User globs (see `excludedBy`). */
  readonly exclude: readonly string[]
  readonly maxTokens: number
  readonly iteration: number
  readonly history: readonly PriorIteration[]
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
  binary: 5
}

/** A file whose (redacted) patch may be sent, waiting for its place in the budget. */
interface Candidate {
  readonly index: number
  readonly file: ListedFile
  readonly patch: string
  readonly tokens: number
  readonly redaction: Redaction | undefined
}

/**
 * What the judges are shown, and the receipt of what they are not. Pure and deterministic.
 *
 * Counted against `maxTokens`: the title, the body (at most `BODY_SHARE` of the budget), one list
 * line per changed file (`fileListLine`) and the patches included. Whole files are included in
 * priority order, smallest first within a tier so that more files fit; a file that does not fit
 * is skipped and the next, smaller or lower-priority, ones still get their chance. Only when the
 * title, body and file list alone exceed the budget does `usedTokens` exceed it (then no patch is
 * included, and the coverage ratio shows it).
 */
export function buildEvidence(input: EvidenceInput): Evidence {
  const budget = Number.isFinite(input.maxTokens) ? Math.max(0, Math.floor(input.maxTokens)) : 0
  const title = stripHidden(input.pr.title)
  const body = limitBody(stripHidden(input.pr.body), Math.floor(budget * BODY_SHARE))

  const listed: ListedFile[] = input.files.map(file => ({ ...file, kind: classify(file) }))
  const omitted: { index: number; omission: Omission }[] = []
  const candidates: Candidate[] = []
  listed.forEach((file, index) => {
    const omission = ruledOut(file, input.exclude)
    if (omission !== undefined) {
      omitted.push({ index, omission })
      return
    }
    const redacted = redactPatch(file.patch ?? '')
    const redaction =
      redacted.hunks > 0
        ? { path: file.path, hunks: redacted.hunks, kinds: redacted.kinds }
        : undefined
    candidates.push({
      index,
      file,
      patch: redacted.patch,
      // The prompt also says which hunks it redacted: that line is the file's too.
      tokens: countTokens(redacted.patch) + (redaction ? countTokens(redactionLine(redaction)) : 0),
      redaction
    })
  })

  // The file list gets at most its share of the budget, most important files first; a file that
  // is not listed is not reviewed either. Each line is counted as the prompt may show it, with
  // the longest "not shown" note: an upper bound.
  const byImportance = [
    ...[...candidates].sort(byPriority).map(c => c.index),
    ...omitted.map(o => o.index)
  ]
  const listBudget = Math.floor(budget * LIST_SHARE)
  const inList = new Set<number>()
  let listTokens = 0
  for (const index of byImportance) {
    const file = listed[index]
    if (!file) continue
    const cost = countTokens(fileListLine(file, LONGEST_REASON))
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
  const included: Candidate[] = []
  const leftOut: Candidate[] = []
  for (const candidate of [...candidates].sort(byPriority)) {
    if (inList.has(candidate.index) && used + candidate.tokens <= budget) {
      included.push(candidate)
      used += candidate.tokens
    } else {
      leftOut.push(candidate)
    }
  }
  const left = Math.max(0, budget - used)
  for (const { index, file, tokens } of leftOut) {
    omitted.push({
      index,
      omission: {
        path: file.path,
        reason: 'budget',
        detail: `${formatCount(tokens)} tokens; ${formatCount(left)} left in the budget`
      }
    })
  }

  const sentPatches = new Map(included.map(c => [c.index, c.patch]))
  const reviewable = candidates.length
  return {
    pr: { title, body },
    // Only reviewed files keep a patch, and it is the redacted one: nothing else is reachable.
    files: listed.flatMap((file, index) =>
      inList.has(index) ? [withPatch(file, sentPatches.get(index))] : []
    ),
    unlisted,
    diff: included.map(c => (c.patch.endsWith('\n') ? c.patch : `${c.patch}\n`)).join(''),
    receipt: {
      reviewed: included.map(c => ({ path: c.file.path, kind: c.file.kind, tokens: c.tokens })),
      omitted: omitted.sort((a, b) => a.index - b.index).map(o => o.omission),
      redacted: included.flatMap(c => (c.redaction === undefined ? [] : [c.redaction])),
      reviewable,
      ratio: reviewable === 0 ? 1 : included.length / reviewable,
      budgetTokens: budget,
      usedTokens: used
    },
    iteration: input.iteration,
    history: input.history
  }
}

/**
 * The line the file list gives each changed file, e.g. `renamed src/b.ts (from src/a.ts) +3 -1
 * [source]`. Its tokens are counted against the budget, so the prompt should list files this way.
 */
export function fileListLine(file: ListedFile, notShown?: OmissionReason): string {
  const from = file.previousPath === undefined ? '' : ` (from ${file.previousPath})`
  const note = notShown === undefined ? '' : ` — not shown: ${notShown}`
  return `- ${file.status} ${file.path}${from} +${file.additions} -${file.deletions} [${file.kind}]${note}`
}

/** The share of the budget the file list may take: a huge change still leaves room for patches. */
export const LIST_SHARE = 0.25

/** What the prompt says in place of the files the list had no room for. */
export function unlistedLine(count: number): string {
  return `- … and ${count} more changed file${count === 1 ? '' : 's'}, not listed for the budget (the coverage receipt names them)`
}

/** The longest reason a file can be left out for, to count the list's lines from above. */
const LONGEST_REASON: OmissionReason = 'denylisted'

/** The line the prompt gives a file whose secret-looking hunks were redacted. */
export function redactionLine(r: Redaction): string {
  return `- ${r.path}: ${r.hunks} hunk${r.hunks === 1 ? '' : 's'} redacted (looked like ${r.kinds.join(', ')})`
}

/**
 * Why a file's content is not sent at all, whatever the budget. The denylist also looks at where
 * a renamed or copied file came from: `key.pem` renamed to `notes.txt` is still a key.
 */
function ruledOut(file: ListedFile, exclude: readonly string[]): Omission | undefined {
  const { path, previousPath } = file
  const denied = denylistRule(path)
  if (denied !== undefined) return { path, reason: 'denylisted', detail: denied }
  const deniedBefore = previousPath === undefined ? undefined : denylistRule(previousPath)
  if (deniedBefore !== undefined) {
    return { path, reason: 'denylisted', detail: `${deniedBefore} (as ${previousPath ?? ''})` }
  }
  const glob = excludedBy(path, exclude)
  if (glob !== undefined) return { path, reason: 'excluded', detail: glob }
  if (file.binary) return { path, reason: 'binary', detail: 'binary content is not sent' }
  return undefined
}

function byPriority(a: Candidate, b: Candidate): number {
  return TIER[a.file.kind] - TIER[b.file.kind] || a.tokens - b.tokens || a.index - b.index
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
