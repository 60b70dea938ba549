import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import { DEFAULT_RUBRIC_PATH } from '../rubric/defaults.js'
import { formatIssue } from '../rubric/errors.js'
import { loadRubric } from '../rubric/load.js'
import { describeRubric } from '../rubric/describe.js'
import type { CliIo } from './io.js'
import { rubricDeprecationLines, rubricModelLines } from './model-check.js'
import { withProblemMatcher } from './problem-matcher.js'
import { cliUpstreamReader } from './upstream.js'

/**
 * `rubric-council validate [FILE...]`: 0 when every file is a valid rubric, 1 otherwise. A model
 * this version does not know is a warning, with the known one it most likely meant: exit 0; so is
 * a model that retires within 30 days, and a key under its old name (`council.tie_breaks`). A
 * model past its retirement date is an error: exit 1.
 */
export async function validateCommand(files: readonly string[], io: CliIo): Promise<number> {
  const targets = files.length > 0 ? files : [DEFAULT_RUBRIC_PATH]
  return withProblemMatcher(io, async () => {
    let invalid = 0
    let checked = 0
    const upstream = cliUpstreamReader(io.env, line => {
      io.stderr(line)
    })
    for (const file of targets) {
      // `validate examples/*` also meets folders (example workflows): say so, and go on.
      if (isDirectory(resolve(io.cwd, file))) {
        io.stderr(`${file}: a folder, not a rubric; skipped`)
        continue
      }
      checked++
      const result = await loadRubric(resolve(io.cwd, file), file, upstream)
      if (result.ok) {
        const models = rubricModelLines(result.value, (io.now ?? Date.now)())
        if (models.errors > 0) invalid++
        else io.stdout(`${file}: ok (${describeRubric(result.value)})`)
        for (const line of [...models.lines, ...rubricDeprecationLines(result.value)])
          io.stderr(line)
      } else {
        invalid++
        for (const issue of result.problem) io.stderr(formatIssue(issue))
      }
    }
    if (targets.length > 1) io.stdout(`${checked - invalid} of ${checked} rubrics valid`)
    // Only folders: nothing was validated, which is not "all valid".
    return invalid === 0 && checked > 0 ? 0 : 1
  })
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
