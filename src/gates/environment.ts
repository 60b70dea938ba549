import { PROVIDER_SETTINGS } from '../council/provider-settings.js'
import { SECRET_NAME } from '../util/secrets.js'

type Environment = Readonly<Record<string, string | undefined>>

/**
 * Gates run the pull request's own code: nothing that lets it act as the action (tokens, the
 * runtime's OIDC and cache credentials) or spend its LLM budget may reach them. Besides every
 * credential-like name (`SECRET_NAME`), these by name; the providers' variables come from the
 * provider table, so a provider added there is withheld too.
 */
const WITHHELD = new Set([
  'ACTIONS_ID_TOKEN_REQUEST_URL',
  // The runner's file commands: a gate writing to these could forge the action's outputs
  // (verdict=PASS), its state, or the environment of later steps.
  'GITHUB_OUTPUT',
  'GITHUB_ENV',
  'GITHUB_PATH',
  'GITHUB_STATE',
  'GITHUB_STEP_SUMMARY',
  ...Object.values(PROVIDER_SETTINGS).flatMap(p => [
    p.baseUrl,
    ...(p.key === undefined ? [] : [p.key])
  ])
])

/** Every action input is withheld: inputs carry the token and provider keys. */
const INPUT_PREFIX = /^INPUT_/i

/**
 * The environment gates run with: the runner's, minus the action's inputs, every credential-like
 * name, the providers' variables and the runner's file commands. Hygiene, not isolation: a gate
 * can still read its parent's environment from /proc (docs/security.md).
 */
export function gateEnvironment(env: Environment): Record<string, string> {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || WITHHELD.has(name) || INPUT_PREFIX.test(name)) continue
    if (SECRET_NAME.test(name)) continue
    kept[name] = value
  }
  return kept
}
