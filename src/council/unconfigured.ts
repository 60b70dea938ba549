import type { Council } from './types.js'

/**
 * The council when no judge is configured: it answers nothing, so any rubric that needs judges
 * ends UNCLEAR with `missing_credentials`, never PASS.
 */
export const unconfiguredCouncil: Council = {
  convene: () => Promise.resolve({ runs: [], quorum: 1 })
}
