import type { CacheCost, JudgeRun, TokenUsage } from '../council/types.js'
import { escapeName } from '../evidence/content.js'
import { formatCount } from '../util/format-count.js'

/**
 * Lines for the log while the council works, which can take minutes: who is asked, then one line
 * per call as it answers or fails.
 */

/** `Asking 3 judges, 2 samples each (6 calls): openai:gpt-5.4-mini, …` */
export function councilStartLine(calls: readonly { readonly judge: string }[]): string {
  const judges = [...new Set(calls.map(c => c.judge))]
  const samples = judges.length === 0 ? 0 : calls.length / judges.length
  const each = samples === 1 ? '' : `, ${samples} samples each (${calls.length} calls)`
  return `Asking ${judges.length} judge${judges.length === 1 ? '' : 's'}${each}: ${judges.join(', ')}`
}

/**
 * `The judges are not agreed on a, b: asking anthropic:claude-haiku-4-5 (reserve) for an extra
 * vote`; a member whose call failed is `asking openai:gpt-5.4-mini, whose call failed, for …`.
 */
export function extraVoteLine(
  call: { readonly judge: string; readonly reserve: boolean },
  criteria: readonly string[]
): string {
  const who = call.reserve ? `${call.judge} (reserve)` : `${call.judge}, whose call failed,`
  return `The judges are not agreed on ${criteria.join(', ')}: asking ${who} for an extra vote`
}

/**
 * `The answers in hand decide the verdict (criterion_failed): not waiting for
 * anthropic:claude-sonnet-4-6 #1, its request cancelled`.
 */
export function settledLine(
  calls: readonly { readonly judge: string; readonly sample: number }[],
  settledBy: readonly string[]
): string {
  const who = calls.map(c => `${c.judge} #${c.sample}`).join(', ')
  const requests = calls.length === 1 ? 'its request' : 'their requests'
  return `The answers in hand decide the verdict (${settledBy.join(', ')}): not waiting for ${who}, ${requests} cancelled`
}

/**
 * `✓ openai:gpt-5.4-mini #1: ACCEPT in 12.3 s · 21,004 in (18,000 cached) / 812 out · 1 request`.
 * One line whatever the failure's message quotes (a judge's or a provider's text): a line break in
 * it would start a line of its own in the job log, where `::add-mask::` or `::warning::` at the
 * start of a line is a workflow command.
 */
export function judgeLine(run: JudgeRun): string {
  const who = `${run.judge} #${run.sample}`
  const time = `${(run.latencyMs / 1000).toFixed(1)} s`
  const requests =
    run.requests === undefined ? '' : ` · ${run.requests} request${run.requests === 1 ? '' : 's'}`
  const tokens = run.tokens ? ` · ${formatTokens(run.tokens)}` : ''
  return run.status === 'ok'
    ? `✓ ${who}: ${run.answer.verdict} in ${time}${tokens}${requests}`
    : `✗ ${who}: ${run.failure} after ${time}${tokens}${requests}: ${escapeName(run.message)}`
}

/**
 * `read 8,192 ($0.0025), written 8,192 ($0.0307)`: what a call read from the provider's prompt
 * cache and wrote to it (a part it did not do left out), each with what it cost where the model's
 * price is known; undefined when it did neither.
 */
export function formatCacheUse(
  tokens: TokenUsage | undefined,
  cost: CacheCost | undefined
): string | undefined {
  if (tokens === undefined) return undefined
  const priced = (what: string, count: number, usd: number | undefined): string[] =>
    count === 0
      ? []
      : [`${what} ${formatCount(count)}${usd === undefined ? '' : ` ($${usd.toFixed(4)})`}`]
  const parts = [
    ...priced('read', tokens.cachedInput, cost?.read),
    ...priced('written', tokens.cacheWrite, cost?.write)
  ]
  return parts.length === 0 ? undefined : parts.join(', ')
}

/**
 * `21,004 in (18,000 cached, 2,800 written to the cache) / 812 out`: cached input is billed at the
 * provider's cache price, input written to Anthropic's cache above the input price.
 */
export function formatTokens(tokens: TokenUsage): string {
  const cache = [
    ...(tokens.cachedInput > 0 ? [`${formatCount(tokens.cachedInput)} cached`] : []),
    ...(tokens.cacheWrite > 0 ? [`${formatCount(tokens.cacheWrite)} written to the cache`] : [])
  ]
  const detail = cache.length === 0 ? '' : ` (${cache.join(', ')})`
  return `${formatCount(tokens.input)} in${detail} / ${formatCount(tokens.output)} out`
}
