// Cuts a release. Two steps, each run from the repository's root:
//
//   npm run release:prepare -- X.Y.Z [--date YYYY-MM-DD]
//     Turns the CHANGELOG's "Unreleased" section into "## [X.Y.Z] - date" (leaving an empty
//     "Unreleased" above it), adds the link reference, and sets the version in package.json,
//     package-lock.json and src/version.ts. Commit that through a pull request.
//
//   npm run release -- X.Y.Z [--notes FILE] [--push REMOTE]
//     On the merged commit: refuses unless the working tree is clean, the versions agree, the
//     CHANGELOG has "## [X.Y.Z] - YYYY-MM-DD" with text under it, vX.Y.Z does not exist yet and
//     `npm run bundle` leaves dist/ and gates/dist/ unchanged. Then it makes the release commit:
//     the files a job runs (src/init/release-tree.ts: action.yml, dist/ but dist/cli/, gates/,
//     the licences), and nothing else, in a commit whose one parent is the merged commit. It refuses
//     when that tree's archive (`git archive | gzip`, what `uses:` downloads) is over 1,200,000
//     bytes. It creates the annotated tag vX.Y.Z on the release commit, moves the major tag vX (v0
//     for 0.x) to it unless a higher release of that major exists, writes the section's text, each
//     paragraph unwrapped onto one line, to FILE (release-notes.md by default) and, with --push,
//     pushes both tags atomically (the major tag forced).
//
//   npm run release -- --dry-run [--out DIR]
//     Builds the release tree of HEAD's commit in a temporary folder (an index and an object store
//     of its own: no ref, object or file of the repository changes), checks it, prints
//     `release archive: <bytes> bytes` and refuses (exit 1) over the budget. With --out, the tree's
//     files are written to DIR, which must be empty or absent.
//
// The release commit's parent is the development commit, so `git log vX.Y.Z` shows the history the
// release was built from and `vX.Y.Z^` is that commit (a maintenance branch starts there); the
// development branch itself never holds a release commit.
// .github/workflows/release.yml runs the second step and publishes the GitHub release with the notes.
import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, posix, resolve } from 'node:path'
import { parse } from 'yaml'
import { inReleaseTree, RELEASE_ACTIONS, RELEASE_LICENCES } from '../src/init/release-tree.js'

/** A release version, X.Y.Z. */
export interface Version {
  readonly major: number
  readonly minor: number
  readonly patch: number
}

/** A refusal: printed as is, exit code 1, nothing tagged. */
export class ReleaseError extends Error {}

export function parseVersion(text: string): Version {
  const m = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/.exec(text.trim())
  if (m === null)
    throw new ReleaseError(`"${text}" is not a release version: give X.Y.Z, such as 0.1.0`)
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) }
}

export function formatVersion(v: Version): string {
  return `${v.major}.${v.minor}.${v.patch}`
}

export function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch
}

/** The tag users pin: v0 for every 0.x release, v1 for 1.x, and so on. */
export function majorTag(v: Version): string {
  return `v${v.major}`
}

/** The lines of a section: from after its heading to the next `## ` heading or the link references. */
function sectionEnd(lines: readonly string[], start: number): number {
  let end = start + 1
  while (
    end < lines.length &&
    !(lines[end] ?? '').startsWith('## ') &&
    !isLinkReference(lines[end] ?? '')
  )
    end++
  return end
}

function isLinkReference(line: string): boolean {
  return /^\[[^\]]+\]: \S+/.test(line)
}

/**
 * The text of the CHANGELOG section `## [X.Y.Z] - YYYY-MM-DD`, without its heading; a
 * ReleaseError when there is none, its date is malformed or it is empty.
 */
export function changelogSection(changelog: string, version: Version): string {
  const v = formatVersion(version)
  const lines = changelog.split('\n')
  const start = lines.findIndex(l => l.startsWith(`## [${v}]`))
  if (start === -1)
    throw new ReleaseError(
      `CHANGELOG.md has no section "## [${v}] - YYYY-MM-DD". Run \`npm run release:prepare -- ${v}\` ` +
        'and commit the result first.'
    )
  const heading = lines[start] ?? ''
  const date = /^## \[[^\]]+\] - (\d{4}-\d{2}-\d{2})$/.exec(heading)?.[1]
  if (date === undefined || Number.isNaN(Date.parse(`${date}T00:00:00Z`)))
    throw new ReleaseError(`CHANGELOG.md: the heading "${heading}" is not "## [${v}] - YYYY-MM-DD"`)
  const body = lines
    .slice(start + 1, sectionEnd(lines, start))
    .join('\n')
    .trim()
  if (body === '') throw new ReleaseError(`CHANGELOG.md: the section for ${v} is empty`)
  return `${body}\n`
}

/**
 * The section as release notes: each paragraph and list item on one line. GitHub renders a
 * release's body as it renders comments, every newline a line break, so the CHANGELOG's lines
 * wrapped at 100 columns would show as ragged short lines. Headings, list items, quotes, tables
 * and fenced code keep their own lines; code inside a fence is left exactly as it is.
 */
export function releaseNotes(section: string): string {
  const out: string[] = []
  let fence: string | undefined
  let joinable = false
  for (const line of section.replace(/\n+$/, '').split('\n')) {
    const trimmed = line.trim()
    const marker = /^(`{3,}|~{3,})/.exec(trimmed)?.[1]
    if (fence !== undefined) {
      out.push(line)
      if (
        marker !== undefined &&
        marker.startsWith(fence.charAt(0)) &&
        marker.length >= fence.length
      )
        fence = undefined
      continue
    }
    if (marker !== undefined) {
      fence = marker
      out.push(line)
      joinable = false
    } else if (trimmed === '') {
      out.push('')
      joinable = false
    } else if (/^(#|>|\||[-*+] |\d+[.)] )/.test(trimmed)) {
      out.push(line)
      joinable = !/^(#|\|)/.test(trimmed)
    } else if (joinable && out.length > 0) {
      out[out.length - 1] = `${out[out.length - 1] ?? ''} ${trimmed}`
    } else {
      out.push(line)
      joinable = true
    }
  }
  return `${out.join('\n')}\n`
}

/**
 * The CHANGELOG with its "Unreleased" section turned into `## [X.Y.Z] - date` below a fresh,
 * empty "Unreleased", and a link reference for the version at the end when `repository` is given.
 */
export function prepareChangelog(
  changelog: string,
  version: Version,
  date: string,
  repository: string | undefined,
  previous: Version | undefined
): string {
  const v = formatVersion(version)
  if (changelog.split('\n').some(l => l.startsWith(`## [${v}]`)))
    throw new ReleaseError(`CHANGELOG.md already has a section for ${v}`)
  const lines = changelog.replace(/\n+$/, '').split('\n')
  const start = lines.findIndex(l => /^## \[?Unreleased\]?\s*$/i.test(l))
  if (start === -1) throw new ReleaseError('CHANGELOG.md has no "## Unreleased" section')
  const end = sectionEnd(lines, start)
  if (
    lines
      .slice(start + 1, end)
      .join('')
      .trim() === ''
  )
    throw new ReleaseError('CHANGELOG.md: "Unreleased" is empty, there is nothing to release')
  const out = [...lines.slice(0, start + 1), '', `## [${v}] - ${date}`, ...lines.slice(start + 1)]
  if (repository !== undefined) {
    const base = repository.replace(/\.git$/, '')
    const link =
      previous === undefined
        ? `${base}/releases/tag/v${v}`
        : `${base}/compare/v${formatVersion(previous)}...v${v}`
    const firstReference = out.findIndex(isLinkReference)
    // Newest first, as the sections are.
    if (firstReference === -1) out.push('', `[${v}]: ${link}`)
    else out.splice(firstReference, 0, `[${v}]: ${link}`)
  }
  return `${out.join('\n')}\n`
}

/** Git in `cwd`, with `env` (the scratch index and objects of a release tree) and `input`; its output trimmed. */
function git(
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  input?: string
): string {
  return execFileSync('git', args, {
    cwd,
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    ...(input === undefined ? { stdio: ['ignore', 'pipe', 'pipe'] } : { input })
  }).trim()
}

/** At most this many bytes does a job download when it `uses:` a release (its archive, gzipped). */
export const RELEASE_ARCHIVE_BUDGET = 1_200_000

/** A release tree, written to an object store: its id, its files and its archive's size. */
export interface ReleaseTree {
  readonly tree: string
  readonly files: readonly string[]
  /** `git archive <tree> | gzip`, in bytes: what a job downloads. */
  readonly archiveBytes: number
}

/**
 * Git's environment for a release tree built in `scratch`: an index of its own, so the repository's
 * index and working tree are never read or touched; with `ownObjects`, an object store of its own
 * too, reading the repository's as an alternate, so nothing is written into the repository.
 */
function scratchEnv(cwd: string, scratch: string, ownObjects: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_INDEX_FILE: join(scratch, 'index') }
  if (!ownObjects) return env
  const objects = join(scratch, 'objects')
  mkdirSync(objects, { recursive: true })
  return {
    ...env,
    GIT_OBJECT_DIRECTORY: objects,
    GIT_ALTERNATE_OBJECT_DIRECTORIES: resolve(cwd, git(cwd, ['rev-parse', '--git-path', 'objects']))
  }
}

/**
 * The release tree of `commit` (its files that `inReleaseTree` keeps), written with `env`
 * (`scratchEnv`), checked by `checkReleaseTree` and measured; a ReleaseError over the budget.
 */
export function buildReleaseTree(cwd: string, commit: string, env: NodeJS.ProcessEnv): ReleaseTree {
  const entries = git(cwd, ['ls-tree', '-r', '-z', '--full-tree', commit], env)
    .split('\0')
    .filter(entry => inReleaseTree(entry.slice(entry.indexOf('\t') + 1)))
  git(cwd, ['read-tree', '--empty'], env)
  // ls-tree's lines are one of the forms --index-info reads: mode, type, object, tab, path.
  git(cwd, ['update-index', '-z', '--index-info'], env, entries.map(e => `${e}\0`).join(''))
  const tree = git(cwd, ['write-tree'], env)
  const files = entries.map(entry => entry.slice(entry.indexOf('\t') + 1))
  checkReleaseTree(files, path => git(cwd, ['cat-file', 'blob', `${tree}:${path}`], env))
  const archive = execFileSync('git', ['archive', '--format=tar', tree], {
    cwd,
    env,
    maxBuffer: 1 << 30
  })
  // gzip itself, not zlib's own deflate (some kilobytes apart): the figure is the command's.
  const archiveBytes = execFileSync('gzip', ['-c'], { input: archive, maxBuffer: 1 << 30 }).length
  if (archiveBytes > RELEASE_ARCHIVE_BUDGET)
    throw new ReleaseError(
      `release archive: ${archiveBytes} bytes gzipped, over its budget of ${RELEASE_ARCHIVE_BUDGET} ` +
        `bytes: the release tree of ${commit} (${files.length} files) is what every job that uses ` +
        'the release downloads; make the bundles smaller'
    )
  return { tree, files, archiveBytes }
}

/** A relative import in a bundle: `from"./x.js"`, `import"./x.js"`, `import("./x.js")`. */
const RELATIVE_IMPORT = /\b(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g

/**
 * Refuses a release tree that lacks a file a job reads: each action's `runs:` entries (main, pre,
 * post), every file those bundles import by relative path, transitively, and the licences.
 */
export function checkReleaseTree(files: readonly string[], read: (path: string) => string): void {
  const have = new Set(files)
  const missing: string[] = []
  const need = (path: string, why: string): boolean => {
    if (have.has(path)) return true
    missing.push(`${path} (${why})`)
    return false
  }
  const bundles: string[] = []
  for (const action of RELEASE_ACTIONS) {
    if (!need(action, 'the action a job runs')) continue
    const runs = (parse(read(action)) as { runs?: Record<string, unknown> } | null)?.runs ?? {}
    for (const key of ['pre', 'main', 'post'] as const) {
      const entry = runs[key]
      if (typeof entry !== 'string') continue
      const path = posix.join(posix.dirname(action), entry)
      if (need(path, `runs.${key} of ${action}`)) bundles.push(path)
    }
  }
  for (const file of bundles) {
    for (const [, spec = ''] of read(file).matchAll(RELATIVE_IMPORT)) {
      const path = posix.join(posix.dirname(file), spec)
      if (need(path, `imported by ${file}`) && !bundles.includes(path)) bundles.push(path)
    }
  }
  for (const licence of RELEASE_LICENCES) need(licence, 'a licence')
  if (missing.length > 0)
    throw new ReleaseError(`The release tree lacks what a job reads:\n  ${missing.join('\n  ')}`)
}

/** The release tags vX.Y.Z that exist, as versions. */
export function releaseTags(cwd: string): Version[] {
  return git(cwd, ['tag', '--list', 'v*.*.*'])
    .split('\n')
    .filter(t => /^v\d+\.\d+\.\d+$/.test(t))
    .map(t => parseVersion(t))
}

function packageJson(cwd: string): { version?: string; repository?: string | { url?: string } } {
  return JSON.parse(readFileSync(`${cwd}/package.json`, 'utf8')) as {
    version?: string
    repository?: string | { url?: string }
  }
}

/** The repository's web address from package.json, for the CHANGELOG's link references. */
function repositoryUrl(cwd: string): string | undefined {
  const repo = packageJson(cwd).repository
  const url = typeof repo === 'string' ? repo : repo?.url
  return url?.replace(/^git\+/, '').replace(/\.git$/, '')
}

/** Step one: the CHANGELOG section and the version numbers, ready to commit. */
export function prepare(cwd: string, version: Version, date: string): void {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new ReleaseError(`"${date}" is not YYYY-MM-DD`)
  const v = formatVersion(version)
  const released = releaseTags(cwd).sort(compareVersions)
  // The release this one follows: on a maintenance branch, not necessarily the newest.
  const previous = released.filter(r => compareVersions(r, version) < 0).at(-1)
  if (released.some(r => compareVersions(r, version) === 0))
    throw new ReleaseError(`v${v} is already released`)
  const changelog = readFileSync(`${cwd}/CHANGELOG.md`, 'utf8')
  writeFileSync(
    `${cwd}/CHANGELOG.md`,
    prepareChangelog(changelog, version, date, repositoryUrl(cwd), previous)
  )
  setJsonVersion(`${cwd}/package.json`, v, false)
  if (existsSync(`${cwd}/package-lock.json`)) setJsonVersion(`${cwd}/package-lock.json`, v, true)
  const versionTs = `${cwd}/src/version.ts`
  if (existsSync(versionTs)) {
    const text = readFileSync(versionTs, 'utf8')
    const next = text.replace(/export const VERSION = '[^']*'/, `export const VERSION = '${v}'`)
    if (next === text && !text.includes(`'${v}'`))
      throw new ReleaseError('src/version.ts has no `export const VERSION = ...` to update')
    writeFileSync(versionTs, next)
  }
}

function setJsonVersion(file: string, version: string, lock: boolean): void {
  const json = JSON.parse(readFileSync(file, 'utf8')) as {
    version?: string
    packages?: Record<string, { version?: string }>
  }
  json.version = version
  const root = json.packages?.['']
  if (lock && root !== undefined) root.version = version
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`)
}

export interface TagOptions {
  /** Where the release notes go. */
  readonly notes: string
  /** A remote name or URL to push the tags to; none keeps them local. */
  readonly push?: string
  /** Rebuilds dist/; `npm run bundle` by default. */
  readonly bundle?: () => void
  readonly log?: (line: string) => void
}

export interface Tagged {
  readonly tag: string
  /** The major tag when it was moved; undefined when a higher release of that major exists. */
  readonly major: string | undefined
  /** The release commit the tags name: the release tree, its parent `source`. */
  readonly commit: string
  /** The development commit the release was built from. */
  readonly source: string
}

/** Step two: the checks, then the tags and the notes. */
export function tagRelease(cwd: string, version: Version, options: TagOptions): Tagged {
  const log =
    options.log ??
    (line => {
      console.log(line)
    })
  const v = formatVersion(version)
  const tag = `v${v}`

  const dirty = git(cwd, ['status', '--porcelain'])
  if (dirty !== '')
    throw new ReleaseError(
      `The working tree has uncommitted changes; commit or stash them:\n${dirty}`
    )
  const pkg = packageJson(cwd).version
  if (pkg !== v)
    throw new ReleaseError(
      `package.json says ${pkg ?? 'no version'}, not ${v}. Run \`npm run release:prepare -- ${v}\` first.`
    )
  const notes = changelogSection(readFileSync(`${cwd}/CHANGELOG.md`, 'utf8'), version)
  const released = releaseTags(cwd)
  if (released.some(r => compareVersions(r, version) === 0))
    throw new ReleaseError(`The tag ${tag} exists already; a release is never re-tagged`)

  log('Rebuilding dist/ to check it matches the source')
  ;(
    options.bundle ??
    (() => execFileSync('npm', ['run', 'bundle'], { cwd, stdio: ['ignore', 'inherit', 'inherit'] }))
  )()
  const stale = git(cwd, ['status', '--porcelain', '--', 'dist', 'gates/dist'])
  if (stale !== '')
    throw new ReleaseError(
      `dist/ differs from what the source builds; commit the rebuilt dist/ and try again:\n${stale}`
    )

  const source = git(cwd, ['rev-parse', 'HEAD^{commit}'])
  const commit = releaseCommit(cwd, source, tag, log)
  git(cwd, ['tag', '--annotate', tag, '--message', `Rubric Council ${tag}`, commit])
  log(`Tagged ${tag} at ${commit}, the release commit of ${source}`)

  const higher = released.filter(r => r.major === version.major && compareVersions(r, version) > 0)
  const major = higher.length === 0 ? majorTag(version) : undefined
  if (major !== undefined) {
    git(cwd, [
      'tag',
      '--force',
      '--annotate',
      major,
      '--message',
      `Latest ${major}: ${tag}`,
      commit
    ])
    log(`Moved ${major} to ${tag}`)
  } else {
    const newest = higher.sort(compareVersions).at(-1) ?? version
    log(`Left ${majorTag(version)} alone: v${formatVersion(newest)} is newer`)
  }

  writeFileSync(options.notes, releaseNotes(notes))
  log(`Wrote the release notes to ${options.notes}`)

  if (options.push !== undefined) {
    const refs = [`refs/tags/${tag}`, ...(major === undefined ? [] : [`+refs/tags/${major}`])]
    git(cwd, ['push', '--atomic', options.push, ...refs])
    log(`Pushed ${refs.join(' ')}`)
  }
  return { tag, major, commit, source }
}

/** The release commit of `source`: its release tree, with `source` as its one parent. */
function releaseCommit(
  cwd: string,
  source: string,
  tag: string,
  log: (line: string) => void
): string {
  const scratch = mkdtempSync(join(tmpdir(), 'rc-release-'))
  try {
    const built = buildReleaseTree(cwd, source, scratchEnv(cwd, scratch, false))
    log(`release archive: ${built.archiveBytes} bytes`)
    const message =
      `Rubric Council ${tag}: the files a job runs (action.yml, dist/, gates/, licences), ` +
      `from ${source}`
    return git(cwd, ['commit-tree', built.tree, '-p', source, '-m', message])
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

/**
 * `--dry-run`: the release tree of HEAD's commit, built and checked in a temporary folder of its
 * own (`scratchEnv`), nothing tagged and nothing written into the repository; its files written to
 * `out` when given.
 */
export function dryRun(
  cwd: string,
  out: string | undefined,
  log: (line: string) => void = line => {
    console.log(line)
  }
): ReleaseTree {
  if (out !== undefined && existsSync(out) && readdirSync(out).length > 0)
    throw new ReleaseError(`--out ${out}: the folder is not empty`)
  const commit = git(cwd, ['rev-parse', 'HEAD^{commit}'])
  const scratch = mkdtempSync(join(tmpdir(), 'rc-release-'))
  try {
    const env = scratchEnv(cwd, scratch, true)
    const built = buildReleaseTree(cwd, commit, env)
    log(`The release tree ${built.tree} of ${commit}: ${built.files.length} files`)
    if (git(cwd, ['status', '--porcelain']) !== '')
      log('The working tree has uncommitted changes: they are not in it, the commit is.')
    log(`release archive: ${built.archiveBytes} bytes (budget ${RELEASE_ARCHIVE_BUDGET})`)
    if (out !== undefined) {
      mkdirSync(out, { recursive: true })
      const archive = execFileSync('git', ['archive', '--format=tar', built.tree], {
        cwd,
        env,
        maxBuffer: 1 << 30
      })
      execFileSync('tar', ['-x', '-C', out], { input: archive })
      log(`Wrote its files to ${out}`)
    }
    log('Dry run: nothing was tagged.')
    return built
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name)
  if (i === -1) return undefined
  const value = args[i + 1]
  if (value === undefined || value.startsWith('--')) throw new ReleaseError(`${name} needs a value`)
  args.splice(i, 2)
  return value
}

const USAGE =
  'Usage: release.ts prepare X.Y.Z [--date YYYY-MM-DD]\n' +
  '       release.ts tag X.Y.Z [--notes FILE] [--push REMOTE]\n' +
  '       release.ts tag --dry-run [--out DIR]'

function main(argv: readonly string[]): void {
  const args = [...argv]
  const command = args.shift()
  const date = option(args, '--date') ?? new Date().toISOString().slice(0, 10)
  const notes = option(args, '--notes') ?? 'release-notes.md'
  const push = option(args, '--push')
  const out = option(args, '--out')
  const dry = args.indexOf('--dry-run')
  if (dry !== -1) args.splice(dry, 1)
  const unknown = args.filter(a => a.startsWith('--'))
  if (unknown.length > 0) throw new ReleaseError(`Unknown option ${unknown.join(', ')}`)
  const cwd = process.cwd()
  if (dry !== -1 && command === 'tag' && args.length === 0 && push === undefined) {
    dryRun(cwd, out === undefined ? undefined : resolve(out))
    return
  }
  if (args.length !== 1 || (command !== 'prepare' && command !== 'tag') || dry !== -1)
    throw new ReleaseError(USAGE)
  const version = parseVersion(args[0] ?? '')
  if (command === 'prepare') {
    prepare(cwd, version, date)
    console.log(
      `CHANGELOG.md, package.json, package-lock.json and src/version.ts now say ${formatVersion(version)}; ` +
        'review, commit and merge them, then run the Release workflow.'
    )
  } else {
    tagRelease(cwd, version, { notes, ...(push === undefined ? {} : { push }) })
  }
}

if (resolve(process.argv[1] ?? '') === import.meta.filename) {
  try {
    main(process.argv.slice(2))
  } catch (error) {
    if (!(error instanceof ReleaseError)) throw error
    console.error(`release: ${error.message}`)
    process.exitCode = 1
  }
}
