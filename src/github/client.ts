import { getOctokit } from '@actions/github'
import { retry } from '@octokit/plugin-retry'
import { throttling } from '@octokit/plugin-throttling'
import Bottleneck from 'bottleneck/light.js'

export type GitHub = ReturnType<typeof getOctokit>

/** Retries after a rate limit (primary or secondary) this many times before giving up. */
const RATE_LIMIT_RETRIES = 2

/**
 * Octokit for the action: base URL from GITHUB_API_URL (so GitHub Enterprise Server works), 5xx
 * and network failures retried, primary and secondary rate limits waited out a few times.
 */
export function createGitHub(
  token: string,
  baseUrl: string,
  warn: (message: string) => void
): GitHub {
  const waitOut =
    (kind: string) =>
    (
      retryAfter: number,
      options: { method: string; url: string },
      _octokit: unknown,
      retryCount: number
    ): boolean => {
      const retrying = retryCount < RATE_LIMIT_RETRIES
      warn(
        `GitHub ${kind} on ${options.method} ${options.url}; ${retrying ? `retrying in ${retryAfter} s` : 'giving up'}`
      )
      return retrying
    }
  return getOctokit(
    token,
    {
      baseUrl,
      throttle: {
        onRateLimit: waitOut('rate limit'),
        onSecondaryRateLimit: waitOut('secondary rate limit'),
        // The plugin spaces writes a second apart, advice for clients that write a lot; a run
        // makes two or three. Writes stay one at a time, and a secondary limit is still waited out.
        write: new Bottleneck.Group({ id: 'octokit-write', maxConcurrent: 1, minTime: 0 })
      }
    },
    retry,
    throttling
  )
}

/** The HTTP status of an Octokit error, if it has one. */
export function statusOf(error: unknown): number | undefined {
  return typeof error === 'object' &&
    error !== null &&
    'status' in error &&
    typeof error.status === 'number'
    ? error.status
    : undefined
}
