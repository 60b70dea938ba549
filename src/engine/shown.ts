import { escapeName } from '../evidence/content.js'
import { shownLines } from '../evidence/diff.js'
import type { Evidence } from '../evidence/types.js'
import { formatExcerpt } from '../gate-result/excerpt.js'
import type { GateResult } from '../gate-result/types.js'
import type { ShownLocations } from '../verdict/grounding.js'

/**
 * Where a finding may point, from what the prompt showed (src/council/prompt.ts): each reviewed
 * file under its path and its name as the file list wrote it, with the lines its sent (redacted)
 * patch shows; each gate under its command, as the prompt wrote it, and its label there (`gate 2`).
 */
export function shownLocations(evidence: Evidence, gates: readonly GateResult[]): ShownLocations {
  const reviewed = new Set(evidence.receipt.reviewed.map(r => r.path))
  return {
    files: evidence.files.flatMap(file =>
      file.patch === undefined || !reviewed.has(file.path)
        ? []
        : [
            {
              path: file.path,
              names: [...new Set([file.path, escapeName(file.path)])],
              lines: shownLines(file.patch)
            }
          ]
    ),
    changed: evidence.changed,
    gates: gates.map((gate, i) => ({
      names: [...new Set([gate.command, escapeName(gate.command), `gate ${i + 1}`])],
      output: formatExcerpt(gate.output)
    }))
  }
}
