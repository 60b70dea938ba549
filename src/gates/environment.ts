import { SECRET_NAME } from '../util/secrets.js'

type Environment = Readonly<Record<string, string | undefined>>

/**
 * The runner's own service variables, set for the processes of actions (most of them not for
 * `run:` steps): with them a gate could upload artifacts as this job (a forged record), read
 * and write the Actions cache, or ask for an OIDC token. ACTIONS_ID_TOKEN_REQUEST_* are GitHub's
 * documented OIDC variables (docs.github.com/actions/reference/security/oidc); the others are
 * what the toolkit reads (node_modules/@actions/artifact/lib/internal/shared/config.js,
 * @actions/cache/lib/internal/config.js, @actions/http-client/lib/index.js).
 */
export const RUNNER_SERVICE_VARIABLES = [
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_RUNTIME_URL',
  'ACTIONS_RESULTS_URL',
  'ACTIONS_CACHE_URL',
  'ACTIONS_CACHE_SERVICE_V2',
  'ACTIONS_ID_TOKEN_REQUEST_URL',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
  'ACTIONS_ORCHESTRATION_ID'
] as const

/**
 * Gates (and the setup commands before them) run the pull request's own code: nothing that lets
 * it act as the action (tokens, the runner's service variables) or spend its LLM budget may reach
 * them. Besides every credential-like name (`SECRET_NAME`) and the caller's own (the providers'
 * variables), these by name.
 */
const WITHHELD = new Set<string>([
  ...RUNNER_SERVICE_VARIABLES,
  // The runner's file commands: a gate writing to these could forge the action's outputs
  // (verdict=PASS), its state, or the environment of later steps.
  'GITHUB_OUTPUT',
  'GITHUB_ENV',
  'GITHUB_PATH',
  'GITHUB_STATE',
  'GITHUB_STEP_SUMMARY'
])

/** Every action input is withheld: inputs carry the token and provider keys. */
const INPUT_PREFIX = /^INPUT_/i

/**
 * The environment gates and setup commands run with: the runner's, minus the action's inputs, every
 * credential-like name, the runner's service variables, the runner's file commands and `withheld`:
 * the caller's own variables by name, the providers' keys and endpoints (`providerVariables()`,
 * derived from the council's provider table, which the gates do not read). Hygiene, not isolation:
 * a gate can still read its parent's environment from /proc (docs/security.md).
 */
export function gateEnvironment(
  env: Environment,
  withheld: readonly string[]
): Record<string, string> {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || INPUT_PREFIX.test(name)) continue
    if (WITHHELD.has(name) || withheld.includes(name)) continue
    if (SECRET_NAME.test(name)) continue
    kept[name] = value
  }
  return kept
}
