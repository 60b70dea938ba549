import { providerKeyNames } from '../council/providers/index.js'
import type { GateSource } from '../gates/types.js'

/** What the job the gates would run in holds, as far as the action can tell. */
export interface GateSurroundings {
  /** The workflow's `allow-gates-with-secrets: true`. */
  readonly allowed: boolean
  readonly eventName: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** The token's write permissions (`GitHubPort.writablePermissions`); none without a token. */
  readonly writable: () => Promise<readonly string[]>
}

/**
 * Secure by default: `gates: run` runs the pull request's code in this job, where it can read
 * whatever the job holds (docs/security.md). So the gates run only in a job that holds no provider
 * key and no token that can write, on `pull_request` (the pull request's own ref and cache scope),
 * unless the workflow opts in by name. A rubric without gates runs nothing and is never refused.
 */
export function guardedGates(gates: GateSource, around: GateSurroundings): GateSource {
  return {
    ...gates,
    refusal: async rubric => {
      if (rubric.gates.length === 0 || around.allowed) return undefined
      const held: string[] = []
      if (around.eventName !== 'pull_request') {
        held.push(`runs on ${around.eventName}, outside the pull request's own ref and cache scope`)
      }
      const keys = providerKeyNames(around.env)
      if (keys.length > 0)
        held.push(`holds the provider key${keys.length === 1 ? '' : 's'} ${keys.join(', ')}`)
      if (held.length === 0) {
        // Probed only when nothing else already refuses: a few requests GitHub must turn down.
        const writable = await around.writable()
        if (writable.length === 0) return undefined
        held.push(`has a github-token that can write ${writable.join(', ')}`)
      }
      const count = rubric.gates.length
      return (
        `gates: run would run the pull request's code (the rubric's ${count} gate${count === 1 ? '' : 's'}) in this job, which ${held.join(' and ')}; ` +
        'run the gates in a job of their own with the split layout ("rubric-council init" writes it, docs/security.md), ' +
        'or set allow-gates-with-secrets: true if every pull request author may use what this job holds'
      )
    }
  }
}
