/** Secrets known to the runner (docs/security.md): masked wherever output is shown. */

type Environment = Readonly<Record<string, string | undefined>>

/** Names whose values are credentials by convention: masked, and withheld from gates. */
export const SECRET_NAME =
  /(TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|SIGNING_?KEY|CREDENTIAL)/i

/** The action's own `github-token` input, as the runner exposes it. */
const TOKEN_INPUT = 'INPUT_GITHUB-TOKEN'

/** Shorter values would mask ordinary words (`true`, `main`, a port number) all over the log. */
const MIN_SECRET_LENGTH = 8

const MASK = '***'

/** The values worth masking, deduplicated, longest first. */
export function secretValues(env: Environment): string[] {
  const values = new Set<string>()
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < MIN_SECRET_LENGTH) continue
    if (name === TOKEN_INPUT || SECRET_NAME.test(name)) values.add(value)
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
