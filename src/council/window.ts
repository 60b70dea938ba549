import { countTokens } from '../evidence/tokens.js'
import { parseModelId } from '../rubric/model-id.js'
import type { Rubric } from '../rubric/types.js'
import { formatCount } from '../util/format-count.js'
import { lifecycle, modelRow } from './models.js'
import { standingParts } from './prompt.js'
import { answerCap, MAX_ANSWER_TOKENS } from './member-settings.js'
import { REPAIR_ROOM_TOKENS, TOKENIZER_MARGIN } from './providers/common.js'
import { providerOf } from './providers/index.js'

/**
 * How a judge's context window is shared (docs/council.md#the-rubrics-size): the answer's room
 * (`MAX_ANSWER_TOKENS`), the instructions with the rubric, and the evidence. The evidence budget
 * (`max-evidence-tokens`) is lowered to what the smallest known window leaves beside the answer and
 * `RUBRIC_ROOM_TOKENS`; a rubric is refused when, with the instructions, it takes more than the
 * window leaves beside the answer and that budget. So a rubric within `RUBRIC_ROOM_TOKENS` fits
 * any window the table knows, and a larger one fits where the evidence budget leaves it room.
 */

/**
 * What the prompt keeps for the instructions and the rubric whatever the evidence budget; also
 * the most they may take when no member's window is known.
 */
export const RUBRIC_ROOM_TOKENS = 16_000

/** What a prompt holds beside the evidence at least: instructions and rubric, and the answer. */
const PROMPT_RESERVE_TOKENS = RUBRIC_ROOM_TOKENS + MAX_ANSWER_TOKENS

/** What a prompt holds beside the instructions, rubric and evidence: the run's and the judge's parts. */
const RUN_ROOM_TOKENS = 1000

/** A member's context window in tokens, as the model table gives it; undefined if unknown. */
function tableWindow(member: string): number | undefined {
  const parsed = parseModelId(member)
  if (!parsed.ok || providerOf(parsed.value).tableModels === undefined) return undefined
  // As the table writes it (`gpt-5.4-mini`), or a Claude version dotted by OpenRouter (`4.6`).
  return modelRow(parsed.value.model)?.contextWindow
}

/**
 * The evidence a member's window leaves room for (never below 0), or undefined when its window is
 * not known. The window it is known to have (`known`: declared, or reported by its server, as the
 * council's `window` gives it) is shared by our count, less `TOKENIZER_MARGIN`: its answer's cap,
 * the instructions with the rubric, the run's parts, and the evidence; else the model table's
 * window, with the room every prompt keeps.
 */
export function evidenceRoom(rubric: Rubric, member: string, known?: number): number | undefined {
  if (known === undefined) {
    const window = tableWindow(member)
    return window === undefined ? undefined : window - PROMPT_RESERVE_TOKENS
  }
  const room =
    Math.floor((known - answerCap(rubric, member, known)) / TOKENIZER_MARGIN) -
    rubricPromptTokens(rubric) -
    RUN_ROOM_TOKENS -
    REPAIR_ROOM_TOKENS
  return Math.max(0, room)
}

/** Those that may be asked on `today` (epoch ms): members and reserves, less the retired. */
export function askedModels(
  members: readonly string[],
  reserve: readonly string[],
  today: number
): readonly string[] {
  // A retired member is not asked: its window bounds nothing. A reserve may be asked with the
  // same evidence: its window bounds it too.
  return [...members, ...reserve].filter(m => lifecycle(m, today).state !== 'retired')
}

/** The smallest known window among `asked`, and whose it is. */
function smallestWindow(
  asked: readonly string[]
): { readonly member: string; readonly tokens: number } | undefined {
  let smallest: { member: string; tokens: number } | undefined
  for (const member of asked) {
    const tokens = tableWindow(member)
    if (tokens !== undefined && (smallest === undefined || tokens < smallest.tokens))
      smallest = { member, tokens }
  }
  return smallest
}

/** The tokens of the prompt's parts the pull request brings nothing to: instructions and rubric. */
export function rubricPromptTokens(rubric: Rubric): number {
  return standingParts(rubric)
    .map(countTokens)
    .reduce((a, b) => a + b, 0)
}

/**
 * Why `rubric` does not fit the context windows of `asked` with `evidenceBudget` tokens of
 * evidence (the `max-evidence-tokens` budget), as a sentence with what to do; undefined when it fits.
 */
export function rubricTooLarge(
  rubric: Rubric,
  asked: readonly string[],
  evidenceBudget: number
): string | undefined {
  const tokens = rubricPromptTokens(rubric)
  // Within the room every prompt keeps for it, a rubric fits any window the table knows.
  if (tokens <= RUBRIC_ROOM_TOKENS) return undefined
  const size = `the rubric takes about ${formatCount(tokens)} tokens of the judges' prompt (with their instructions)`
  const todo =
    'shorten it (its notes, its descriptions), split it into rubrics for parts of the repository (`paths`, in .github/rubrics/)'
  const window = smallestWindow(asked)
  if (window === undefined) {
    return `${size}; with the context window of no member known, it may take ${formatCount(RUBRIC_ROOM_TOKENS)} (docs/council.md#the-rubrics-size): ${todo}, or name members whose windows the model table knows`
  }
  const evidence = Math.min(evidenceBudget, window.tokens - PROMPT_RESERVE_TOKENS)
  const room = window.tokens - MAX_ANSWER_TOKENS - evidence
  if (tokens <= room) return undefined
  return (
    `${size}; the smallest context window of the council, ${window.member}'s ${formatCount(window.tokens)} tokens, ` +
    `leaves it ${formatCount(room)} beside ${formatCount(evidence)} for the evidence and ${formatCount(MAX_ANSWER_TOKENS)} for the answer: ` +
    `${todo}, give the council models with larger windows, or lower max-evidence-tokens`
  )
}

/**
 * Why a judge's prompt does not fit its context window: whose, how large each is, what to do. The
 * window is the one the rubric declares (`window`) or the provider reported.
 */
export function overflowSentence(
  judge: string,
  sizes: { readonly window: number; readonly promptTokens: number; readonly cap: number }
): string {
  const { window, promptTokens, cap } = sizes
  return `the prompt (about ${formatCount(promptTokens)} tokens by our count), the ${formatCount(cap)} kept for the answer and the ${formatCount(REPAIR_ROOM_TOKENS)} for a repair do not fit ${judge}'s context window of ${formatCount(window)} tokens; re-running will not help: lower max-evidence-tokens, or give ${judge} a larger window (council.models: [{ model, window }])`
}
