import { createGitHub, type GitHub } from '../github/client.js'
import { fileInRepository } from '../github/contents.js'
import { readExtends, type ReadUpstream } from '../rubric/read-extends.js'
import type { RubricTextResult } from '../rubric/text.js'
import type { CliIo } from './io.js'

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

/** A rubric's text with what it extends, read through the API as `cliUpstreamReader` says. */
export async function withUpstreams(
  io: Pick<CliIo, 'env' | 'stderr'>,
  rubric: RubricTextResult
): Promise<RubricTextResult> {
  if (!rubric.ok) return rubric
  return readExtends(
    rubric.value,
    cliUpstreamReader(io.env, line => {
      io.stderr(line)
    })
  )
}
