import { execFileSync } from 'node:child_process'
import { readFileSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { VERSION } from '../version.js'
import type { PinFacts } from './pin.js'

/** The package's name, which tells its folder from any other package.json above the code. */
const PACKAGE_NAME = 'rubric-council'

/** Written into the package by `npm pack` (scripts/record-commit.mjs): `{ "commit": "<sha>" }`. */
export const COMMIT_FILE = 'commit.json'

/**
 * Where the running CLI came from, for its pin (pin.ts): the nearest folder at or above
 * `from` (this module's, by default) whose package.json is Rubric Council's; whether that folder
 * is the top of a git checkout, and its HEAD; else the commit the package records.
 */
export function readPinFacts(from: string = dirname(fileURLToPath(import.meta.url))): PinFacts {
  const root = packageRoot(from)
  if (root === undefined)
    return {
      version: VERSION,
      packageRoot: undefined,
      checkoutHead: undefined,
      packedCommit: undefined
    }
  return {
    version: VERSION,
    packageRoot: root,
    checkoutHead: checkoutHead(root),
    packedCommit:
      jsonString(join(root, 'package.json'), 'gitHead') ??
      jsonString(join(root, COMMIT_FILE), 'commit')
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
    const git = (...args: string[]): string =>
      execFileSync('git', ['-C', root, ...args], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore']
      }).trim()
    if (realpathSync(git('rev-parse', '--show-toplevel')) !== realpathSync(root)) return undefined
    return git('rev-parse', 'HEAD^{commit}')
  } catch {
    // No git, or not a checkout: the package may still record its commit.
    return undefined
  }
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
