import { stringify } from 'yaml'
import type { Run } from '../evidence/git-process.js'
import { failed, ok, type Result } from '../util/result.js'
import type { Expected } from './set.js'

/** A commit of the history, as `git log` gives it. */
export interface LogCommit {
  readonly sha: string
  readonly parents: readonly string[]
  readonly subject: string
  readonly body: string
}

export interface ProposedCase {
  readonly name: string
  readonly base: string
  readonly head: string
  readonly expect: Expected
  /** The criteria a maintainer's waiver labelled PASS, by id. */
  readonly criteria?: Readonly<Record<string, Expected>>
  /** Where its labels came from, one sentence each: a merge, a revert, a waiver, an acceptance. */
  readonly sources: readonly string[]
  /** The pull request it is, when its merge or GitHub names one. */
  readonly pull?: number
}

const MERGE_SUBJECT = /^Merge pull request #(\d+)\b/
const SQUASH_SUBJECT = /\(#(\d+)\)\s*$/
const REVERTS = /This reverts commit ([0-9a-f]{7,40})/g
const REVERT_SUBJECT = /^Revert "(.*)"$/

/**
 * The commit of `all` that reverts `sha` ("This reverts commit <sha>", or, when its subject is
 * known, the subject `Revert "<its subject>"`), if one does.
 */
function revertOf(
  sha: string,
  subject: string | undefined,
  all: readonly LogCommit[]
): string | undefined {
  return all.find(
    other =>
      [...other.body.matchAll(REVERTS)].some(m => m[1] !== undefined && sha.startsWith(m[1])) ||
      (subject !== undefined && REVERT_SUBJECT.exec(other.subject)?.[1] === subject)
  )?.sha
}

const short = (sha: string): string => sha.slice(0, 12)

/**
 * The last `count` merged pull requests of a first-parent history (newest first): merge commits
 * (base their first parent, head their second) and squash merges, whose subject ends with "(#N)"
 * (base their parent, head themselves). Each expects PASS, unless a commit of `all` reverted it
 * ("This reverts commit <sha>", or the subject `Revert "<its subject>"`): then FAIL. Pure.
 */
export function proposeCases(
  firstParent: readonly LogCommit[],
  all: readonly LogCommit[],
  count: number
): ProposedCase[] {
  const cases: ProposedCase[] = []
  for (const commit of firstParent) {
    if (cases.length >= count) break
    const [first, second] = commit.parents
    if (first === undefined) continue
    const merge = second !== undefined
    const number = (merge ? MERGE_SUBJECT : SQUASH_SUBJECT).exec(commit.subject)?.[1]
    if (!merge && number === undefined) continue
    // A GitHub merge commit's body starts with the pull request's title.
    const title = merge ? (commit.body.split('\n')[0]?.trim() ?? '') : commit.subject
    const reverter = revertOf(commit.sha, commit.subject, all)
    const merged = `merged as ${short(commit.sha)} in this history`
    cases.push({
      name: [number === undefined ? undefined : `#${number}`, title || commit.subject]
        .filter(Boolean)
        .join(' '),
      base: first,
      head: merge ? second : commit.sha,
      expect: reverter === undefined ? 'PASS' : 'FAIL',
      sources: [reverter === undefined ? merged : `${merged}, reverted by ${short(reverter)}`],
      ...(number !== undefined && { pull: Number(number) })
    })
  }
  return cases
}

/** A closed pull request as GitHub and its sticky comment's checked state give it. */
export interface LedgerPull {
  readonly number: number
  readonly title: string
  readonly baseSha: string
  readonly headSha: string
  /** The commit that merged it; undefined when it was closed unmerged. */
  readonly mergeCommit?: string
  /** The `/council accept` its comment records, its command read again and still holding. */
  readonly acceptance?: LedgerLabel
  /** The `/council waive` commands its comment records, each read again and still holding. */
  readonly waivers: readonly (LedgerLabel & { readonly criterion: string })[]
}

/** A maintainer's command on a pull request: the head commit it was about, who, and why. */
export interface LedgerLabel {
  readonly commit: string
  readonly by: string
  readonly reason: string
}

/**
 * `cases` with what maintainers did on the closed pull requests of `ledger` (newest first): a
 * waiver labels its criterion PASS on the commit it waived, an acceptance expects PASS of its
 * commit, and a merge a commit of `all` reverts expects FAIL of the pull request's head. A label
 * on a change `cases` has already (the same head, or the final head of the same pull request) is
 * added to that case; any other is a case of its own, from the pull request's base. Pure.
 */
export function withLedger(
  cases: readonly ProposedCase[],
  ledger: readonly LedgerPull[],
  all: readonly LogCommit[]
): ProposedCase[] {
  const out = [...cases]
  const at = (pull: LedgerPull, commit: string): number => {
    const found = out.findIndex(
      c => c.head === commit || (c.pull === pull.number && commit === pull.headSha)
    )
    if (found !== -1) return found
    out.push({
      name: `#${pull.number} ${pull.title}`.trim(),
      base: pull.baseSha,
      head: commit,
      expect: 'PASS',
      sources: [],
      pull: pull.number
    })
    return out.length - 1
  }
  const add = (i: number, change: Partial<ProposedCase> & { source: string }): void => {
    const { source, criteria, ...rest } = change
    const c = out[i]
    if (c === undefined) return
    const merged = { ...c.criteria, ...criteria }
    out[i] = {
      ...c,
      ...rest,
      sources: [...c.sources, source],
      ...(Object.keys(merged).length > 0 && { criteria: merged })
    }
  }
  for (const pull of ledger) {
    const on = `on #${pull.number}`
    for (const w of pull.waivers) {
      add(at(pull, w.commit), {
        criteria: Object.fromEntries([[w.criterion, 'PASS']]),
        source: `waiver of ${w.criterion} by @${w.by} ${on} at ${short(w.commit)}: ${w.reason}`
      })
    }
    const a = pull.acceptance
    if (a !== undefined) {
      add(at(pull, a.commit), {
        source: `acceptance by @${a.by} ${on} at ${short(a.commit)}: ${a.reason}`
      })
    }
    const reverter =
      pull.mergeCommit === undefined || cases.some(c => c.pull === pull.number)
        ? undefined
        : revertOf(pull.mergeCommit, all.find(c => c.sha === pull.mergeCommit)?.subject, all)
    if (reverter !== undefined && pull.mergeCommit !== undefined) {
      add(at(pull, pull.headSha), {
        expect: 'FAIL',
        source: `#${pull.number} merged as ${short(pull.mergeCommit)}, reverted by ${short(reverter)}`
      })
    }
  }
  return out
}

/**
 * The set file `--propose` writes: every case unconfirmed, naming where its labels came from,
 * and what a maintainer should check before confirming it. Every value, a comment's reason or a
 * pull request's title included, is written by the YAML library: none can add a key or a case.
 */
export function proposedSetText(cases: readonly ProposedCase[]): string {
  const header = [
    '# A starting calibration set, proposed by rubric-council calibrate --propose: merged pull',
    '# requests expect PASS, those reverted later FAIL; a maintainer’s waiver labels its criterion',
    '# PASS and an acceptance expects PASS (the source of each case says which). No case counts',
    '# until a person checks its labels and sets confirmed: true; a merged pull request is not',
    '# always good, and a waiver says nothing of the other criteria (docs/calibration.md).',
    ''
  ].join('\n')
  const body = stringify({
    cases: cases.map(c => ({
      name: c.name,
      base: c.base,
      head: c.head,
      expect: c.expect,
      ...(c.criteria !== undefined && { criteria: c.criteria }),
      source: c.sources.join('; '),
      confirmed: false
    }))
  })
  return `${header}${body}`
}

const FIELD = '\x1f'
const RECORD = '\x1e'

/** The history `proposeCases` reads, from git: HEAD's first-parent line, and every commit. */
export async function readHistory(
  cwd: string,
  run: Run
): Promise<Result<{ firstParent: LogCommit[]; all: LogCommit[] }>> {
  const format = `--format=%H${FIELD}%P${FIELD}%s${FIELD}%b${RECORD}`
  const log = async (extra: readonly string[]): Promise<Result<LogCommit[]>> => {
    const result = await run(['log', ...extra, format, 'HEAD', '--'], cwd)
    if (result.exitCode !== 0) {
      return failed(
        `cannot read the history of ${cwd}: ${result.stderr.trim() || 'git log failed'}`
      )
    }
    return ok(
      result.stdout
        .split(RECORD)
        .map(r => r.replace(/^\n/, ''))
        .filter(r => r !== '')
        .map(r => {
          const [sha = '', parents = '', subject = '', body = ''] = r.split(FIELD)
          return { sha, parents: parents.split(' ').filter(Boolean), subject, body: body.trim() }
        })
    )
  }
  const firstParent = await log(['--first-parent'])
  if (!firstParent.ok) return firstParent
  const all = await log([])
  if (!all.ok) return all
  return ok({ firstParent: firstParent.value, all: all.value })
}
