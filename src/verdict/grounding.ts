import type { Finding } from '../council/types.js'
import { BLOCKING_SEVERITIES } from './types.js'

/**
 * What the judges were shown that a finding can point at, computed by the engine from the evidence
 * and the gates (src/engine/shown.ts): the verdict reads it as data, never a file.
 */
export interface ShownLocations {
  /** Each reviewed file: its path, the names the prompt gave it, the new-side lines its patch shows. */
  readonly files: readonly ShownFile[]
  /** Every changed path, shown or not: a name one of them has is never read as another's. */
  readonly changed: readonly string[]
  /** Each gate: the names the prompt gave it, and its output as the judges read it. */
  readonly gates: readonly { readonly names: readonly string[]; readonly output: string }[]
}

export interface ShownFile {
  readonly path: string
  readonly names: readonly string[]
  /** Inclusive [first, last] ranges, one per hunk. */
  readonly lines: readonly (readonly [number, number])[]
}

/** The shortest line of a gate's output that quoting counts as quoting it. */
export const MIN_QUOTED = 8

/**
 * The shown file a finding's path and line fall in, if any. The name is compared as given, byte for
 * byte (a lookalike letter, `src/../a.ts` or a trailing space names no shown file), but for the
 * prefixes a diff puts before a path: `./`, which no changed path has, and `b/` when no changed
 * path is so named.
 */
export function shownFileAt(
  path: string | undefined,
  line: number | undefined,
  shown: ShownLocations
): ShownFile | undefined {
  if (path === undefined || line === undefined) return undefined
  const names = [path]
  if (path.startsWith('./')) names.push(path.slice(2))
  if (path.startsWith('b/') && !shown.changed.includes(path)) names.push(path.slice(2))
  return shown.files.find(
    file =>
      names.some(name => file.names.includes(name)) &&
      file.lines.some(([first, last]) => line >= first && line <= last)
  )
}

/** The finding names a gate and quotes a line of its output (at least `MIN_QUOTED` characters). */
function quotesGate(finding: Finding, shown: ShownLocations): boolean {
  const { path } = finding
  if (path === undefined) return false
  return shown.gates.some(
    gate =>
      gate.names.includes(path) &&
      gate.output
        .split('\n')
        .map(line => line.trim())
        .some(line => line.length >= MIN_QUOTED && finding.evidence.includes(line))
  )
}

/**
 * Whether a finding may count toward blocking (docs/verdict.md#grounded-findings): a critical or
 * major one only when it names a shown file at a line a shown hunk holds, or a gate whose output it
 * quotes. Any other severity blocks nothing, so its location does not matter.
 */
export function isGrounded(finding: Finding, shown: ShownLocations): boolean {
  if (!BLOCKING_SEVERITIES.includes(finding.severity)) return true
  return shownFileAt(finding.path, finding.line, shown) !== undefined || quotesGate(finding, shown)
}
