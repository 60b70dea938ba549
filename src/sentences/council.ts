import type { CouncilFailure } from '../council/types.js'
import { escapeName } from '../evidence/content.js'
import type { CouncilShortfall } from '../verdict/types.js'
import type { Audience, Say } from './reasons.js'

/*
 * The words said to users about the council: why it fell short of its quorum and what to do
 * about it (row 3's sentences in reasons.ts), a call it cancelled, and judges it did not ask.
 */

/**
 * Why the council did not wait for a call (src/verdict/settled.ts): the answers in hand had
 * settled the verdict, for the reasons `settledBy`, whatever the call would have answered.
 */
export function cancelledSentence(settledBy: readonly string[]): string {
  const codes = settledBy.length > 0 ? ` (${settledBy.map(c => `\`${c}\``).join(', ')})` : ''
  return `cancelled, not failed: the answers in hand already decided the verdict${codes}, and no answer of this call could change it; its request was aborted, so nothing more is billed where the provider stops on disconnect`
}

/** Why no judge was asked though the rubric has criteria (`Evaluation.judgesNotAsked`). */
export const JUDGES_NOT_ASKED: Readonly<Record<'gate_failed', string>> = {
  gate_failed:
    'The judges were not asked: a gate failed, which decides FAIL whatever they would say, and `judge-after-failed-gate` is `false`, so no provider was billed. Set it to `true` for their feedback on the rest of the rubric.'
}

/** What to do about each cause of row 3: the pull request is not at fault for any of them. */
const SHORTFALL_ADVICE: Readonly<Record<CouncilFailure, string>> = {
  missing_credentials: 'Set a provider API key (e.g. OPENAI_API_KEY) in the workflow’s env.',
  rejected_credentials:
    'A provider refused the API key it was given, so re-running will not help: replace the repository secret the message names with a current key allowed to use the model.',
  rate_limited:
    'The providers are rate limiting, not judging the pull request: run the job again later, raise the provider’s limits, or lower samples.',
  timeout:
    'The judges did not answer in time: run the job again, or raise the rubric’s council.timeout or lower max-evidence-tokens.',
  provider_error:
    'The providers failed, not the pull request: run the job again; if it persists, check the model names and the providers’ status.',
  invalid_output:
    'The judges’ answers did not fit the rubric’s schema: run the job again, or use models with structured-output support.',
  answer_cut:
    'The judges’ answers were cut at the cap on their length (each message names it): raise that judge’s `max_output_tokens` in `council.models`, or lower its `reasoning`.',
  context_overflow:
    'The prompt does not fit a judge’s context window (each message names the judge, its window and the prompt’s size), so re-running will not help: lower `max-evidence-tokens`, or give the judge a larger window (`council.models: [{ model, window }]`, set to what its server allows).'
}

/** In a terminal the keys come from the user's environment; there is no workflow to edit. */
const TERMINAL_CREDENTIALS: Readonly<
  Record<'missing_credentials' | 'rejected_credentials', string>
> = {
  missing_credentials:
    'Set OPENAI_API_KEY (or ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, OPENROUTER_API_KEY) in your environment.',
  rejected_credentials:
    'A provider refused the API key it was given, so re-running will not help: put a current key allowed to use the model in the variable the message names.'
}

/** A request the providers rejected as such will be rejected again: no "run the job again". */
const REJECTED_ADVICE =
  'The providers rejected the requests themselves, so re-running will not help: check the model names against the providers’ model lists; if the message names the schema or a parameter, please report it.'

/** Row 3's reason, the same for each cause but for the advice. */
export function shortfall(
  code: CouncilFailure,
  facts: CouncilShortfall,
  audience: Audience
): string {
  const { valid, asked, quorum, failures } = facts
  const detail =
    failures.length > 0
      ? `: ${failures.map(f => `${escapeName(f.judge)}: ${escapeName(f.message)}`).join('; ')}`
      : audience === 'terminal'
        ? ': no judge could be formed: no provider API key is set'
        : ': no judge could be formed; set an API key for a provider or name models'
  const advice =
    code === 'provider_error' && facts.rejected
      ? REJECTED_ADVICE
      : audience === 'terminal' &&
          (code === 'missing_credentials' || code === 'rejected_credentials')
        ? TERMINAL_CREDENTIALS[code]
        : SHORTFALL_ADVICE[code]
  return `the council is unavailable: ${valid} valid answer${valid === 1 ? '' : 's'} of ${asked}, quorum ${quorum}${detail}. ${advice}`
}

const FORK_SECRETS =
  'Pull requests from forks get no secrets on `pull_request`: use the fork layout (`rubric-council init --forks`).'

/** When no judge could be formed at all: no key for any provider reached the run. */
const NO_JUDGE: Readonly<Record<Audience, string>> = {
  action: `No provider API key reached the workflow, so no judge could be asked: a maintainer adds one as a repository secret (\`OPENAI_API_KEY\`, \`ANTHROPIC_API_KEY\`, …), passes it in the workflow's \`env\`, then comments \`/council rerun\`. ${FORK_SECRETS}`,
  terminal:
    'No provider API key is set, so no judge could be asked: set one in your environment (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, …) and run `rubric-council check` again.'
}

/** What kept a call from answering, after the judges it names. */
const UNANSWERED: Readonly<Record<Exclude<CouncilFailure, 'missing_credentials'>, string>> = {
  rejected_credentials: 'its key refused by the provider',
  rate_limited: 'rate-limited',
  timeout: 'timed out',
  provider_error: 'failed at the provider',
  invalid_output: 'answered outside the schema',
  answer_cut: 'cut at the cap on its answer',
  context_overflow: 'its context window too small for the prompt'
}

/** `a`, `a and b`, `a, b and c`. */
function inProse(items: readonly string[]): string {
  return items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`
}

/**
 * Why the calls that gave no valid answer gave none, grouped by cause: a key the provider refused
 * (naming its variable), a judge not asked (its own message says why: a key not set), or the
 * failure's word.
 */
function whyUnanswered(failures: CouncilShortfall['failures']): string {
  const groups = new Map<string, string[]>()
  const add = (cause: string, judge: string): void => {
    const judges = groups.get(cause) ?? []
    if (!judges.includes(judge)) judges.push(judge)
    groups.set(cause, judges)
  }
  for (const f of failures) {
    if (f.keyRejected !== undefined)
      add(`the provider refused the key in \`${f.keyRejected}\``, f.judge)
    // Not asked: the council's message says why (`OPENAI_API_KEY is not set; this judge was not asked`).
    else if (f.failure === 'missing_credentials')
      add(`not asked: ${f.message.split(';')[0] ?? ''}`, f.judge)
    // A retired model: the message names its date and what to use instead.
    else if (f.notAsked)
      add(`not asked: ${f.message.replace(/; this judge was not asked$/, '')}`, f.judge)
    else add(UNANSWERED[f.failure], f.judge)
  }
  return [...groups].map(([cause, judges]) => `${cause} (${inProse(judges)})`).join('; ')
}

/**
 * A next step for a council short of its quorum: how many answered of how many and why the others
 * did not, then what to do about the cause (`what`). When no judge could be formed at all, the
 * only cause is that no provider key is set.
 */
export function shortfallStep<C extends CouncilFailure>(what: Say<C>): Say<C> {
  return (reason, audience) => {
    const { valid, asked, quorum, failures } = reason
    if (asked === 0) return NO_JUDGE[audience]
    const lead =
      valid === 0
        ? `No judge answered`
        : `Only ${valid} of ${asked} judges answered (the quorum is ${quorum})`
    const why = failures.length > 0 ? `: ${whyUnanswered(failures)}` : ''
    return `${lead}${why}. ${what(reason, audience)}`
  }
}

/**
 * What to do about the keys of a council short of its quorum: replace those the providers refused
 * (naming their variables), set those missing; then run again.
 */
export function keySteps({ failures }: CouncilShortfall, audience: Audience): string {
  const refused = [...new Set(failures.flatMap(f => f.keyRejected ?? []))]
  const missing = refused.length === 0 || failures.some(f => f.failure === 'missing_credentials')
  const keys = refused.map(k => `\`${k}\``).join(' and ')
  const many = refused.length > 1
  if (audience === 'action') {
    const steps = [
      ...(refused.length > 0
        ? [
            `replaces the repository ${many ? 'secrets' : 'secret'} ${keys} with ${many ? 'current keys' : 'a current key'} allowed to use the model`
          ]
        : []),
      ...(missing
        ? [
            "adds the missing keys as repository secrets and passes them in the workflow's `env` (or names only judges with a key)"
          ]
        : [])
    ]
    return `A maintainer ${steps.join(' and ')}, then comments \`/council rerun\`.${missing ? ` ${FORK_SECRETS}` : ''}`
  }
  const steps = [
    ...(refused.length > 0
      ? [
          `replace the ${many ? 'keys' : 'key'} in ${keys} with ${many ? 'current ones' : 'a current one'} allowed to use the model`
        ]
      : []),
    ...(missing
      ? [
          'set the missing keys in your environment, or name only judges whose key you have (`--models` or the rubric’s `council.models`)'
        ]
      : [])
  ]
  const said = steps.join('; ')
  return `${said.charAt(0).toUpperCase()}${said.slice(1)}, and run \`rubric-council check\` again.`
}
