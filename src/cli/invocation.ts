import { accessSync, constants, realpathSync, statSync } from 'node:fs'
import { delimiter, join, relative } from 'node:path'
import { shellWord } from '../util/shell-word.js'

/** The CLI's name on PATH (package.json's `bin`), and how its Next lines name it by default. */
export const CLI_NAME = 'rubric-council'

/** What the shell knows of how the CLI was started: src/bin.ts gives process's own. */
export interface Start {
  /** The script node runs (process.argv[1]), as the user named it, links not followed. */
  readonly script: string | undefined
  /** The node that runs it (process.execPath). */
  readonly node: string
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
}

/**
 * The command the user runs this CLI with, for the commands its Next lines name:
 * - under npm (npx, npm exec, an npm script) `npx rubric-council`: npm's PATH is not the user's;
 * - `rubric-council` when the first one on PATH is this very script;
 * - else `node <script>`, the script relative to the current folder when that is shorter than its
 *   absolute path, and node by its full path when the first `node` on PATH is another one.
 */
export function invokedAs(start: Start): string {
  if (start.env.npm_lifecycle_event !== undefined) return `npx ${CLI_NAME}`
  if (start.script === undefined) return CLI_NAME
  const path = start.env.PATH ?? ''
  if (sameFile(onPath(CLI_NAME, path), start.script)) return CLI_NAME
  const node = sameFile(onPath('node', path), start.node) ? 'node' : start.node
  const near = relative(start.cwd, start.script)
  // A path that starts with "-" would be read by node as an option.
  const script =
    near.length < start.script.length ? (near.startsWith('-') ? `./${near}` : near) : start.script
  return `${shellWord(node)} ${shellWord(script)}`
}

/** The first executable `name` in the folders of `path` (PATH's value), as a shell finds it. */
function onPath(name: string, path: string): string | undefined {
  for (const folder of path.split(delimiter)) {
    const file = join(folder, name)
    try {
      accessSync(file, constants.X_OK)
      if (statSync(file).isFile()) return file
    } catch {
      // Not in this folder: the next one.
    }
  }
  return undefined
}

/** Whether both paths name one file, once links are followed. */
function sameFile(a: string | undefined, b: string): boolean {
  if (a === undefined) return false
  try {
    return realpathSync(a) === realpathSync(b)
  } catch {
    return false
  }
}
