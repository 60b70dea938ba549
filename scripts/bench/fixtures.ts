import { rmSync } from 'node:fs'
import { dirname } from 'node:path'
import {
  baseBranch,
  OWNER,
  pullRequestEvent,
  pullRequestJson,
  REPO,
  Repository,
  type RunOptions
} from '../../__tests__/helpers/action-run.js'
import { startGitHubStandIn, type GitHubStandIn } from '../../__tests__/helpers/github-standin.js'
import {
  startProviderStandIn,
  type Reply,
  type StandIn
} from '../../__tests__/helpers/provider-standin.js'

/**
 * The benchmark's world: a GitHub stand-in and a provider stand-in (one each for the whole run),
 * real git repositories with diffs of a chosen size, and pull requests on them.
 */

export const TOKEN = 'ghs_bench_token_000000000001'
export const BOT = { login: 'github-actions[bot]', type: 'Bot' as const }
export const RUBRIC_PATH = '.github/rubric.md'

/** Two checklist criteria, no dimensions: what the instant judges answer is always valid. */
export const JUDGED_RUBRIC = `---
dimensions: false
---
# Search

## Criteria
- tested: The change is covered by tests
- clear: The change is easy to follow
`

export const ANSWER = {
  findings: [],
  criteria: {
    tested: { reasoning: 'The new module has tests.', verdict: 'PASS' },
    clear: { reasoning: 'Small, well-named functions.', verdict: 'PASS' }
  },
  verdict: 'ACCEPT',
  feedback: ''
}

/**
 * `ANSWER` in the shape of the judge schema before it was keyed by id (b5ccdfa): what the
 * lifecycle figure's earlier bundle asks for. Answered the keyed shape, it repaired and re-asked
 * every call, and its figures counted four requests a judge.
 */
const LISTED_ANSWER = {
  ...ANSWER,
  criteria: Object.entries(ANSWER.criteria).map(([id, grade]) => ({ id, ...grade })),
  dimensions: []
}

/** The answer in the shape the request's schema asks for: criteria keyed by id, or listed. */
function answerFor(schema: unknown): Record<string, unknown> {
  const criteria = (schema as { properties?: { criteria?: { type?: unknown } } } | undefined)
    ?.properties?.criteria
  return criteria?.type === 'array' ? LISTED_ANSWER : ANSWER
}

/** Judges on three vendors, so each wire protocol is in play; nine for the largest council. */
export const JUDGES = [
  'openai:gpt-5.4-mini',
  'anthropic:claude-sonnet-4-6',
  'google:gemini-3.5-flash',
  'openai:gpt-5.5',
  'anthropic:claude-haiku-4-5',
  'google:gemini-3.1-flash-lite',
  'openai:gpt-5.4-nano',
  'anthropic:claude-opus-4-5',
  'google:gemini-3-flash-preview'
] as const

export interface World {
  readonly github: GitHubStandIn
  readonly providers: StandIn
  /** The provider keys and base URLs, for the action's environment. */
  readonly providerEnv: Readonly<Record<string, string>>
  /** Each judge answers `ANSWER`, after `delayMs` when it is above 0. */
  setJudgeDelay(delayMs: number): void
  close(): Promise<void>
}

export async function startWorld(): Promise<World> {
  const github = await startGitHubStandIn({ owner: OWNER, repo: REPO })
  github.addToken(TOKEN, { ...BOT, write: true })
  let delayMs = 0
  const providers = await startProviderStandIn((call): Reply => {
    const reply: Reply = { json: answerFor(call.schema) }
    return delayMs > 0 ? { delayMs, then: reply } : reply
  })
  return {
    github,
    providers,
    providerEnv: {
      OPENAI_API_KEY: 'sk-bench-openai-0123456789',
      OPENAI_BASE_URL: providers.openaiBaseUrl,
      ANTHROPIC_API_KEY: 'sk-ant-bench-0123456789',
      ANTHROPIC_BASE_URL: providers.anthropicBaseUrl,
      GOOGLE_GENERATIVE_AI_API_KEY: 'bench-google-0123456789',
      GOOGLE_GENERATIVE_AI_BASE_URL: providers.googleBaseUrl
    },
    setJudgeDelay: ms => {
      delayMs = ms
    },
    close: async () => {
      await Promise.all([github.close(), providers.close()])
    }
  }
}

export interface DiffShape {
  readonly files: number
  readonly lines: number
}

/** Lines of plausible TypeScript, varied enough that the tokenizer sees real-looking code. */
function sourceFile(file: number, lines: number): string {
  const words = ['query', 'index', 'result', 'ranking', 'token', 'cache', 'score', 'filter']
  const out: string[] = []
  for (let j = 0; j < lines; j++) {
    const word = words[(file + j) % words.length] ?? 'value'
    out.push(
      j % 11 === 0
        ? `// ${word} handling for module ${file}, step ${j}`
        : `export const ${word}${file}_${j} = compute${word.charAt(0).toUpperCase()}${word.slice(1)}(${(file * 31 + j * 7) % 997}, '${word}-${j}')`
    )
  }
  return `${out.join('\n')}\n`
}

/**
 * A repository whose pull request adds `shape.files` TypeScript files with `shape.lines` lines in
 * all (spread evenly), on a base that holds `rubric`; the GitHub stand-in serves the base's rubric.
 * Its objects are packed, as on a runner: actions/checkout fetches them, and git keeps a fetch of
 * 100 objects or more as a pack (`fetch.unpackLimit`), where commits made here leave one loose
 * file per object (`loose: true` keeps them so).
 */
export function diffRepository(
  world: World,
  shape: DiffShape,
  rubric: string,
  options: { readonly loose?: boolean } = {}
): Repository {
  const repo = new Repository({ [RUBRIC_PATH]: rubric, 'README.md': '# Search\n' })
  world.github.setFile(repo.baseSha, RUBRIC_PATH, rubric)
  world.github.setBranch(baseBranch(repo), repo.baseSha)
  const files: Record<string, string> = {}
  const per = Math.floor(shape.lines / shape.files)
  const extra = shape.lines - per * shape.files
  for (let i = 0; i < shape.files; i++) {
    files[`src/m${String(Math.floor(i / 100))}/mod${String(i)}.ts`] = sourceFile(
      i,
      per + (i < extra ? 1 : 0)
    )
  }
  repo.commit(files, 'Add the search modules')
  if (options.loose !== true) repo.git('repack', '-a', '-d', '-q')
  return repo
}

let nextPullRequest = 1

export interface PullRequest {
  readonly number: number
  /** For `measureAction` / `runAction`: workspace, event, API URL, token. */
  readonly run: RunOptions
  /** Removes the event file. */
  dispose(): void
}

/**
 * A new pull request number on `repo` (as if just opened: no comment of ours yet), with the
 * GitHub stand-in answering GET /pulls/{n} for it, and a real `pull_request.opened` payload.
 */
export function openPullRequest(
  world: World,
  repo: Repository,
  options: { readonly inputs?: Record<string, string>; readonly env?: Record<string, string> } = {}
): PullRequest {
  const number = nextPullRequest++
  world.github.setPullRequest(number, pullRequestJson(repo, number))
  const eventPath = pullRequestEvent(repo, { number })
  return {
    number,
    run: {
      workspace: repo.dir,
      eventName: 'pull_request',
      eventPath,
      apiUrl: world.github.url,
      inputs: { 'github-token': TOKEN, ...options.inputs },
      ...(options.env && { env: options.env })
    },
    dispose: () => {
      rmSync(dirname(eventPath), { recursive: true, force: true })
    }
  }
}
