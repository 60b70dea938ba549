import { DiffParser } from '../../src/evidence/diff.js'
import type { ChangedFile } from '../../src/evidence/types.js'

/** A new file's section as `git diff` prints it: one hunk adding `lines` to `path`. */
export function newFile(path: string, lines: readonly string[]): string {
  return [
    `diff --git a/${path} b/${path}`,
    'new file mode 100644',
    'index 0000000..1111111',
    '--- /dev/null',
    `+++ b/${path}`,
    `@@ -0,0 +1,${lines.length} @@`,
    ...lines.map(line => `+${line}`),
    ''
  ].join('\n')
}

/** The changed files of a whole `git diff` text, parsed as the evidence reads git's output. */
export function changedFiles(diff: string): ChangedFile[] {
  const parser = new DiffParser()
  parser.push(diff)
  return parser.end()
}
