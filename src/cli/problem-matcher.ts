import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CliIo } from './io.js'

export const MATCHER_OWNER = 'rubric-council'

/**
 * Reads the `file:line:col: error: message [rule]` lines of `formatIssue` (line and column
 * optional), so that in a workflow they become annotations on the rubric file.
 */
export const PROBLEM_MATCHER = {
  problemMatcher: [
    {
      owner: MATCHER_OWNER,
      pattern: [
        {
          regexp: '^(.+?):(?:(\\d+):(?:(\\d+):)?)? (error|warning): (.+?)(?: \\[([a-z-]+)\\])?$',
          file: 1,
          line: 2,
          column: 3,
          severity: 4,
          message: 5,
          code: 6
        }
      ]
    }
  ]
} as const

/**
 * Inside GitHub Actions, registers the matcher for the duration of `body` (the runner reads
 * `::add-matcher::` from the log); elsewhere just runs `body`.
 */
export async function withProblemMatcher<T>(io: CliIo, body: () => Promise<T>): Promise<T> {
  if (io.env.GITHUB_ACTIONS !== 'true') return body()
  const path = join(io.env.RUNNER_TEMP ?? tmpdir(), 'rubric-council-problem-matcher.json')
  await writeFile(path, JSON.stringify(PROBLEM_MATCHER, null, 2))
  io.stdout(`::add-matcher::${path}`)
  try {
    return await body()
  } finally {
    io.stdout(`::remove-matcher owner=${MATCHER_OWNER}::`)
  }
}
