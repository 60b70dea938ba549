import { parseModelId } from '../rubric/model-id.js'
import { providerOf } from './providers/index.js'

/**
 * The models this version knows: whose they are, their context window, their price and, once the
 * provider has announced it, the day they retire and what to use instead. One row per model id as
 * the provider writes it; OpenRouter's `vendor/model` names (with Claude's versions dotted,
 * `claude-sonnet-4.6`) are looked up as the vendor's. Each row names the page its facts come from
 * and the day it was read; docs/council.md says how to update a row.
 */

/** US dollars per million tokens (standard, non-batch). */
export interface Price {
  readonly input: number
  /** Input read from the provider's prompt cache. */
  readonly cachedInput: number
  /**
   * Input written to the cache, where the provider bills it apart (Anthropic; OpenAI from the
   * GPT-5.6 family on); else `input`.
   */
  readonly cacheWrite?: number
  readonly output: number
  /**
   * A request with more input tokens than `above` is billed `input` times the input and cache
   * rates and `output` times the output rate, for all of it (OpenAI's GPT-5.6 and later).
   */
  readonly longContext?: { readonly above: number; readonly input: number; readonly output: number }
}

/** The vendors whose models the table lists (OpenRouter serves them under `vendor/`). */
export type Vendor = 'openai' | 'anthropic' | 'google'

export interface KnownModel {
  readonly vendor: Vendor
  /** Input tokens the model's context window takes; absent where no page gives it. */
  readonly contextWindow?: number
  /** Absent where no price page could be found: the report shows tokens, not dollars. */
  readonly price?: Price
  /** `YYYY-MM-DD`: the first day the provider refuses (or reroutes) requests to the model. */
  readonly retires?: string
  /** The model (same vendor, a row of this table) to use instead, once `retires` is set. */
  readonly replacement?: string
  /**
   * For a model whose prompt cache serves only what a breakpoint marks: the fewest tokens a marked
   * prefix must have to be cached (a shorter one is neither cached nor billed as a write).
   */
  readonly cacheMinimum?: number
  /** The pages the row's facts come from, and the day they were read. */
  readonly source: string
  readonly read: string
}

const ANTHROPIC_MODELS_PAGE = 'https://platform.claude.com/docs/en/about-claude/models/overview'
const ANTHROPIC_PRICING = 'https://platform.claude.com/docs/en/about-claude/pricing'
const ANTHROPIC_DEPRECATIONS = 'https://platform.claude.com/docs/en/about-claude/model-deprecations'
const OPENAI_PRICING = 'https://developers.openai.com/api/docs/pricing'
const OPENAI_DEPRECATIONS = 'https://developers.openai.com/api/docs/deprecations'
const GEMINI_PRICING = 'https://ai.google.dev/gemini-api/docs/pricing'
const GEMINI_MODELS_PAGE = 'https://ai.google.dev/gemini-api/docs/models'
const GEMINI_DEPRECATIONS = 'https://ai.google.dev/gemini-api/docs/deprecations'

/**
 * The minimum cacheable prompt length, per model, from Anthropic's prompt-caching page
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching, "Cache limitations"; as
 * quoted in anthropics/anthropic-sdk-python#1194 and by dev.to/creeta, read 2026-11-30): 1,024
 * tokens for Sonnet 5, Sonnet 4.6 and Sonnet 4.5; 4,096 for Haiku 4.5 and Opus 4.5. OpenAI's
 * prompt caching starts at 1,024 tokens (https://developers.openai.com/api/docs/guides/prompt-caching).
 */
const CLAUDE_SONNET_CACHE_MINIMUM = 1024
const CLAUDE_HAIKU_OPUS_4_5_CACHE_MINIMUM = 4096
const OPENAI_CACHE_MINIMUM = 1024
/**
 * A model the table does not know, or knows without a minimum: the highest any model has, so
 * that no breakpoint is set where it could not be cached.
 */
export const DEFAULT_CACHE_MINIMUM = 4096

/** Anthropic bills 5-minute cache writes at 1.25× the input price and reads at 0.1×. */
const SONNET_4: Price = { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 }
const HAIKU_4_5: Price = { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 }
/** Claude Sonnet 5's model page: $2 input, $2.50 5-minute cache write, $0.20 cache read, $10 output. */
const SONNET_5: Price = { input: 2, cachedInput: 0.2, cacheWrite: 2.5, output: 10 }

const GPT_WINDOW = 272_000
/** GPT-5.6 and later: a 1,050,000-token window, of which 128,000 for the answer. */
const GPT_6_INPUT = 922_000
const GPT_4_1_WINDOW = 1_047_576
const GEMINI_WINDOW = 1_048_576

/**
 * OpenAI from the GPT-5.6 family on: a cache write costs 1.25× the input price, and a request of
 * more than 272K input tokens twice the input and cache rates and 1.5× the output rate.
 */
const writeBilled = (input: number, cachedInput: number, output: number): Price => ({
  input,
  cachedInput,
  cacheWrite: input * 1.25,
  output,
  longContext: { above: 272_000, input: 2, output: 1.5 }
})
const openaiModelPage = (id: string): string =>
  `https://developers.openai.com/api/docs/models/${id}`

const openai = (row: Omit<KnownModel, 'vendor'>): KnownModel => ({ vendor: 'openai', ...row })
const anthropic = (row: Omit<KnownModel, 'vendor'>): KnownModel => ({ vendor: 'anthropic', ...row })
const google = (row: Omit<KnownModel, 'vendor'>): KnownModel => ({ vendor: 'google', ...row })

/**
 * The table. Retirement dates are the providers' deprecation pages' (as of late November 2026);
 * a replacement is the page's recommendation where this table knows that model, else the nearest
 * current model of the same vendor that it does know (said so in the row's comment).
 */
export const MODELS: Readonly<Record<string, KnownModel>> = {
  // OpenAI: prices from the pricing page (cached input a tenth of input); gpt-5.5 and gpt-5.4 as
  // quoted from it by tokenmix.ai/blog/openai-api-cost-2026-gpt-5-5-5-4-nano-batch.
  'gpt-5.5': openai({
    contextWindow: GPT_WINDOW,
    price: { input: 5, cachedInput: 0.5, output: 30 },
    source: OPENAI_PRICING,
    read: '2026-11-27'
  }),
  'gpt-5.4': openai({
    contextWindow: GPT_WINDOW,
    price: { input: 2.5, cachedInput: 0.25, output: 15 },
    source: OPENAI_PRICING,
    read: '2026-11-27'
  }),
  'gpt-5.4-mini': openai({
    contextWindow: GPT_WINDOW,
    price: { input: 0.75, cachedInput: 0.075, output: 4.5 },
    source: OPENAI_PRICING,
    read: '2026-11-27'
  }),
  'gpt-5.4-nano': openai({
    contextWindow: GPT_WINDOW,
    price: { input: 0.2, cachedInput: 0.02, output: 1.25 },
    source: OPENAI_PRICING,
    read: '2026-11-27'
  }),
  // From the GPT-5.6 family on, OpenAI bills a cache write at 1.25× the input price (the prompt
  // caching guide, and each model page); input and output prices are the models page's (read
  // 2026-11-29), cached input each model page's where its text could be read (gpt-6.2-sol,
  // gpt-5.6-luna), else as the launch posts quote the page: gpt-6.2-astra's cache reads 60% below
  // gpt-6-astra's $1 (LiteLLM's launch note), the others' as quoted by LiteLLM, apidog and the
  // pricing trackers that cite the model pages. 922,000 input tokens of a 1.05M window.
  'gpt-6.2-astra': openai({
    contextWindow: GPT_6_INPUT,
    price: writeBilled(8, 0.4, 40),
    cacheMinimum: OPENAI_CACHE_MINIMUM,
    source: openaiModelPage('gpt-6.2-astra'),
    read: '2026-11-29'
  }),
  'gpt-6.2-sol': openai({
    contextWindow: GPT_6_INPUT,
    price: writeBilled(2, 0.1, 10),
    cacheMinimum: OPENAI_CACHE_MINIMUM,
    source: openaiModelPage('gpt-6.2-sol'),
    read: '2026-11-29'
  }),
  'gpt-6.1-sol': openai({
    contextWindow: GPT_6_INPUT,
    price: writeBilled(2, 0.1, 10),
    cacheMinimum: OPENAI_CACHE_MINIMUM,
    source: openaiModelPage('gpt-6.1-sol'),
    read: '2026-11-29'
  }),
  'gpt-6.1-terra': openai({
    contextWindow: GPT_6_INPUT,
    price: writeBilled(1, 0.05, 5),
    cacheMinimum: OPENAI_CACHE_MINIMUM,
    source: openaiModelPage('gpt-6.1-terra'),
    read: '2026-11-29'
  }),
  'gpt-6-astra': openai({
    contextWindow: GPT_6_INPUT,
    price: writeBilled(10, 1, 50),
    cacheMinimum: OPENAI_CACHE_MINIMUM,
    source: openaiModelPage('gpt-6-astra'),
    read: '2026-11-29'
  }),
  'gpt-6-sol': openai({
    contextWindow: GPT_6_INPUT,
    price: writeBilled(2, 0.2, 10),
    cacheMinimum: OPENAI_CACHE_MINIMUM,
    source: openaiModelPage('gpt-6-sol'),
    read: '2026-11-29'
  }),
  'gpt-6-luna': openai({
    contextWindow: GPT_6_INPUT,
    price: writeBilled(0.1, 0.01, 0.5),
    cacheMinimum: OPENAI_CACHE_MINIMUM,
    source: openaiModelPage('gpt-6-luna'),
    read: '2026-11-29'
  }),
  'gpt-5.6-sol': openai({
    contextWindow: GPT_6_INPUT,
    price: writeBilled(4, 0.4, 20),
    cacheMinimum: OPENAI_CACHE_MINIMUM,
    source: openaiModelPage('gpt-5.6-sol'),
    read: '2026-11-29'
  }),
  'gpt-5.6-terra': openai({
    contextWindow: GPT_6_INPUT,
    price: writeBilled(2, 0.2, 12),
    cacheMinimum: OPENAI_CACHE_MINIMUM,
    source: openaiModelPage('gpt-5.6-terra'),
    read: '2026-11-29'
  }),
  'gpt-5.6-luna': openai({
    contextWindow: GPT_6_INPUT,
    price: writeBilled(0.2, 0.02, 1.2),
    cacheMinimum: OPENAI_CACHE_MINIMUM,
    source: openaiModelPage('gpt-5.6-luna'),
    read: '2026-11-29'
  }),
  // Shut down 2026-12-11 (OpenAI's deprecations, "GPT-5 and o3 model deprecations", announced
  // 2026-06-11), with the replacements the page recommends (read 2026-11-29; it named the
  // GPT-5.6 models before the GPT-6.1 ones). Its line for gpt-5-nano was read cut off after
  // "gpt-6"; gpt-6-luna is the model it recommends for GPT-4.1 and GPT-4o.
  'gpt-5': openai({
    contextWindow: GPT_WINDOW,
    retires: '2026-12-11',
    replacement: 'gpt-6.1-sol',
    source: OPENAI_DEPRECATIONS,
    read: '2026-11-29'
  }),
  'gpt-5-mini': openai({
    contextWindow: GPT_WINDOW,
    price: { input: 0.25, cachedInput: 0.025, output: 2 },
    retires: '2026-12-11',
    replacement: 'gpt-6.1-terra',
    source: `${OPENAI_DEPRECATIONS}, ${OPENAI_PRICING}`,
    read: '2026-11-29'
  }),
  'gpt-5-nano': openai({
    contextWindow: GPT_WINDOW,
    retires: '2026-12-11',
    replacement: 'gpt-6-luna',
    source: OPENAI_DEPRECATIONS,
    read: '2026-11-29'
  }),
  // Shut down 2027-01-14 with GPT-4o (OpenAI's deprecations, "GPT-4 family model deprecations",
  // announced 2026-10-14), all four replaced by gpt-6-luna.
  'gpt-4.1': openai({
    contextWindow: GPT_4_1_WINDOW,
    retires: '2027-01-14',
    replacement: 'gpt-6-luna',
    source: OPENAI_DEPRECATIONS,
    read: '2026-11-29'
  }),
  'gpt-4.1-mini': openai({
    contextWindow: GPT_4_1_WINDOW,
    retires: '2027-01-14',
    replacement: 'gpt-6-luna',
    source: OPENAI_DEPRECATIONS,
    read: '2026-11-29'
  }),

  // Anthropic: windows from the models overview, prices from the pricing page and model pages.
  'claude-sonnet-5': anthropic({
    contextWindow: 1_000_000,
    price: SONNET_5,
    cacheMinimum: CLAUDE_SONNET_CACHE_MINIMUM,
    source: 'https://platform.claude.com/docs/en/models/sonnet-5/overview',
    read: '2026-11-27'
  }),
  'claude-sonnet-4-6': anthropic({
    contextWindow: 200_000,
    price: SONNET_4,
    cacheMinimum: CLAUDE_SONNET_CACHE_MINIMUM,
    source: `${ANTHROPIC_MODELS_PAGE}, ${ANTHROPIC_PRICING}`,
    read: '2026-11-27'
  }),
  // Retires 2026-11-30; the deprecations page recommends Sonnet 4.6.
  'claude-sonnet-4-5': anthropic({
    contextWindow: 200_000,
    price: SONNET_4,
    retires: '2026-11-30',
    replacement: 'claude-sonnet-4-6',
    cacheMinimum: CLAUDE_SONNET_CACHE_MINIMUM,
    source: `${ANTHROPIC_DEPRECATIONS}, ${ANTHROPIC_PRICING}`,
    read: '2026-11-27'
  }),
  'claude-sonnet-4-5-20250929': anthropic({
    contextWindow: 200_000,
    price: SONNET_4,
    retires: '2026-11-30',
    replacement: 'claude-sonnet-4-6',
    cacheMinimum: CLAUDE_SONNET_CACHE_MINIMUM,
    source: `${ANTHROPIC_DEPRECATIONS}, ${ANTHROPIC_PRICING}`,
    read: '2026-11-27'
  }),
  // Retired 2026-06-15 (Anthropic's release notes; recommended upgrade Sonnet 4.6).
  'claude-sonnet-4-0': anthropic({
    retires: '2026-06-15',
    replacement: 'claude-sonnet-4-6',
    source: ANTHROPIC_DEPRECATIONS,
    read: '2026-11-27'
  }),
  'claude-sonnet-4-20250514': anthropic({
    retires: '2026-06-15',
    replacement: 'claude-sonnet-4-6',
    source: ANTHROPIC_DEPRECATIONS,
    read: '2026-11-27'
  }),
  'claude-haiku-4-5': anthropic({
    contextWindow: 200_000,
    price: HAIKU_4_5,
    cacheMinimum: CLAUDE_HAIKU_OPUS_4_5_CACHE_MINIMUM,
    source: `${ANTHROPIC_MODELS_PAGE}, ${ANTHROPIC_PRICING}`,
    read: '2026-11-27'
  }),
  'claude-opus-4-5': anthropic({
    contextWindow: 200_000,
    cacheMinimum: CLAUDE_HAIKU_OPUS_4_5_CACHE_MINIMUM,
    source: ANTHROPIC_MODELS_PAGE,
    read: '2026-11-27'
  }),

  // Gemini: prices from the pricing page (cached input a tenth of input).
  'gemini-3.5-flash': google({
    contextWindow: GEMINI_WINDOW,
    price: { input: 1.5, cachedInput: 0.15, output: 9 },
    source: `${GEMINI_MODELS_PAGE}, ${GEMINI_PRICING}`,
    read: '2026-11-27'
  }),
  'gemini-3.5-flash-lite': google({
    source: GEMINI_MODELS_PAGE,
    read: '2026-11-27'
  }),
  'gemini-3.1-flash-lite': google({
    contextWindow: GEMINI_WINDOW,
    price: { input: 0.25, cachedInput: 0.025, output: 1.5 },
    source: `${GEMINI_MODELS_PAGE}, ${GEMINI_PRICING}`,
    read: '2026-11-27'
  }),
  // From 2026-12-01 requests to Gemini 2.5 are answered by another model (the deprecations page,
  // as reported by aideprecations.com): no longer the judge the rubric names. Replacements are
  // the page's for 2.5 Flash; for 2.5 Pro (its model is not in this table) the default Flash.
  'gemini-2.5-flash': google({
    contextWindow: GEMINI_WINDOW,
    retires: '2026-12-01',
    replacement: 'gemini-3.5-flash-lite',
    source: GEMINI_DEPRECATIONS,
    read: '2026-11-27'
  }),
  'gemini-2.5-pro': google({
    contextWindow: GEMINI_WINDOW,
    retires: '2026-12-01',
    replacement: 'gemini-3.5-flash',
    source: GEMINI_DEPRECATIONS,
    read: '2026-11-27'
  })
}

/**
 * The row of a provider-side model name: as the table writes it (`gpt-5.4-mini`), or OpenRouter's
 * `vendor/name` with Claude's versions dotted (`anthropic/claude-sonnet-4.6`).
 */
export function modelRow(name: string): KnownModel | undefined {
  const bare = name.slice(name.lastIndexOf('/') + 1)
  for (const candidate of [bare, bare.replace(/(\d)\.(\d)/g, '$1-$2')]) {
    if (Object.hasOwn(MODELS, candidate)) return MODELS[candidate]
  }
  return undefined
}

/** The fewest tokens a marked prefix must have to be cached for `model` (a provider-side name). */
export function cacheMinimum(model: string): number {
  return modelRow(model)?.cacheMinimum ?? DEFAULT_CACHE_MINIMUM
}

/** How far a member is from its retirement, on a given day. */
export type Lifecycle =
  | { readonly state: 'retired' | 'retiring'; readonly date: string; readonly replacement?: string }
  | { readonly state: 'current' }

/** A member is warned about this many days before it retires. */
export const RETIREMENT_WARNING_DAYS = 30

const DAY_MS = 86_400_000

/**
 * Where a member (`provider:model`) stands on `today` (epoch ms; its UTC day counts): retired on
 * and after its date, retiring within `RETIREMENT_WARNING_DAYS` before it, else current (also for
 * a model the table does not know, and the models of a provider that serves the user's own).
 * The replacement is written as the member was: `provider:model`, OpenRouter's way for OpenRouter.
 */
export function lifecycle(member: string, today: number): Lifecycle {
  const parsed = parseModelId(member)
  if (!parsed.ok) return { state: 'current' }
  const naming = providerOf(parsed.value).tableModels
  const { provider, model } = parsed.value
  const row = naming === undefined ? undefined : modelRow(model)
  if (row?.retires === undefined) return { state: 'current' }
  const day = Math.floor(today / DAY_MS)
  const retiresDay = Math.floor(Date.parse(`${row.retires}T00:00:00Z`) / DAY_MS)
  const left = retiresDay - day
  if (left > RETIREMENT_WARNING_DAYS) return { state: 'current' }
  const written = naming?.written ?? ((name: string) => name)
  // As the member writes its model: with OpenRouter's `vendor/` before the name.
  const vendor = model.slice(0, model.lastIndexOf('/') + 1)
  return {
    state: left <= 0 ? 'retired' : 'retiring',
    date: row.retires,
    ...(row.replacement !== undefined && {
      replacement: `${provider}:${vendor}${written(row.replacement)}`
    })
  }
}

/**
 * What a member's retirement means, in one sentence (for `validate`, `check`, the job log and the
 * report): `"anthropic:claude-sonnet-4-5" retired on 2026-11-30; use "anthropic:claude-sonnet-4-6"`,
 * or `… retires on 2026-11-30, in 3 days; use … before then`. Undefined for a current member.
 */
export function retirementNote(member: string, today: number): string | undefined {
  const stage = lifecycle(member, today)
  if (stage.state === 'current') return undefined
  const use = stage.replacement === undefined ? '' : `; use "${stage.replacement}"`
  if (stage.state === 'retired') return `"${member}" retired on ${stage.date}${use}`
  const days = Math.round((Date.parse(`${stage.date}T00:00:00Z`) - startOfDay(today)) / DAY_MS)
  return `"${member}" retires on ${stage.date}, in ${days} ${days === 1 ? 'day' : 'days'}${use} before then`
}

function startOfDay(epochMs: number): number {
  return Math.floor(epochMs / DAY_MS) * DAY_MS
}
