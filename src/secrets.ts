/** Secrets known to the runner (docs/security.md): masked wherever output is shown, withheld from gates. */

import { PROVIDER_SETTINGS } from './council/providers.js'

type Environment = Readonly<Record<string, string | undefined>>

/** Names whose values are credentials by convention. */
const SECRET_NAME =
  /(TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|SIGNING_?KEY|CREDENTIAL)/i

/** The action's own `github-token` input, as the runner exposes it. */
const TOKEN_INPUT = 'INPUT_GITHUB-TOKEN'

/** Shorter values would mask ordinary words (`true`, `main`, a port number) all over the log. */
const MIN_SECRET_LENGTH = 8

const MASK = '***'

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

/** The providers' key variables, whatever they are called. */
const PROVIDER_KEYS = new Set(Object.values(PROVIDER_SETTINGS).flatMap(p => p.key ?? []))

/** Every action input is withheld: inputs carry the token and provider keys. */
const INPUT_PREFIX = /^INPUT_/i

/** The values worth masking, deduplicated, longest first. */
export function secretValues(env: Environment): string[] {
  const values = new Set<string>()
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < MIN_SECRET_LENGTH) continue
    if (name === TOKEN_INPUT || SECRET_NAME.test(name) || PROVIDER_KEYS.has(name)) values.add(value)
  }
  // A URL with credentials in it (a proxy or provider endpoint): its user:password part, and the
  // password alone, wherever the URL or an error quoting it is shown.
  for (const value of Object.values(env)) {
    for (const secret of urlCredentials(value)) values.add(secret)
  }
  // Longest first, so a secret that contains another is masked whole rather than leaving its rest.
  return [...values].sort((a, b) => b.length - a.length)
}

function urlCredentials(value: string | undefined): string[] {
  if (value === undefined || !value.includes('@') || !/^[a-z][a-z0-9+.-]*:\/\//i.test(value))
    return []
  try {
    const { username, password } = new URL(value)
    const user = decodeURIComponent(username)
    const pass = decodeURIComponent(password)
    return [
      ...(username !== '' && password !== '' ? [`${username}:${password}`, `${user}:${pass}`] : []),
      ...[password, pass, username, user].filter(part => part.length >= MIN_SECRET_LENGTH)
    ]
  } catch {
    return []
  }
}

/** Replaces every occurrence of each secret with `***`, as plain text (never as a pattern). */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let masked = text
  for (const secret of secrets) {
    // An empty string would match between every character.
    if (secret !== '') masked = masked.replaceAll(secret, MASK)
  }
  return masked
}

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
