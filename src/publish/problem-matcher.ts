/** The matcher's owner, which `::remove-matcher` names. */
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
