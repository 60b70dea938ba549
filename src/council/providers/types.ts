import type { ProviderOptions } from '@ai-sdk/provider-utils'
import type { LanguageModel, LanguageModelUsage } from 'ai'
import type { ReasoningEffort } from '../../rubric/types.js'
import type { Result } from '../../util/result.js'
import type { Vendor } from '../models.js'

/**
 * One provider a judge can be addressed on (`provider:model`), as the council talks to it: each
 * lives in a module of its own beside this one, and the table in `index.ts` holds one row per
 * provider. Everything that differs from one provider to another is here, so that the rest of the
 * council never asks which provider it talks to (docs/council.md#adding-a-provider).
 */
export interface ProviderModule {
  readonly variables: ProviderVariables
  /**
   * What loads the AI SDK model, or why it cannot be formed (an endpoint the provider cannot do
   * without). The provider's SDK is imported by the loader, when a judge is called, never before.
   */
  readonly languageModel: (model: string, connection: Connection) => Result<ModelLoader>
  /** What a judge's request needs besides the prompt and the reasoning effort. */
  readonly callSettings: (model: string, call: CallContext) => CallSettings
  /**
   * For an API that takes the answer's cap and the temperature in options of its own (Ollama's
   * `options.num_predict` and `options.temperature`), not where the AI SDK puts them: those
   * options. Absent: they go as the SDK's `maxOutputTokens` and `temperature`.
   */
  readonly answerOptions?: (cap: number, temperature: number | undefined) => ProviderOptions
  readonly reasoning: Reasoning
  /**
   * The temperature sent to a member that sets none (docs/council.md#temperature); undefined:
   * none is sent, the provider's default stands.
   */
  readonly temperature?: (model: string) => number | undefined
  /**
   * For a model whose prompt cache serves only what a breakpoint marks: the part's provider
   * options that set one (`cacheTurns` says when). Undefined for a model that caches on its own.
   */
  readonly breakpoint?: (model: string) => ProviderOptions | undefined
  /**
   * Whether an answer's input tokens always count the whole prompt, cached or not: then a count
   * under half the prompt means the model's window cut it (`cutShort`, call.ts).
   */
  readonly countsWholePrompt: boolean
  /** Cache-write tokens in the provider's own usage record, where the AI SDK does not read them. */
  readonly cacheWrites?: (raw: LanguageModelUsage['raw']) => number
  readonly errors?: ErrorDialect
  readonly probe: HealthProbe
  /**
   * Where a server of the user's own models reports a model's context window (Ollama's
   * `/api/show`), for a member that declares none: its prompt is then sized to that window.
   */
  readonly windowReport?: WindowReport
  /**
   * How the provider names the models of the model table (models.ts), for their windows, prices,
   * retirements and the suggestion for a misspelt one. Absent for a provider that serves the
   * user's own models, which the table cannot know.
   */
  readonly tableModels?: TableModels
  /** The judges it brings to a council nobody named (docs/council.md#members). */
  readonly defaultJudges?: DefaultJudges
}

/**
 * Loads a provider's SDK (a chunk of the bundle of its own, by a dynamic import of a fixed
 * package name) and forms the model.
 */
export type ModelLoader = () => Promise<LanguageModel>

/** Where a provider finds its key and endpoint in the environment (docs/council.md#members). */
export interface ProviderVariables {
  /** The variable of its API key. */
  readonly key: string
  /** Whether no judge is asked without the key: the hosted APIs issue one, a local server may not. */
  readonly keyRequired: boolean
  /** The variable that redirects it to a proxy or a local stand-in. */
  readonly baseUrl: string
  /** The endpoint when `baseUrl` is not set and the AI SDK has no default of its own. */
  readonly defaultBaseUrl?: string
}

/**
 * What a model is formed with. Passed explicitly, so the SDK never falls back to reading
 * process.env on its own; its requests go through `fetch` (the council's `proxiedFetch()`).
 */
export interface Connection {
  readonly fetch: typeof globalThis.fetch
  readonly apiKey?: string
  readonly baseURL?: string
}

/** What a judge's request carries besides the prompt (docs/council.md#members). */
export interface CallSettings {
  readonly providerOptions?: ProviderOptions
  /** The cap on the answer, reasoning included (member-settings.ts `answerCap`). */
  readonly maxOutputTokens?: number
  readonly temperature?: number
}

/** What a request's settings may depend on. */
export interface CallContext {
  /** The prompt's size by our count. */
  readonly promptTokens: number
  /** The cap on the answer, reasoning included (member-settings.ts `answerCap`). */
  readonly cap: number
  /** The temperature sent, if any (member-settings.ts `temperatureOf`). */
  readonly temperature?: number
  /** The context window the member declares in the rubric, if it does. */
  readonly window?: number
  /**
   * What the calls of one pull request share from one run to the next (`owner/repo#number`, or a
   * local checkout's path), for a provider that routes requests to its prompt cache by a key.
   */
  readonly thread?: string
}

/** How a provider takes a reasoning effort (docs/council.md#reasoning-effort). */
export interface Reasoning {
  /** The effort sent when the rubric names none; undefined: nothing is sent. */
  readonly default?: ReasoningEffort
  /**
   * The provider options that carry `effort` for `model`: named by the rubric (`named`), or the
   * provider's default. Empty for a model that takes none.
   */
  readonly options: (model: string, effort: ReasoningEffort, named: boolean) => ProviderOptions
  /**
   * Whether the thinking budget is added to the answer's cap by the SDK itself (Claude before
   * 4.6: `budgetTokens`), so the cap the council sets is the answer's alone.
   */
  readonly budgetAdded?: (model: string) => boolean
}

/** An error response as a provider's error readers see it. */
export interface ErrorResponse {
  readonly headers: Readonly<Record<string, string>> | undefined
  readonly body: string | undefined
}

/**
 * A provider's own ways of saying things in an error. Every provider's dialect is read on every
 * error: a router or a proxy (OpenRouter, LiteLLM) passes on the error of the API behind it.
 */
export interface ErrorDialect {
  /**
   * The wait it asks for where the standard `retry-after` headers do not say it, with who asked
   * (`by`: "Gemini"), for the message when the wait does not fit.
   */
  readonly waitAsked?: {
    readonly by: string
    readonly read: (error: ErrorResponse) => number | undefined
  }
  /**
   * Whether an error other than a 401 or 403 is the provider refusing the key (Gemini answers a
   * key it does not know with 400): re-running will not help, replacing the key will.
   */
  readonly keyRefused?: (error: ErrorResponse) => boolean
  /** A router's error that carries the error body of the provider it routed to, and its name. */
  readonly upstream?: (
    error: Readonly<Record<string, unknown>>
  ) => { readonly body: string; readonly name?: string } | undefined
}

/**
 * The health probe (src/council/probe.ts): the cheapest request that goes through the provider's
 * key check and its front door, and costs no tokens.
 */
export interface HealthProbe {
  /** Path and query, after the server's address. */
  readonly path: string
  readonly headers: (key: string | undefined) => Record<string, string>
  /** The AI SDK's default endpoint, for a provider whose variables give none. */
  readonly defaultBaseUrl?: string
  /** The server's address the path goes after, from the endpoint; the endpoint itself unless said. */
  readonly server?: (baseUrl: string) => string
}

/**
 * A request for a model's context window, POSTed to the server's address (as `probe.server` gives
 * it) with the probe's headers.
 */
export interface WindowReport {
  readonly path: string
  readonly body: (model: string) => Readonly<Record<string, unknown>>
  /** The window the answer gives, in tokens; undefined when it gives none that is plausible. */
  readonly read: (answer: unknown) => number | undefined
}

/** How a provider names the model table's models. */
export interface TableModels {
  /** The vendor whose models it serves; undefined: the vendor is the name's `vendor/` prefix. */
  readonly vendor?: Vendor
  /** A name of the table (`claude-sonnet-4-6`) as the provider writes it; as it is unless said. */
  readonly written?: (name: string) => string
}

/** The judges a provider brings to a default council, as model names it takes. */
export interface DefaultJudges {
  readonly models: readonly string[]
  /** Asked only when no other provider brings any: a router that reaches the same vendors. */
  readonly fallback?: true
}
