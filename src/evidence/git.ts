import { authEnvironment, runGit, type GitAuth, type Run, type RunResult } from './git-process.js'
import { DiffParser } from './diff.js'
import { EvidenceUnavailableError } from './source.js'
import type { ChangedFile } from './types.js'
import { failed, ok, type Result } from '../util/result.js'

/**
 * The diff could not be computed; the message says what failed and what to change. The engine
 * reports it as incomplete coverage and does not ask the judges.
 */
export class DiffUnavailableError extends EvidenceUnavailableError {
  override readonly name = 'DiffUnavailableError'
}

/**
 * Settings the repository cannot override, for the diff the judges see. The pull request (or a
 * step that ran its code before this one) can write `.git/config`, `.git/info/attributes` or a
 * committed `.gitattributes`; none of them may change what is shown:
 * - `--text`: every file is diffed as text, whatever `-diff` or `binary` attributes say; whether
 *   a file is media is decided afterwards by its content (`sniffMedia`);
 * - no external diff or textconv driver, no colour, rename detection, explicit prefixes and
 *   context, and the config keys that would change the parser's input pinned on the command line.
 * Replace objects and grafts are switched off for every git command (`runGit`'s environment).
 */
export const DIFF_ARGS = [
  '-c',
  'diff.noprefix=false',
  '-c',
  'diff.mnemonicPrefix=false',
  '-c',
  'diff.relative=false',
  '-c',
  'diff.suppressBlankEmpty=false',
  '-c',
  'core.quotePath=true',
  'diff',
  '--text',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--find-renames',
  '-U3',
  '--src-prefix=a/',
  '--dst-prefix=b/'
] as const

/** First fetch of missing commits: enough history for most pull requests. */
const FETCH_DEPTH = 50
const DEEPEN_BY = 200
const DEEPEN_ATTEMPTS = 3

const CHECKOUT_ADVICE =
  'Give the job the history it needs: `fetch-depth: 0` in actions/checkout, or a github-token ' +
  'that can read the repository (the action fetches with it; keep `persist-credentials: false`).'

/**
 * Why the working tree is not the pull request, if it is not: HEAD must be the pull request's
 * head commit, or a merge commit whose second parent is it (actions/checkout's default for
 * `pull_request`). Anything else, such as the base branch that `workflow_dispatch` checks out
 * by default, would have the gates run on code that is not the pull request's, and the verdict
 * posted on its head all the same.
 */
export async function checkoutProblem(
  cwd: string,
  head: string,
  event: string,
  number: number,
  run: Run = runGit
): Promise<string | undefined> {
  const at = await run(['rev-parse', '--verify', '--quiet', 'HEAD'], cwd)
  const current = at.stdout.trim()
  if (at.exitCode === 0 && current === head) return undefined
  // The commit object's own parent lines: in a shallow checkout (actions/checkout's default
  // depth of 1) git treats the merge commit as having no parents, so `HEAD^2` cannot be asked.
  const commit = await run(['cat-file', 'commit', 'HEAD'], cwd)
  const parents = [
    ...(commit.stdout.split('\n\n')[0]?.matchAll(/^parent ([0-9a-f]+)$/gm) ?? [])
  ].map(m => m[1])
  if (commit.exitCode === 0 && parents.length === 2 && parents[1] === head) return undefined
  const what =
    at.exitCode === 0
      ? `the checkout is ${current.slice(0, 7)}, not the pull request's head ${head.slice(0, 7)} or a merge commit of it`
      : `the workspace is not a git checkout of the pull request (head ${head.slice(0, 7)})`
  // Never advised on pull_request_target, whose base checkout is graded from the pull request's
  // commits as data (src/action/context.ts): checking out its head there runs it beside the secrets.
  const ref =
    event === 'pull_request'
      ? '`ref: ${{ github.event.pull_request.head.sha }}`'
      : `\`ref: refs/pull/${number}/head\``
  return `${what}: the gates would run on other code, and the verdict would be posted on the pull request all the same. Check out the pull request: give actions/checkout ${ref}`
}

/**
 * The pull request's changes: the diff from the merge base of `base` and `head` to `head` (what
 * GitHub shows, `base...head`), not from the merge commit. Works from actions/checkout's default
 * depth-1 checkout by fetching what is missing: both commits, then deeper history until the merge
 * base is found, finally all of it. Every fetch names the two commits, so only their histories
 * are fetched, never every branch of the remote. The diff is parsed a piece at a time.
 */
export async function diffFromMergeBase(options: {
  cwd: string
  base: string
  head: string
  run?: Run
  remote?: string
  auth?: GitAuth
}): Promise<{ mergeBase: string; files: ChangedFile[] }> {
  const { base, head } = options
  const remote = options.remote ?? 'origin'
  checkArgument(base, 'base commit')
  checkArgument(head, 'head commit')
  checkArgument(remote, 'remote')
  const run = options.run ?? runGit
  const git: Git = (...args) => run(args, options.cwd)
  const credentials = authEnvironment(options.auth)
  const fetch: Git = (...args) => run(['fetch', ...args], options.cwd, credentials)
  const pair = `${base} (base) and ${head} (head)`

  // Most checkouts have both commits and their merge base: one git command says so.
  const found = await findMergeBase(git, base, head)
  if (found !== undefined)
    return { mergeBase: found, files: await diffFiles(run, options.cwd, [found, head]) }

  const missing = await missingCommits(git, [base, head])
  if (missing.length > 0) {
    // A full clone stays full: --depth on it would graft a shallow boundary onto the new commits.
    const depth = (await isShallow(git)) ? [`--depth=${FETCH_DEPTH}`] : []
    const fetched = await fetch('--no-tags', ...depth, remote, base, head)
    if (fetched.exitCode !== 0) {
      throw unavailable(
        `${describeMissing(missing)} not in the checkout, and fetching from "${remote}" failed`,
        fetched
      )
    }
    const still = await missingCommits(git, [base, head])
    if (still.length > 0) {
      throw unavailable(
        `${describeMissing(still)} not in the checkout even after fetching from "${remote}"`
      )
    }
  }

  // Asked again only if commits were fetched: else it was just asked, and the answer was none.
  let mergeBase = missing.length > 0 ? await findMergeBase(git, base, head) : undefined
  for (let i = 0; mergeBase === undefined && i < DEEPEN_ATTEMPTS && (await isShallow(git)); i++) {
    const deepened = await fetch('--no-tags', `--deepen=${DEEPEN_BY}`, remote, base, head)
    if (deepened.exitCode !== 0) {
      throw unavailable(`fetching more history of ${pair} from "${remote}" failed`, deepened)
    }
    mergeBase = await findMergeBase(git, base, head)
  }
  if (mergeBase === undefined && (await isShallow(git))) {
    const unshallowed = await fetch('--no-tags', '--unshallow', remote, base, head)
    if (unshallowed.exitCode !== 0) {
      throw unavailable(
        `fetching the whole history of ${pair} from "${remote}" failed`,
        unshallowed
      )
    }
    mergeBase = await findMergeBase(git, base, head)
  }
  if (mergeBase === undefined) {
    throw new DiffUnavailableError(
      `cannot compute the pull request's diff: ${pair} have no common ancestor (unrelated histories), so there is no merge base to diff from`
    )
  }

  return { mergeBase, files: await diffFiles(run, options.cwd, [mergeBase, head]) }
}

/**
 * For the CLI: the diff from the merge base of `base` and HEAD to the working tree, so staged and
 * unstaged edits of tracked files count (untracked files are not in any diff until `git add`).
 * Never fetches: the local repository is the user's, and so is the decision to go online.
 */
export async function localDiff(options: {
  cwd: string
  base: string
  run?: Run
}): Promise<{ mergeBase: string; files: ChangedFile[] }> {
  const { base } = options
  checkArgument(base, 'base')
  const run = options.run ?? runGit
  const git: Git = (...args) => run(args, options.cwd)

  if ((await missingCommits(git, [base])).length > 0) {
    const shown = await git('rev-parse', '--git-dir')
    if (shown.exitCode !== 0) throw unavailable(`${options.cwd} is not in a git repository`, shown)
    throw new DiffUnavailableError(
      `the base "${base}" is not a commit in this repository: fetch it first (git fetch origin), or pass another base (--base <branch or commit>)`
    )
  }
  const mergeBase = await localMergeBase(options.cwd, base, run)
  if (!mergeBase.ok) throw new DiffUnavailableError(mergeBase.problem)
  return { mergeBase: mergeBase.value, files: await diffFiles(run, options.cwd, [mergeBase.value]) }
}

/**
 * For each file the commits from `from` to `to` touched, when the last of them did: a number that
 * grows from the oldest commit to the newest (`git log --topo-order`, parents before children
 * whatever the dates say; a merge's own changes are not counted). Undefined when git cannot tell
 * (a history not fetched): the order it serves is a preference, never what is shown.
 */
export async function lastChanges(
  cwd: string,
  from: string,
  to: string,
  run: Run = runGit
): Promise<ReadonlyMap<string, number> | undefined> {
  const log = await run(
    [
      // What the repository's config could change of the output is pinned: signatures, names
      // relative to the directory git runs in, colour.
      '-c',
      'log.showSignature=false',
      '-c',
      'diff.relative=false',
      'log',
      '--no-color',
      '--topo-order',
      '--reverse',
      '--no-renames',
      '--no-ext-diff',
      '--name-only',
      // Each commit starts with an empty name, which no file has; -z keeps names unquoted.
      '--format=%x00',
      '-z',
      `${from}..${to}`,
      '--'
    ],
    cwd
  )
  if (log.exitCode !== 0) return undefined
  const last = new Map<string, number>()
  let commit = 0
  let first = false
  for (const token of log.stdout.split('\0')) {
    if (token === '') {
      commit++
      first = true
      continue
    }
    // The first name after a commit's header follows the header's line end.
    last.set(first && token.startsWith('\n') ? token.slice(1) : token, commit)
    first = false
  }
  return last
}

/** The changed files of `git diff` of `revisions`, with the fixed options, parsed a piece at a time. */
async function diffFiles(
  run: Run,
  cwd: string,
  revisions: readonly string[]
): Promise<ChangedFile[]> {
  const parser = new DiffParser()
  const diff = await run([...DIFF_ARGS, ...revisions, '--'], cwd, undefined, text => {
    parser.push(text)
  })
  if (diff.exitCode !== 0) throw unavailable(`git diff ${revisions.join(' ')} failed`, diff)
  parser.push(diff.stdout)
  return parser.end()
}

const FALLBACK_BASES = ['origin/main', 'main', 'origin/master', 'master'] as const

/**
 * The CLI's base when none is given: the remote's default branch (`origin/HEAD`, which a clone
 * sets), else the usual main branch names. Never the branch's upstream: for a pushed branch, or a
 * pull request checked out with `gh pr checkout`, that is the branch itself, whose own rubric and
 * diff would then stand in for the base's.
 */
export async function defaultBase(cwd: string, run: Run = runGit): Promise<string> {
  const remoteDefault = await run(
    ['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD'],
    cwd
  )
  const name = remoteDefault.stdout.trim()
  if (remoteDefault.exitCode === 0 && name !== '') return name
  for (const candidate of FALLBACK_BASES) {
    const found = await run(['rev-parse', '--verify', '--quiet', `${candidate}^{commit}`], cwd)
    if (found.exitCode === 0) return candidate
  }
  throw new DiffUnavailableError(
    `no base to compare with: the remote has no default branch (origin/HEAD) and none of ${FALLBACK_BASES.join(', ')} exists; pass one with --base <branch or commit>`
  )
}

/** For the CLI: the merge base of `base` and HEAD, or the one line that says why there is none. */
export async function localMergeBase(
  cwd: string,
  base: string,
  run: Run = runGit
): Promise<Result<string>> {
  const git: Git = (...args) => run(args, cwd)
  const mergeBase = await findMergeBase(git, base, 'HEAD')
  if (mergeBase !== undefined) return ok(mergeBase)
  const hint = (await isShallow(git))
    ? 'the clone is shallow: run `git fetch --unshallow` and try again'
    : 'they have no common ancestor; pass another base (--base <branch or commit>)'
  return failed(`no merge base of "${base}" and HEAD: ${hint}`)
}

/**
 * For the CLI, before anything runs: the base the diff will start from, or the one line that says
 * why there is none (not a repository, a `--base` that names nothing, no default base).
 */
export async function localBase(
  cwd: string,
  base: string | undefined,
  run: Run = runGit
): Promise<Result<string>> {
  const repository = await run(['rev-parse', '--git-dir'], cwd)
  if (repository.exitCode !== 0) {
    return failed(`not a git repository: ${cwd} (the judges read the diff; run check in a clone)`)
  }
  if (base === undefined) {
    try {
      return ok(await defaultBase(cwd, run))
    } catch (error) {
      if (error instanceof DiffUnavailableError) return failed(error.message)
      throw error
    }
  }
  if (base === '' || base.startsWith('-')) {
    return failed(`invalid base ${JSON.stringify(base)}: expected a branch or commit`)
  }
  const found = await run(['rev-parse', '--verify', '--quiet', `${base}^{commit}`], cwd)
  if (found.exitCode === 0) return ok(base)
  const remote = `origin/${base}`
  const onRemote =
    !base.startsWith('origin/') &&
    (await run(['rev-parse', '--verify', '--quiet', `${remote}^{commit}`], cwd)).exitCode === 0
  const said = `the base "${base}" is no branch or commit of this repository`
  return failed(
    onRemote
      ? `${said}; did you mean "${remote}"?`
      : `${said} (tried ${base}${base.startsWith('origin/') ? '' : ` and ${remote}`}): fetch it (git fetch origin) or pass another --base`
  )
}

type Git = (...args: string[]) => Promise<RunResult>

/** Revisions are arguments, never options: refuse anything git would read as one. */
function checkArgument(value: string, what: string): void {
  if (value === '' || value.startsWith('-')) {
    throw new DiffUnavailableError(
      `invalid ${what} ${JSON.stringify(value)}: expected a commit, branch or remote name`
    )
  }
}

async function missingCommits(git: Git, revisions: readonly string[]): Promise<string[]> {
  const found = await Promise.all(
    revisions.map(revision => git('cat-file', '-e', `${revision}^{commit}`))
  )
  return revisions.filter((_, i) => found[i]?.exitCode !== 0)
}

async function isShallow(git: Git): Promise<boolean> {
  const result = await git('rev-parse', '--is-shallow-repository')
  return result.exitCode === 0 && result.stdout.trim() === 'true'
}

/** Exit 1 with no output means "none found"; in a shallow clone that may only mean "not yet". */
async function findMergeBase(git: Git, a: string, b: string): Promise<string | undefined> {
  const result = await git('merge-base', a, b)
  const sha = result.stdout.trim()
  return result.exitCode === 0 && sha !== '' ? sha : undefined
}

function describeMissing(missing: readonly string[]): string {
  return missing.length === 1
    ? `commit ${missing.join('')} is`
    : `commits ${missing.join(' and ')} are`
}

function unavailable(what: string, result?: RunResult): DiffUnavailableError {
  const said = result === undefined ? '' : lastLines(result.stderr)
  return new DiffUnavailableError(
    `cannot compute the pull request's diff: ${what}${said === '' ? '' : ` (git: ${said})`}. ${CHECKOUT_ADVICE}`
  )
}

/**
 * Why git failed, from its stderr: the `fatal:`/`error:` lines (the last three), not the progress
 * and hints around them; the last lines when there are none.
 */
function lastLines(text: string): string {
  const lines = text
    .split('\n')
    .map(line => line.trim())
    .filter(line => line !== '')
  const errors = lines.filter(line => /^(?:fatal|error):/.test(line))
  return (errors.length > 0 ? errors : lines).slice(-3).join(' / ')
}
