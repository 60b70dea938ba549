import { createGitHub, type GitHub } from '../github/client.js'
import { fileInRepository } from '../github/contents.js'
import type { ReadUpstream } from '../rubric/read-extends.js'

/**
 * How the CLI reads the rubrics `extends` names: through the API at GITHUB_API_URL (GitHub
 * Enterprise Server too) with GITHUB_TOKEN or GH_TOKEN; none without a token, which the rubric's
 * problems then say.
 */
export function cliUpstreamReader(
  env: Readonly<Record<string, string | undefined>>,
  warn: (message: string) => void
): ReadUpstream | undefined {
  const token = [env.GITHUB_TOKEN, env.GH_TOKEN].find(t => t !== undefined && t !== '')
  if (token === undefined) return undefined
  let github: GitHub | undefined
  return file =>
    fileInRepository(
      (github ??= createGitHub(token, env.GITHUB_API_URL ?? 'https://api.github.com', warn)),
      file
    )
}
