import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it, type ExpectStatic } from 'vitest'
import {
  openPullRequest,
  OWNER,
  pullRequestEvent,
  Repository,
  REPO,
  runAction,
  type ActionRun
} from './helpers/action-run.js'
import {
  COMMENT_BODY_LIMIT,
  startGitHubStandIn,
  type FailReply,
  type GitHubStandIn
} from './helpers/github-standin.js'
import { askedBy, wireAnswer } from './helpers/judge-answers.js'
import {
  startProviderStandIn,
  type RecordedCall,
  type Reply,
  type Script,
  type StandIn
} from './helpers/provider-standin.js'

/**
 * The fault matrix (docs/reliability.md): the bundled action run end to end on a pull request
 * while one part of the machinery misbehaves: keys, providers, judges' output, GitHub, gates, the
 * rubric, the diff. Whatever breaks, the verdict is never PASS unless the fault was recovered,
 * the JSON report and the job summary are still written, and the message says what to do.
 *
 * Every test has its own GitHub and provider stand-ins, so they run concurrently.
 */

const WRITE = 'ghs_faults_writable_token_01'
const READ_ONLY = 'ghs_faults_readonly_token_02'
const BOT = { login: 'github-actions[bot]', type: 'Bot' as const }
const KEYS = {
  openai: 'sk-test-faults-openai-0123456789',
  anthropic: 'sk-ant-test-faults-0123456789'
}
const PR = 1

/** Two must-haves, no dimensions: the council decides on them alone. */
const RUBRIC = `---
dimensions: false
---
## Criteria
- a: The change does what its title says
- b: Errors are handled
`
const HANG_RUBRIC = RUBRIC.replace(
  'dimensions: false',
  'dimensions: false\ncouncil: { timeout: 2 }'
)

/** Three judges on two providers; quorum 2. */
const COUNCIL = 'openai:gpt-5.4-nano, openai:gpt-5.5, anthropic:claude-sonnet-4-6'
/** The judge that keeps working while the other two fail: alone it is short of the quorum. */
const HEALTHY = 'gpt-5.4-nano'

/** Retries, backoffs and timeouts make some runs take seconds; the tests run side by side. */
const SLOW = { timeout: 60_000 }

// ---------------------------------------------------------------------------------------------
// The world of one test: a GitHub stand-in behind a proxy, and the providers

interface World {
  readonly github: GitHubStandIn
  readonly providers: StandIn
  /** The next `count` requests matching `method` and `path` get `reply` from the stand-in. */
  failOn(method: string, path: RegExp, count: number, reply: FailReply): void
}

/**
 * Gives `body` a world of its own, then checks that every request the action made to GitHub is
 * one GitHub's OpenAPI description allows (as action.test.ts does after each test).
 */
async function inWorld(
  expect: ExpectStatic,
  script: Script,
  body: (w: World) => Promise<void>
): Promise<void> {
  const github = await startGitHubStandIn({ owner: OWNER, repo: REPO })
  github.addToken(WRITE, { ...BOT, write: true })
  github.addToken(READ_ONLY, { ...BOT, write: false })
  const providers = await startProviderStandIn(script)
  const world: World = {
    github,
    providers,
    failOn: (method, path, count, reply) => {
      github.failNext(count, reply, { method, path })
    }
  }
  try {
    await body(world)
    expect(github.violations).toEqual([])
  } finally {
    await Promise.all([github.close(), providers.close()])
  }
}

interface PullRequest {
  readonly repo: Repository
}

/** `base` on main (also served by the API at the base commit), `head` committed on top. */
function pullRequest(
  w: World,
  base: Record<string, string>,
  head: Record<string, string | Buffer | null> = { 'src/feature.ts': 'export const feature = 1\n' }
): PullRequest {
  return { repo: openPullRequest(w.github, PR, base, head) }
}

const PROVIDER_ENV = (w: World): Record<string, string> => ({
  OPENAI_API_KEY: KEYS.openai,
  OPENAI_BASE_URL: w.providers.openaiBaseUrl,
  ANTHROPIC_API_KEY: KEYS.anthropic,
  ANTHROPIC_BASE_URL: w.providers.anthropicBaseUrl
})

/** The providers' settings with no Anthropic key (its endpoint still set). */
function withoutAnthropicKey(w: World): Record<string, string> {
  return Object.fromEntries(
    Object.entries(PROVIDER_ENV(w)).filter(([name]) => name !== 'ANTHROPIC_API_KEY')
  )
}

function run(
  w: World,
  pr: PullRequest,
  options: { inputs?: Record<string, string>; env?: Record<string, string>; token?: string } = {}
): Promise<ActionRun> {
  return runAction({
    workspace: pr.repo.dir,
    eventName: 'pull_request',
    eventPath: pullRequestEvent(pr.repo, { number: PR }),
    apiUrl: w.github.url,
    // Single-job mode, opted in by name: the faults are the providers', the gates' and GitHub's.
    inputs: {
      'github-token': options.token ?? WRITE,
      models: COUNCIL,
      'allow-gates-with-secrets': 'true',
      ...options.inputs
    },
    env: options.env ?? PROVIDER_ENV(w)
  })
}

// ---------------------------------------------------------------------------------------------
// Judges' answers

/** A valid answer: every criterion PASS (a score of 8 where the criterion has score bands). */
const answer = (call: RecordedCall): Record<string, unknown> => wireAnswer(call.schema)

const pass = (call: RecordedCall): Reply => ({ json: answer(call) })

/** The healthy judge answers; every other judge gets `fault`. */
function allBut(fault: (call: RecordedCall) => Reply): Script {
  return call => (call.model === HEALTHY ? pass(call) : fault(call))
}

/** Calls made to one model. */
const callsTo = (w: World, model: string): RecordedCall[] =>
  w.providers.calls.filter(c => c.model === model)

// ---------------------------------------------------------------------------------------------
// What every fault must leave behind

interface Report {
  readonly schema: string
  readonly verdict: string
  readonly reasons: readonly { readonly code: string; readonly message: string }[]
  readonly judges: readonly {
    readonly judge: string
    readonly status: string
    readonly failure: string | null
    readonly error: string | null
  }[]
  readonly gates: readonly {
    readonly command: string
    readonly status: string
    readonly exit_code: number | null
    readonly output: { readonly head: string; readonly tail: string; readonly total_bytes: number }
  }[]
  readonly coverage: {
    readonly ratio: number
    readonly reviewed: readonly { readonly path: string }[]
    readonly omitted: readonly { readonly path: string; readonly reason: string }[]
  } | null
}

const EXIT: Readonly<Record<string, number>> = { PASS: 0, FAIL: 1, UNCLEAR: 2 }
const ICON: Readonly<Record<string, string>> = { PASS: '✅', FAIL: '❌', UNCLEAR: '⚠️' }
const CONCLUSION: Readonly<Record<string, string>> = {
  PASS: 'success',
  FAIL: 'failure',
  UNCLEAR: 'action_required'
}

/**
 * The verdict and its reasons, in the outputs, the exit code, the JSON report, the job summary,
 * the sticky comment and the check run (unless `published` is false: no write permission).
 * PASS is accepted only from a test that names the recovery.
 */
function expectVerdict(
  expect: ExpectStatic,
  w: World,
  result: ActionRun,
  expected: {
    readonly verdict: 'PASS' | 'FAIL' | 'UNCLEAR'
    readonly reasons: readonly string[]
    readonly recovered?: boolean
    readonly published?: boolean
  }
): Report {
  const { verdict, reasons } = expected
  if (expected.recovered !== true) expect(result.outputs.verdict).not.toBe('PASS')
  expect([result.outputs.verdict, result.outputs.reasons, result.code]).toEqual([
    verdict,
    reasons.join(','),
    EXIT[verdict]
  ])
  const report = JSON.parse(readFileSync(result.outputs.report ?? '', 'utf8')) as Report
  expect(report.schema).toBe('rubric-council/report@1')
  expect([report.verdict, report.reasons.map(r => r.code)]).toEqual([verdict, reasons])
  const headline = `### ${ICON[verdict] ?? ''} Rubric Council: ${verdict}`
  expect(shown(result)).toContain(headline)
  // Whatever a provider echoed back, no key reaches anything the action wrote.
  const written = [
    result.stdout.replace(/^::add-mask::.*$/gm, ''),
    result.summary,
    JSON.stringify(report),
    ...(w.github.comments.get(PR) ?? []).map(c => c.body)
  ].join('\n')
  expect(written).not.toContain(KEYS.openai)
  expect(written).not.toContain(KEYS.anthropic)
  if (expected.published !== false) {
    const comments = w.github.comments.get(PR) ?? []
    expect(comments).toHaveLength(1)
    expect(comments[0]?.body).toContain(headline)
    expect(Array.from(comments[0]?.body ?? '').length).toBeLessThanOrEqual(COMMENT_BODY_LIMIT)
    expect(w.github.checkRuns.map(c => c.conclusion)).toEqual([CONCLUSION[verdict]])
  }
  return report
}

/**
 * The job summary as a reader sees it rendered: without the backslashes and entities that keep
 * untrusted text from being read as Markdown or HTML (`ANTHROPIC\_API\_KEY` shows as
 * `ANTHROPIC_API_KEY`).
 */
function shown(result: ActionRun): string {
  return result.summary
    .replace(/\\([\\`*_[\]|~])/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/@\u200d/g, '@')
}

/** The judge's failure, as the report records it. */
function judge(report: Report, name: string): Report['judges'][number] | undefined {
  return report.judges.find(j => j.judge === name)
}

/**
 * A machinery failure the user can only wait out or retry must say so: running the job again
 * is the thing to do, and the report has to tell them.
 */
const RUN_AGAIN = /\b(?:re-?run|run (?:the (?:job|workflow) )?again)\b/i

// ---------------------------------------------------------------------------------------------
// The matrix

describe.concurrent('fault matrix: API keys', SLOW, () => {
  it('a key missing for one of three judges: the other two reach quorum (recovered: quorum) → PASS', async ({
    expect
  }) => {
    await inWorld(expect, pass, async w => {
      const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
      const env = withoutAnthropicKey(w)
      const result = await run(w, pr, { env })
      const report = expectVerdict(expect, w, result, {
        verdict: 'PASS',
        reasons: [],
        recovered: true
      })
      expect(callsTo(w, 'claude-sonnet-4-6')).toHaveLength(0)
      expect(judge(report, 'anthropic:claude-sonnet-4-6')).toMatchObject({
        status: 'failed',
        failure: 'missing_credentials'
      })
      expect(shown(result)).toContain('judges 2/3')
      expect(shown(result)).toContain('ANTHROPIC_API_KEY is not set; this judge was not asked')
    })
  })

  it('keys missing for two of three judges: quorum lost → UNCLEAR missing_credentials', async ({
    expect
  }) => {
    await inWorld(expect, pass, async w => {
      const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
      const env = withoutAnthropicKey(w)
      const result = await run(w, pr, {
        env,
        inputs: {
          models: 'openai:gpt-5.4-nano, anthropic:claude-sonnet-4-6, anthropic:claude-haiku-4-5'
        }
      })
      expectVerdict(expect, w, result, { verdict: 'UNCLEAR', reasons: ['missing_credentials'] })
      expect(shown(result)).toContain('1 valid answer of 3, quorum 2')
      expect(shown(result)).toContain(
        'anthropic:claude-haiku-4-5: ANTHROPIC_API_KEY is not set; this judge was not asked'
      )
    })
  })

  it('no key for any named judge → UNCLEAR missing_credentials, no provider called', async ({
    expect
  }) => {
    await inWorld(expect, pass, async w => {
      const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
      const result = await run(w, pr, { env: {} })
      expectVerdict(expect, w, result, { verdict: 'UNCLEAR', reasons: ['missing_credentials'] })
      expect(w.providers.calls).toHaveLength(0)
      expect(shown(result)).toContain('0 valid answers of 3, quorum 2')
      expect(shown(result)).toContain('openai:gpt-5.4-nano: OPENAI_API_KEY is not set')
      expect(shown(result)).toContain('anthropic:claude-sonnet-4-6: ANTHROPIC_API_KEY is not set')
    })
  })

  it('no key and no models at all → UNCLEAR missing_credentials, saying to set a key', async ({
    expect
  }) => {
    await inWorld(expect, pass, async w => {
      const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
      const result = await run(w, pr, { env: {}, inputs: { models: '' } })
      expectVerdict(expect, w, result, { verdict: 'UNCLEAR', reasons: ['missing_credentials'] })
      expect(w.providers.calls).toHaveLength(0)
      expect(shown(result)).toContain(
        'no judge could be formed; set an API key for a provider or name models'
      )
    })
  })
})

describe.concurrent('fault matrix: provider HTTP errors', SLOW, () => {
  it('401 from two of three judges: quorum lost → UNCLEAR rejected_credentials', async ({
    expect
  }) => {
    await inWorld(
      expect,
      // As OpenAI does, the error echoes the key it rejected.
      allBut(call => ({
        status: 401,
        body: {
          error: {
            message: `Incorrect API key provided: ${call.apiKey ?? ''}`,
            type: 'invalid_request_error',
            code: 'invalid_api_key'
          }
        }
      })),
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
        const result = await run(w, pr)
        const report = expectVerdict(expect, w, result, {
          verdict: 'UNCLEAR',
          reasons: ['rejected_credentials']
        })
        // A rejected key is not retried.
        expect(callsTo(w, 'gpt-5.5')).toHaveLength(1)
        expect(judge(report, 'openai:gpt-5.5')?.error).toContain(
          'the provider rejected OPENAI_API_KEY (401)'
        )
        expect(shown(result)).toContain(
          'A maintainer replaces the repository secrets <code>OPENAI_API_KEY</code> and <code>ANTHROPIC_API_KEY</code> with current keys allowed to use the model, then comments <code>/council rerun</code>.'
        )
      }
    )
  })

  it('403 from two of three judges: quorum lost → UNCLEAR rejected_credentials', async ({
    expect
  }) => {
    await inWorld(
      expect,
      allBut(() => ({ status: 403 })),
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
        const result = await run(w, pr)
        expectVerdict(expect, w, result, { verdict: 'UNCLEAR', reasons: ['rejected_credentials'] })
        expect(callsTo(w, 'claude-sonnet-4-6')).toHaveLength(1)
        expect(shown(result)).toContain(
          'anthropic:claude-sonnet-4-6: the provider rejected ANTHROPIC_API_KEY (403)'
        )
        expect(shown(result)).toContain('with a current key allowed to use the model')
      }
    )
  })

  it('404 for two misspelt models: quorum lost → UNCLEAR provider_error, naming the model', async ({
    expect
  }) => {
    // The stand-in answers 404 for a model the provider does not serve, as the real APIs do.
    await inWorld(expect, pass, async w => {
      const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
      const result = await run(w, pr, {
        inputs: { models: 'openai:gpt-5.4-nano, openai:gpt-5-mimi, anthropic:claude-sonet-4-5' }
      })
      expectVerdict(expect, w, result, { verdict: 'UNCLEAR', reasons: ['provider_error'] })
      expect(callsTo(w, 'gpt-5-mimi')).toHaveLength(1)
      expect(shown(result)).toContain(
        'openai:gpt-5-mimi: the provider rejected the request (404): The model `gpt-5-mimi` does not exist or you do not have access to it; re-running will not help: check the model name'
      )
      // A rejected request is rejected again: no advice to run the job again.
      expect(shown(result)).toContain('re-running will not help')
      expect(shown(result)).not.toMatch(RUN_AGAIN)
    })
  })

  it('429 with retry-after: 1, then an answer (recovered: retry after the wait) → PASS', async ({
    expect
  }) => {
    const limited = new Set<string>()
    await inWorld(
      expect,
      call => {
        if (limited.has(call.model)) return pass(call)
        limited.add(call.model)
        return { status: 429, headers: { 'retry-after': '1' } }
      },
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
        const result = await run(w, pr)
        expectVerdict(expect, w, result, { verdict: 'PASS', reasons: [], recovered: true })
        expect(shown(result)).toContain('judges 3/3')
        for (const model of ['gpt-5.4-nano', 'gpt-5.5', 'claude-sonnet-4-6']) {
          const [first, second, ...more] = callsTo(w, model)
          expect(more).toEqual([])
          // The retry waited as long as retry-after said.
          expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(950)
        }
      }
    )
  })

  it('429 without retry-after from two of three judges: backs off, quorum lost → UNCLEAR rate_limited', async ({
    expect
  }) => {
    await inWorld(
      expect,
      allBut(() => ({ status: 429 })),
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
        const result = await run(w, pr)
        expectVerdict(expect, w, result, { verdict: 'UNCLEAR', reasons: ['rate_limited'] })
        // The first try and two retries, with backoff between them.
        const tries = callsTo(w, 'gpt-5.5')
        expect(tries).toHaveLength(3)
        expect((tries[2]?.receivedAt ?? 0) - (tries[0]?.receivedAt ?? 0)).toBeGreaterThan(700)
        expect(shown(result)).toContain('openai:gpt-5.5: rate limited (429)')
        expect(shown(result)).toContain('(after 3 tries)')
        expect(shown(result)).toMatch(RUN_AGAIN)
      }
    )
  })

  it('500 from two of three judges on every try: quorum lost → UNCLEAR provider_error', async ({
    expect
  }) => {
    await inWorld(
      expect,
      allBut(() => ({ status: 500 })),
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
        const result = await run(w, pr)
        expectVerdict(expect, w, result, { verdict: 'UNCLEAR', reasons: ['provider_error'] })
        expect(callsTo(w, 'claude-sonnet-4-6')).toHaveLength(3)
        expect(shown(result)).toContain('openai:gpt-5.5: the provider failed (500)')
        expect(shown(result)).toMatch(RUN_AGAIN)
      }
    )
  })

  it('Anthropic 529 overloaded for two of three judges: quorum lost → UNCLEAR provider_error', async ({
    expect
  }) => {
    await inWorld(
      expect,
      call => (call.protocol === 'anthropic-messages' ? { status: 529 } : pass(call)),
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
        const result = await run(w, pr, {
          inputs: {
            models: 'openai:gpt-5.4-nano, anthropic:claude-sonnet-4-6, anthropic:claude-haiku-4-5'
          }
        })
        expectVerdict(expect, w, result, { verdict: 'UNCLEAR', reasons: ['provider_error'] })
        // An overloaded provider gets one more retry, with backoffs twice as long (1–2, 2–4, 4–8 s).
        expect(callsTo(w, 'claude-haiku-4-5')).toHaveLength(4)
        expect(shown(result)).toContain(
          'anthropic:claude-haiku-4-5: the provider failed (529): Overloaded (after 4 tries)'
        )
        expect(shown(result)).toMatch(RUN_AGAIN)
      }
    )
  }, 30_000)

  it('Anthropic 529 once, then an answer (recovered: retry with backoff) → PASS', async ({
    expect
  }) => {
    let overloaded = false
    await inWorld(
      expect,
      call => {
        if (call.protocol !== 'anthropic-messages' || overloaded) return pass(call)
        overloaded = true
        return { status: 529 }
      },
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
        const result = await run(w, pr)
        expectVerdict(expect, w, result, { verdict: 'PASS', reasons: [], recovered: true })
        expect(callsTo(w, 'claude-sonnet-4-6')).toHaveLength(2)
        expect(shown(result)).toContain('judges 3/3')
      }
    )
  })
})

/** An Anthropic message that stops with `refusal` (the model declined), as the API sends it. */
function anthropicRefusal(call: RecordedCall): Reply {
  return {
    raw: JSON.stringify({
      id: 'msg_01RefusalRefusalRefusal',
      type: 'message',
      role: 'assistant',
      model: call.model,
      content: [{ type: 'text', text: "I can't help with that." }],
      stop_reason: 'refusal',
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 8 }
    })
  }
}

/** An OpenAI Responses answer whose message is a refusal, as the API sends it. */
function openaiRefusal(call: RecordedCall): Reply {
  return {
    raw: JSON.stringify({
      id: 'resp_refusalrefusalrefusal',
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      status: 'completed',
      error: null,
      incomplete_details: null,
      model: call.model,
      output: [
        {
          type: 'message',
          id: 'msg_refusalrefusalrefusal',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'refusal', refusal: "I'm sorry, I can't help with that." }]
        }
      ],
      usage: {
        input_tokens: 100,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 9,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 109
      }
    })
  }
}

describe.concurrent('fault matrix: provider misbehaviour', SLOW, () => {
  it('two of three judges hang: each times out, quorum lost → UNCLEAR timeout, in bounded time', async ({
    expect
  }) => {
    await inWorld(
      expect,
      allBut(() => ({ hang: true })),
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': HANG_RUBRIC })
        const started = Date.now()
        const result = await run(w, pr)
        expect(Date.now() - started).toBeLessThan(20_000)
        expectVerdict(expect, w, result, { verdict: 'UNCLEAR', reasons: ['timeout'] })
        expect(shown(result)).toContain('openai:gpt-5.5: no answer within 2 s')
        // What to change: the rubric's council.timeout, or run again.
        expect(shown(result)).toMatch(/council\.timeout|\b(?:re-?run|run (?:the job )?again)\b/i)
      }
    )
  })

  it('one of three judges hangs (recovered: quorum) → PASS, the timeout shown', async ({
    expect
  }) => {
    await inWorld(
      expect,
      call => (call.model === 'gpt-5.5' ? { hang: true } : pass(call)),
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': HANG_RUBRIC })
        const result = await run(w, pr)
        const report = expectVerdict(expect, w, result, {
          verdict: 'PASS',
          reasons: [],
          recovered: true
        })
        expect(judge(report, 'openai:gpt-5.5')).toMatchObject({ failure: 'timeout' })
        expect(shown(result)).toContain('judges 2/3')
        expect(shown(result)).toContain('openai:gpt-5.5**: no answer within 2 s')
      }
    )
  })

  it('a truncated response body from two of three judges → UNCLEAR provider_error, saying the response was broken', async ({
    expect
  }) => {
    await inWorld(
      expect,
      allBut(() => ({ raw: '{"id":"x","output":[' })),
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
        const result = await run(w, pr)
        const report = expectVerdict(expect, w, result, {
          verdict: 'UNCLEAR',
          reasons: ['provider_error']
        })
        const error = judge(report, 'openai:gpt-5.5')?.error ?? ''
        // A 200 with a body cut short is not the provider refusing the request.
        expect.soft(error).not.toContain('refused the request (200)')
        expect
          .soft(error)
          .toMatch(/invalid|truncated|malformed|could not (?:be )?(?:read|parsed?)/i)
        expect(shown(result)).toMatch(RUN_AGAIN)
      }
    )
  })

  it('an empty response body from two of three judges → UNCLEAR provider_error, saying the response was empty', async ({
    expect
  }) => {
    await inWorld(
      expect,
      allBut(() => ({ raw: '' })),
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
        const result = await run(w, pr)
        const report = expectVerdict(expect, w, result, {
          verdict: 'UNCLEAR',
          reasons: ['provider_error']
        })
        const error = judge(report, 'anthropic:claude-sonnet-4-6')?.error ?? ''
        expect.soft(error).not.toContain('refused the request (200)')
        expect.soft(error).toMatch(/empty|invalid|could not (?:be )?(?:read|parsed?)/i)
        expect(shown(result)).toMatch(RUN_AGAIN)
      }
    )
  })

  it('prose instead of JSON, then JSON after the repair request (recovered: repair) → PASS', async ({
    expect
  }) => {
    await inWorld(
      expect,
      call =>
        call.text.includes('Your answer cannot be used')
          ? pass(call)
          : { text: 'Both criteria look fine to me; ship it.' },
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
        const result = await run(w, pr)
        expectVerdict(expect, w, result, { verdict: 'PASS', reasons: [], recovered: true })
        for (const model of ['gpt-5.4-nano', 'gpt-5.5', 'claude-sonnet-4-6']) {
          const [first, repair, ...more] = callsTo(w, model)
          expect(more).toEqual([])
          expect(first?.text).not.toContain('Your answer cannot be used')
          // The repair hands back the invalid answer and what is wrong with it.
          expect(repair?.text).toContain('Both criteria look fine to me; ship it.')
          expect(repair?.text).toContain('Your answer cannot be used: the answer is not JSON')
        }
      }
    )
  })

  it('prose on every attempt from two of three judges: 1 repair + 2 re-asks, then UNCLEAR invalid_output', async ({
    expect
  }) => {
    await inWorld(
      expect,
      allBut(() => ({ text: 'Both criteria look fine to me; ship it.' })),
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
        const result = await run(w, pr)
        expectVerdict(expect, w, result, { verdict: 'UNCLEAR', reasons: ['invalid_output'] })
        expect(callsTo(w, 'gpt-5.5')).toHaveLength(4)
        expect(shown(result)).toContain(
          'openai:gpt-5.5: no valid answer after 4 attempts (1 repair, 2 re-asks); last problem: the answer is not JSON'
        )
        expect(shown(result)).toMatch(RUN_AGAIN)
      }
    )
  })

  it('JSON with wrong types (verdict "yes") from two of three judges → UNCLEAR invalid_output, never a default', async ({
    expect
  }) => {
    await inWorld(
      expect,
      allBut(call => {
        const json = answer(call)
        return {
          json: {
            ...json,
            criteria: Object.fromEntries(
              askedBy(call.schema).checklist.map(id => [id, { reasoning: 'ok', verdict: 'yes' }])
            )
          }
        }
      }),
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
        const result = await run(w, pr)
        const report = expectVerdict(expect, w, result, {
          verdict: 'UNCLEAR',
          reasons: ['invalid_output']
        })
        expect(callsTo(w, 'gpt-5.5')).toHaveLength(4)
        expect(judge(report, 'openai:gpt-5.5')?.error).toMatch(/criteria\.[ab]\.verdict/)
        expect(shown(result)).toMatch(RUN_AGAIN)
      }
    )
  })

  it('a missing criterion id from two of three judges → UNCLEAR invalid_output, naming the id', async ({
    expect
  }) => {
    await inWorld(
      expect,
      allBut(call => {
        const json = answer(call)
        const criteria = Object.entries(json.criteria as Record<string, unknown>)
        return {
          json: { ...json, criteria: Object.fromEntries(criteria.filter(([id]) => id !== 'b')) }
        }
      }),
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
        const result = await run(w, pr)
        expectVerdict(expect, w, result, { verdict: 'UNCLEAR', reasons: ['invalid_output'] })
        expect(shown(result)).toContain('last problem: checklist criterion "b" is missing')
        // The repair request told the judge.
        expect(callsTo(w, 'gpt-5.5')[1]?.text).toContain('checklist criterion "b" is missing')
        expect(shown(result)).toMatch(RUN_AGAIN)
      }
    )
  })

  it('an unknown criterion id from two of three judges → UNCLEAR invalid_output, naming the id', async ({
    expect
  }) => {
    await inWorld(
      expect,
      allBut(call => {
        const json = answer(call)
        const criteria = json.criteria as Record<string, unknown>
        return {
          json: {
            ...json,
            criteria: { ...criteria, c: { reasoning: 'an extra one', verdict: 'PASS' } }
          }
        }
      }),
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
        const result = await run(w, pr)
        expectVerdict(expect, w, result, { verdict: 'UNCLEAR', reasons: ['invalid_output'] })
        expect(shown(result)).toContain('last problem: unknown checklist criterion "c"')
        expect(shown(result)).toMatch(RUN_AGAIN)
      }
    )
  })

  it('a score out of range (12 of 10) from two of three judges → UNCLEAR invalid_output', async ({
    expect
  }) => {
    const rubric = `---
dimensions: false
criteria:
  - id: b
    description: Errors are handled
    required_min_score: 6
    score_ranges: { 0: Unhandled, 4: Some paths handled, 7: Every path handled }
---
## Criteria
- a: The change does what its title says
`
    await inWorld(
      expect,
      call => {
        if (call.model === HEALTHY) return { json: answer(call) }
        return { json: wireAnswer(call.schema, { score: 12 }) }
      },
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': rubric })
        const result = await run(w, pr)
        const report = expectVerdict(expect, w, result, {
          verdict: 'UNCLEAR',
          reasons: ['invalid_output']
        })
        expect(judge(report, 'openai:gpt-5.5')?.error).toContain(
          'criterion "b" has score 12: give an integer 0–10'
        )
        expect(shown(result)).toMatch(RUN_AGAIN)
      }
    )
  })

  it('refusals (Anthropic stop_reason "refusal", OpenAI refusal message) → UNCLEAR invalid_output, named as refusals', async ({
    expect
  }) => {
    await inWorld(
      expect,
      call =>
        call.model === HEALTHY
          ? pass(call)
          : call.protocol === 'anthropic-messages'
            ? anthropicRefusal(call)
            : openaiRefusal(call),
      async w => {
        const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
        const result = await run(w, pr)
        const report = expectVerdict(expect, w, result, {
          verdict: 'UNCLEAR',
          reasons: ['invalid_output']
        })
        // The user must learn that the model declined, not that its JSON was malformed.
        expect.soft(judge(report, 'anthropic:claude-sonnet-4-6')?.error).toMatch(/refus/i)
        expect.soft(judge(report, 'openai:gpt-5.5')?.error).toMatch(/refus/i)
        expect(shown(result)).toMatch(RUN_AGAIN)
      }
    )
  })
})

describe.concurrent('fault matrix: GitHub', SLOW, () => {
  const COMMENTS = /^\/repos\/[^/]+\/[^/]+\/issues\/\d+\/comments$/

  it('two 502s on creating the comment, then success (recovered: Octokit retry) → the comment exists', async ({
    expect
  }) => {
    await inWorld(expect, pass, async w => {
      w.failOn('POST', COMMENTS, 2, { status: 502 })
      const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
      const result = await run(w, pr)
      expectVerdict(expect, w, result, { verdict: 'PASS', reasons: [], recovered: true })
      const posts = w.github.requests.filter(r => r.method === 'POST' && COMMENTS.test(r.path))
      expect(posts.map(r => r.status)).toEqual([502, 502, 201])
      expect(result.outputs['comment-url']).toBe(w.github.comments.get(PR)?.[0]?.html_url)
    })
  })

  it('a secondary rate limit on creating the comment (recovered: waited out retry-after) → the comment exists', async ({
    expect
  }) => {
    await inWorld(expect, pass, async w => {
      w.failOn('POST', COMMENTS, 1, {
        status: 403,
        headers: { 'retry-after': '1' },
        body: {
          message:
            'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
          documentation_url:
            'https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits',
          status: '403'
        }
      })
      const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
      const result = await run(w, pr)
      expectVerdict(expect, w, result, { verdict: 'PASS', reasons: [], recovered: true })
      const posts = w.github.requests.filter(r => r.method === 'POST' && COMMENTS.test(r.path))
      expect(posts.map(r => r.status)).toEqual([403, 201])
      expect(result.stdout).toMatch(
        /::warning::GitHub secondary rate limit on POST \S+; retrying in 1 s/
      )
    })
  })

  it('a read-only token: no comment or check run, a warning (recovered: the verdict stands in the summary and outputs)', async ({
    expect
  }) => {
    await inWorld(expect, pass, async w => {
      const pr = pullRequest(w, { '.github/rubric.md': RUBRIC })
      const result = await run(w, pr, { token: READ_ONLY })
      expectVerdict(expect, w, result, {
        verdict: 'PASS',
        reasons: [],
        recovered: true,
        published: false
      })
      expect(w.github.comments.get(PR) ?? []).toHaveLength(0)
      expect(w.github.checkRuns).toHaveLength(0)
      expect(result.outputs['comment-url']).toBe('')
      expect(result.stdout).toContain(
        "::warning::Rubric Council: no permission to comment on the pull request (403): a fork's pull_request run or a read-only token; the verdict stands and the full report is in the job summary"
      )
      expect(result.stdout).toContain(
        '::warning::Rubric Council: no permission to create the check run (403)'
      )
    })
  })
})

/** The rubric with gates in front of its criteria. */
const withGates = (commands: readonly string[], options = ''): string =>
  RUBRIC.replace('dimensions: false', `dimensions: false${options ? `\n${options}` : ''}`) +
  `\n## Gates\n${commands.map(c => `- \`${c}\``).join('\n')}\n`

/** The action's peak resident memory in kB, as a gate (a child of the action) reads it. */
const PEAK_RSS = 'grep VmHWM /proc/$PPID/status'
const kB = (output: { readonly head: string; readonly tail: string } | undefined): number =>
  Number(/VmHWM:\s*(\d+) kB/.exec(`${output?.head ?? ''}${output?.tail ?? ''}`)?.[1] ?? NaN)

describe.concurrent('fault matrix: gates', SLOW, () => {
  it('a gate that hangs is killed at its timeout → FAIL gate_failed, though every judge says PASS', async ({
    expect
  }) => {
    await inWorld(expect, pass, async w => {
      const pr = pullRequest(w, {
        '.github/rubric.md': withGates(['sleep 60'], 'gates: { timeout: 1 }')
      })
      const started = Date.now()
      const result = await run(w, pr)
      expect(Date.now() - started).toBeLessThan(20_000)
      const report = expectVerdict(expect, w, result, {
        verdict: 'FAIL',
        reasons: ['gate_failed']
      })
      expect(report.gates.map(g => g.status)).toEqual(['timeout'])
      expect(shown(result)).toContain('"sleep 60" (timed out)')
      expect(shown(result)).toContain('timed out after 1 s; the process group was killed')
    })
  })

  it('a gate that prints 200 MB (recovered: output bounded) → PASS, the comment within 65,536 characters, memory bounded', async ({
    expect
  }) => {
    // Four times the matrix's 50 MB: bounded memory stays far below the output, whatever the
    // collector's timing, while output held whole would grow past it.
    const flood = "head -c 209715200 /dev/zero | tr '\\0' x"
    await inWorld(expect, pass, async w => {
      const pr = pullRequest(w, { '.github/rubric.md': withGates([PEAK_RSS, flood, PEAK_RSS]) })
      const started = Date.now()
      const result = await run(w, pr)
      expect(Date.now() - started).toBeLessThan(45_000)
      const report = expectVerdict(expect, w, result, {
        verdict: 'PASS',
        reasons: [],
        recovered: true
      })
      const [before, big, after] = report.gates
      expect(big?.output.total_bytes).toBe(209_715_200)
      expect((big?.output.head.length ?? 0) + (big?.output.tail.length ?? 0)).toBeLessThanOrEqual(
        16_384
      )
      expect(shown(result)).toContain('bytes elided')
      // What the judges were sent is bounded too.
      for (const call of w.providers.calls) expect(call.text.length).toBeLessThan(60_000)
      // Well under the 200 MB printed: the output was never held whole, not even while the log's
      // reader (the runner; here the test) was slower than the gate. What remains is pipe chunks
      // the collector has not reclaimed yet: 10 to 40 MB, more under load, never the output's size.
      const grewKb = kB(after?.output) - kB(before?.output)
      expect(grewKb).toBeLessThan(128 * 1024)
    })
  })

  it('a gate whose command is not found (exit 127) → FAIL gate_failed, the shell’s message shown', async ({
    expect
  }) => {
    await inWorld(expect, pass, async w => {
      const pr = pullRequest(w, { '.github/rubric.md': withGates(['pytset tests/']) })
      const result = await run(w, pr)
      const report = expectVerdict(expect, w, result, {
        verdict: 'FAIL',
        reasons: ['gate_failed']
      })
      expect(report.gates.map(g => [g.status, g.exit_code])).toEqual([['fail', 127]])
      expect(shown(result)).toContain('"pytset tests/" (exit 127)')
      expect(shown(result)).toContain('pytset: command not found')
    })
  })
})

describe.concurrent('fault matrix: the rubric', SLOW, () => {
  /**
   * The rubric faults stop before any judge is asked. `problem` is the line the report's Rubric
   * section gives; `annotation` the `::error` the runner shows on the file.
   */
  async function invalid(
    expect: ExpectStatic,
    base: Record<string, string>,
    problem: string | RegExp,
    annotation: string | RegExp
  ): Promise<void> {
    await inWorld(expect, pass, async w => {
      const pr = pullRequest(w, base)
      const result = await run(w, pr)
      expectVerdict(expect, w, result, { verdict: 'UNCLEAR', reasons: ['invalid_rubric'] })
      expect(w.providers.calls).toHaveLength(0)
      expect(shown(result)).toContain(
        'invalid_rubric**: the rubric has 1 problem; fix it and run again'
      )
      if (typeof problem === 'string') expect(shown(result)).toContain(problem)
      else expect(shown(result)).toMatch(problem)
      if (typeof annotation === 'string') expect(result.stdout).toContain(annotation)
      else expect(result.stdout).toMatch(annotation)
    })
  }

  it('an empty rubric file → UNCLEAR invalid_rubric, saying what it needs', async ({ expect }) => {
    await invalid(
      expect,
      { '.github/rubric.md': '' },
      '.github/rubric.md:1: error: the rubric file is empty; it needs gates, criteria or dimensions',
      '::error title=Invalid rubric (empty-rubric),file=.github/rubric.md,line=1::'
    )
  })

  it('a missing rubric file → UNCLEAR invalid_rubric, naming the path', async ({ expect }) => {
    await invalid(
      expect,
      { 'README.md': '# repo\n' },
      '.github/rubric.md: error: rubric file not found',
      '::error title=Invalid rubric (missing-file),file=.github/rubric.md::rubric file not found'
    )
  })

  it('invalid YAML front matter → UNCLEAR invalid_rubric, naming the line', async ({ expect }) => {
    await invalid(
      expect,
      {
        '.github/rubric.md': '---\ntitle: [unclosed\ndimensions: false\n---\n## Criteria\n- a: A\n'
      },
      /\.github\/rubric\.md:[23]:\d+: error: invalid YAML: /,
      /::error title=Invalid rubric \(yaml-syntax\),file=\.github\/rubric\.md,line=[23],col=\d+::invalid YAML/
    )
  })

  it('a rubric too large for the council → UNCLEAR invalid_rubric before any call, naming its size and the window', async ({
    expect
  }) => {
    const criteria = Array.from(
      { length: 1000 },
      (_, i) =>
        `- c${i}: The change handles case ${i} ${'with care and tests it thoroughly, '.repeat(20)}`
    )
    await invalid(
      expect,
      {
        '.github/rubric.md': [
          '---',
          'council: { models: [openai:gpt-5.4-nano, anthropic:claude-sonnet-4-6] }',
          '---',
          '## Criteria',
          ...criteria,
          ''
        ].join('\n')
      },
      /\.github\/rubric\.md: error: the rubric takes about [\d,]+ tokens of the judges' prompt \(with their instructions\); the smallest context window of the council, anthropic:claude-sonnet-4-6's 200,000 tokens, leaves it 108,000 beside 60,000 for the evidence and 32,000 for the answer/,
      '::error title=Invalid rubric (too-large),file=.github/rubric.md::the rubric takes about'
    )
  })

  it('overlapping score ranges → UNCLEAR invalid_rubric, naming the overlap', async ({
    expect
  }) => {
    const overlap = readFileSync(join(import.meta.dirname, 'fixtures/overlap.md'), 'utf8')
    await invalid(
      expect,
      { '.github/rubric.md': overlap },
      '.github/rubric.md:8:9: error: criterion "relevance": score_ranges [4,6] and [5,10] overlap',
      '::error title=Invalid rubric (score-range-overlap),file=.github/rubric.md,line=8,col=9::'
    )
  })
})

describe.concurrent('fault matrix: diff content', SLOW, () => {
  it('a picture is listed but not sent (recovered: media, recognised by its content, is not reviewable) → PASS', async ({
    expect
  }) => {
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
      Buffer.from('BINARY-PAYLOAD-MARKER')
    ])
    await inWorld(expect, pass, async w => {
      const pr = pullRequest(
        w,
        { '.github/rubric.md': RUBRIC },
        { 'logo.png': png, 'src/feature.ts': 'export const feature = 1\n' }
      )
      const result = await run(w, pr)
      const report = expectVerdict(expect, w, result, {
        verdict: 'PASS',
        reasons: [],
        recovered: true
      })
      expect(report.coverage?.ratio).toBe(1)
      expect(report.coverage?.omitted).toEqual([
        {
          path: 'logo.png',
          reason: 'media',
          detail: 'PNG image, recognised by its content',
          counts: false
        }
      ])
      for (const call of w.providers.calls) {
        expect(call.text).toContain('- added logo.png +3 -0 [media] — not shown: media')
        expect(call.text).toContain('+export const feature = 1')
        expect(call.text).not.toContain('BINARY-PAYLOAD-MARKER')
      }
    })
  })

  it('a 10 MB file is left out for the budget and listed in the receipt → UNCLEAR incomplete_coverage', async ({
    expect
  }) => {
    const line = (i: number): string => `export const row${i} = '${String(i).padStart(80, '0')}'\n`
    const big = Array.from({ length: 105_000 }, (_, i) => line(i)).join('')
    expect(big.length).toBeGreaterThan(10_000_000)
    await inWorld(expect, pass, async w => {
      const pr = pullRequest(
        w,
        { '.github/rubric.md': RUBRIC },
        { 'src/feature.ts': 'export const feature = 1\n', 'src/table.ts': big }
      )
      const result = await run(w, pr)
      const report = expectVerdict(expect, w, result, {
        verdict: 'UNCLEAR',
        reasons: ['incomplete_coverage']
      })
      expect(report.coverage?.ratio).toBe(0.5)
      expect(report.coverage?.omitted.map(o => [o.path, o.reason])).toEqual([
        ['src/table.ts', 'budget']
      ])
      for (const call of w.providers.calls) {
        expect(call.text).toContain('src/table.ts +105000 -0 [source] — not shown: budget')
        expect(call.text).not.toContain('export const row')
        expect(call.text).toContain('+export const feature = 1')
      }
      expect(shown(result)).toContain(
        'the judges saw 50% of the reviewable changed files; the rubric needs 100%'
      )
      // What to change: the budget, an exclude glob, or the rubric's min_coverage.
      expect(shown(result)).toMatch(/max-evidence-tokens|exclude|min_coverage/)
    })
  })

  it('renamed and deleted files are noted as such (recovered: nothing lost) → PASS', async ({
    expect
  }) => {
    const body = Array.from({ length: 20 }, (_, i) => `export const v${i} = ${i}\n`).join('')
    await inWorld(expect, pass, async w => {
      const pr = pullRequest(
        w,
        {
          '.github/rubric.md': RUBRIC,
          'src/old-name.ts': body,
          'src/gone.ts': 'export const gone = true\n'
        },
        {
          'src/old-name.ts': null,
          'src/new-name.ts': `${body}export const added = 1\n`,
          'src/gone.ts': null
        }
      )
      const result = await run(w, pr)
      const report = expectVerdict(expect, w, result, {
        verdict: 'PASS',
        reasons: [],
        recovered: true
      })
      expect(report.coverage?.ratio).toBe(1)
      for (const call of w.providers.calls) {
        expect(call.text).toContain(
          '- renamed src/new-name.ts (from src/old-name.ts) +1 -0 [source]'
        )
        expect(call.text).toContain('- deleted src/gone.ts +0 -1 [source]')
        expect(call.text).toContain('rename from src/old-name.ts')
        expect(call.text).toContain('-export const gone = true')
      }
    })
  })

  it('non-UTF-8 (latin-1) text is still reviewed (recovered: decoded with replacements) → PASS', async ({
    expect
  }) => {
    const latin1 = Buffer.from('export const greeting = "caf\u00e9 na\u00efve"\n', 'latin1')
    await inWorld(expect, pass, async w => {
      const pr = pullRequest(w, { '.github/rubric.md': RUBRIC }, { 'greeting.ts': latin1 })
      const result = await run(w, pr)
      const report = expectVerdict(expect, w, result, {
        verdict: 'PASS',
        reasons: [],
        recovered: true
      })
      expect(report.coverage?.reviewed.map(r => r.path)).toEqual(['greeting.ts'])
      for (const call of w.providers.calls) {
        expect(call.text).toContain('- added greeting.ts +1 -0 [source]')
        expect(call.text).toMatch(/\+export const greeting = "caf(?:é|\uFFFD) na(?:ï|\uFFFD)ve"/)
      }
    })
  })
})
