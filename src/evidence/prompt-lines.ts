import { escapeName } from './content.js'
import type { ListedFile } from './sent-file.js'
import { countTokens, truncateToTokens } from './tokens.js'
import type { OmissionReason, Redaction } from './types.js'
import { formatCount } from '../util/format-count.js'

/** The lines the prompt shows around the patches, whose tokens the budget counts. */

/**
 * The line the file list gives each changed file, e.g. `renamed src/b.ts (from src/a.ts) +3 -1
 * [source]`. Its tokens are counted against the budget, so the prompt should list files this way.
 */
export function fileListLine(file: ListedFile, notShown?: OmissionReason): string {
  const from = file.previousPath === undefined ? '' : ` (from ${escapeName(file.previousPath)})`
  const note = notShown === undefined ? '' : notShownNote(notShown)
  return `- ${file.status} ${escapeName(file.path)}${from} +${file.additions} -${file.deletions} [${file.kind}]${note}`
}

function notShownNote(reason: OmissionReason): string {
  return ` — not shown: ${reason}`
}

/** What the prompt says in place of the files the list had no room for. */
export function unlistedLine(count: number): string {
  return `- … and ${count} more changed file${count === 1 ? '' : 's'}, not listed for the budget (the coverage receipt names them)`
}

/**
 * Every reason a file can be left out for, and whether it needs a rubric among several: a new
 * reason cannot be missing from the longest note the budget counts.
 */
const REASONS: Readonly<Record<OmissionReason, 'always' | 'scoped'>> = {
  denylisted: 'always',
  excluded: 'always',
  media: 'always',
  binary: 'always',
  submodule: 'always',
  lfs: 'always',
  budget: 'always',
  'out-of-scope': 'scoped'
}

function longest(scoped: boolean): OmissionReason {
  const reasons = (Object.keys(REASONS) as OmissionReason[]).filter(
    reason => scoped || REASONS[reason] === 'always'
  )
  const tokens = (reason: OmissionReason): number => countTokens(notShownNote(reason))
  return reasons.reduce((a, b) => (tokens(b) > tokens(a) ? b : a))
}

/**
 * The reason whose note takes the most tokens in a file's list line, to count the list's lines
 * from above: of a rubric alone, and of a rubric among several (`out-of-scope` too).
 */
export const LONGEST_REASON = { alone: longest(false), scoped: longest(true) } as const

/** The line the prompt gives a file whose secrets were redacted. */
export function redactionLine(r: Redaction): string {
  const secretFile =
    r.secretFile === undefined
      ? ''
      : `; a secret file (${escapeName(r.secretFile)}): every value that looked like a credential`
  return `- ${escapeName(r.path)}: ${r.secrets} secret${r.secrets === 1 ? '' : 's'} replaced by [redacted: …] (looked like ${r.kinds.join(', ')}${secretFile})`
}

/** Retries with a shorter cut when re-tokenising the cut text comes out a little longer. */
const CUT_ATTEMPTS = 5

/**
 * The body, cut to `limit` tokens with a note saying how much was cut. Even when the note alone
 * is over the limit (absurdly small budgets), the note is kept: the judges must know the
 * description was cut rather than see an empty one.
 */
export function limitBody(body: string, limit: number): string {
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
