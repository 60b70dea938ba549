import { execFileSync } from 'node:child_process'
import { readFileSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { VERSION } from '../version.js'
import { RELEASE_TAG, type PinFacts, type ReleaseTag } from './pin.js'
import { inReleaseTree } from './release-tree.js'

/** The package's name, which tells its folder from any other package.json above the code. */
const PACKAGE_NAME = 'rubric-council'

/** Written into the package by `npm pack` (scripts/record-commit.mjs): `{ "commit": "<sha>" }`. */
export const COMMIT_FILE = 'commit.json'

/**
 * Where the running CLI came from, for its pin (pin.ts): the nearest folder at or above
 * `from` (this module's, by default) whose package.json is Rubric Council's; whether that folder
 * is the top of a git checkout, its HEAD and its release tags; else the commit the package records.
 */
export function readPinFacts(from: string = dirname(fileURLToPath(import.meta.url))): PinFacts {
  const root = packageRoot(from)
  if (root === undefined)
    return {
      version: VERSION,
      packageRoot: undefined,
      checkoutHead: undefined,
      packedCommit: undefined,
      releaseTags: []
    }
  const head = checkoutHead(root)
  return {
    version: VERSION,
    packageRoot: root,
    checkoutHead: head,
    packedCommit:
      jsonString(join(root, 'package.json'), 'gitHead') ??
      jsonString(join(root, COMMIT_FILE), 'commit'),
    releaseTags: head === undefined ? [] : releaseTags(root, head)
  }
}

function packageRoot(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (jsonString(join(dir, 'package.json'), 'name') === PACKAGE_NAME) return dir
    if (dirname(dir) === dir) return undefined
  }
}

/**
 * HEAD when `root` is the top of a git checkout. Only the top: a package installed into another
 * project's node_modules sits inside that project's checkout, whose HEAD is not this code's.
 */
function checkoutHead(root: string): string | undefined {
  try {
    if (realpathSync(git(root, 'rev-parse', '--show-toplevel')) !== realpathSync(root))
      return undefined
    return git(root, 'rev-parse', 'HEAD^{commit}')
  } catch {
    // No git, or not a checkout: the package may still record its commit.
    return undefined
  }
}

/**
 * The checkout's `vX.Y.Z` tags, each with the commit it names (`show-ref --dereference` adds a
 * `<tag>^{}` line with the commit under an annotated tag, which replaces the tag object's id), and
 * whether it is a release of `head` (`ReleaseTag.ofHead`).
 */
function releaseTags(root: string, head: string): ReleaseTag[] {
  let listed: string
  try {
    listed = git(root, 'show-ref', '--tags', '--dereference')
  } catch {
    // show-ref exits 1 when there is no tag at all.
    return []
  }
  const commits = new Map<string, string>()
  for (const line of listed.split('\n')) {
    const [id = '', ref = ''] = line.split(' ')
    const tag = ref.replace(/^refs\/tags\//, '').replace(/\^\{\}$/, '')
    if (RELEASE_TAG.test(tag) && (ref.endsWith('^{}') || !commits.has(tag))) commits.set(tag, id)
  }
  const ours = files(root, head).filter(line => inReleaseTree(pathOf(line)))
  return [...commits].map(([tag, commit]) => {
    const listed = files(root, commit)
    // A release commit holds only release files; any other tag names a development commit.
    const releaseCommit = listed.length > 0 && listed.every(line => inReleaseTree(pathOf(line)))
    const same = releaseCommit && listed.join('\n') === ours.join('\n')
    return {
      tag,
      commit,
      ofHead: commit === head || same,
      checkout: releaseCommit ? `${tag}^` : tag
    }
  })
}

/** A commit's files as `git ls-tree -r` lists them: mode, type, object id, tab, path; by path. */
function files(root: string, commit: string): string[] {
  return git(root, 'ls-tree', '-r', '--full-tree', commit)
    .split('\n')
    .filter(line => line !== '')
}

function pathOf(line: string): string {
  return line.slice(line.indexOf('\t') + 1)
}

function git(root: string, ...args: string[]): string {
  return execFileSync('git', ['-C', root, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore']
  }).trim()
}

/** A string field of a JSON file; undefined when the file, its JSON or the field is not there. */
function jsonString(file: string, field: string): string | undefined {
  try {
    const value = (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)[field]
    return typeof value === 'string' ? value : undefined
  } catch {
    return undefined
  }
}
