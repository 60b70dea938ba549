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
  /** Why it expects FAIL: the commit that reverted it. */
  readonly revertedBy?: string
}

const MERGE_SUBJECT = /^Merge pull request #(\d+)\b/
const SQUASH_SUBJECT = /\(#(\d+)\)\s*$/
const REVERTS = /This reverts commit ([0-9a-f]{7,40})/g
const REVERT_SUBJECT = /^Revert "(.*)"$/

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
  const revertedBy = (commit: LogCommit): string | undefined =>
    all.find(
      other =>
        [...other.body.matchAll(REVERTS)].some(
          m => m[1] !== undefined && commit.sha.startsWith(m[1])
        ) || REVERT_SUBJECT.exec(other.subject)?.[1] === commit.subject
    )?.sha
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
    const reverter = revertedBy(commit)
    cases.push({
      name: [number === undefined ? undefined : `#${number}`, title || commit.subject]
        .filter(Boolean)
        .join(' '),
      base: first,
      head: merge ? second : commit.sha,
      expect: reverter === undefined ? 'PASS' : 'FAIL',
      ...(reverter !== undefined && { revertedBy: reverter })
    })
  }
  return cases
}

/** The set file `--propose` writes: the cases, and what a maintainer should check before trusting it. */
export function proposedSetText(cases: readonly ProposedCase[]): string {
  const header = [
    '# A starting calibration set, proposed by rubric-council calibrate --propose from this',
    '# repository’s history: merged pull requests expect PASS, those reverted later expect FAIL.',
    '# Review every case before trusting the figures: a merged pull request is not always good, and',
    '# add criteria: { <id>: PASS|FAIL } where you know a criterion’s answer (docs/calibration.md).',
    ''
  ].join('\n')
  const body = stringify({
    cases: cases.map(c => ({
      name:
        c.revertedBy === undefined
          ? c.name
          : `${c.name} (reverted by ${c.revertedBy.slice(0, 12)})`,
      base: c.base,
      head: c.head,
      expect: c.expect
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
