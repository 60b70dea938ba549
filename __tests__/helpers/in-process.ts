import { join } from 'node:path'
import { runAction } from '../../src/action/action.js'
import type { Ticker } from '../../src/util/ticker.js'
import { openPullRequest, prepareRunner, pullRequestEvent, type Repository } from './action-run.js'
import { MemoryGitHub } from './memory-github.js'
import { recordingIO, type RecordingIO } from './recording-io.js'

/**
 * The action's flow in process: the same `runAction` the bundle's `run()` calls, with the runner's
 * environment, GitHub at its port (in memory) and the runner's log recorded. Gates really run,
 * evidence comes from a real git repository; only GitHub's HTTP side is not here (Octokit's side of
 * the port is tested against the OpenAPI-checked stand-in, and the bundle end to end in
 * __tests__/action.test.ts).
 */

const ROOT = join(import.meta.dirname, '..', '..')

/** The provider key the runs have, unless they say otherwise: its provider is unreachable. */
export const IN_PROCESS_KEY = 'sk-in-process-0123456789abcdef'

export interface PullRequest {
  readonly repo: Repository
  readonly number: number
  readonly github: MemoryGitHub
}

let nextPr = 1

/** A pull request in a real repository, which `github` (in memory) knows. */
export function pullRequest(
  base: Record<string, string>,
  head: Record<string, string | null> = {},
  github = new MemoryGitHub()
): PullRequest {
  const number = nextPr++
  const repo = openPullRequest(github, number, base, {
    'feature.ts': 'export const feature = 1\n',
    ...head
  })
  return { repo, number, github }
}

export interface Ran extends RecordingIO {
  /** The step's exit code: 0 unless it failed. */
  readonly code: number
}

export async function runInProcess(
  pr: PullRequest,
  options: {
    readonly inputs?: Record<string, string>
    readonly eventName?: string
    readonly token?: string
    /** The event's payload file, when not a pull_request.opened for the checkout's commits. */
    readonly event?: string
    /** The provider keys and base URLs; an unreachable OpenAI by default. */
    readonly providers?: Record<string, string>
    /** Ticks while judges are pending, as src/main.ts gives the real one; none by default. */
    readonly ticker?: Ticker
    /** Today, for the models' retirement dates; the real day by default. */
    readonly now?: () => number
  } = {}
): Promise<Ran> {
  const { env } = prepareRunner({
    workspace: pr.repo.dir,
    eventName: options.eventName ?? 'pull_request',
    eventPath: options.event ?? pullRequestEvent(pr.repo, { number: pr.number }),
    // Single-job mode with a key and a write token, opted in by name: these runs are of the flow.
    inputs: {
      'github-token': options.token ?? 'ghs_token',
      'allow-gates-with-secrets': 'true',
      ...options.inputs
    },
    env: options.providers ?? {
      OPENAI_API_KEY: IN_PROCESS_KEY,
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1'
    }
  })
  const io = recordingIO()
  await runAction({
    env,
    getInput: name => (env[`INPUT_${name.toUpperCase()}`] ?? '').trim(),
    io,
    github: token => (token === '' ? undefined : pr.github),
    bundleDir: join(ROOT, 'dist'),
    ...(options.ticker && { ticker: options.ticker }),
    ...(options.now && { now: options.now })
  })
  return Object.assign(io, { code: io.failed?.exitCode ?? 0 })
}
